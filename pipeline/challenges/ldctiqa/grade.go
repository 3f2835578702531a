package ldctiqa

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/rexmle/rexmle/metrics/stats"
	"github.com/rexmle/rexmle/pipeline/challenge"
)

const submissionFile = "submission.csv"

// idKind is the dtype pandas' read_csv infers for an id column.
type idKind int

const (
	idText    idKind = iota // object: compared as strings
	idNumeric               // int64 or float64: compared as numbers
)

// mergeKeys turns an id column into merge keys the way pandas infers its
// dtype and merges on it. Fields pandas reads as missing (its default NA
// strings: "", "NA", "null", "nan", …) are NaN and match no test id. A
// column whose every other value parses as a number (integers, decimals
// such as "0.0", exponents, "inf"; surrounding blanks ignored, as pandas'
// number parser does) is numeric, and numeric keys match by value, so 7,
// 7.0 and " 0007" are one id while 7.5 is another (pandas merges int64
// with float64 keys by value); any other column is text, matched exactly
// as written (pandas keeps the blanks of a text field).
func mergeKeys(values []string) ([]string, idKind) {
	out := make([]string, len(values))
	allInt := true
	for i, v := range values {
		if challenge.PandasNA(v) {
			out[i] = challenge.PandasNAKey
			continue
		}
		out[i] = strings.TrimSpace(v)
		if allInt {
			_, allInt = parseDecimalInt(out[i])
		}
	}
	text := func() ([]string, idKind) {
		for i, v := range values {
			if out[i] != challenge.PandasNAKey {
				out[i] = v
			}
		}
		return out, idText
	}
	if len(values) == 0 {
		return out, idText
	}
	if allInt {
		for i, v := range out {
			if v != challenge.PandasNAKey {
				out[i] = canonicalInt(v)
			}
		}
		return out, idNumeric
	}
	nums := make([]float64, len(out))
	for i, v := range out {
		if v == challenge.PandasNAKey {
			continue
		}
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || v == "" || math.IsNaN(f) {
			return text()
		}
		nums[i] = f
	}
	for i, f := range nums {
		switch {
		case out[i] == challenge.PandasNAKey:
		case f == math.Trunc(f) && math.Abs(f) < 1<<63:
			out[i] = strconv.FormatInt(int64(f), 10)
		default:
			out[i] = strconv.FormatFloat(f, 'g', -1, 64)
		}
	}
	return out, idNumeric
}

// parseDecimalInt is strconv.ParseInt(s, 10, 64) without the error value:
// an optional sign, one or more ASCII digits, within int64.
func parseDecimalInt(s string) (int64, bool) {
	neg := false
	if s != "" && (s[0] == '+' || s[0] == '-') {
		neg = s[0] == '-'
		s = s[1:]
	}
	if s == "" {
		return 0, false
	}
	var u uint64
	for i := 0; i < len(s); i++ {
		d := s[i] - '0'
		if d > 9 || u > (1<<64-1)/10 {
			return 0, false
		}
		u = u*10 + uint64(d)
		if u < uint64(d) {
			return 0, false
		}
	}
	switch {
	case !neg && u <= math.MaxInt64:
		return int64(u), true
	case neg && u <= 1<<63:
		return int64(-u), true
	}
	return 0, false
}

// canonicalInt is what strconv.FormatInt writes for the value of the
// integer text s (as parseDecimalInt accepts it): no '+', no leading zero,
// no "-0" — a part of s where it can be.
func canonicalInt(s string) string {
	neg := s[0] == '-'
	if s[0] == '+' || neg {
		s = s[1:]
	}
	for len(s) > 1 && s[0] == '0' {
		s = s[1:]
	}
	if neg && s != "0" {
		return "-" + s
	}
	return s
}

// parseScore parses a quality score as pandas' float parser would, refusing
// empty, NaN and infinite values.
func parseScore(s string) (float64, error) {
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not a number", s)
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("%q is not finite", s)
	}
	return v, nil
}

