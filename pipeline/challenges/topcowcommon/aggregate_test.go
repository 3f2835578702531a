package topcowcommon

import (
	"errors"
	"testing"

	"github.com/rexmle/rexmle/metrics/stats"
	"github.com/rexmle/rexmle/pipeline/challenge"
)

// In the reference mode the graph accuracy is the balanced accuracy of
// "correct" truths against correct/incorrect predictions: recomputed per
// resample from the per-case topology indicators, it must equal
// stats.BalancedAccuracy on the resampled labels.
func TestCaseStatisticGraphAccuracy(t *testing.T) {
	match := []bool{true, false, true, true, false}
	cases := make([]challenge.Case, len(match))
	for i, m := range match {
		v := 0.0
		if m {
			v = 1
		}
		cases[i] = challenge.Case{ID: string(rune('a' + i)), Values: map[string]float64{"anterior_topology": v, "posterior_topology": 1 - v}}
	}
	c := Challenge{Config{ID: "topcow-track1-task1"}}
	f, err := c.CaseStatistic("anterior_graph_acc", cases)
	if err != nil || f == nil {
		t.Fatal(err)
	}
	for _, idx := range [][]int{{0, 1, 2, 3, 4}, {1, 1, 4, 0}, {2, 2, 3}} {
		var yt, yp []string
		for _, i := range idx {
			yt = append(yt, "correct")
			if match[i] {
				yp = append(yp, "correct")
			} else {
				yp = append(yp, "incorrect")
			}
		}
		want, _ := stats.BalancedAccuracy(yt, yp)
		if got := f(idx); got != want {
			t.Errorf("resample %v: %v, balanced accuracy %v", idx, got, want)
		}
	}
	if g, err := c.CaseStatistic("f1_grp2", cases); g != nil || !errors.Is(err, challenge.ErrNotAMean) {
		t.Errorf("f1_grp2 must be unavailable: %v", err)
	}
	if g, err := c.CaseStatistic("dice", cases); g != nil || err != nil {
		t.Error("dice is a mean over cases")
	}
}
