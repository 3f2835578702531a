package topcowcommon

import (
	"math/rand/v2"
	"testing"
)

// numpyMean25 are np.mean of 25 values the reference averages over cases,
// summed the way numpy does (eight stride-8 lanes combined pairwise, then
// the remainder): it differs from a running sum in the last bits. The
// expected value is built here from that definition, independently of
// metrics/stats.
func numpyMean25(v []float64) float64 {
	var r [8]float64
	for i := 0; i < 8; i++ {
		r[i] = v[i]
	}
	i := 8
	for ; i+8 <= len(v); i += 8 {
		for k := 0; k < 8; k++ {
			r[k] += v[i+k]
		}
	}
	s := ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
	for ; i < len(v); i++ {
		s += v[i]
	}
	return s / float64(len(v))
}

// Issue 17: TopCoW's averages are numpy's, not a running sum (the running
// sum disagreed with np.mean in about half of random 25-value inputs).
func TestMeanIsNumpys(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	naiveDiffers := 0
	for trial := 0; trial < 200; trial++ {
		v := make([]float64, 25)
		naive := 0.0
		for i := range v {
			v[i] = rng.Float64() * 90
			naive += v[i]
		}
		naive /= 25
		want := numpyMean25(v)
		if got := mean(v); got != want {
			t.Fatalf("trial %d: mean = %v, numpy gives %v", trial, got, want)
		}
		if naive != want {
			naiveDiffers++
		}
	}
	if naiveDiffers == 0 {
		t.Fatal("the running sum never differed: the test cannot tell the two apart")
	}
	if mean(nil) != 0 {
		t.Error("mean of no values is not 0")
	}
}
