package distance

import (
	"math"
	"slices"

	"github.com/rexmle/rexmle/metrics/num"
)

// PercentileLinear is numpy.percentile(values, q) with the default "linear"
// method on a float64 array: sort v; pos = (n−1)·(q/100); for
// pos ≥ n−1 both neighbours are v[n−1] and t = pos+1 (numpy's index
// bookkeeping), for pos < 0 both are v[0], otherwise lo = floor(pos),
// a = v[lo], b = v[lo+1], t = pos − lo; Δ = b − a; the result is a + Δ·t if
// t < 0.5, else b − Δ·(1 − t). Consequences kept from numpy: q = 100 gives the
// maximum, but +Inf at an interpolation end point gives NaN (Inf − Inf).
// It returns NaN for an empty list or when a value is NaN. values is not
// modified.
func PercentileLinear(values []float64, q float64) float64 {
	return percentile(values, q, false)
}

// PercentileLinearFloat32 is numpy.percentile under numpy 1.x on a float32
// array (values must be float32-representable, e.g. distances cast with
// float64(float32(d))): as PercentileLinear, but the difference Δ = b − a is
// rounded to float32 while the rest stays float64.
func PercentileLinearFloat32(values []float64, q float64) float64 {
	return percentile(values, q, true)
}

func percentile(values []float64, q float64, f32 bool) float64 {
	n := len(values)
	if n == 0 {
		return math.NaN()
	}
	v := slices.Clone(values)
	for _, x := range v {
		if math.IsNaN(x) {
			return math.NaN()
		}
	}
	slices.Sort(v)
	pos := float64(n-1) * (q / 100)
	var a, b, prev float64
	switch {
	case pos >= float64(n-1):
		a, b, prev = v[n-1], v[n-1], -1
	case pos < 0:
		a, b, prev = v[0], v[0], 0
	default:
		prev = math.Floor(pos)
		lo := int(prev)
		a, b = v[lo], v[lo+1]
	}
	t := pos - prev
	diff := b - a
	if f32 {
		diff = float64(float32(diff))
	}
	if t >= 0.5 {
		return b - diff*(1-t)
	}
	return a + diff*t
}

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

// pairwiseSum adds like numpy's float64 add.reduce on a contiguous array.
func pairwiseSum(a []float64) float64 { return num.PairwiseSum(a) }
