package medseg

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestEachRunStartAndMaskOf: the word-skipping byte paths visit and mask
// what the plain loops do, on runs of random lengths around the word size.
func TestEachRunStartAndMaskOf(t *testing.T) {
	rng := rand.New(rand.NewPCG(51, 52))
	for it := 0; it < 3000; it++ {
		var b []uint8
		for len(b) < rng.IntN(80) {
			v := uint8(rng.IntN(4))
			for k := rng.IntN(20); k >= 0; k-- {
				b = append(b, v)
			}
		}
		f := make([]float64, len(b))
		for i, x := range b {
			f[i] = float64(x)
		}
		var want, gotB, gotF []float64
		for i, x := range b {
			if i == 0 || x != b[i-1] {
				want = append(want, float64(x))
			}
		}
		EachRunStart(b, func(x uint8) { gotB = append(gotB, float64(x)) })
		EachRunStart(f, func(x float64) { gotF = append(gotF, x) })
		if !slices.Equal(gotB, want) || !slices.Equal(gotF, want) {
			t.Fatalf("%v: runs %v (bytes), %v (float), want %v", b, gotB, gotF, want)
		}
		mb := MaskOf(b, func(x uint8) bool { return x == 1 || x == 3 })
		mf := MaskOf(f, func(x float64) bool { return x == 1 || x == 3 })
		for i, x := range b {
			if mb[i] != (x == 1 || x == 3) || mf[i] != mb[i] {
				t.Fatalf("%v: masks differ at %d", b, i)
			}
		}
	}
}
