package quality

import (
	"math"
	"testing"
)

// TestColsQuotient: the column kernel's float32 quotient is the
// reference's float32(float64(S)·(1/size)) for every window size SSIM8
// takes and every column sum S of 8-bit products (0 … 255²·size). The
// kernel is run with equal entering and leaving rows, so it emits the sums
// it is given.
func TestColsQuotient(t *testing.T) {
	if !ssim8Vector {
		t.Skip("no AVX2/FMA")
	}
	const w = 4096
	zero := make([]uint8, w)
	sums := make([]int32, 5*w)
	es := w + 8
	ext := make([]float64, 5*es)
	for size := 3; size <= maxWin8; size += 2 {
		inv, fs := 1/float64(size), float32(size)
		step := 1
		if testing.Short() && size != 7 && size != 11 {
			step = 89
		}
		top := 255 * 255 * size
		for s0 := 0; s0 <= top; s0 += 5 * w * step {
			for i := range sums {
				sums[i] = int32(min(s0+i*step, top))
			}
			ssimCols8(&zero[0], &zero[0], &zero[0], &zero[0], &sums[0], w, w, &ext[0], es, fs, 1)
			for p := 0; p < 5; p++ {
				for c := 0; c < w; c++ {
					s := sums[p*w+c]
					want := float64(float32(float64(s) * inv))
					if got := ext[p*es+c]; math.Float64bits(got) != math.Float64bits(want) {
						t.Fatalf("size %d, S %d: kernel %v, reference %v", size, s, got, want)
					}
				}
			}
		}
	}
}
