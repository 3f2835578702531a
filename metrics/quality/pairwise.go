package quality

import (
	"github.com/rexmle/rexmle/metrics/num"
)

// pairwiseSum64 is num.Sum (numpy's float64 sum: 8192-element
// chunks, pairwise within a chunk) with the eight-lane leaves vectorised
// where ssim8Vector holds; the additions and their order are the same.
func pairwiseSum64(x []float64) float64 {
	if !ssim8Vector {
		return num.Sum(x)
	}
	var total float64
	for len(x) > 0 {
		m := min(len(x), num.NumpyBuffer)
		total += pairwise64(x[:m])
		x = x[m:]
	}
	return total
}

func pairwise64(a []float64) float64 {
	n := len(a)
	switch {
	case n < 8:
		var s float64
		for _, v := range a {
			s += v
		}
		return s
	case n <= 128:
		var r [8]float64
		m := n - n%8
		laneSums64(&a[0], m, &r)
		s := ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
		for _, v := range a[m:] {
			s += v
		}
		return s
	}
	n2 := n / 2
	n2 -= n2 % 8
	return pairwise64(a[:n2]) + pairwise64(a[n2:])
}

// mean32Fast is mean32 (numpy's float32 mean) with vectorised leaves where
// ssim8Vector holds.
func mean32Fast(x []float32) float32 {
	if !ssim8Vector {
		return mean32(x)
	}
	var total float32
	for y := x; len(y) > 0; {
		m := min(len(y), num.NumpyBuffer)
		total += pairwise32(y[:m])
		y = y[m:]
	}
	return total / float32(len(x))
}

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
