package topology

import (
	"context"
	"fmt"
	"slices"

	"github.com/rexmle/rexmle/metrics/internal/parallel"
)

// NeighbourTable maps a label to the labels it may touch. A label missing
// from the table is treated as having an empty list.
type NeighbourTable map[int][]int

// Allows reports whether label l may touch label m.
func (t NeighbourTable) Allows(l, m int) bool {
	return slices.Contains(t[l], m)
}

// Adjacency is the set of unordered pairs of distinct non-zero labels that
// touch somewhere in a label map.
type Adjacency map[[2]int32]bool

// Touch reports whether labels a and b (a ≠ b) touch.
func (a Adjacency) Touch(x, y int32) bool {
	if x > y {
		x, y = y, x
	}
	return a[[2]int32{x, y}]
}

// Neighbours returns the sorted labels that touch label l.
func (a Adjacency) Neighbours(l int32) []int32 {
	var out []int32
	for p := range a {
		switch l {
		case p[0]:
			out = append(out, p[1])
		case p[1]:
			out = append(out, p[0])
		}
	}
	slices.Sort(out)
	return out
}

// forward26 are the 13 neighbour offsets (dx, dy, dz) that come after the
// centre in storage order; with their mirrors they make the 26-neighbourhood.
var forward26 = func() [][3]int {
	var out [][3]int
	for dz := -1; dz <= 1; dz++ {
		for dy := -1; dy <= 1; dy++ {
			for dx := -1; dx <= 1; dx++ {
				if dz > 0 || (dz == 0 && dy > 0) || (dz == 0 && dy == 0 && dx > 0) {
					out = append(out, [3]int{dx, dy, dz})
				}
			}
		}
	}
	return out
}()

// Label is an integer label type of a label map.
type Label interface {
	~uint8 | ~uint16 | ~int32
}

// LabelAdjacency finds every pair of distinct non-zero labels with at least
// one pair of 26-adjacent voxels (all three index differences in {−1,0,1}).
// Voxels outside the array are background: the border has no neighbours.
// The work is split over z-slabs on all cores.
func LabelAdjacency[L Label](ctx context.Context, labels []L, shape [3]int) (Adjacency, error) {
	nx, ny, nz := shape[0], shape[1], shape[2]
	if nx <= 0 || ny <= 0 || nz <= 0 || len(labels) != nx*ny*nz {
		return nil, fmt.Errorf("label adjacency: %d labels for shape %v", len(labels), shape)
	}
	workers := parallel.Workers(nz, 1)
	results := make([]Adjacency, workers)
	parallel.Blocks(nz, 1, func(w, zlo, zhi int) {
		found := Adjacency{}
		var last [2]int32
		for z := zlo; z < zhi; z++ {
			if ctx.Err() != nil {
				return
			}
			for y := 0; y < ny; y++ {
				base := nx * (y + ny*z)
				for x := 0; x < nx; x++ {
					l := int32(labels[base+x])
					if l == 0 {
						continue
					}
					for _, o := range forward26 {
						xx, yy, zz := x+o[0], y+o[1], z+o[2]
						if xx < 0 || xx >= nx || yy >= ny || yy < 0 || zz >= nz {
							continue
						}
						m := int32(labels[xx+nx*(yy+ny*zz)])
						if m == 0 || m == l {
							continue
						}
						p := [2]int32{min(l, m), max(l, m)}
						if p != last {
							found[p] = true
							last = p
						}
					}
				}
			}
		}
		results[w] = found
	})
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	all := Adjacency{}
	for _, r := range results {
		for p := range r {
			all[p] = true
		}
	}
	return all, nil
}

// InvalidNeighbours is |N(l) \ V(l)|: the number of labels touching l in adj
// that the table does not allow next to l.
func InvalidNeighbours(adj Adjacency, l int32, table NeighbourTable) int {
	n := 0
	for _, m := range adj.Neighbours(l) {
		if !table.Allows(int(l), int(m)) {
			n++
		}
	}
	return n
}
