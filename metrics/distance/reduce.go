package distance

import (
	"math"
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
