//go:build !amd64

package quality

// ssim8Vector is false: SSIM8 runs its Go loops only.
var ssim8Vector = false

func ssimCols8(ia, ib, oa, ob *uint8, sums *int32, n, w int, ext *float64, es int, size float32, emit int) {
	panic("quality: no SSIM kernels on this architecture")
}

func ssimRows4(ext *float64, es int, outs *float32, w, n, size int, inv, s float64, pr *float64, check, planes int) {
	panic("quality: no SSIM kernels on this architecture")
}

func ssimMap8(ux, uy, uxx, uyy, uxy *float32, n int, dst *float32, cov, c1, c2 float32) {
	panic("quality: no SSIM kernels on this architecture")
}

func minMaxBytes(p *uint8, n int) (lo, hi uint8) {
	panic("quality: no byte kernels on this architecture")
}

func lnccRowQ(mu1, mu2, m11, m22, m12 *float32, n int, q, scratch *float32, thr float32) int {
	panic("quality: no LNCC kernels on this architecture")
}

func laneSums32to64(x *float32, n int, r *[8]float64) {
	panic("quality: no summation kernels on this architecture")
}

func laneSums32(x *float32, n int, r *[8]float32) {
	panic("quality: no summation kernels on this architecture")
}

func slide11(rows *float32, stride, nb, phase int, state *float32, sstride int, out *float32, ostride, nstrips int, k float32) {
	panic("quality: no box kernels on this architecture")
}

func slide11x16(rows *float32, stride, nb, phase int, state *float32, sstride int, out *float32, ostride, nstrips int, k float32) {
	panic("quality: no box kernels on this architecture")
}

func slide11r(rows *float32, stride, nb, phase int, state *float32, sstride int, out *float32, ostride, nstrips int, k float32, job *rowJob) {
	panic("quality: no box kernels on this architecture")
}

func slide11head(rows *float32, stride int, state *float32, sstride, nstrips int, k float32) {
	panic("quality: no box kernels on this architecture")
}

func slide11tail(rows *float32, stride int, state *float32, slots *[10]int, out *float32, ostride, nstrips int, k float32) {
	panic("quality: no box kernels on this architecture")
}

// slideWide is false: there is no vector kernel on this architecture.
var slideWide = false

func lnccPrep8(a, b *uint8, n int, de, dt, dee, dtt, det *float32, loE, dE, loT, dT float32) {
	panic("quality: no LNCC kernels on this architecture")
}

func sqDiff8(a, b *uint8, n int) uint64 {
	panic("quality: no byte kernels on this architecture")
}
