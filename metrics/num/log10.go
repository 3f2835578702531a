package num

import "math"

// Log10 is numpy's float64 log10 where it calls the C library (glibc; CPUs
// without numpy's AVX-512 SVML dispatch), bit for bit: glibc's e_log10.c
// splits x = 2^k·m (m in [1, 2), or [0.5, 1) when k < 0) and returns
// (k·log10_2lo + ivln10·ln m) + k·log10_2hi, with glibc's ln m correctly
// rounded (it is, to 0.52 ulp; computed here in double-double arithmetic). Go's
// math.Log10 (log2(x)·(ln 2/ln 10)) differs in the last bit on about a
// fifth of inputs. Special values as C: log10(0) = −Inf, negative or NaN →
// NaN, +Inf → +Inf.
func Log10(x float64) float64 {
	const (
		ivln10   = 4.34294481903251816668e-01 // 0x3FDBCB7B1526E50E
		log102hi = 3.01029995663611771306e-01 // 0x3FD34413509F6000
		log102lo = 3.69423907715893078616e-13 // 0x3D59FEF311F12B36
	)
	switch {
	case math.IsNaN(x) || x < 0:
		return math.NaN()
	case x == 0:
		return math.Inf(-1)
	case math.IsInf(x, 1):
		return x
	}
	b := math.Float64bits(x)
	hx := int32(b >> 32)
	k := int32(0)
	if hx < 0x00100000 { // subnormal: scale by 2^54
		x *= 1 << 54
		k -= 54
		b = math.Float64bits(x)
		hx = int32(b >> 32)
	}
	k += hx>>20 - 1023
	i := int32(uint32(k) >> 31)
	hx = hx&0x000fffff | (0x3ff-i)<<20
	y := float64(k + i)
	m := math.Float64frombits(uint64(uint32(hx))<<32 | b&0xffffffff)
	z := y*log102lo + ivln10*lnRounded(m)
	return z + y*log102hi
}

// lnRounded is ln(m) for m in [0.5, 2), correctly rounded but for inputs
// within 2^-100 of a rounding midpoint: 2·atanh(z), z = (m−1)/(m+1),
// summed as a double-double (about 106 bits).
func lnRounded(m float64) float64 {
	den := twoSum(m, 1)
	z := ddDiv(dd{m - 1, 0}, den) // m − 1 is exact for m in [0.5, 2]
	z2 := ddMul(z, z)
	sum, term := z, z
	for n := 3.0; term.hi != 0; n += 2 {
		term = ddMul(term, z2)
		var part dd
		if math.Abs(term.hi) > 0x1p-50*math.Abs(sum.hi) {
			part = ddDiv(term, dd{n, 0})
		} else { // below the sum's last bit: its low half no longer counts
			part = dd{term.hi / n, 0}
		}
		sum = ddAdd(sum, part)
		if math.Abs(part.hi) < 0x1p-110*math.Abs(sum.hi) {
			break
		}
	}
	return 2 * sum.hi
}

// dd is an unevaluated sum hi + lo with |lo| ≤ ulp(hi)/2.
type dd struct{ hi, lo float64 }

func twoSum(a, b float64) dd {
	s := a + b
	bb := s - a
	return dd{s, (a - (s - bb)) + (b - bb)}
}

func fastTwoSum(a, b float64) dd {
	s := a + b
	return dd{s, b - (s - a)}
}

func ddAdd(a, b dd) dd {
	s := twoSum(a.hi, b.hi)
	t := twoSum(a.lo, b.lo)
	s = fastTwoSum(s.hi, s.lo+t.hi)
	return fastTwoSum(s.hi, s.lo+t.lo)
}

func ddMul(a, b dd) dd {
	p := a.hi * b.hi
	e := math.FMA(a.hi, b.hi, -p)
	return fastTwoSum(p, e+(a.hi*b.lo+a.lo*b.hi))
}

func ddDiv(a, b dd) dd {
	q1 := a.hi / b.hi
	r := ddAdd(a, ddMul(dd{-q1, 0}, b))
	q2 := r.hi / b.hi
	r = ddAdd(r, ddMul(dd{-q2, 0}, b))
	q3 := r.hi / b.hi
	q := fastTwoSum(q1, q2)
	return ddAdd(q, dd{q3, 0})
}
