package components

import (
	"fmt"

	"github.com/rexmle/rexmle/metrics/internal/parallel"

	"github.com/rexmle/rexmle/metrics/volume"
)

// offset is a neighbour displacement along axes 0, 1, 2.
type offset struct{ d0, d1, d2 int }

// backwardNeighbours lists the neighbours that precede a voxel in storage
// order for the given connectivity: 4/8 (in-plane, axis 2 offset 0) or
// 6/18/26 (faces, faces+edges, all 26).
func backwardNeighbours(connectivity int) ([]offset, error) {
	var maxSum int
	planar := false
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
	var out []offset
	for d2 := -1; d2 <= 0; d2++ {
		if planar && d2 != 0 {
			continue
		}
		for d1 := -1; d1 <= 1; d1++ {
			for d0 := -1; d0 <= 1; d0++ {
				// Keep only neighbours earlier in storage order.
				if d2 == 0 && (d1 > 0 || (d1 == 0 && d0 >= 0)) {
					continue
				}
				if abs(d0)+abs(d1)+abs(d2) <= maxSum {
					out = append(out, offset{d0, d1, d2})
				}
			}
		}
	}
	return out, nil
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

func checkInput(voxels int, g volume.Grid, connectivity int) ([]offset, error) {
	if err := g.Validate(); err != nil {
		return nil, fmt.Errorf("connected components: %w", err)
	}
	if voxels != g.Len() {
		return nil, fmt.Errorf("connected components: mask has %d voxels, grid %v needs %d", voxels, g.Shape, g.Len())
	}
	if (connectivity == 4 || connectivity == 8) && g.Shape[2] > 1 {
		return nil, fmt.Errorf("connected components: connectivity %d needs a 2D grid, got shape %v", connectivity, g.Shape)
	}
	return backwardNeighbours(connectivity)
}

// minParallel is the smallest mask labelled with more than one goroutine
// (a variable so tests can exercise the slab merge on small inputs).
var minParallel = 1 << 15

// unionFind is a disjoint-set forest over provisional labels 0..n−1 whose root
// is always the smallest label of its set.
type unionFind struct{ parent []int32 }

func (u *unionFind) add() int32 {
	l := int32(len(u.parent))
	u.parent = append(u.parent, l)
	return l
}

func (u *unionFind) find(x int32) int32 {
	r := x
	for u.parent[r] != r {
		r = u.parent[r]
	}
	for u.parent[x] != r {
		x, u.parent[x] = u.parent[x], r
	}
	return r
}

func (u *unionFind) union(a, b int32) int32 {
	ra, rb := u.find(a), u.find(b)
	switch {
	case ra < rb:
		u.parent[rb] = ra
		return ra
	case rb < ra:
		u.parent[ra] = rb
		return rb
	}
	return ra
}

// Label finds the connected components of the true voxels of mask.
//
// connectivity is 4 or 8 for a 2D grid (Shape[2] == 1), or 6 (faces), 18
// (faces and edges) or 26 (faces, edges and corners) for any grid (on a 2D
// grid 6 acts as 4 and 18/26 as 8). The result holds 0 for background and
// 1..n for the components, numbered in the order of each component's first
// voxel in storage order — the numpy C order of the reversed-axes array, so
// the numbering equals scipy.ndimage.label with the matching structure.
// Work is split into slabs along the slowest axis, labelled concurrently
// (GOMAXPROCS goroutines) and merged.
func Label(mask []bool, g volume.Grid, connectivity int) ([]int32, int, error) {
	nbrs, err := checkInput(len(mask), g, connectivity)
	if err != nil {
		return nil, 0, err
	}
	labels := make([]int32, len(mask))
	n1, n2 := g.Shape[1], g.Shape[2]
	// Split along axis 2 for volumes, along axis 1 for single slices.
	splitAxis, outer := 2, n2
	if n2 == 1 {
		splitAxis, outer = 1, n1
	}
	parts := parallel.Workers(outer, 1)
	if len(mask) < minParallel {
		parts = 1
	}
	type slab struct {
		lo, hi int // range along the split axis
		uf     unionFind
	}
	slabs := make([]slab, parts)
	for p := range slabs {
		slabs[p].lo, slabs[p].hi = outer*p/parts, outer*(p+1)/parts
	}
	parallel.Each(parts, func(p int) {
		labelSlab(mask, labels, g, nbrs, splitAxis, slabs[p].lo, slabs[p].hi, &slabs[p].uf)
	})

	// Concatenate the slabs' forests; provisional labels of slab p are
	// shifted by the number of labels of the slabs before it, which keeps
	// provisional order equal to the storage order of first voxels.
	offsets := make([]int32, parts)
	total := 0
	for p := range slabs {
		offsets[p] = int32(total)
		total += len(slabs[p].uf.parent)
	}
	if total > 1<<31-2 {
		return nil, 0, fmt.Errorf("connected components: too many provisional labels")
	}
	uf := unionFind{parent: make([]int32, 0, total)}
	for p := range slabs {
		for _, par := range slabs[p].uf.parent {
			uf.parent = append(uf.parent, par+offsets[p])
		}
		slabs[p].uf.parent = nil
	}
	// Shift slab labels to global provisional labels (stored +1, 0 = background).
	if parts > 1 {
		parallel.Each(parts, func(p int) {
			lo, hi := sliceRange(g, splitAxis, slabs[p].lo, slabs[p].hi)
			off := offsets[p]
			for i := lo; i < hi; i++ {
				if labels[i] != 0 {
					labels[i] += off
				}
			}
		})
		// Merge across slab boundaries: the first plane of each slab against
		// the last plane of the previous one.
		for p := 1; p < parts; p++ {
			mergePlane(labels, g, nbrs, splitAxis, slabs[p].lo, &uf)
		}
	}
	// Final numbering: roots in increasing provisional order get 1, 2, ...
	final := make([]int32, total)
	n := int32(0)
	for l := range uf.parent {
		r := uf.find(int32(l))
		if r == int32(l) {
			n++
			final[l] = n
		} else {
			final[l] = final[r]
		}
	}
	parallel.Each(parts, func(p int) {
		lo, hi := sliceRange(g, splitAxis, slabs[p].lo, slabs[p].hi)
		for i := lo; i < hi; i++ {
			if l := labels[i]; l != 0 {
				labels[i] = final[l-1]
			}
		}
	})
	return labels, int(n), nil
}

// sliceRange converts a range along the split axis to a linear index range.
func sliceRange(g volume.Grid, axis, lo, hi int) (int, int) {
	stride := g.Shape[0]
	if axis == 2 {
		stride *= g.Shape[1]
	}
	return lo * stride, hi * stride
}

// labelSlab runs the first pass over the voxels whose split-axis coordinate
// is in [lo, hi): provisional labels (stored +1) in uf, local to the slab.
func labelSlab(mask []bool, labels []int32, g volume.Grid, nbrs []offset, axis, lo, hi int, uf *unionFind) {
	n0, n1, n2 := g.Shape[0], g.Shape[1], g.Shape[2]
	s1, s2 := n0, n0*n1
	k0, k1 := 0, n2
	j0, j1 := 0, n1
	if axis == 2 {
		k0, k1 = lo, hi
	} else {
		j0, j1 = lo, hi
	}
	type lin struct {
		d0, d1, d2, delta int
	}
	off := make([]lin, len(nbrs))
	for i, o := range nbrs {
		off[i] = lin{o.d0, o.d1, o.d2, o.d0 + o.d1*s1 + o.d2*s2}
	}
	for k := k0; k < k1; k++ {
		for j := j0; j < j1; j++ {
			row := k*s2 + j*s1
			for i := 0; i < n0; i++ {
				idx := row + i
				if !mask[idx] {
					continue
				}
				cur := int32(-1)
				lastSeen := int32(-1) // neighbours mostly share one label: skip repeats
				for _, o := range off {
					ii, jj, kk := i+o.d0, j+o.d1, k+o.d2
					if ii < 0 || ii >= n0 || jj < 0 || jj >= n1 || kk < 0 {
						continue
					}
					if (axis == 2 && kk < lo) || (axis == 1 && jj < lo) {
						continue
					}
					nl := labels[idx+o.delta]
					if nl == 0 || nl-1 == lastSeen {
						continue
					}
					lastSeen = nl - 1
					if cur < 0 {
						cur = uf.find(nl - 1)
					} else {
						cur = uf.union(cur, nl-1)
					}
				}
				if cur < 0 {
					cur = uf.add()
				}
				labels[idx] = cur + 1
			}
		}
	}
}

// mergePlane unions every foreground voxel of plane `at` (split axis) with
// its backward neighbours on plane at−1.
func mergePlane(labels []int32, g volume.Grid, nbrs []offset, axis, at int, uf *unionFind) {
	n0, n1, n2 := g.Shape[0], g.Shape[1], g.Shape[2]
	s1, s2 := n0, n0*n1
	visit := func(i, j, k int) {
		idx := i + j*s1 + k*s2
		l := labels[idx]
		if l == 0 {
			return
		}
		for _, o := range nbrs {
			ii, jj, kk := i+o.d0, j+o.d1, k+o.d2
			if ii < 0 || ii >= n0 || jj < 0 || jj >= n1 || kk < 0 || kk >= n2 {
				continue
			}
			if (axis == 2 && kk != at-1) || (axis == 1 && jj != at-1) {
				continue
			}
			if nl := labels[ii+jj*s1+kk*s2]; nl != 0 {
				uf.union(l-1, nl-1)
			}
		}
	}
	if axis == 2 {
		for j := 0; j < n1; j++ {
			for i := 0; i < n0; i++ {
				visit(i, j, at)
			}
		}
		return
	}
	for k := 0; k < n2; k++ {
		for i := 0; i < n0; i++ {
			visit(i, at, k)
		}
	}
}

// Sizes returns the voxel count of every component: sizes[i] belongs to
// label i+1. Labels outside 1..n are ignored.
func Sizes(labels []int32, n int) []int {
	sizes := make([]int, n)
	for _, l := range labels {
		if l > 0 && int(l) <= n {
			sizes[l-1]++
		}
	}
	return sizes
}

// Count is the number of connected components (Betti-0) of mask; 0 for an
// empty mask. See Label for connectivity; the count comes from the mask's
// runs (see runs), without labelling voxels.
func Count(mask []bool, g volume.Grid, connectivity int) (int, error) {
	return countRuns(mask, g, connectivity)
}
