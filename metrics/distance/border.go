package distance

import (
	"fmt"

	"github.com/rexmle/rexmle/metrics/volume"
)

// structure returns the neighbour offsets (centre excluded) of the
// structuring element for a connectivity: 4/8 in-plane (axis 2 offset 0),
// 6/18/26 in 3D; 0 means the 3D cross (6).
func structure(connectivity int, g volume.Grid) ([][3]int, error) {
	if connectivity == 0 {
		connectivity = 6
	}
	maxSum, planar := 0, false
	switch connectivity {
	case 4:
		maxSum, planar = 1, true
	case 8:
		maxSum, planar = 2, true
	case 6:
		maxSum = 1
	case 18:
		maxSum = 2
	case 26:
		maxSum = 3
	default:
		return nil, fmt.Errorf("connectivity %d not supported (want 4 or 8 in 2D, 6, 18 or 26 in 3D)", connectivity)
	}
	if planar && g.Shape[2] > 1 {
		return nil, fmt.Errorf("connectivity %d needs a 2D grid, got shape %v", connectivity, g.Shape)
	}
	var out [][3]int
	for d2 := -1; d2 <= 1; d2++ {
		if planar && d2 != 0 {
			continue
		}
		for d1 := -1; d1 <= 1; d1++ {
			for d0 := -1; d0 <= 1; d0++ {
				s := iabs(d0) + iabs(d1) + iabs(d2)
				if s > 0 && s <= maxSum {
					out = append(out, [3]int{d0, d1, d2})
				}
			}
		}
	}
	return out, nil
}

func iabs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// erode writes the erosion of mask (or, with edges, mask minus its erosion)
// into out, in parallel over planes along axis 2 (rows along axis 1 for a
// single plane).
func erode(mask, out []bool, g volume.Grid, nb [][3]int, edges bool) {
	n0, n1, n2 := g.Shape[0], g.Shape[1], g.Shape[2]
	s1, s2 := n0, n0*n1
	deltas := make([]int, len(nb))
	for i, o := range nb {
		deltas[i] = o[0] + o[1]*s1 + o[2]*s2
	}
	parallelFor(n1*n2, func(lo, hi int) {
		for line := lo; line < hi; line++ {
			j, k := line%n1, line/n1
			base := j*s1 + k*s2
			for i := 0; i < n0; i++ {
				idx := base + i
				if !mask[idx] {
					continue
				}
				interior := true
				for q, o := range nb {
					ii, jj, kk := i+o[0], j+o[1], k+o[2]
					if ii < 0 || ii >= n0 || jj < 0 || jj >= n1 || kk < 0 || kk >= n2 || !mask[idx+deltas[q]] {
						interior = false
						break
					}
				}
				out[idx] = interior != edges
			}
		}
	})
}
