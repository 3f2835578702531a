package challenge

import "strconv"

// DistinctCaseIDs names the graded rows of a submission as stored cases.
// The store keys per-case values by case id, so rows that repeat an id (a
// grader that scores every row, as several reference graders do) would
// collapse into one stored case and the mean of the stored values would no
// longer reproduce the graded value. The first row of an id keeps it; the
// k-th (k ≥ 2) becomes "<id>#k", or "<id>#k#2", … when that name is itself
// taken by another row or an earlier renaming. Without repeats ids is
// returned unchanged (not copied).
func DistinctCaseIDs(ids []string) []string {
	seen := make(map[string]bool, len(ids))
	dup := false
	for _, id := range ids {
		if seen[id] {
			dup = true
			break
		}
		seen[id] = true
	}
	if !dup {
		return ids
	}
	taken := make(map[string]bool, len(ids))
	for _, id := range ids {
		taken[id] = true
	}
	count := make(map[string]int, len(ids))
	out := make([]string, len(ids))
	for i, id := range ids {
		count[id]++
		if count[id] == 1 {
			out[i] = id
			continue
		}
		name := id + "#" + strconv.Itoa(count[id])
		for taken[name] {
			name += "#2"
		}
		taken[name] = true
		out[i] = name
	}
	return out
}