// Grade joins submission.csv with the private scores on image_id (pandas
// id inference on both sides) and correlates the pooled predictions with the
// truth. Both modes score alike; official mode also refuses ids that are
// not test cases (the common id rule, quirk "id-rule").
func (Challenge) Grade(ctx context.Context, submissionDir, privateDir string, mode challenge.Mode) (*challenge.Result, error) {
	ansIDsRaw, ansScoresRaw, err := readAnswerColumns(privateDir)
	if err != nil {
		return nil, err
	}
	subIDsRaw, subScoresRaw, err := readSubmissionColumns(submissionDir, len(ansIDsRaw))
	if err != nil {
		return nil, err
	}
	ansIDs, ansKind := mergeKeys(ansIDsRaw)
	subIDs, subKind := mergeKeys(subIDsRaw)
	if ansKind != subKind {
		return nil, challenge.Invalidf(submissionFile, colID, "image_id values must have the same form as the test ids (numbers: %v); pandas cannot merge integer or decimal ids with text ids", ansKind == idNumeric)
	}
	if mode == challenge.Official {
		// The common id rule: every test case exactly once, nothing else.
		if err := challenge.CheckIDs(submissionFile, colID, subIDs, subIDsRaw, ansIDs, challenge.StrictIDs); err != nil {
			return nil, err
		}
	}

	// pandas' inner merge of the test rows with the submission on the id:
	// each test row (in order) pairs with every submission row of its id
	// (in their order); the reference only asks that there be as many
	// pairs as test rows, so a repeated id can make up for a missing one.
	pairs, repeated, err := challenge.InnerMerge(submissionFile, colID, ansIDs, ansIDsRaw, subIDs)
	if err != nil {
		return nil, err
	}
	res := &challenge.Result{Mode: mode}
	p, g, err := pairScores(res, pairs, ansIDsRaw, ansScoresRaw, subScoresRaw)
	if err != nil {
		return nil, err
	}
	if len(repeated) > 0 {
		res.Notes = append(res.Notes, fmt.Sprintf("duplicate image_id paired with its test image once per row, as the reference's merge does (a missing image made up the count): %s", strings.Join(repeated, ", ")))
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	plcc, err := stats.Pearson(p, g)
	if err != nil {
		return nil, challenge.Invalidf(submissionFile, "", "cannot correlate: %v", err)
	}
	srocc, krocc, _ := stats.RankCorrelations(p, g)
	plcc, srocc, krocc = math.Abs(plcc), math.Abs(srocc), math.Abs(krocc)
	res.Set("score", plcc+srocc+krocc)
	res.Set("plcc", plcc)
	res.Set("srocc", srocc)
	res.Set("krocc", krocc)
	if math.IsNaN(plcc + srocc + krocc) {
		res.Notes = append(res.Notes, "correlations are undefined (NaN) because the predictions or the truths are constant; the reference grader still reports such a submission as valid, with a NaN score and no rank")
	}
	return res, nil
}

// readAnswerColumns reads the test ids and their quality scores.
func readAnswerColumns(privateDir string) (ids, scores []string, err error) {
	ans, err := challenge.ReadCSV(filepath.Join(privateDir, "test_labels.csv"))
	if err != nil {
		return nil, nil, fmt.Errorf("read answers: %w", err)
	}
	if ids, err = ans.Column(colID); err != nil {
		return nil, nil, fmt.Errorf("answers: %w", err)
	}
	if scores, err = ans.Column(colScore); err != nil {
		return nil, nil, fmt.Errorf("answers: %w", err)
	}
	return ids, scores, nil
}

// readSubmissionColumns reads the submission's ids and scores, refusing
// a file with fewer rows than the nAns test rows, a missing column, or a
// column the reference's merge would clash with.
func readSubmissionColumns(submissionDir string, nAns int) (ids, scores []string, err error) {
	f, err := challenge.OpenInside(submissionDir, submissionFile, "")
	if err != nil {
		return nil, nil, err
	}
	sub, err := challenge.ParseCSV(f, submissionFile)
	f.Close()
	if err != nil {
		return nil, nil, challenge.Invalidf(submissionFile, "", "cannot parse CSV: %v", err)
	}
	if err := challenge.RequireRows(sub, submissionFile, nAns); err != nil {
		return nil, nil, err
	}
	if ids, err = sub.Column(colID); err != nil {
		return nil, nil, challenge.Invalidf(submissionFile, colID, "missing required column %q (the header must name %s and %s)", colID, colID, colScore)
	}
	if scores, err = sub.Column(colScore); err != nil {
		return nil, nil, challenge.Invalidf(submissionFile, colScore, "missing required column %q (the header must name %s and %s)", colScore, colID, colScore)
	}
	// The merge names the two score columns quality_score_gt and
	// quality_score_pred; a submission column of either name makes pandas
	// refuse the duplicate (or the reference read a frame, not a column).
	for _, h := range sub.Header {
		if h == colScore+"_gt" || h == colScore+"_pred" {
			return nil, nil, challenge.Invalidf(submissionFile, h, "column %q clashes with the reference's merge of the %s columns; remove it", h, colScore)
		}
	}
	return ids, scores, nil
}

// pairScores parses the predicted and true score of every merged pair
// (p and g, in pair order) and adds each pair as a case of res.
func pairScores(res *challenge.Result, pairs []challenge.MergePair, ansIDsRaw, ansScoresRaw, subScoresRaw []string) (p, g []float64, err error) {
	p = make([]float64, 0, len(pairs))
	g = make([]float64, 0, len(pairs))
	res.Cases = make([]challenge.Case, 0, len(pairs))
	caseIDs := make([]string, 0, len(pairs))
	for _, pr := range pairs {
		i, k := pr.Test, pr.Row
		v, err := parseScore(subScoresRaw[k])
		if err != nil {
			return nil, nil, challenge.Invalidf(submissionFile, fmt.Sprintf("row %d, %s", k+2, colScore), "%v", err)
		}
		gv, err := strconv.ParseFloat(strings.TrimSpace(ansScoresRaw[i]), 64)
		if err != nil {
			return nil, nil, fmt.Errorf("answers row %d: %w", i+2, err)
		}
		p, g = append(p, v), append(g, gv)
		caseIDs = append(caseIDs, ansIDsRaw[i])
		res.Cases = append(res.Cases, challenge.Case{Values: map[string]float64{
			"prediction": v, "truth": gv, "abs_error": math.Abs(v - gv),
		}})
	}
	for i, id := range challenge.DistinctCaseIDs(caseIDs) {
		res.Cases[i].ID = id
	}
	return p, g, nil
}
