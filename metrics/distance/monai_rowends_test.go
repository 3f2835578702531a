package distance

import (
	"math/rand/v2"
	"testing"

	"github.com/rexmle/rexmle/metrics/volume"
)

// TestRowEnds: rowEnds against a byte-at-a-time scan, with and without a
// second row, on random sparse rows of lengths around the word size.
func TestRowEnds(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	for it := 0; it < 20000; it++ {
		n := r.IntN(70)
		a, b := make([]byte, n), make([]byte, n)
		for i := range a {
			if r.IntN(25) == 0 {
				a[i] = 1
			}
			if r.IntN(25) == 0 {
				b[i] = 1
			}
		}
		for _, two := range []bool{false, true} {
			var bb []byte
			if two {
				bb = b
			}
			first, last := -1, -1
			for i := range a {
				if a[i] != 0 || (two && b[i] != 0) {
					if first < 0 {
						first = i
					}
					last = i
				}
			}
			if f, l := rowEnds(a, bb); f != first || l != last {
				t.Fatalf("a %v b %v (used %v): (%d, %d), want (%d, %d)", a, b, two, f, l, first, last)
			}
		}
	}
}

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
