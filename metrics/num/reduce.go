package num

import (
	"math"
	"slices"
)

// This file is the one home of the numpy reductions the graders reproduce:
// mean, percentile (default "linear" method) and median. Everything that
// reproduces numpy's np.mean / np.percentile / np.median calls these.

// Sum is numpy.sum of a contiguous float64 or float32 array, summed in its
// own type: numpy's reduction hands the inner loop NumpyBuffer (8192)
// elements at a time, sums each chunk pairwise (PairwiseSum) and carries a
// running total from 0 (ChunkedPairwiseSum). Checked against numpy on
// arrays longer than one chunk, where the chunking shows in the last bits.
func Sum[T Float](x []T) T { return ChunkedPairwiseSum(x, NumpyBuffer) }

// Mean is numpy.mean of a float64 array: Sum(x)/len(x); NaN for an empty
// array (numpy warns and returns nan); a NaN anywhere gives NaN.
func Mean(x []float64) float64 {
	if len(x) == 0 {
		return math.NaN()
	}
	return Sum(x) / float64(len(x))
}

// NaNMean is numpy.nanmean of a float64 array, which is also pandas'
// Series.mean (skipna=True, without bottleneck): the NaNs replaced by 0,
// summed as Sum, divided by the count of the other values; NaN when there
// are none. An infinity is a value (+Inf and −Inf together give NaN).
func NaNMean(x []float64) float64 {
	n := 0
	var zeroed []float64
	for i, v := range x {
		if !math.IsNaN(v) {
			n++
			continue
		}
		if zeroed == nil {
			zeroed = slices.Clone(x)
		}
		zeroed[i] = 0
	}
	if n == 0 {
		return math.NaN()
	}
	if zeroed == nil {
		return Sum(x) / float64(n)
	}
	return Sum(zeroed) / float64(n)
}

// Percentile is numpy.percentile(values, q) (q in percent) with the default
// "linear" method on a float64 array: sort; pos = (n−1)·(q/100); for
// pos ≥ n−1 both neighbours are v[n−1] and t = pos+1 (numpy's index
// bookkeeping), for pos < 0 both are v[0]; otherwise lo = ⌊pos⌋, a = v[lo],
// b = v[lo+1], t = pos − lo; Δ = b − a; the result is a + Δ·t if t < 0.5,
// else b − Δ·(1 − t). Kept from numpy: q = 100 gives the maximum, and +Inf
// at an interpolation end point gives NaN (Inf − Inf). NaN for an empty
// list or when a value is NaN. values is not modified.
func Percentile(values []float64, q float64) float64 {
	return percentile(values, q, false)
}

// PercentileFloat32 is numpy.percentile under numpy 1.x on a float32 array
// (values must be float32-representable, e.g. distances cast with
// float64(float32(d))): as Percentile, but Δ = b − a is rounded to float32
// while the rest stays float64.
func PercentileFloat32(values []float64, q float64) float64 {
	return percentile(values, q, true)
}

func percentile(values []float64, q float64, f32 bool) float64 {
	if len(values) == 0 {
		return math.NaN()
	}
	if anyNaN(values) {
		return math.NaN()
	}
	v := slices.Clone(values)
	slices.Sort(v)
	return percentileSorted(v, q, f32)
}

// PercentileSorted is Percentile of values already sorted ascending and
// free of NaN (not checked), without copying.
func PercentileSorted(sorted []float64, q float64) float64 {
	if len(sorted) == 0 {
		return math.NaN()
	}
	return percentileSorted(sorted, q, false)
}

// QuantileSorted is numpy.quantile(sorted, q) (q a fraction in [0, 1]) on
// values already sorted ascending and free of NaN: the interpolation of
// Percentile, without numpy.percentile's division of q by 100.
func QuantileSorted(sorted []float64, q float64) float64 {
	if len(sorted) == 0 {
		return math.NaN()
	}
	return quantileSorted(sorted, q, false)
}

func percentileSorted(v []float64, q float64, f32 bool) float64 {
	return quantileSorted(v, q/100, f32) // numpy.percentile divides q by 100, then takes the quantile
}

func quantileSorted(v []float64, q float64, f32 bool) float64 {
	n := len(v)
	pos := float64(n-1) * q
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

// Median is numpy.median of a float64 array: the middle value, or for an
// even count the mean of the two middle values, (a+b)/2; NaN for an empty
// array or when a value is NaN. values is not modified.
func Median(values []float64) float64 {
	n := len(values)
	if n == 0 {
		return math.NaN()
	}
	if anyNaN(values) {
		return math.NaN()
	}
	s := slices.Clone(values)
	slices.Sort(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

func anyNaN(values []float64) bool {
	for _, x := range values {
		if math.IsNaN(x) {
			return true
		}
	}
	return false
}
