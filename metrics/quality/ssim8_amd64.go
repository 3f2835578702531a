package quality

// The AVX2 kernels of SSIM8 (ssim8_amd64.s); used where haveFMA (AVX2 and
// FMA) holds.
//
//go:noescape
func ssimCols8(ia, ib, oa, ob *uint8, sums *int32, n, w int, ext *float32, ew int, inv float64, emit int)

//go:noescape
func ssimRows4(ext *float32, ew int, outs *float32, w, n, size int, inv, s float64, f, pr *float64, check int)

//go:noescape
func ssimMap8(ux, uy, uxx, uyy, uxy *float32, n int, dst *float64, cov, c1, c2 float32)

// ssim8Vector selects SSIM8's AVX2 kernels where the CPU has them (tests
// turn it off to compare with the Go loops).
var ssim8Vector = haveFMA

// minMaxBytes returns the smallest and largest of p[0:n], n a positive
// multiple of 32 (AVX2; ssim8_amd64.s).
//
//go:noescape
func minMaxBytes(p *uint8, n int) (lo, hi uint8)

// lnccRowQ and lnccProducts are LNCC8's vector steps (ssim8_amd64.s).
//
//go:noescape
func lnccRowQ(mu1, mu2, m11, m22, m12 *float32, n int, q, scratch *float32, thr float32) int

//go:noescape
func lnccProducts(e, t, ee, tt, et *float32, n int)

// laneSums64 and laneSums32 are the eight stride-8 partial sums of numpy's
// pairwise summation (ssim8_amd64.s).
//
//go:noescape
func laneSums64(x *float64, n int, r *[8]float64)

//go:noescape
func laneSums32(x *float32, n int, r *[8]float32)
