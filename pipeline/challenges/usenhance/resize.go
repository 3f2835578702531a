package usenhance

import (
	"math"

	"github.com/rexmle/rexmle/metrics/quality"
)

// resizeLinear is the reference's cv2.resize(…, interpolation=INTER_LINEAR)
// of a float32 image to w×h, as the opencv-python wheels compute it on x86-64
// (REFERENCE-VERSIONS.md: opencv-python 4.10). Those wheels are built with
// Intel IPP, and cv::hal::resize hands float32 INTER_LINEAR to IPP's linear
// resize (ipp_resize in modules/imgproc/src/resize.cpp, tried before
// OpenCV's own resizeGeneric_ and before the exact-2× switch to INTER_AREA),
// so OpenCV's float32 weights and S0·a0 + S1·a1 sums are not what runs. The
// arithmetic followed here, per axis: source position p = (d+0.5)·n/m − 0.5
// in float64, i = ⌊p⌋, t = float32(p − i), the two taps i and i+1 clamped to
// the image (replicated border, so a clamped pair returns its pixel exactly);
// each used source row is first interpolated horizontally, then the two rows
// vertically, both as one fused multiply-add v0 + (v1 − v0)·t rounded to
// float32 (the difference rounded first). Observed with opencv-python 5.0.0
// (IPP) on an x86-64 host: the vertical pass and the positions reproduce
// cv2.resize bit for bit (testdata/opencv-ipp-resize.json); the horizontal
// pass of those cases was exact, so it follows the same form by symmetry.
// A build without IPP (Debian's OpenCV 4.6, macOS/ARM wheels) differs by
// about one float32 ulp on many pixels: see the metric card.
func resizeLinear(src quality.Image, w, h int) quality.Image {
	return resizeLinearPix(src.Pix, src.W, src.H, w, h)
}

// linearTap is one destination coordinate's two source taps and the
// fraction t of the way from the first to the second.
type linearTap struct {
	i0, i1 int
	t      float32
}

// linearTaps lays out the taps of dstN destination coordinates over srcN
// source ones (see resizeLinear).
func linearTaps(srcN, dstN int) []linearTap {
	out := make([]linearTap, dstN)
	for d := range out {
		p := (float64(d)+0.5)*float64(srcN)/float64(dstN) - 0.5
		i := math.Floor(p)
		t := float32(p - i)
		i0 := min(max(int(i), 0), srcN-1)
		i1 := min(max(int(i)+1, 0), srcN-1)
		out[d] = linearTap{i0, i1, t}
	}
	return out
}

// lerp32 is v0 + (v1 − v0)·t as one float32 fused multiply-add.
func lerp32(v0, v1, t float32) float32 {
	return quality.FMA32(v1-v0, t, v0)
}

// resizeLinearPix is resizeLinear of a srcW×srcH image held as float64
// samples or as bytes (an 8-bit picture resized without a float64 copy).
func resizeLinearPix[T float64 | uint8](pix []T, srcW, srcH, w, h int) quality.Image {
	xs, ys := linearTaps(srcW, w), linearTaps(srcH, h)
	// Two horizontally interpolated source rows are kept: each destination
	// row reads two, and the next one reuses what it can.
	var rowY [2]int
	rowV := [2][]float32{make([]float32, w), make([]float32, w)}
	rowY[0], rowY[1] = -1, -1
	fill := func(s, y int) {
		rowY[s] = y
		line := pix[y*srcW : (y+1)*srcW]
		for x, tp := range xs {
			rowV[s][x] = lerp32(float32(line[tp.i0]), float32(line[tp.i1]), tp.t)
		}
	}
	slot := func(y int) int {
		for s, sy := range rowY {
			if sy == y {
				return s
			}
		}
		return -1
	}
	rows := func(y0, y1 int) ([]float32, []float32) {
		s0, s1 := slot(y0), slot(y1)
		switch {
		case s0 < 0 && s1 < 0:
			s0, s1 = 0, 0
			fill(0, y0)
			if y1 != y0 {
				s1 = 1
				fill(1, y1)
			}
		case s0 < 0:
			s0 = 1 - s1
			fill(s0, y0)
		case s1 < 0:
			s1 = 1 - s0
			fill(s1, y1)
		}
		return rowV[s0], rowV[s1]
	}
	out := quality.Image{W: w, H: h, Pix: make([]float64, w*h)}
	for y, tp := range ys {
		r0, r1 := rows(tp.i0, tp.i1)
		o := out.Pix[y*w : (y+1)*w]
		for x := range o {
			o[x] = float64(lerp32(r0[x], r1[x], tp.t))
		}
	}
	return out
}

// ResizeRule is how a prediction of another size is resized, stated in the
// lncc card.
const ResizeRule = "a prediction of another size is first resized to the truth's as the reference's cv2.resize(INTER_LINEAR) on float32 does in the opencv-python wheels for x86-64 (4.10 as REFERENCE-VERSIONS.md pins it; 4.6 and 4.10 hand float32 INTER_LINEAR to Intel IPP ahead of OpenCV's own code, and 5.0's wheel computes the same): per axis the source position (d+0.5)·n/m − 0.5 in float64, its fraction t rounded to float32, taps clamped to the image, each pass one fused v0 + (v1 − v0)·t in float32, rows first (checked against opencv-python 5.0's IPP: the vertical pass and the positions bit for bit, the horizontal pass by symmetry); OpenCV's own code, which builds without IPP run (Debian's packages, ARM and macOS wheels), rounds the positions to float32 and sums v0·(1−t) + v1·t: for scale factors n/512 that differs by an ulp on some pixels and no 5-decimal value moved in 120 pairs, for other factors by up to 0.006 grey levels on 98% of the pixels, which moved the 5-decimal PSNR of 101 of 120 synthetic 512² → other-size pairs (by up to 9e-5 dB), SSIM of 6 (3e-6) and LNCC of 1 (5e-7)"
