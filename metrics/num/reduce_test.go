package num

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestPercentile(t *testing.T) {
	cases := []struct {
		v    []float64
		q    float64
		want float64
	}{
		{[]float64{1, 2, 3, 4, 5}, 50, 3},
		{[]float64{1, 2, 3, 4}, 50, 2.5},
		{[]float64{4, 1, 3, 2}, 100, 4},
		{[]float64{4, 1, 3, 2}, 0, 1},
		{[]float64{0, 10}, 95, 9.5},
		{[]float64{7}, 95, 7},
		{[]float64{0, 0, 0, 1}, 95, 0.8499999999999996}, // pos 2.8499999999999996, 1 − 1·(1 − t)
		{[]float64{1, math.Inf(1)}, 100, math.NaN()},    // numpy: Inf − Inf
		{[]float64{1, math.Inf(1)}, 50, math.NaN()},     // t = 0.5 takes the b − Δ(1−t) branch
		{[]float64{1, math.Inf(1)}, 25, math.Inf(1)},
		{nil, 95, math.NaN()},
	}
	for _, c := range cases {
		got := Percentile(c.v, c.q)
		if !(got == c.want || (math.IsNaN(got) && math.IsNaN(c.want))) {
			t.Errorf("Percentile(%v, %v) = %v, want %v", c.v, c.q, got, c.want)
		}
	}
	// 20 values: pos 18.05, t = 0.05000000000000071 (spec C-6.5).
	v := make([]float64, 20)
	for i := range v {
		v[i] = float64(i)
	}
	if got := Percentile(v, 95); got != 18.05000000000000071 {
		t.Errorf("20-value percentile %v", got)
	}
	// float32 difference: Δ rounded to float32.
	a, b := float64(float32(0.1)), float64(float32(2.3))
	want := a + float64(float32(b-a))*0.5
	if got := PercentileFloat32([]float64{b, a}, 50); got != b-float64(float32(b-a))*0.5 && got != want {
		t.Errorf("float32 percentile %v", got)
	}
	if !math.IsNaN(Mean(nil)) {
		t.Errorf("empty Mean should be NaN")
	}
	if Mean([]float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}) != 5.5 {
		t.Errorf("Mean")
	}
}

// TestPercentileSortedMatches checks the sorted entry point against the
// copying one on random data, and the float32 variant's rounding of Δ.
func TestPercentileSortedMatches(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for it := 0; it < 500; it++ {
		v := make([]float64, 1+r.IntN(40))
		for i := range v {
			v[i] = r.NormFloat64() * 10
		}
		q := r.Float64() * 100
		s := slices.Clone(v)
		slices.Sort(s)
		if a, b := Percentile(v, q), PercentileSorted(s, q); a != b {
			t.Fatalf("Percentile %v != PercentileSorted %v (q %v)", a, b, q)
		}
	}
	if !math.IsNaN(PercentileSorted(nil, 50)) {
		t.Error("empty sorted percentile should be NaN")
	}
}

// TestMedian is numpy.median: odd and even counts, unsorted input left
// alone, NaN propagation, empty input.
func TestMedian(t *testing.T) {
	cases := []struct {
		v    []float64
		want float64
	}{
		{[]float64{3, 1, 2}, 2},
		{[]float64{4, 1, 3, 2}, 2.5},
		{[]float64{1e308, 1e308}, math.Inf(1)}, // (a+b)/2 overflows as in numpy
		{[]float64{-1, math.Inf(1)}, math.Inf(1)},
		{[]float64{1, math.NaN(), 3}, math.NaN()},
		{nil, math.NaN()},
		{[]float64{0.1, 0.2}, 0.15000000000000002}, // numpy: (0.1+0.2)/2 in float64
	}
	for _, c := range cases {
		in := slices.Clone(c.v)
		got := Median(in)
		if !(got == c.want || (math.IsNaN(got) && math.IsNaN(c.want))) {
			t.Errorf("Median(%v) = %v, want %v", c.v, got, c.want)
		}
		if !slices.EqualFunc(in, c.v, func(a, b float64) bool { return a == b || (math.IsNaN(a) && math.IsNaN(b)) }) {
			t.Errorf("Median modified its input %v", c.v)
		}
	}
}
