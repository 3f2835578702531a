package distance

import (
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/rexmle/rexmle/metrics/volume"
)

// bruteSquared is the squared distance to the nearest true voxel by
// exhaustive search, summing terms in numpy axis order (storage 2, 1, 0).
func bruteSquared(mask []bool, g volume.Grid) []float64 {
	out := make([]float64, len(mask))
	for p := range mask {
		pi, pj, pk := g.Coords(p)
		best := math.Inf(1)
		for q, on := range mask {
			if !on {
				continue
			}
			qi, qj, qk := g.Coords(q)
			a := float64(pk-qk) * g.Spacing[2]
			b := float64(pj-qj) * g.Spacing[1]
			c := float64(pi-qi) * g.Spacing[0]
			if d := (a*a + b*b) + c*c; d < best {
				best = d
			}
		}
		out[p] = best
	}
	return out
}

func TestEDTMatchesBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	shapes := [][3]int{{9, 7, 5}, {1, 8, 6}, {17, 1, 3}, {13, 11, 1}, {20, 3, 1}, {1, 1, 9}, {33, 5, 4}}
	for _, procs := range []int{1, 2, 4} {
		old := runtime.GOMAXPROCS(procs)
		for trial, sh := range shapes {
			g := volume.NewGrid(sh[0], sh[1], sh[2])
			for ax := 0; ax < 3; ax++ {
				g.Spacing[ax] = 0.3 + 2.5*r.Float64()
			}
			for _, density := range []float64{0.02, 0.2, 0.7} {
				mask := make([]bool, g.Len())
				for i := range mask {
					mask[i] = r.Float64() < density
				}
				want := bruteSquared(mask, g)
				got, err := SquaredDistanceToForeground(mask, g)
				if err != nil {
					t.Fatal(err)
				}
				for i := range want {
					if !(math.Abs(got[i]-want[i]) <= 1e-12*math.Max(1, want[i])) && !(math.IsInf(got[i], 1) && math.IsInf(want[i], 1)) {
						t.Fatalf("procs %d trial %d shape %v spacing %v density %v: voxel %d squared distance %v, want %v",
							procs, trial, sh, g.Spacing, density, i, got[i], want[i])
					}
				}
				// DistanceToBackground(m) = DistanceToForeground(!m).
				inv := make([]bool, len(mask))
				for i := range mask {
					inv[i] = !mask[i]
				}
				bg, _ := DistanceToBackground(inv, g)
				for i := range want {
					if w := math.Sqrt(want[i]); !(math.Abs(bg[i]-w) <= 1e-12*math.Max(1, w)) && !(math.IsInf(bg[i], 1) && math.IsInf(w, 1)) {
						t.Fatalf("background distance voxel %d = %v, want %v", i, bg[i], w)
					}
				}
			}
		}
		runtime.GOMAXPROCS(old)
	}
}

func TestEDTHandValues(t *testing.T) {
	// 1D line of 5 along axis 0 with spacing 2: feature at 1.
	g := volume.NewGrid(5)
	g.Spacing[0] = 2
	d, err := DistanceToForeground([]bool{false, true, false, false, false}, g)
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{2, 0, 2, 4, 6}
	for i := range want {
		if d[i] != want[i] {
			t.Errorf("d[%d] = %v, want %v", i, d[i], want[i])
		}
	}
	// 2D, anisotropic: feature at (0,0); voxel (1,1) with spacing (3,4) is 5 away.
	g2 := volume.NewGrid(2, 2)
	g2.Spacing = [3]float64{3, 4, 1}
	d, _ = DistanceToForeground([]bool{true, false, false, false}, g2)
	if d[3] != 5 || d[1] != 3 || d[2] != 4 {
		t.Errorf("anisotropic 2D distances %v, want [0 3 4 5]", d)
	}
	// No feature: +Inf everywhere; all foreground: DistanceToBackground +Inf.
	d, _ = DistanceToForeground(make([]bool, 4), g2)
	for _, v := range d {
		if !math.IsInf(v, 1) {
			t.Fatalf("empty mask distances %v, want +Inf", d)
		}
	}
	d, _ = DistanceToBackground([]bool{true, true, true, true}, g2)
	if !math.IsInf(d[0], 1) {
		t.Errorf("full mask background distance %v, want +Inf", d)
	}
	if _, err := DistanceToForeground(make([]bool, 3), g2); err == nil {
		t.Errorf("length mismatch accepted")
	}
	bad := g2
	bad.Spacing[0] = 0
	if _, err := DistanceToForeground(make([]bool, 4), bad); err == nil {
		t.Errorf("zero spacing accepted")
	}
}

func TestBorderAndErode(t *testing.T) {
	// 3×3×3 block in a 5×5×5 grid: 6-connected border = 26 voxels (all but
	// the centre); erosion keeps only the centre.
	g := volume.NewGrid(5, 5, 5)
	m := make([]bool, g.Len())
	for k := 1; k <= 3; k++ {
		for j := 1; j <= 3; j++ {
			for i := 1; i <= 3; i++ {
				m[g.Index(i, j, k)] = true
			}
		}
	}
	b, err := Border(m, g, 0)
	if err != nil {
		t.Fatal(err)
	}
	e, _ := Erode(m, g, 26)
	if n := countTrue(b); n != 26 || b[g.Index(2, 2, 2)] {
		t.Errorf("border has %d voxels (centre %v), want 26 without the centre", n, b[g.Index(2, 2, 2)])
	}
	if n := countTrue(e); n != 1 || !e[g.Index(2, 2, 2)] {
		t.Errorf("erosion keeps %d voxels, want the centre only", n)
	}
	// A full array: only voxels on the array boundary are border (outside = background).
	g3 := volume.NewGrid(3, 3, 3)
	full := make([]bool, 27)
	for i := range full {
		full[i] = true
	}
	b, _ = Border(full, g3, 6)
	if countTrue(b) != 26 {
		t.Errorf("full 3×3×3 border %d, want 26", countTrue(b))
	}
	// Single slice (one-voxel-thick numpy volume): every voxel is border in 3D,
	// interior pixels are not border with the 2D cross.
	g2 := volume.NewGrid(3, 3)
	plane := make([]bool, 9)
	for i := range plane {
		plane[i] = true
	}
	b3, _ := Border(plane, g2, 6)
	b2, _ := Border(plane, g2, 4)
	if countTrue(b3) != 9 || countTrue(b2) != 8 || b2[4] {
		t.Errorf("plane borders: 3D %d (want 9), 2D %d (want 8)", countTrue(b3), countTrue(b2))
	}
	// A plus shape: the 4-cross erosion keeps the centre, the 8-neighbourhood removes it.
	plus := []bool{false, true, false, true, true, true, false, true, false}
	e4, _ := Erode(plus, g2, 4)
	e8, _ := Erode(plus, g2, 8)
	if countTrue(e4) != 1 || !e4[4] || countTrue(e8) != 0 {
		t.Errorf("plus erosion: %d / %d voxels remain, want 1 / 0", countTrue(e4), countTrue(e8))
	}
	if _, err := Border(m, g, 8); err == nil {
		t.Errorf("8-connectivity on 3D grid accepted")
	}
	if _, err := Border(m, g, 5); err == nil {
		t.Errorf("connectivity 5 accepted")
	}
}
