package num

import (
	"math"
	"testing"
)

func TestPairwiseSum(t *testing.T) {
	for _, n := range []int{0, 1, 7, 8, 9, 127, 128, 129, 1000, 20000} {
		x := make([]float64, n)
		want := 0.0
		for i := range x {
			x[i] = float64(i%13) * 0.5 // exactly representable: every order gives the same sum
			want += x[i]
		}
		if got := PairwiseSum(x); got != want {
			t.Errorf("n=%d: %v, want %v", n, got, want)
		}
		if got := ChunkedPairwiseSum(x, NumpyBuffer); got != want {
			t.Errorf("chunked n=%d: %v, want %v", n, got, want)
		}
	}
	// The order matters where rounding does: 1e16 + 1 + 1 … sequentially loses the ones,
	// the pairwise tree keeps some of them.
	x := []float64{1e16, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}
	seq := 0.0
	for _, v := range x {
		seq += v
	}
	// Lanes: r0 = 1e16+1 (→1e16), r1..r7 = 2 each; ((1e16+2)+4)+(4+4) = 1e16+14 → exact, representable as even.
	if got := PairwiseSum(x); got != 1e16+14 || seq != 1e16 {
		t.Errorf("pairwise %v (want %v), sequential %v", got, 1e16+14, seq)
	}
	if f := PairwiseSum([]float32{1, 2, 3}); f != 6 {
		t.Errorf("float32: %v", f)
	}
	if !math.IsNaN(PairwiseSum([]float64{1, math.NaN()})) {
		t.Error("NaN must propagate")
	}
}

// TestPairwiseSumKeepsLaneOnes: 1e16 then fifteen ones. A sequential float64
// sum loses every one; the eight interleaved lanes keep the 14 that land in
// lanes 1–7 (1e16 + 14 is exact), as numpy does.
func TestPairwiseSumKeepsLaneOnes(t *testing.T) {
	x := make([]float64, 16)
	x[0] = 1e16
	for i := 1; i < 16; i++ {
		x[i] = 1
	}
	if got := PairwiseSum(x); got != 1e16+14 {
		t.Errorf("PairwiseSum = %v, want %v", got, 1e16+14)
	}
	if got := Sum(x); got != 1e16+14 {
		t.Errorf("Sum = %v, want %v", got, 1e16+14)
	}
	if PairwiseSum([]float64(nil)) != 0 || Sum([]float64(nil)) != 0 {
		t.Error("empty sum not 0")
	}
}
