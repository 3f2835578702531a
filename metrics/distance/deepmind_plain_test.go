package distance

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/rexmle/rexmle/metrics/volume"
)

// cornerCodesPlain is cornerCodes voxel by voxel: for every corner, the
// eight voxels c − 1 + e it touches, bit 2^(7 − (4·e2 + 2·e1 + e0)) for
// each true one inside the box.
func cornerCodesPlain(mask []bool, g volume.Grid, box bbox, lg volume.Grid) []uint8 {
	codes := make([]uint8, lg.Len())
	for ck := 0; ck < lg.Shape[2]; ck++ {
		for cj := 0; cj < lg.Shape[1]; cj++ {
			for ci := 0; ci < lg.Shape[0]; ci++ {
				var code uint8
				for e2 := 0; e2 < 2; e2++ {
					for e1 := 0; e1 < 2; e1++ {
						for e0 := 0; e0 < 2; e0++ {
							i, j, k := box.lo[0]+ci-1+e0, box.lo[1]+cj-1+e1, box.lo[2]+ck-1+e2
							if i < box.lo[0] || j < box.lo[1] || k < box.lo[2] || i > box.hi[0] || j > box.hi[1] || k > box.hi[2] {
								continue
							}
							if mask[g.Index(i, j, k)] {
								code |= 1 << (7 - (4*e2 + 2*e1 + e0))
							}
						}
					}
				}
				codes[lg.Index(ci, cj, ck)] = code
			}
		}
	}
	return codes
}

// TestCornerCodesMatchPlain: cornerCodes equals the corner-by-corner
// definition on random masks, boxes and grids (single voxels and planes
// included).
func TestCornerCodesMatchPlain(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 9))
	for trial := 0; trial < 300; trial++ {
		g := volume.NewGrid(1+r.IntN(9), 1+r.IntN(8), 1+r.IntN(5))
		mask := make([]bool, g.Len())
		density := r.Float64()
		for i := range mask {
			mask[i] = r.Float64() < density
		}
		var box bbox
		for ax := 0; ax < 3; ax++ {
			box.lo[ax] = r.IntN(g.Shape[ax])
			box.hi[ax] = box.lo[ax] + r.IntN(g.Shape[ax]-box.lo[ax])
		}
		var lg volume.Grid
		for ax := 0; ax < 3; ax++ {
			lg.Shape[ax] = box.hi[ax] - box.lo[ax] + 2
		}
		got, want := cornerCodes(mask, g, box, lg), cornerCodesPlain(mask, g, box, lg)
		if !slices.Equal(got, want) {
			t.Fatalf("trial %d, grid %v, box %v: codes differ", trial, g.Shape, box)
		}
	}
}

// TestSortedSurfaceMatchesIndexSort: sorting the surfels themselves gives
// what sorting an index by (distance, area) and gathering gives, bit for
// bit, with many ties and infinite distances.
func TestSortedSurfaceMatchesIndexSort(t *testing.T) {
	r := rand.New(rand.NewPCG(10, 11))
	for trial := 0; trial < 200; trial++ {
		n := r.IntN(300)
		ps := make([]surfel, n)
		d, a := make([]float64, n), make([]float64, n)
		for i := range ps {
			ps[i] = surfel{math.Sqrt(float64(r.IntN(12))) * 0.8, []float64{0.1, 0.35, 0.5, 1.2}[r.IntN(4)]}
			if r.IntN(20) == 0 {
				ps[i].d = math.Inf(1)
			}
			d[i], a[i] = ps[i].d, ps[i].a
		}
		idx := make([]int, n)
		for i := range idx {
			idx[i] = i
		}
		slices.SortFunc(idx, func(x, y int) int {
			if c := cmp.Compare(d[x], d[y]); c != 0 {
				return c
			}
			return cmp.Compare(a[x], a[y])
		})
		got := sortedSurface(ps)
		if len(got.Distances) != n || len(got.Areas) != n || got.Distances == nil || got.Areas == nil {
			t.Fatalf("trial %d: %d distances, %d areas, want %d non-nil", trial, len(got.Distances), len(got.Areas), n)
		}
		for i, j := range idx {
			if math.Float64bits(got.Distances[i]) != math.Float64bits(d[j]) || math.Float64bits(got.Areas[i]) != math.Float64bits(a[j]) {
				t.Fatalf("trial %d: surfel %d = (%v, %v), want (%v, %v)", trial, i, got.Distances[i], got.Areas[i], d[j], a[j])
			}
		}
	}
}
