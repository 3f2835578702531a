package quality

import (
	"fmt"
	"math"

	"github.com/rexmle/rexmle/metrics/num"
)

// LNCC is the local normalised cross-correlation of the USenhance reference
// grader, reproduced in its float32 arithmetic (float32 images, OpenCV 4 on
// an x86-64 FMA build, NumPy 1.x promotion rules; OpenCV 5.0's pip build
// rounds each product first in the last width mod 8 columns, see
// TestBoxFilterOpenCV):
//
//  1. each image is min-max normalised: X' = (X − min X) / d with
//     d = float32(float64(max X − min X) + 1e-8), float32 subtraction and
//     division (a constant image becomes all zeros);
//  2. B(·) is an win×win box mean (cv2.filter2D, kernel value
//     k = float32(1/win²), border reflect-101): per pixel the taps are
//     accumulated row offset outer, column offset inner, each step a fused
//     multiply-add rounded to float32;
//  3. μ1 = B(E'), μ2 = B(T'), σ1² = B(E'²) − μ1², σ2² = B(T'²) − μ2²,
//     σ12 = B(E'T') − μ1μ2, all float32;
//  4. pixels with σ1² > 1e-10 and σ2² > 1e-10 (float32 compare) are valid;
//     with none, the result is 1 when |E' − T'| ≤ 1e-8 + 1e-5·|T'| everywhere
//     (numpy allclose in float32) and 0 otherwise;
//  5. otherwise q = σ12 / sqrt(σ1²·σ2²) per valid pixel (float32; |q| may
//     slightly exceed 1) and the result is numpy's float32 mean of q in
//     row-major order (8192-element chunks, pairwise within a chunk),
//     widened to float64.
//
// a is the enhanced image, b the truth; win must be odd and positive (the
// reference uses 11).
func LNCC(a, b Image, win int) (float64, error) {
	if err := checkPair(a, b); err != nil {
		return 0, err
	}
	if win < 1 || win%2 == 0 {
		return 0, fmt.Errorf("quality: LNCC window %d, want odd and positive", win)
	}
	e := normalise32(a.Pix)
	t := normalise32(b.Pix)
	n := len(e)
	ee, tt, et := getF32(n), getF32(n), getF32(n)
	for i := range e {
		ee[i] = e[i] * e[i]
		tt[i] = t[i] * t[i]
		et[i] = e[i] * t[i]
	}
	w, h := a.W, a.H
	mu1 := boxFilter(e, w, h, win)
	mu2 := boxFilter(t, w, h, win)
	m11 := boxFilter(ee, w, h, win)
	m22 := boxFilter(tt, w, h, win)
	m12 := boxFilter(et, w, h, win)
	defer putF32(e, t, ee, tt, et, mu1, mu2, m11, m22, m12)
	const thr = float32(1e-10)
	q := getF32(n)[:0]
	defer func() { putF32(q) }()
	for i := 0; i < n; i++ {
		s1 := m11[i] - float32(mu1[i]*mu1[i]) // explicit conversions forbid fusion
		s2 := m22[i] - float32(mu2[i]*mu2[i])
		if !(s1 > thr && s2 > thr) {
			continue
		}
		s12 := m12[i] - float32(mu1[i]*mu2[i])
		q = append(q, s12/float32(math.Sqrt(float64(s1*s2))))
	}
	if len(q) == 0 {
		for i := range e {
			d := e[i] - t[i]
			if d < 0 {
				d = -d
			}
			at := t[i]
			if at < 0 {
				at = -at
			}
			if !(d <= float32(1e-8)+float32(float32(1e-5)*at)) {
				return 0, nil
			}
		}
		return 1, nil
	}
	return float64(mean32(q)), nil
}

// normalise32 is (X − min)/d in float32 with d = float32(max − min + 1e-8).
func normalise32(p []float64) []float32 {
	x := getF32(len(p))
	lo, hi := float32(math.Inf(1)), float32(math.Inf(-1))
	for i, v := range p {
		f := float32(v)
		x[i] = f
		// Plain comparisons (NaN-free pixel values): the min/max builtins
		// would also propagate NaNs, at several times the cost.
		if f < lo {
			lo = f
		}
		if f > hi {
			hi = f
		}
	}
	d := float32(float64(hi-lo) + 1e-8)
	for i := range x {
		x[i] = (x[i] - lo) / d
	}
	return x
}

// reflect101 maps k into [0, n) with OpenCV's BORDER_REFLECT_101
// (… 2 1 | 0 1 … n−1 | n−2 …), repeated for lines shorter than the kernel.
func reflect101(k, n int) int {
	if n == 1 {
		return 0
	}
	p := 2 * (n - 1)
	k %= p
	if k < 0 {
		k += p
	}
	if k >= n {
		k = p - k
	}
	return k
}

// mean32 is numpy's float32 mean: a float32 running total over 8192-element
// chunks, each summed pairwise in float32, divided by the count in float32.
func mean32(x []float32) float32 {
	return num.Sum(x) / float32(len(x))
}
