package challenge

import (
	"fmt"
	"strconv"
	"strings"
)

// IDRules is what a grader does with the id column of a submission: rows
// whose id repeats, ids that are not test cases, and test cases with no row.
// The common rule, StrictIDs, allows none of them: every test case exactly
// once and nothing else. A challenge departs from it only where its own
// evaluation does, and says so in its metric card or a quirk.
type IDRules struct {
	AllowDuplicates bool // a repeated id is accepted (the grader decides which row counts)
	AllowExtra      bool // ids that are not test cases are ignored
	AllowMissing    bool // test cases with no row are left out of the scores
}

// StrictIDs is the rule every challenge follows unless its card says otherwise.
var StrictIDs = IDRules{}

// CheckIDs applies rules to a submission's id column. got are the
// submission's ids in row order and want the test cases' ids, both already
// normalised the same way (see PandasIDs); raw, when not nil, holds got as
// written, for messages. Rows are numbered as lines of file (the header is
// line 1). The error is an *InvalidSubmission that names the column and lists
// at most a few offending ids, each clipped.
func CheckIDs(file, column string, got, raw, want []string, rules IDRules) error {
	if raw == nil {
		raw = got
	}
	// Ids are compared as multisets: a test set that lists an id twice (some
	// reference test sets do) wants it twice.
	wantN := make(map[string]int, len(want))
	for _, id := range want {
		wantN[id]++
	}
	gotN := make(map[string]int, len(got))
	firstRow := make(map[string]int, len(got))
	var dups, extra []string
	for i, id := range got {
		if wantN[id] == 0 {
			if !rules.AllowExtra {
				extra = append(extra, fmt.Sprintf("%s (line %d)", strconv.Quote(Clip(raw[i])), i+2))
			}
			continue
		}
		gotN[id]++
		if gotN[id] == 1 {
			firstRow[id] = i
		}
		if gotN[id] > wantN[id] && !rules.AllowDuplicates {
			dups = append(dups, fmt.Sprintf("%s (lines %d and %d)", strconv.Quote(Clip(raw[i])), firstRow[id]+2, i+2))
		}
	}
	var missing []string
	if !rules.AllowMissing {
		for _, id := range want {
			if gotN[id] < wantN[id] {
				missing = append(missing, strconv.Quote(Clip(id)))
				gotN[id] = wantN[id] // report each id once
			}
		}
	}
	var parts []string
	if len(missing) > 0 {
		parts = append(parts, fmt.Sprintf("missing %d of %d test cases (no row): %s", len(missing), len(want), listSome(missing)))
	}
	if len(dups) > 0 {
		parts = append(parts, fmt.Sprintf("%d duplicate ids, want each test case once: %s", len(dups), listSome(dups)))
	}
	if len(extra) > 0 {
		parts = append(parts, fmt.Sprintf("%d extra ids that are not test cases: %s", len(extra), listSome(extra)))
	}
	if len(parts) == 0 {
		return nil
	}
	return &InvalidSubmission{File: Clip(file), Field: Clip(column), Reason: strings.Join(parts, "; ")}
}

// listSome joins the first five items and says how many there were.
func listSome(items []string) string {
	const n = 5
	if len(items) <= n {
		return strings.Join(items, ", ")
	}
	return strings.Join(items[:n], ", ") + fmt.Sprintf(", … (%d in all)", len(items))
}

// RequireRows rejects a table with a header and no data rows with a message
// that says so (rather than an error from whatever check comes next);
// want is the number of test cases, for the message.
func RequireRows(t *Table, file string, want int) error {
	if len(t.Rows) > 0 {
		return nil
	}
	return Invalidf(file, "", "has a header (%s) but no rows; want one row per test case (%d)", strings.Join(t.Header, ","), want)
}

// IDRuleQuirkID is the id of the quirk IDRuleQuirk describes.
const IDRuleQuirkID = "id-rule"

// IDRuleQuirk is the quirk every challenge lists for its ids: reference
// says what the reference grader does with repeated, extra and missing ids;
// official mode follows the common rule (StrictIDs).
func IDRuleQuirk(reference string, metrics []string) Quirk {
	return Quirk{ID: IDRuleQuirkID, Metrics: metrics, Reference: reference,
		Official: "the common id rule: every test case exactly once and nothing else; a repeated id, an id that is not a test case or a missing test case makes the submission invalid"}
}

// RankedNames lists the names of the ranked metrics among cards.
func RankedNames(cards []MetricCard) []string {
	var out []string
	for _, m := range cards {
		if m.Ranked {
			out = append(out, m.Name)
		}
	}
	return out
}
