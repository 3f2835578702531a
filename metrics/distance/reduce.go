package distance

import (
	"math"

	"github.com/rexmle/rexmle/metrics/num"
)

// Max is the largest value (NaN if the list is empty or holds a NaN).
func Max(values []float64) float64 {
	if len(values) == 0 {
		return math.NaN()
	}
	m := math.Inf(-1)
	for _, x := range values {
		if math.IsNaN(x) {
			return math.NaN()
		}
		if x > m {
			m = x
		}
	}
	return m
}

func pairwiseSum(a []float64) float64 { return num.PairwiseSum(a) }
