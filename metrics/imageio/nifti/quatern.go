package nifti

import (
	"math"
)

// quaternToMatrix returns the 3×3 rotation block of a NIfTI qform (without
// the zooms): quaternion (a, b, c, d) with a = sqrt(1 − b² − c² − d²)
// (0 when the sum exceeds 1, the quaternion then renormalised), and the
// third column multiplied by qfac (−1 or 1).
func quaternToMatrix(b, c, d, qfac float64) [3][3]float64 {
	a := 1 - (b*b + c*c + d*d)
	if a < 1e-7 {
		// Nearly 180° rotation: a = 0 and (b, c, d) renormalised.
		s := math.Sqrt(b*b + c*c + d*d)
		if s > 0 {
			b, c, d = b/s, c/s, d/s
		}
		a = 0
	} else {
		a = math.Sqrt(a)
	}
	r := [3][3]float64{
		{a*a + b*b - c*c - d*d, 2*b*c - 2*a*d, 2*b*d + 2*a*c},
		{2*b*c + 2*a*d, a*a + c*c - b*b - d*d, 2*c*d - 2*a*b},
		{2*b*d - 2*a*c, 2*c*d + 2*a*b, a*a + d*d - c*c - b*b},
	}
	if qfac < 0 {
		for i := 0; i < 3; i++ {
			r[i][2] = -r[i][2]
		}
	}
	return r
}

// matrixToQuatern is the inverse of quaternToMatrix for a rotation or
// rotation-with-reflection r (columns unit vectors): it returns (b, c, d) and
// qfac. A reflection (det < 0) is folded into qfac = −1 by negating the third
// column. Columns that are not orthonormal are orthonormalised first
// (Gram-Schmidt), so the result is the nearest proper rotation.
func matrixToQuatern(r [3][3]float64) (b, c, d, qfac float64) {
	// Orthonormalise columns.
	col := func(j int) [3]float64 { return [3]float64{r[0][j], r[1][j], r[2][j]} }
	dot := func(x, y [3]float64) float64 { return x[0]*y[0] + x[1]*y[1] + x[2]*y[2] }
	norm := func(x [3]float64) [3]float64 {
		n := math.Sqrt(dot(x, x))
		if n == 0 {
			return x
		}
		return [3]float64{x[0] / n, x[1] / n, x[2] / n}
	}
	c0 := norm(col(0))
	c1 := col(1)
	p := dot(c0, c1)
	c1 = norm([3]float64{c1[0] - p*c0[0], c1[1] - p*c0[1], c1[2] - p*c0[2]})
	c2 := [3]float64{c0[1]*c1[2] - c0[2]*c1[1], c0[2]*c1[0] - c0[0]*c1[2], c0[0]*c1[1] - c0[1]*c1[0]}
	qfac = 1
	if dot(c2, col(2)) < 0 {
		qfac = -1
	}
	m := [3][3]float64{
		{c0[0], c1[0], c2[0]},
		{c0[1], c1[1], c2[1]},
		{c0[2], c1[2], c2[2]},
	}
	tr := m[0][0] + m[1][1] + m[2][2] + 1
	var a float64
	switch {
	case tr > 0.5:
		a = 0.5 * math.Sqrt(tr)
		b = 0.25 * (m[2][1] - m[1][2]) / a
		c = 0.25 * (m[0][2] - m[2][0]) / a
		d = 0.25 * (m[1][0] - m[0][1]) / a
	default:
		xd := 1 + m[0][0] - (m[1][1] + m[2][2])
		yd := 1 + m[1][1] - (m[0][0] + m[2][2])
		zd := 1 + m[2][2] - (m[0][0] + m[1][1])
		switch {
		case xd > 1:
			b = 0.5 * math.Sqrt(xd)
			c = 0.25 * (m[0][1] + m[1][0]) / b
			d = 0.25 * (m[0][2] + m[2][0]) / b
			a = 0.25 * (m[2][1] - m[1][2]) / b
		case yd > 1:
			c = 0.5 * math.Sqrt(yd)
			b = 0.25 * (m[0][1] + m[1][0]) / c
			d = 0.25 * (m[1][2] + m[2][1]) / c
			a = 0.25 * (m[0][2] - m[2][0]) / c
		default:
			d = 0.5 * math.Sqrt(zd)
			b = 0.25 * (m[0][2] + m[2][0]) / d
			c = 0.25 * (m[1][2] + m[2][1]) / d
			a = 0.25 * (m[1][0] - m[0][1]) / d
		}
		if a < 0 {
			b, c, d = -b, -c, -d
		}
	}
	return b, c, d, qfac
}
