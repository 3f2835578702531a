package panthercommon

import (
	"math"
	"testing"

	"github.com/rexmle/rexmle/pipeline/challenge"
)

func TestCaseStatisticRMSE(t *testing.T) {
	cases := []challenge.Case{
		{ID: "a", Values: map[string]float64{CaseBurden: 3, MetricDSC: 0.8}},
		{ID: "b", Values: map[string]float64{CaseBurden: 4, MetricDSC: 0.6}},
	}
	c := Challenge{Task: Task{ID: "panther-task1"}}
	f, err := c.CaseStatistic(MetricRMSE, cases)
	if err != nil || f == nil {
		t.Fatal(err)
	}
	// √((9+16)/2) and, for the resample {b, b, a}, √((16+16+9)/3).
	if got := f([]int{0, 1}); got != math.Sqrt(12.5) {
		t.Errorf("rmse %v", got)
	}
	if got := f([]int{1, 1, 0}); got != math.Sqrt(41.0/3) {
		t.Errorf("rmse of a resample %v", got)
	}
	if g, err := c.CaseStatistic(MetricDSC, cases); g != nil || err != nil {
		t.Error("DSC is a mean over cases: no special aggregation")
	}
}
