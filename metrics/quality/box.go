package quality

import (
	"math"
)

// boxFilter is cv2.filter2D(x, -1, ones((win, win))/win²) on a float32
// image with OpenCV's default border (reflect-101), as OpenCV computes it for
// a float32 image and a kernel of at most 129 taps (the direct, non-DFT
// path): every output pixel starts from 0 and takes the win² taps in kernel
// row-major order (row offset outer, column offset inner), each a fused
// multiply-add acc = round32(k·v + acc) with k = float32(1/win²). OpenCV's
// AVX2 loop does eight pixels per instruction with the same per-pixel order,
// so the result does not depend on the vector width.
//
// The image is first padded by win/2 on every side (reflect-101), so that
// the taps of one output row are win consecutive padded rows. On amd64 with
// AVX2 and FMA the rows are filtered by an assembly kernel (the same
// VFMADD231PS as OpenCV); elsewhere, and for the last pixels of a row, by
// fma32, which rounds exactly as the hardware instruction does.
func boxFilter(x []float32, w, h, win int) []float32 {
	r := win / 2
	k := float32(1 / float64(win*win))
	ew := w + 2*r
	eh := h + 2*r
	ext := getF32(ew * eh)
	defer putF32(ext)
	for py := 0; py < eh; py++ {
		sy := reflect101(py-r, h)
		src := x[sy*w : sy*w+w]
		dst := ext[py*ew : py*ew+ew]
		copy(dst[r:r+w], src)
		for c := 0; c < r; c++ {
			dst[c] = src[reflect101(c-r, w)]
			dst[r+w+c] = src[reflect101(w+c, w)]
		}
	}
	out := getF32(w * h) // the caller gives it back
	parallelLines(h, func(lo, hi int) {
		for y := lo; y < hi; y++ {
			boxRow(out[y*w:y*w+w], ext[y*ew:], ew, win, k)
		}
	})
	return out
}

// boxRow writes dst[i] = Σ taps of the win×win window whose top-left corner
// is src[i] (rows of src are stride apart), accumulated as boxFilter says.
func boxRow(dst, src []float32, stride, win int, k float32) {
	done := boxRowAsm(dst, src, stride, win, k)
	for i := done; i < len(dst); i++ {
		var acc float32
		for dy := 0; dy < win; dy++ {
			row := src[dy*stride+i : dy*stride+i+win]
			for _, v := range row {
				acc = fma32(k, v, acc)
			}
		}
		dst[i] = acc
	}
}

// FMA32 is a·b + c rounded once to float32, as a float32 fused
// multiply-add instruction computes it (fma32, for callers outside).
func FMA32(a, b, c float32) float32 { return fma32(a, b, c) }

// fma32 is the float32 fused multiply-add a·b + c rounded once to float32
// (what VFMADD231SS/PS compute). The float32 product is exact in float64;
// the float64 sum is rounded to odd (the last bit set when the sum was
// inexact), which makes the final rounding to float32 correct: 53 bits is
// at least 24 + 2.
func fma32(a, b, c float32) float32 {
	p := float64(float64(a) * float64(b)) // exact: 24 + 24 bits
	cc := float64(c)
	s := p + cc
	// TwoSum: e is the exact error of s (no products, nothing to fuse).
	bv := s - p
	e := (p - (s - bv)) + (cc - bv)
	if e != 0 {
		bits := math.Float64bits(s)
		if bits&1 == 0 {
			if (e > 0) == (s > 0) {
				bits++ // the exact value is further from zero than s
			} else {
				bits--
			}
			s = math.Float64frombits(bits)
		}
	}
	return float32(s)
}
