package quality

import (
	"math"
	"testing"
)

// TestColsQuotient: the column kernel's division-free quotient is the
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
			ssimCols8(&zero[0], &zero[0], &zero[0], &zero[0], &sums[0], w, w, &ext[0], es, fs, 1/fs, 1)
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

// TestLNCCPrepProduct: for every pair of extremes lo ≤ hi, where
// markstein8 accepts the product form, the table kernel computes with it
// exactly the division kernel's and the tables' values for every sample
// in [lo, 255]; and it accepts it for most pairs (else it would be of no
// use).
func TestLNCCPrepProduct(t *testing.T) {
	if !ssim8Vector {
		t.Skip("no AVX2/FMA")
	}
	var src [256]uint8
	var out [2][5][256]float32
	accepted, total := 0, 0
	for lo := 0; lo < 256; lo++ {
		for hi := lo; hi < 256; hi++ {
			l, h := uint8(lo), uint8(hi)
			lut := normLUT8(l, h)
			flo, d := normParams8(l, h)
			r := 1 / d
			total++
			if !markstein8(l, d, r, &lut) {
				continue
			}
			accepted++
			n := (256 - lo) &^ 7
			if n == 0 {
				continue
			}
			for i := range src[:n] {
				src[i] = uint8(lo + i)
			}
			for k, div := range []int{0, 1} {
				o := &out[k]
				lnccPrep8(&src[0], &src[0], n, &o[0][0], &o[1][0], &o[2][0], &o[3][0], &o[4][0], flo, d, flo, d, r, r, div)
			}
			for i := 0; i < n; i++ {
				e := lut[src[i]]
				want := [5]float32{e, e, e * e, e * e, e * e}
				for p := 0; p < 5; p++ {
					if g0, g1 := out[0][p][i], out[1][p][i]; math.Float32bits(g0) != math.Float32bits(want[p]) || math.Float32bits(g1) != math.Float32bits(want[p]) {
						t.Fatalf("lo %d hi %d v %d plane %d: product %v, division %v, table %v", lo, hi, src[i], p, g0, g1, want[p])
					}
				}
			}
		}
	}
	t.Logf("product form accepted for %d of %d extreme pairs", accepted, total)
	if accepted < total/2 {
		t.Errorf("product form accepted for only %d of %d extreme pairs", accepted, total)
	}
}
