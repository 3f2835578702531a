// Package resample resizes label rasters by nearest-neighbour sampling with
// the index convention of scipy.ndimage.zoom(order=0) (corner-aligned), and
// gives the source indices of Pillow's NEAREST resize (pixel centres).
//
// Entry points: ZoomIndex and Zoom (scipy.ndimage.zoom with order=0,
// grid_mode=False, mode='constant'; scipy 1.13, see
// metrics/REFERENCE-VERSIONS.md), PillowNearestIndex, PillowNearestIndex16
// and Resize2D (Pillow 11.1's Image.resize(…, NEAREST)).
//
// Shapes are given in metrics/volume storage order (axis 0 fastest); the
// convention acts on each axis independently, so the axis order does not
// change the result as long as data and shape agree. Indices are computed
// in float64 with the references' own rounding, so an output sample that
// the reference reads from outside the input (scipy's cval, Pillow's
// untouched pixel) gets index −1 and T's zero value.
package resample

import (
	"fmt"
	"math"
)

// maxOutput bounds the number of output samples (guards against absurd target shapes).
const maxOutput = 1 << 34

// ZoomIndex returns, for each of m output samples along one axis, the input
// index scipy.ndimage.zoom(order=0, grid_mode=False, mode='constant') reads
// from an axis of n samples: c = k·((n−1)/(m−1)) in float64 (factor 1 when
// m = 1, so k = 0 reads 0), index = floor(c + 0.5). When c lies past n−1,
// which the rounding of the factor can make happen at k = m−1 (n=22→m=20:
// 19·(21/19) = 21.000000000000004), scipy's constant mode treats the sample
// as outside the input and writes cval 0; its index is then −1. Examples:
// n=3→m=5 gives [0 1 1 2 2]; n=10→m=4 gives [0 3 6 9]; n=2→m=4 gives
// [0 0 1 1]; n=22→m=20 ends in −1.
func ZoomIndex(n, m int) []int {
	idx := make([]int, m)
	factor := 1.0
	if m > 1 {
		factor = float64(n-1) / float64(m-1)
	}
	last := float64(n - 1)
	for k := range idx {
		c := float64(k) * factor
		if c > last {
			idx[k] = -1
			continue
		}
		idx[k] = min(int(math.Floor(c+0.5)), n-1)
	}
	return idx
}

// PillowNearestIndex returns, for each of m output samples along one axis,
// the input index Pillow's Image.resize(…, NEAREST) reads from an axis of n
// samples in its 8- and 32-bit modes (L, P, 1, I, F, RGB, …), where
// ImagingScaleAffine runs: the scale s = n/m in float64, a position that
// starts at s·0.5 and grows by s per sample (a running sum, so its rounding
// accumulates), the index its integer part. Pillow leaves a sample whose
// index falls outside the input at 0; its index is then −1 (this does not
// happen for realistic sizes). Computing (k + 0.5)·n/m instead picks the
// neighbouring sample for many sizes (n=120→m=119: output 59 reads 59, not
// 60).
func PillowNearestIndex(n, m int) []int {
	idx := make([]int, m)
	s := float64(n) / float64(m)
	pos := s * 0.5
	for k := range idx {
		idx[k] = pillowIndex(pos, n)
		pos += s
	}
	return idx
}

// PillowNearestIndex16 is PillowNearestIndex for Pillow's 16-bit modes
// (I;16, I;16B, …: an array of uint16), which take the generic transform:
// every position is computed afresh, s·(k + 0.5), the index its integer
// part.
func PillowNearestIndex16(n, m int) []int {
	idx := make([]int, m)
	s := float64(n) / float64(m)
	for k := range idx {
		idx[k] = pillowIndex(s*(float64(k)+0.5), n)
	}
	return idx
}

// pillowIndex is Pillow's COORD(pos) checked against an axis of n samples:
// the integer part, or −1 outside.
func pillowIndex(pos float64, n int) int {
	if pos < 0 || pos >= float64(n) {
		return -1
	}
	return int(pos)
}

// Resize2D resizes a w×h plane (row-major) to ow×oh with the source
// indices xs (ow entries) and ys (oh entries) from PillowNearestIndex or
// PillowNearestIndex16; a sample whose index is −1 on either axis is T's
// zero value. It returns pix itself when the size does not change.
func Resize2D[T any](pix []T, w, h, ow, oh int, xs, ys []int) []T {
	if w == ow && h == oh {
		return pix
	}
	out := make([]T, ow*oh)
	for y, sy := range ys {
		if sy < 0 {
			continue
		}
		row, dst := pix[sy*w:(sy+1)*w], out[y*ow:(y+1)*ow]
		for x, sx := range xs {
			if sx >= 0 {
				dst[x] = row[sx]
			}
		}
	}
	return out
}

// Zoom resizes src of shape from to shape to with scipy.ndimage.zoom(order=0)
// semantics (see ZoomIndex), axis by axis: an output sample whose index on
// any axis is outside the input is T's zero value (scipy's cval 0). It fails on non-positive shapes or
// when len(src) does not match from.
func Zoom[T any](src []T, from, to [3]int) ([]T, error) {
	return resize(src, from, to, ZoomIndex)
}

func resize[T any](src []T, from, to [3]int, index func(n, m int) []int) ([]T, error) {
	n := 1
	out := 1
	for a := 0; a < 3; a++ {
		if from[a] <= 0 || to[a] <= 0 {
			return nil, fmt.Errorf("resize %v → %v: shapes must be positive", from, to)
		}
		n *= from[a]
		out *= to[a]
		if out > maxOutput {
			return nil, fmt.Errorf("resize %v → %v: output too large", from, to)
		}
	}
	if len(src) != n {
		return nil, fmt.Errorf("resize: source has %d samples, shape %v needs %d", len(src), from, n)
	}
	i0, i1, i2 := index(from[0], to[0]), index(from[1], to[1]), index(from[2], to[2])
	dst := make([]T, out) // samples outside the input stay zero
	p := 0
	for k := 0; k < to[2]; k++ {
		if i2[k] < 0 {
			p += to[0] * to[1]
			continue
		}
		base2 := i2[k] * from[0] * from[1]
		for j := 0; j < to[1]; j++ {
			if i1[j] < 0 {
				p += to[0]
				continue
			}
			row := src[base2+i1[j]*from[0] : base2+(i1[j]+1)*from[0]]
			for i, x := range i0 {
				if x >= 0 {
					dst[p+i] = row[x]
				}
			}
			p += to[0]
		}
	}
	return dst, nil
}
