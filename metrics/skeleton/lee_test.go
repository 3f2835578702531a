package skeleton

import (
	"context"
	"math/rand/v2"
	"sort"
	"testing"
)

// pvol builds a mask given as numpy-style (p, r, c) dimensions with ZYX
// order: storage shape is (c, r, p).
type pvol struct {
	np, nr, nc int
	m          []bool
}

func newP(np, nr, nc int) *pvol { return &pvol{np, nr, nc, make([]bool, np*nr*nc)} }

func (v *pvol) set(p, r, c int) { v.m[c+v.nc*(r+v.nr*p)] = true }
func (v *pvol) shape() [3]int   { return [3]int{v.nc, v.nr, v.np} }
func (v *pvol) fill(p0, r0, c0, sp, sr, sc int) {
	for p := p0; p < p0+sp; p++ {
		for r := r0; r < r0+sr; r++ {
			for c := c0; c < c0+sc; c++ {
				v.set(p, r, c)
			}
		}
	}
}

// coords lists the set voxels of a ZYX skeleton as (p, r, c).
func (v *pvol) coords(s []bool) [][3]int {
	var out [][3]int
	for i, b := range s {
		if b {
			c := i % v.nc
			r := (i / v.nc) % v.nr
			p := i / (v.nc * v.nr)
			out = append(out, [3]int{p, r, c})
		}
	}
	sort.Slice(out, func(a, b int) bool {
		for d := 0; d < 3; d++ {
			if out[a][d] != out[b][d] {
				return out[a][d] < out[b][d]
			}
		}
		return false
	})
	return out
}

func equalCoords(a, b [][3]int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// Hand cases from the spec (C-6.3 and topcow-track1-task1 §7 "Lee unit checks").
func TestLee3DHandCases(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name  string
		build func() *pvol
		want  [][3]int
	}{
		{"empty", func() *pvol { return newP(3, 3, 3) }, nil},
		{"cube2", func() *pvol { v := newP(4, 4, 4); v.fill(1, 1, 1, 2, 2, 2); return v }, nil},
		{"cube4", func() *pvol { v := newP(6, 6, 6); v.fill(1, 1, 1, 4, 4, 4); return v }, nil},
		{"block4x4x10", func() *pvol { v := newP(6, 6, 12); v.fill(1, 1, 1, 4, 4, 10); return v }, nil},
		{"block10x4x4", func() *pvol { v := newP(12, 6, 6); v.fill(1, 1, 1, 10, 4, 4); return v }, nil},
		// 3×3×3 block keeps the line through the centre parallel to p.
		{"cube3", func() *pvol { v := newP(5, 5, 5); v.fill(1, 1, 1, 3, 3, 3); return v },
			[][3]int{{1, 2, 2}, {2, 2, 2}, {3, 2, 2}}},
		// 3×3×5 (p,r,c) keeps 3 voxels along c.
		{"block3x3x5", func() *pvol { v := newP(5, 5, 7); v.fill(1, 1, 1, 3, 3, 5); return v },
			[][3]int{{2, 2, 2}, {2, 2, 3}, {2, 2, 4}}},
		// 5×3×3 (i.e. 3×3×5 given as (c,r,p)) keeps 5 voxels along p.
		{"block5x3x3", func() *pvol { v := newP(7, 5, 5); v.fill(1, 1, 1, 5, 3, 3); return v },
			[][3]int{{1, 2, 2}, {2, 2, 2}, {3, 2, 2}, {4, 2, 2}, {5, 2, 2}}},
		// Unpadded 1×1×3 line touching the border: all kept.
		{"line-unpadded", func() *pvol { v := newP(1, 1, 3); v.fill(0, 0, 0, 1, 1, 3); return v },
			[][3]int{{0, 0, 0}, {0, 0, 1}, {0, 0, 2}}},
		// A T of four voxels in a (1,3,8) array thins to its stem.
		{"T", func() *pvol {
			v := newP(1, 3, 8)
			v.set(0, 0, 0)
			v.set(0, 0, 1)
			v.set(0, 0, 2)
			v.set(0, 1, 1)
			return v
		}, [][3]int{{0, 1, 1}}},
		// Isolated voxel stays (it is an "endpoint"-free simple point but
		// deleting it would change the Euler characteristic).
		{"single", func() *pvol { v := newP(3, 3, 3); v.set(1, 1, 1); return v }, [][3]int{{1, 1, 1}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v := tc.build()
			s, err := Lee3D(ctx, v.m, v.shape(), ZYX)
			if err != nil {
				t.Fatal(err)
			}
			if got := v.coords(s); !equalCoords(got, tc.want) {
				t.Errorf("skeleton = %v, want %v", got, tc.want)
			}
		})
	}
}

