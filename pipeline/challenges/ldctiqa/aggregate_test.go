package ldctiqa

import (
	"errors"
	"math"
	"testing"

	"github.com/rexmle/rexmle/metrics/stats"
	"github.com/rexmle/rexmle/pipeline/challenge"
)

func TestCaseStatisticCorrelations(t *testing.T) {
	pred := []float64{0.1, 1.2, 0.9, 2.8, 2.1, 3.5}
	truth := []float64{0, 1, 1, 3, 2, 4}
	cases := make([]challenge.Case, len(pred))
	for i := range pred {
		cases[i] = challenge.Case{ID: string(rune('a' + i)), Values: map[string]float64{"prediction": pred[i], "truth": truth[i]}}
	}
	score, err := Challenge{}.CaseStatistic("score", cases)
	if err != nil {
		t.Fatal(err)
	}
	// A resample with repeats is the correlation of the repeated arrays.
	idx := []int{0, 0, 3, 5, 2, 2, 1}
	var p, g []float64
	for _, i := range idx {
		p, g = append(p, pred[i]), append(g, truth[i])
	}
	r, _ := stats.Pearson(p, g)
	rho, _ := stats.Spearman(p, g)
	tau, _ := stats.KendallTauB(p, g)
	if got, want := score(idx), math.Abs(r)+math.Abs(rho)+math.Abs(tau); got != want {
		t.Errorf("score %v, want %v", got, want)
	}
	plcc, _ := Challenge{}.CaseStatistic("plcc", cases)
	if got := plcc(idx); got != math.Abs(r) {
		t.Errorf("plcc %v, want %v", got, math.Abs(r))
	}
	// A resample of one slice repeated has constant predictions: NaN, as Grade gives.
	if got := score([]int{4, 4, 4}); !math.IsNaN(got) {
		t.Errorf("constant resample: %v, want NaN", got)
	}
	if _, err := (Challenge{}).CaseStatistic("score", []challenge.Case{{ID: "x", Values: map[string]float64{"abs_error": 1}}}); !errors.Is(err, challenge.ErrNotAMean) {
		t.Errorf("missing prediction/truth: %v", err)
	}
}
