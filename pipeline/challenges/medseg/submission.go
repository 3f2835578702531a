package medseg

import (
	"fmt"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/rexmle/rexmle/pipeline/challenge"
)

// SubmissionFile is the manifest every segmentation submission carries.
const SubmissionFile = "submission.csv"

// Row is one row of a submission manifest: the case id as written, its
// normalised key (see IDKeys) and the prediction path as written.
type Row struct {
	Line int // 1-based data-row number, for messages
	ID   string
	Key  string
	Path string
}

// IDKeys normalises an id column the way pandas' read_csv inference makes
// values comparable: when every value parses as a number the column is
// numeric, so "10303", "010303" and "10303.0" share the key "10303";
// otherwise values are kept verbatim (pandas does not trim text cells).
func IDKeys(values []string) []string {
	out := make([]string, len(values))
	numeric := len(values) > 0
	nums := make([]float64, len(values))
	for i, v := range values {
		t := strings.TrimSpace(v)
		f, err := strconv.ParseFloat(t, 64)
		if err != nil || t == "" || strings.Trim(t, "0123456789+-.eE") != "" {
			numeric = false
			break
		}
		nums[i] = f
	}
	for i, v := range values {
		if numeric {
			out[i] = strconv.FormatFloat(nums[i], 'f', -1, 64)
		} else {
			out[i] = v
		}
	}
	return out
}

// ReadSubmission reads submissionDir/submission.csv and checks it against
// the answer ids: both columns must exist and the set of id keys must equal
// the set of answer keys (missing or unexpected ids make it invalid).
// Duplicated rows are kept: the reference evaluates every row. Keys are
// computed with key (IDKeys or verbatim) over the whole column, as pandas
// infers a column's type from all of its values.
func ReadSubmission(submissionDir, idCol, pathCol string, answerIDs []string, key func([]string) []string) ([]Row, error) {
	f, err := challenge.OpenInside(submissionDir, SubmissionFile, "")
	if err != nil {
		return nil, err
	}
	tab, err := challenge.ParseCSV(f, SubmissionFile)
	f.Close()
	if err != nil {
		return nil, challenge.Invalidf(SubmissionFile, "", "cannot parse CSV: %v", err)
	}
	ids, err := tab.Column(idCol)
	if err != nil {
		return nil, challenge.Invalidf(SubmissionFile, idCol, "required column missing (the header must name %s and %s)", idCol, pathCol)
	}
	paths, err := tab.Column(pathCol)
	if err != nil {
		return nil, challenge.Invalidf(SubmissionFile, pathCol, "required column missing (the header must name %s and %s)", idCol, pathCol)
	}
	keys := key(ids)
	wantKeys := key(answerIDs)
	want := map[string]bool{}
	for _, k := range wantKeys {
		want[k] = true
	}
	got := map[string]bool{}
	var extra []string
	rows := make([]Row, len(ids))
	for i := range ids {
		rows[i] = Row{Line: i + 1, ID: ids[i], Key: keys[i], Path: paths[i]}
		got[keys[i]] = true
		if !want[keys[i]] {
			extra = append(extra, strconv.Quote(ids[i]))
		}
	}
	var missing []string
	for i, k := range wantKeys {
		if !got[k] {
			missing = append(missing, answerIDs[i])
			got[k] = true // report each id once
		}
	}
	if len(missing) > 0 || len(extra) > 0 {
		sort.Strings(missing)
		var parts []string
		if len(missing) > 0 {
			parts = append(parts, "missing ids (every test case needs a row): "+clip(missing))
		}
		if len(extra) > 0 {
			parts = append(parts, "unexpected ids not in the test set: "+clip(extra))
		}
		return nil, challenge.Invalidf(SubmissionFile, idCol, "%s", strings.Join(parts, "; "))
	}
	return rows, nil
}

// CheckOfficialIDs applies the common id rule in official mode: every test
// case exactly once (challenge.StrictIDs). ReadSubmission already rejects
// missing and extra ids; what official mode adds is that a repeated id (which
// the reference grades twice, weighting that case double) is refused.
// Reference mode is left as the reference grader behaves.
func CheckOfficialIDs(rows []Row, idCol string, answerIDs []string, key func([]string) []string, mode challenge.Mode) error {
	if mode != challenge.Official {
		return nil
	}
	got, raw := make([]string, len(rows)), make([]string, len(rows))
	for i, r := range rows {
		got[i], raw[i] = r.Key, r.ID
	}
	return challenge.CheckIDs(SubmissionFile, idCol, got, raw, key(answerIDs), challenge.StrictIDs)
}

// Verbatim is the identity key function: ids compared as written.
func Verbatim(values []string) []string { return values }

func clip(items []string) string {
	if len(items) > 10 {
		return strings.Join(items[:10], ", ") + fmt.Sprintf(" … (%d in all)", len(items))
	}
	return strings.Join(items, ", ")
}

// Answers reads privateDir/test_labels.csv and returns the id column and
// the named path column, in file order.
func Answers(privateDir, idCol, pathCol string) (ids, paths []string, err error) {
	p := filepath.Join(privateDir, "test_labels.csv")
	tab, err := challenge.ReadCSV(p)
	if err != nil {
		return nil, nil, fmt.Errorf("read answers: %w", err)
	}
	if ids, err = tab.Column(idCol); err != nil {
		return nil, nil, fmt.Errorf("read answers: %w", err)
	}
	if paths, err = tab.Column(pathCol); err != nil {
		return nil, nil, fmt.Errorf("read answers: %w", err)
	}
	return ids, paths, nil
}

// CaseIDs names graded rows as stored cases: a repeated id's k-th row
// becomes "<id>#k" (challenge.DistinctCaseIDs), so the store keeps every
// scored row and the mean of the stored values reproduces the graded value.
func CaseIDs(rows []Row) []string {
	ids := make([]string, len(rows))
	for i, r := range rows {
		ids[i] = r.ID
	}
	return challenge.DistinctCaseIDs(ids)
}
