package quality

import (
	"fmt"
)

// LNCC8Fast is an approximation of LNCC8 (and so of the reference's
// OpenCV filter2D arithmetic) that replaces the 121 sequential float32
// multiply-adds of each box mean with exact window sums, O(1) per pixel.
// It lives in the tests as a measured experiment, not as the grader's
// path: TestLNCC8FastNotGuardable and TestLNCC8FastAgainstOpenCV show why
// its per-image values cannot be guarded to five decimals.
//
// Exact window sums. The normalised samples are table values
// (v − lo)/d with d the integer hi − lo (the 1e-8 of normParams8 vanishes
// in float32 for hi > lo; a constant image has all samples +0). A non-zero
// one is at least 1/255 > 2⁻⁸, so its float32 unit is at least 2⁻³¹; the
// float32 squares and products of two such samples are at least 2⁻¹⁶, with
// units of at least 2⁻³⁹; every sample, square and product is at most 1.
// So every tap is an integer multiple of 2⁻³⁹ (fixScale) below 2³⁹ units,
// and a window sum of at most maxFastWin² taps stays below 2⁵¹ units: the
// int64 sliding sums below are exact, and k·S is the true box mean the
// reference's sequential sum approximates.
//
// Rounding noise of the reference. The reference's box mean is a chain of
// n = win² float32 fused multiply-adds of non-negative terms: the
// accumulator never decreases, each step rounds once by at most half a unit
// of the result's binade, so |acc − k·S| ≤ (n/2)·ulp(acc) ≤ 60.5 ulp for
// 11×11, under 2⁻¹⁷·acc. Ours, float32(k·S), is within half a unit. The
// variance σ² = B(E'²) − μ² therefore differs from the reference's by at most
// about 2⁻¹⁵·max(B(E'²), μ²) (the μ² term doubles μ's relative error); the
// conditioning bound condBound below takes 2⁻¹⁴ of it.
//
// Ill-conditioned pixels go exact. Where σ1² or σ2² is not above condRatio
// times its bound (flat windows, whose reference variance is pure rounding
// noise, windows near the 1e-10 validity threshold, tiny smooth variance),
// the pixel's five box means are recomputed with the reference's sequential
// fused multiply-adds (fma32, kernel row-major order), so validity and q
// are those of LNCC8 there. Elsewhere q's relative error is below about
// 2/condRatio in the worst case.
//
// What sinks it: a step's rounding error is fixed by the tap's value and the
// accumulator's binade (the accumulator sits on its binade's grid, so
// round(acc + k·a) − acc − k·a depends on k·a alone until the binade
// changes), so the reference's box means are biased image by image, not
// randomly (on a 160×160 speckle pair its μ and B(E'²) lie on average 0.56
// and 0.92 float32 units below the exact-sum values); the differences
// σ² = B(E'²) − μ² and σ12 = B(E'T') − μ1μ2 cancel most of their terms and
// amplify that bias; and the per-pixel departures of q add up over the
// image instead of averaging out. Measured on the corpus: up to ~1e-4 per
// image.
//
// The q of valid pixels are then summed as LNCC8 sums them (numpy's float32
// chunked pairwise mean).
func LNCC8Fast(a, b Gray8, win int) (float64, error) {
	v, _, err := LNCC8FastStats(a, b, win, DefaultCondRatio)
	return v, err
}

// FastStats counts what LNCC8FastStats did: Pixels output pixels, Exact
// of them recomputed with the sequential multiply-adds.
type FastStats struct {
	Pixels, Exact int
}

// DefaultCondRatio is LNCC8Fast's condRatio (see LNCC8Fast): a variance at
// most this many times its rounding-noise bound sends its pixel the exact
// way. Chosen from the corpus of TestLNCC8FastNotGuardable (280 pairs): at
// 16, 64 and 1024 the largest departure from LNCC8 was 1.1e-4, 7.6e-5 and
// 1.1e-5, the exact share of speckle frames 0, 0 and 66 % (of gradients 17,
// 52 and 94 %). No ratio makes the departure small enough for a guard band
// before nearly every pixel goes the exact way; 2⁶ is the cheapest that
// still bounds q's worst-case relative error by about 2⁻⁵.
const DefaultCondRatio = 64

// maxFastWin is the largest window LNCC8FastStats takes (see the bit budget
// at LNCC8Fast).
const maxFastWin = 45

// fixScale is the fixed-point unit of the exact window sums, 2³⁹.
const fixScale = 1 << 39

// condBound is the bound on the difference between the fast and the
// reference variance for box means m (of the squares) and u (of the
// samples), see LNCC8Fast.
func condBound(m, u float32) float32 {
	return max(m, u*u) * (1.0 / (1 << 14)) // exact scaling by 2⁻¹⁴
}

