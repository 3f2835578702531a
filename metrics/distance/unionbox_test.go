package distance

import (
	"math/rand/v2"
	"testing"

	"github.com/rexmle/rexmle/metrics/volume"
)

// TestUnionBoxScan: unionBox against a voxel-by-voxel bounding box.
func TestUnionBoxScan(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 24))
	for it := 0; it < 200; it++ {
		g := volume.NewGrid(1+r.IntN(30), 1+r.IntN(6), 1+r.IntN(5))
		a, b := make([]bool, g.Len()), make([]bool, g.Len())
		for i := range a {
			a[i] = r.IntN(60) == 0
			b[i] = r.IntN(60) == 0
		}
		for _, bb := range [][]bool{nil, b} {
			want := bbox{lo: g.Shape, hi: [3]int{-1, -1, -1}}
			any := false
			for k := 0; k < g.Shape[2]; k++ {
				for j := 0; j < g.Shape[1]; j++ {
					for i := 0; i < g.Shape[0]; i++ {
						x := i + g.Shape[0]*(j+g.Shape[1]*k)
						if !a[x] && (bb == nil || !bb[x]) {
							continue
						}
						any = true
						for ax, c := range [3]int{i, j, k} {
							want.lo[ax], want.hi[ax] = min(want.lo[ax], c), max(want.hi[ax], c)
						}
					}
				}
			}
			got, ok := unionBox(a, bb, g)
			if ok != any || (any && got != want) {
				t.Fatalf("%v: box %v %v, want %v %v", g.Shape, got, ok, want, any)
			}
		}
	}
}
