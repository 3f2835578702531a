package quality

import (
	"github.com/rexmle/rexmle/metrics/num"
)

// pairwise32 is num.PairwiseSum of float32 values with vectorised leaves
// (ssim8Vector must hold).
func pairwise32(a []float32) float32 {
	n := len(a)
	switch {
	case n < 8:
		var s float32
		for _, v := range a {
			s += v
		}
		return s
	case n <= 128:
		var r [8]float32
		m := n - n%8
		laneSums32(&a[0], m, &r)
		s := ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
		for _, v := range a[m:] {
			s += v
		}
		return s
	}
	n2 := n / 2
	n2 -= n2 % 8
	return pairwise32(a[:n2]) + pairwise32(a[n2:])
}

// chunkSum64 is num.Sum of float32 values widened to float64, taken as
// they are produced: they are gathered in buf (capacity at least
// num.NumpyBuffer plus the longest add), and every full chunk of
// num.NumpyBuffer values, counted from the first, is summed pairwise and
// added to the total, as num.Sum adds its chunks. Only a chunk is kept, not
// the whole series.
type chunkSum64 struct {
	buf   []float32
	total float64
	n     int
}

// flush sums the full chunks in buf; with all set, the last partial one
// too.
func (s *chunkSum64) flush(all bool) {
	for len(s.buf) >= num.NumpyBuffer || (all && len(s.buf) > 0) {
		m := min(len(s.buf), num.NumpyBuffer)
		s.total += pairwise64of32(s.buf[:m])
		s.n += m
		s.buf = s.buf[:copy(s.buf, s.buf[m:])]
	}
}

// pairwise64of32 is num.PairwiseSum of the float64 values of a.
func pairwise64of32(a []float32) float64 {
	n := len(a)
	switch {
	case n < 8:
		var s float64
		for _, v := range a {
			s += float64(v)
		}
		return s
	case n <= 128:
		var r [8]float64
		m := n - n%8
		if ssim8Vector {
			laneSums32to64(&a[0], m, &r)
		} else {
			for k := range r {
				r[k] = float64(a[k])
			}
			for i := 8; i < m; i += 8 {
				for k := range r {
					r[k] += float64(a[i+k])
				}
			}
		}
		s := ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
		for _, v := range a[m:] {
			s += float64(v)
		}
		return s
	}
	n2 := n / 2
	n2 -= n2 % 8
	return pairwise64of32(a[:n2]) + pairwise64of32(a[n2:])
}

// chunkSum32 is chunkSum64 for numpy's float32 sum (num.Sum of float32
// values: float32 chunk sums and total), as mean32 takes it.
type chunkSum32 struct {
	buf   []float32
	total float32
	n     int
}

// flush sums the full chunks in buf; with all set, the last partial one
// too.
func (s *chunkSum32) flush(all bool) {
	for len(s.buf) >= num.NumpyBuffer || (all && len(s.buf) > 0) {
		m := min(len(s.buf), num.NumpyBuffer)
		if ssim8Vector {
			s.total += pairwise32(s.buf[:m])
		} else {
			s.total += num.PairwiseSum(s.buf[:m])
		}
		s.n += m
		s.buf = s.buf[:copy(s.buf, s.buf[m:])]
	}
}