// The same physical block in XYZ order must give the transposed answer.
func TestLee3DOrder(t *testing.T) {
	ctx := context.Background()
	// Storage shape (x=5, y=5, z=5); a 3×3×3 cube.
	m := make([]bool, 125)
	for z := 1; z <= 3; z++ {
		for y := 1; y <= 3; y++ {
			for x := 1; x <= 3; x++ {
				m[x+5*(y+5*z)] = true
			}
		}
	}
	zyx, _ := Lee3D(ctx, m, [3]int{5, 5, 5}, ZYX)
	xyz, _ := Lee3D(ctx, m, [3]int{5, 5, 5}, XYZ)
	for z := 0; z < 5; z++ {
		for y := 0; y < 5; y++ {
			for x := 0; x < 5; x++ {
				i := x + 5*(y+5*z)
				wantZ := x == 2 && y == 2 && z >= 1 && z <= 3 // line along p = z
				wantX := z == 2 && y == 2 && x >= 1 && x <= 3 // line along p = x
				if zyx[i] != wantZ {
					t.Errorf("ZYX (%d,%d,%d) = %v want %v", x, y, z, zyx[i], wantZ)
				}
				if xyz[i] != wantX {
					t.Errorf("XYZ (%d,%d,%d) = %v want %v", x, y, z, xyz[i], wantX)
				}
			}
		}
	}
}

// Properties: the skeleton is a subset of the mask, thinning is idempotent
// on a skeleton of lines, and the result does not depend on how much empty
// margin surrounds the object (the bounding-box crop is invisible).
func TestLee3DProperties(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 40; trial++ {
		nx, ny, nz := 3+rng.IntN(6), 3+rng.IntN(6), 3+rng.IntN(6)
		m := make([]bool, nx*ny*nz)
		for i := range m {
			m[i] = rng.Float64() < 0.45
		}
		s, err := Lee3D(ctx, m, [3]int{nx, ny, nz}, ZYX)
		if err != nil {
			t.Fatal(err)
		}
		for i := range s {
			if s[i] && !m[i] {
				t.Fatalf("trial %d: skeleton voxel %d outside the mask", trial, i)
			}
		}
		// Embed with a margin of 2 on every side.
		bx, by, bz := nx+4, ny+4, nz+4
		big := make([]bool, bx*by*bz)
		for z := 0; z < nz; z++ {
			for y := 0; y < ny; y++ {
				for x := 0; x < nx; x++ {
					big[(x+2)+bx*((y+2)+by*(z+2))] = m[x+nx*(y+ny*z)]
				}
			}
		}
		sb, _ := Lee3D(ctx, big, [3]int{bx, by, bz}, ZYX)
		for z := 0; z < nz; z++ {
			for y := 0; y < ny; y++ {
				for x := 0; x < nx; x++ {
					if sb[(x+2)+bx*((y+2)+by*(z+2))] != s[x+nx*(y+ny*z)] {
						t.Fatalf("trial %d: margin changes the skeleton at (%d,%d,%d)", trial, x, y, z)
					}
				}
			}
		}
	}
}

func TestLee3DErrors(t *testing.T) {
	if _, err := Lee3D(context.Background(), make([]bool, 5), [3]int{2, 2, 2}, ZYX); err == nil {
		t.Error("wrong length accepted")
	}
	if _, err := Lee3D(context.Background(), make([]bool, 8), [3]int{2, 2, 2}, Order(9)); err == nil {
		t.Error("unknown order accepted")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	m := []bool{true, true, true, true, true, true, true, true}
	if _, err := Lee3D(ctx, m, [3]int{2, 2, 2}, ZYX); err == nil {
		t.Error("cancelled context ignored")
	}
}

// A 2-D image is a volume with one plane (skimage skeletonize(image,
// method="lee") adds a leading axis of length one): only the four in-plane
// border directions are swept.
func TestLee2D(t *testing.T) {
	// Horizontal bar 3 rows × 7 columns inside 9×5: thins to a line.
	w, h := 9, 5
	m := make([]bool, w*h)
	for y := 1; y <= 3; y++ {
		for x := 1; x <= 7; x++ {
			m[x+w*y] = true
		}
	}
	s, err := Lee3D(context.Background(), m, [3]int{w, h, 1}, ZYX)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for i, b := range s {
		if b {
			n++
			if i/w != 2 {
				t.Errorf("skeleton voxel off the middle row: %d", i)
			}
		}
	}
	if n == 0 {
		t.Error("bar thinned to nothing")
	}
}
