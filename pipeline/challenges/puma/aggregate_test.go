package puma

import (
	"testing"

	"github.com/rexmle/rexmle/pipeline/challenge"
)

// Track 2 leaves an image out of a class's mean when the class is absent
// from it; the macro F1 averages the per-class means over all scored
// classes (a class absent from every resampled image counts 0).
func TestCaseStatisticMacroF1(t *testing.T) {
	cases := []challenge.Case{
		{ID: "a", Values: map[string]float64{"f1_tumor": 0.8, "f1_lymphocytes": 0.4}},
		{ID: "b", Values: map[string]float64{"f1_tumor": 0.6}},
	}
	f, err := Track2Task2.CaseStatistic("f1", cases)
	if err != nil || f == nil {
		t.Fatal(err)
	}
	n := float64(len(track2Classes))
	// tumor: mean(0.8, 0.6) = 0.7; lymphocytes: 0.4 (only image a); the rest 0.
	if got, want := f([]int{0, 1}), (0.7+0.4)/n; abs(got-want) > 1e-15 {
		t.Errorf("macro F1 %v, want %v", got, want)
	}
	// Resample {b, b}: tumor 0.6, lymphocytes absent → 0.
	if got, want := f([]int{1, 1}), 0.6/n; abs(got-want) > 1e-15 {
		t.Errorf("macro F1 of a resample %v, want %v", got, want)
	}
	tum, _ := Track2Task2.CaseStatistic("f1_tumor", cases)
	if got := tum([]int{0, 0, 1}); abs(got-(0.8+0.8+0.6)/3) > 1e-15 {
		t.Errorf("f1_tumor %v", got)
	}
	if g, err := Track1Task1.CaseStatistic("dice", cases); g != nil || err != nil {
		t.Error("tissue dice is a mean over cases: no special aggregation")
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
