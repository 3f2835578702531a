package cellseg

import (
	"context"
	"math"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/rexmle/rexmle/metrics/num"
	"github.com/rexmle/rexmle/metrics/volume"
	"github.com/rexmle/rexmle/pipeline/challenge"
	"github.com/rexmle/rexmle/pipeline/challenge/challengetest"
)

// TestRepeatedIDsAreDistinctCases: the reference grades every row, so a
// repeated id weighs more; each row is stored as its own case (the k-th row
// of an id as "<id>#k"), and the mean of the stored cases, in the store's
// id order, reproduces every graded value, as the rank stage's bootstrap
// requires.
func TestRepeatedIDsAreDistinctCases(t *testing.T) {
	// Spec vectors E, C and A: per-image F1 (0.8, 0.8, 0.4, 0.4, 0.4),
	// (2/3, 0, 0, 0, 0) and (1, 1, 1, 0, 0).
	truths := []*volume.Volume{
		mask(12, 12, rect{1, 2, 4, 2, 4}, rect{2, 2, 4, 6, 8}, rect{3, 6, 8, 2, 4}),
		mask(10, 10, rect{1, 3, 6, 3, 6}),
		mask(10, 10, rect{1, 3, 6, 3, 6}),
	}
	preds := []*volume.Volume{
		mask(12, 12, rect{1, 2, 4, 2, 4}, rect{2, 2, 4, 6, 7}),
		mask(10, 10, rect{7, 3, 6, 3, 4}, rect{300, 3, 6, 5, 6}),
		mask(10, 10, rect{5, 3, 6, 3, 5}),
	}
	sub, priv := fixture(t, truths, preds)
	challengetest.EditCSV(t, filepath.Join(sub, submissionFile), func(h []string, rows [][]string) ([]string, [][]string) {
		return h, [][]string{rows[0], rows[1], rows[0], rows[2], rows[0]}
	})
	res, err := Challenge{}.Grade(context.Background(), sub, priv, challenge.Reference)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, c := range res.Cases {
		ids = append(ids, c.ID)
	}
	want := []string{"cell_00001", "cell_00002", "cell_00001#2", "cell_00003", "cell_00001#3"}
	if !reflect.DeepEqual(ids, want) {
		t.Fatalf("case ids %q, want %q", ids, want)
	}
	if len(res.Notes) == 0 || !strings.Contains(res.Notes[0], "<id>#k") {
		t.Errorf("notes %q: want the repeated-id note naming the stored cases", res.Notes)
	}
	// The repeated rows are the same case graded again.
	for _, m := range MetricNames {
		if res.Cases[2].Values[m] != res.Cases[0].Values[m] || res.Cases[4].Values[m] != res.Cases[0].Values[m] {
			t.Errorf("%s: repeated rows scored %v, %v, %v", m, res.Cases[0].Values[m], res.Cases[2].Values[m], res.Cases[4].Values[m])
		}
	}
	sorted := slices.Clone(res.Cases)
	slices.SortFunc(sorted, func(a, b challenge.Case) int { return strings.Compare(a.ID, b.ID) })
	distinct := map[float64]bool{}
	for _, m := range MetricNames {
		var col []float64
		for _, c := range sorted {
			col = append(col, c.Values[m])
			distinct[c.Values[m]] = true
		}
		got := num.Sum(col) / float64(len(col))
		if math.Abs(got-res.Values[m]) > 1e-12 {
			t.Errorf("%s: mean of the stored cases %v, graded %v", m, got, res.Values[m])
		}
	}
	if len(distinct) < 3 {
		t.Errorf("per-image F1 values %v: want a fixture where repeating a row changes the mean", distinct)
	}
	// Official mode refuses the repeats (the common id rule).
	if _, err := (Challenge{}).Grade(context.Background(), sub, priv, challenge.Official); err == nil || !strings.Contains(err.Error(), "duplicate") {
		t.Errorf("official mode: %v, want the duplicate ids refused", err)
	}
}
