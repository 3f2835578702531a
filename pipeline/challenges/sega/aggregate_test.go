package sega

import (
	"testing"

	"github.com/rexmle/rexmle/pipeline/challenge"
)

func TestCaseStatisticIsTheMedian(t *testing.T) {
	cases := []challenge.Case{
		{ID: "a", Values: map[string]float64{CaseHD: 4, CaseDSC: 0.9}},
		{ID: "b", Values: map[string]float64{CaseHD: 1, CaseDSC: 0.5}},
		{ID: "c", Values: map[string]float64{CaseHD: 9, CaseDSC: 0.7}},
	}
	hd, err := Challenge{}.CaseStatistic(MetricHD50, cases)
	if err != nil || hd == nil {
		t.Fatal(err)
	}
	// {4, 1, 9} → 4; the resample {b, b, c, a} = {1, 1, 9, 4} → (1+4)/2.
	if got := hd([]int{0, 1, 2}); got != 4 {
		t.Errorf("median HD %v, want 4", got)
	}
	if got := hd([]int{1, 1, 2, 0}); got != 2.5 {
		t.Errorf("median HD of a resample %v, want 2.5", got)
	}
	dsc, _ := Challenge{}.CaseStatistic(MetricDSC50, cases)
	if got := dsc([]int{2, 2, 1}); got != 0.7 {
		t.Errorf("median DSC %v, want 0.7", got)
	}
	if f, err := (Challenge{}).CaseStatistic(MetricHD50, []challenge.Case{{ID: "x", Values: map[string]float64{}}}); f != nil || err == nil {
		t.Error("a case without its HD must make the interval unavailable")
	}
}
