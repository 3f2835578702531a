// Package resample resizes label rasters by nearest-neighbour sampling with
// the index convention of scipy.ndimage.zoom(order=0) (corner-aligned).
//
// Shapes are given in metrics/volume storage order (axis 0 fastest); the
// convention acts on each axis independently, so the axis order does not
// change the result as long as data and shape agree.
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