// LNCC8FastStats is LNCC8Fast with condRatio given and the pixel counts
// returned.
func LNCC8FastStats(a, b Gray8, win int, condRatio float32) (float64, FastStats, error) {
	if err := checkPair8(a, b); err != nil {
		return 0, FastStats{}, err
	}
	if win < 1 || win%2 == 0 || win > maxFastWin {
		return 0, FastStats{}, fmt.Errorf("quality: LNCC window %d, want odd, positive and at most %d", win, maxFastWin)
	}
	w, h := a.W, a.H
	st := FastStats{Pixels: w * h}
	loA, hiA := minMax8(a.Pix)
	loB, hiB := minMax8(b.Pix)
	lutE, lutT := normLUT8(loA, hiA), normLUT8(loB, hiB)
	var sqE, sqT [256]float32
	var fixE, fixT, fixEE, fixTT [256]int64
	for v := range sqE {
		sqE[v] = lutE[v] * lutE[v]
		sqT[v] = lutT[v] * lutT[v]
		fixE[v], fixT[v] = toFix(lutE[v]), toFix(lutT[v])
		fixEE[v], fixTT[v] = toFix(sqE[v]), toFix(sqT[v])
	}
	r := win / 2
	k := float32(1 / float64(win*win))
	kf := float64(k) / fixScale
	ew := w + 2*r
	cols := make([]int, ew) // padded column → image column
	for c := range cols {
		cols[c] = reflect101(c-r, w)
	}
	// Column sums of the window's rows, per plane, over image columns.
	cs := make([]int64, 5*w)
	c1, c2, c11, c22, c12 := cs[:w], cs[w:2*w], cs[2*w:3*w], cs[3*w:4*w], cs[4*w:]
	// moveRows adds image row in and subtracts image row out (−1: none).
	moveRows := func(in, out int) {
		re, rt := a.Pix[in*w:in*w+w], b.Pix[in*w:in*w+w]
		if out < 0 {
			for x, ve := range re {
				vt := rt[x]
				c1[x] += fixE[ve]
				c2[x] += fixT[vt]
				c11[x] += fixEE[ve]
				c22[x] += fixTT[vt]
				c12[x] += toFix(lutE[ve] * lutT[vt])
			}
			return
		}
		oe, ot := a.Pix[out*w:out*w+w], b.Pix[out*w:out*w+w]
		for x, ve := range re {
			vt, we, wt := rt[x], oe[x], ot[x]
			c1[x] += fixE[ve] - fixE[we]
			c2[x] += fixT[vt] - fixT[wt]
			c11[x] += fixEE[ve] - fixEE[we]
			c22[x] += fixTT[vt] - fixTT[wt]
			c12[x] += toFix(lutE[ve]*lutT[vt]) - toFix(lutE[we]*lutT[wt])
		}
	}
	for py := 0; py < win; py++ {
		moveRows(reflect101(py-r, h), -1)
	}
	rows := make([]float32, 5*w)
	mu1, mu2, m11, m22, m12 := rows[:w], rows[w:2*w], rows[2*w:3*w], rows[3*w:4*w], rows[4*w:]
	acc := chunkSum32{buf: make([]float32, 0, 8192+w)}
	var scratch [8]float32
	for y := 0; y < h; y++ {
		if y > 0 {
			moveRows(reflect101(y+r, h), reflect101(y-1-r, h))
		}
		// Horizontal window sums over the padded columns.
		var s1, s2, s11, s22, s12 int64
		for c := 0; c < win; c++ {
			x := cols[c]
			s1, s2, s11, s22, s12 = s1+c1[x], s2+c2[x], s11+c11[x], s22+c22[x], s12+c12[x]
		}
		for x := 0; x < w; x++ {
			if x > 0 {
				in, out := cols[x+win-1], cols[x-1]
				s1 += c1[in] - c1[out]
				s2 += c2[in] - c2[out]
				s11 += c11[in] - c11[out]
				s22 += c22[in] - c22[out]
				s12 += c12[in] - c12[out]
			}
			mu1[x], mu2[x] = float32(float64(s1)*kf), float32(float64(s2)*kf)
			m11[x], m22[x], m12[x] = float32(float64(s11)*kf), float32(float64(s22)*kf), float32(float64(s12)*kf)
			if s11 == 0 || s22 == 0 {
				// Every tap of a plane is +0: so is the reference's box
				// mean, and the pixel is invalid in both.
				continue
			}
			u1, u2 := mu1[x], mu2[x]
			v1 := m11[x] - float32(u1*u1)
			v2 := m22[x] - float32(u2*u2)
			if v1 > condRatio*condBound(m11[x], u1) && v2 > condRatio*condBound(m22[x], u2) {
				continue
			}
			st.Exact++
			mu1[x], mu2[x], m11[x], m22[x], m12[x] = exactMeans8(a, b, &lutE, &lutT, &sqE, &sqT, cols, x, y, r, k)
		}
		acc.buf = appendRowQ(acc.buf, mu1, mu2, m11, m22, m12, ssim8Vector, &scratch)
		acc.flush(false)
	}
	acc.flush(true)
	if acc.n == 0 {
		return constantLNCC8(a, b, &lutE, &lutT), st, nil
	}
	return float64(acc.total / float32(acc.n)), st, nil
}

// toFix is v in units of 2⁻³⁹ (exact for LNCC8Fast's taps).
func toFix(v float32) int64 { return int64(float64(v) * fixScale) }

// exactMeans8 returns the reference's five box means at output pixel (x, y):
// the taps of the (2r+1)² window, row offset outer and column offset inner,
// added with float32 fused multiply-adds from +0 (cols maps padded columns
// to image columns).
func exactMeans8(a, b Gray8, lutE, lutT, sqE, sqT *[256]float32, cols []int, x, y, r int, k float32) (u1, u2, m11, m22, m12 float32) {
	w := a.W
	for dy := -r; dy <= r; dy++ {
		sy := reflect101(y+dy, a.H)
		re, rt := a.Pix[sy*w:sy*w+w], b.Pix[sy*w:sy*w+w]
		for _, sx := range cols[x : x+2*r+1] {
			ve, vt := re[sx], rt[sx]
			fe, ft := lutE[ve], lutT[vt]
			u1 = fma32(k, fe, u1)
			u2 = fma32(k, ft, u2)
			m11 = fma32(k, sqE[ve], m11)
			m22 = fma32(k, sqT[vt], m22)
			m12 = fma32(k, fe*ft, m12)
		}
	}
	return u1, u2, m11, m22, m12
}
