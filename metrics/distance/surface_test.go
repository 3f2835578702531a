package distance

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/rexmle/rexmle/metrics/num"
	"github.com/rexmle/rexmle/metrics/volume"
)

// npGrid builds a grid from a numpy [z,y,x] shape and numpy-order spacing.
func npGrid(shape [3]int, spacing [3]float64) volume.Grid {
	g := volume.NewGrid(shape[2], shape[1], shape[0])
	g.Spacing = [3]float64{spacing[2], spacing[1], spacing[0]}
	return g
}

// npMask sets numpy [z,y,x] points on grid g.
func npMask(g volume.Grid, pts ...[3]int) []bool {
	m := make([]bool, g.Len())
	for _, p := range pts {
		m[g.Index(p[2], p[1], p[0])] = true
	}
	return m
}

func npBlock(z0, z1, y0, y1, x0, x1 int) [][3]int {
	var pts [][3]int
	for z := z0; z < z1; z++ {
		for y := y0; y < y1; y++ {
			for x := x0; x < x1; x++ {
				pts = append(pts, [3]int{z, y, x})
			}
		}
	}
	return pts
}

func near(a, b, tol float64) bool {
	if math.IsInf(a, 0) || math.IsInf(b, 0) {
		return a == b
	}
	return math.Abs(a-b) <= tol
}

func TestSEGAVectors(t *testing.T) {
	opt := MONAIOptions{Float32: true}
	cases := []struct {
		name        string
		shape       [3]int
		truth, pred [][3]int
		want        float64
	}{
		{"S1", [3]int{6, 6, 6}, npBlock(1, 4, 1, 4, 1, 4), npBlock(2, 5, 1, 4, 1, 4), 1},
		{"S2", [3]int{9, 9, 9}, [][3]int{{2, 2, 2}}, [][3]int{{2, 2, 2}, {2, 2, 6}}, 4},
		{"S3", [3]int{9, 9, 9}, [][3]int{{2, 2, 2}, {2, 2, 6}}, [][3]int{{2, 2, 2}}, 0},
		{"S4", [3]int{5, 5, 5}, [][3]int{{2, 2, 2}}, [][3]int{{1, 1, 2}}, 1.4142135381698608},
		{"S5", [3]int{301, 401, 2}, [][3]int{{300, 400, 1}}, [][3]int{{0, 0, 0}}, 500.0010070800781},
		{"S9", [3]int{6, 6, 6}, npBlock(1, 4, 1, 4, 1, 4), npBlock(1, 4, 1, 4, 1, 4), 0},
	}
	for _, c := range cases {
		g := npGrid(c.shape, [3]float64{0.7, 0.8, 0.9}) // spacing must be ignored
		hd, err := MONAIHausdorff(npMask(g, c.pred...), npMask(g, c.truth...), UnitSpacing(g), 100, PredToTruth, opt)
		if err != nil {
			t.Fatal(err)
		}
		if hd != c.want {
			t.Errorf("%s: HD %v, want %v", c.name, hd, c.want)
		}
	}
	// S5 without the float32 cast is the float64 value.
	g := npGrid([3]int{301, 401, 2}, [3]float64{1, 1, 1})
	hd, _ := MONAIHausdorff(npMask(g, [3]int{0, 0, 0}), npMask(g, [3]int{300, 400, 1}), g, 100, PredToTruth, MONAIOptions{})
	if hd != math.Sqrt(250001) {
		t.Errorf("S5 float64: %v, want %v", hd, math.Sqrt(250001))
	}
}

func TestTopBrainHD95Vectors(t *testing.T) {
	opt := MONAIOptions{Float32: true}
	// TB1 label 5: shape (1,3,8); GT (0,2,5..7); pred (0,1,3) and (0,2,5..7).
	g := npGrid([3]int{1, 3, 8}, [3]float64{1, 1, 1})
	truth := npMask(g, [3]int{0, 2, 5}, [3]int{0, 2, 6}, [3]int{0, 2, 7})
	pred := npMask(g, [3]int{0, 1, 3}, [3]int{0, 2, 5}, [3]int{0, 2, 6}, [3]int{0, 2, 7})
	d, err := EdgeDistances(pred, truth, g, opt)
	if err != nil {
		t.Fatal(err)
	}
	s5 := float64(float32(math.Sqrt(5)))
	if !slices.Equal(d, []float64{s5, 0, 0, 0}) {
		t.Errorf("TB1 label-5 distances %v, want [√5 0 0 0] in storage order", d)
	}
	hd, _ := MONAIHausdorff(pred, truth, g, 95, PredToTruth, opt)
	want := s5 - float64(float32(s5))*(1-(2.85-2)) // b − Δ(1−t), Δ = √5 − 0
	if !near(hd, want, 1e-12) || !near(hd, 1.9006578, 1e-6) {
		t.Errorf("TB1 label-5 HD95 %v, want %v", hd, want)
	}
	// TB4z: GT solid 3×3×3 block in 5×5×5, pred line along numpy axis 0.
	g = npGrid([3]int{5, 5, 5}, [3]float64{1, 1, 1})
	truth = npMask(g, npBlock(1, 4, 1, 4, 1, 4)...)
	pred = npMask(g, [3]int{1, 2, 2}, [3]int{2, 2, 2}, [3]int{3, 2, 2})
	hd, _ = MONAIHausdorff(pred, truth, g, 95, PredToTruth, opt)
	if !near(hd, 0.9, 1e-9) {
		t.Errorf("TB4 HD95 %v, want 0.9", hd)
	}
}

func TestMONAIEmptyAndSymmetric(t *testing.T) {
	g := volume.NewGrid(6, 6, 6)
	a := make([]bool, g.Len())
	a[g.Index(1, 1, 1)] = true
	b := make([]bool, g.Len())
	b[g.Index(4, 1, 1)] = true
	b[g.Index(4, 4, 1)] = true
	empty := make([]bool, g.Len())
	if d, _ := EdgeDistances(empty, empty, g, MONAIOptions{}); len(d) != 0 {
		t.Errorf("both empty: %v, want []", d)
	}
	if d, _ := EdgeDistances(a, empty, g, MONAIOptions{}); len(d) != 1 || !math.IsInf(d[0], 1) {
		t.Errorf("to empty: %v, want [+Inf]", d)
	}
	if d, _ := EdgeDistances(empty, b, g, MONAIOptions{}); len(d) != 2 || !math.IsInf(d[1], 1) {
		t.Errorf("from empty: %v, want two +Inf (MONAI quirk)", d)
	}
	if hd, _ := MONAIHausdorff(empty, empty, g, 95, Symmetric, MONAIOptions{}); !math.IsNaN(hd) {
		t.Errorf("both empty HD %v, want NaN", hd)
	}
	// a→b: 3; b→a: 3 and √18 → symmetric max √18, directed 3.
	hd, _ := MONAIHausdorff(a, b, g, 100, Symmetric, MONAIOptions{})
	hd1, _ := MONAIHausdorff(a, b, g, 100, PredToTruth, MONAIOptions{})
	hd2, _ := MONAIHausdorff(a, b, g, 100, TruthToPred, MONAIOptions{})
	hdSwap, _ := MONAIHausdorff(b, a, g, 100, Symmetric, MONAIOptions{})
	if hd != math.Sqrt(18) || hd1 != 3 || hd2 != math.Sqrt(18) || hdSwap != hd {
		t.Errorf("HD sym %v dir %v %v swapped %v", hd, hd1, hd2, hdSwap)
	}
	// Anisotropic spacing and voxel units.
	g.Spacing = [3]float64{2, 1, 1}
	if hd, _ := MONAIHausdorff(a, b, g, 100, PredToTruth, MONAIOptions{}); hd != 6 {
		t.Errorf("spacing 2 along axis 0: HD %v, want 6", hd)
	}
	if hd, _ := MONAIHausdorff(a, b, g, 100, PredToTruth, MONAIOptions{VoxelUnits: true}); hd != 3 {
		t.Errorf("voxel units: HD %v, want 3", hd)
	}
	if _, err := MONAIHausdorff(a, b, g, 95, Direction(7), MONAIOptions{}); err == nil {
		t.Errorf("bad direction accepted")
	}
}

func TestMaxEmptyIsNaN(t *testing.T) {
	if !math.IsNaN(Max(nil)) || !math.IsNaN(Max([]float64{1, math.NaN()})) || Max([]float64{3, -1, 7}) != 7 {
		t.Errorf("Max: empty or NaN input should give NaN, else the largest value")
	}
}

func TestPairwiseSumMatchesExactForIntegers(t *testing.T) {
	for _, n := range []int{0, 5, 8, 13, 128, 129, 1000, 4097} {
		v := make([]float64, n)
		want := 0.0
		for i := range v {
			v[i] = float64(i % 17)
			want += v[i]
		}
		if got := num.Sum(v); got != want {
			t.Errorf("n=%d: %v, want %v", n, got, want)
		}
	}
}

func TestSurfelAreas(t *testing.T) {
	one := [3]float64{1, 1, 1}
	if a := SurfelArea(1, one); !near(a, math.Sqrt(3)/8, 1e-15) {
		t.Errorf("code 1 area %v, want √3/8", a)
	}
	if a := SurfelArea(3, one); !near(a, math.Sqrt(2)/2, 1e-15) {
		t.Errorf("code 3 area %v, want √2/2", a)
	}
	if SurfelArea(0, one) != 0 || SurfelArea(255, one) != 0 {
		t.Errorf("empty/full codes have area")
	}
	// Complementary codes describe the same surface.
	for c := 0; c < 256; c++ {
		s := [3]float64{0.7, 1.3, 2.1}
		if a, b := SurfelArea(uint8(c), s), SurfelArea(uint8(255-c), s); !near(a, b, 1e-12) {
			t.Fatalf("code %d area %v, complement %v", c, a, b)
		}
	}
}

// boxArea is the analytic area of the marching-cubes surface of a solid box
// of n voxels per axis with spacing s (storage order): flat faces, chamfer
// strips along the edges and one triangle per corner.
func boxArea(n [3]int, s [3]float64) float64 {
	l := [3]float64{float64(n[0]-1) * s[0], float64(n[1]-1) * s[1], float64(n[2]-1) * s[2]}
	faces := 2 * (l[0]*l[1] + l[0]*l[2] + l[1]*l[2])
	edges := 4 * (l[0]*math.Hypot(s[1]/2, s[2]/2) + l[1]*math.Hypot(s[0]/2, s[2]/2) + l[2]*math.Hypot(s[0]/2, s[1]/2))
	p := [3]float64{s[1] * s[2], s[0] * s[2], s[0] * s[1]}
	corners := 8 * 0.5 * math.Sqrt(p[0]*p[0]+p[1]*p[1]+p[2]*p[2]) / 4
	return faces + edges + corners
}

func TestSurfaceAreaAnalytic(t *testing.T) {
	cases := []struct {
		n [3]int
		s [3]float64
	}{
		{[3]int{1, 1, 1}, [3]float64{1, 1, 1}},
		{[3]int{3, 3, 3}, [3]float64{1, 1, 1}},
		{[3]int{4, 2, 5}, [3]float64{0.5, 1.5, 3}},
	}
	for _, c := range cases {
		g := volume.NewGrid(c.n[0]+4, c.n[1]+4, c.n[2]+4)
		g.Spacing = c.s
		m := make([]bool, g.Len())
		for k := 2; k < 2+c.n[2]; k++ {
			for j := 2; j < 2+c.n[1]; j++ {
				for i := 2; i < 2+c.n[0]; i++ {
					m[g.Index(i, j, k)] = true
				}
			}
		}
		sd, err := DeepMindSurfaceDistances(m, m, g)
		if err != nil {
			t.Fatal(err)
		}
		_, total := sd.TruthToPred.Within(0)
		if want := boxArea(c.n, c.s); !near(total, want, 1e-9) {
			t.Errorf("box %v spacing %v: area %v, want %v", c.n, c.s, total, want)
		}
		if hd := sd.RobustHausdorff(95); hd != 0 {
			t.Errorf("HD(a,a) = %v", hd)
		}
	}
	// Sphere of radius 10 voxels: the binary marching-cubes surface overestimates
	// the area of a curved surface (staircase), here by about 9%; check it lies
	// between the true area and 12% above it.
	n := 25
	g := volume.NewGrid(n, n, n)
	m := make([]bool, g.Len())
	for k := 0; k < n; k++ {
		for j := 0; j < n; j++ {
			for i := 0; i < n; i++ {
				x, y, z := float64(i-12), float64(j-12), float64(k-12)
				m[g.Index(i, j, k)] = x*x+y*y+z*z <= 100
			}
		}
	}
	sd, _ := DeepMindSurfaceDistances(m, m, g)
	_, total := sd.TruthToPred.Within(0)
	if want := 4 * math.Pi * 100; total < want || total > 1.12*want {
		t.Errorf("sphere area %v, want ≈ %v", total, want)
	}
}

func TestPANTHERVectors(t *testing.T) {
	type res struct{ msd, hd95, masd float64 }
	p5masd := 0.0949489742783178
	cases := []struct {
		name        string
		shape       [3]int
		s           [3]float64
		truth, pred [][3]int
		want        res
	}{
		{"P1", [3]int{4, 4, 4}, [3]float64{1, 1, 1}, npBlock(1, 3, 1, 3, 1, 3), npBlock(1, 3, 1, 3, 1, 3), res{1, 0, 0}},
		{"P2", [3]int{6, 6, 6}, [3]float64{1, 1, 1}, [][3]int{{2, 2, 2}}, [][3]int{{3, 2, 2}}, res{1, 1, 0.5}},
		{"P2b", [3]int{6, 6, 6}, [3]float64{2, 1, 1}, [][3]int{{2, 2, 2}}, [][3]int{{3, 2, 2}}, res{1, 2, 1}},
		{"P2c", [3]int{6, 6, 6}, [3]float64{7, 1, 1}, [][3]int{{2, 2, 2}}, [][3]int{{3, 2, 2}}, res{0.5, 7, 3.5}},
		{"P2d", [3]int{6, 6, 6}, [3]float64{1, 2, 1}, [][3]int{{2, 2, 2}}, [][3]int{{3, 2, 2}}, res{1, 1, 0.5}},
		{"P5", [3]int{6, 6, 6}, [3]float64{1, 1, 1}, [][3]int{{2, 2, 2}, {2, 2, 3}}, [][3]int{{2, 2, 2}}, res{1, 1, p5masd}},
	}
	for _, c := range cases {
		g := npGrid(c.shape, c.s)
		sd, err := DeepMindSurfaceDistances(npMask(g, c.truth...), npMask(g, c.pred...), g)
		if err != nil {
			t.Fatal(err)
		}
		got := res{sd.SurfaceDice(5), sd.RobustHausdorff(95), sd.MeanAverageSurfaceDistance()}
		if !near(got.msd, c.want.msd, 1e-12) || !near(got.hd95, c.want.hd95, 1e-12) || !near(got.masd, c.want.masd, 1e-12) {
			t.Errorf("%s: msd/hd95/masd %+v, want %+v", c.name, got, c.want)
		}
	}
	// P5 derivation: G side has 12 surfels, 8 single-voxel corners and 4 of area √2/2.
	g := npGrid([3]int{6, 6, 6}, [3]float64{1, 1, 1})
	sd, _ := DeepMindSurfaceDistances(npMask(g, [3]int{2, 2, 2}, [3]int{2, 2, 3}), npMask(g, [3]int{2, 2, 2}), g)
	if len(sd.TruthToPred.Areas) != 12 || len(sd.PredToTruth.Areas) != 8 {
		t.Errorf("P5 surfel counts %d / %d, want 12 / 8", len(sd.TruthToPred.Areas), len(sd.PredToTruth.Areas))
	}
	if gt, _ := sd.AverageSurfaceDistance(); !near(gt, 0.18989795, 1e-8) {
		t.Errorf("P5 truth-side mean %v, want 0.18989795", gt)
	}
}

func TestDeepMindEmptyCases(t *testing.T) {
	g := volume.NewGrid(4, 4, 4)
	empty := make([]bool, g.Len())
	one := make([]bool, g.Len())
	one[g.Index(1, 2, 1)] = true
	sd, _ := DeepMindSurfaceDistances(empty, empty, g)
	if len(sd.TruthToPred.Distances) != 0 || !math.IsInf(sd.RobustHausdorff(95), 1) || !math.IsNaN(sd.MeanAverageSurfaceDistance()) {
		t.Errorf("both empty: %+v", sd)
	}
	sd, _ = DeepMindSurfaceDistances(one, empty, g)
	if len(sd.TruthToPred.Distances) != 8 || !math.IsInf(sd.TruthToPred.Distances[0], 1) || len(sd.PredToTruth.Distances) != 0 {
		t.Errorf("pred empty: %+v", sd)
	}
	if !math.IsInf(sd.RobustHausdorff(95), 1) || !math.IsNaN(sd.MeanAverageSurfaceDistance()) || sd.SurfaceDice(5) != 0 {
		t.Errorf("pred empty: hd %v masd %v sdice %v", sd.RobustHausdorff(95), sd.MeanAverageSurfaceDistance(), sd.SurfaceDice(5))
	}
	// Voxel touching the array border: corners outside the array still count.
	edge := make([]bool, g.Len())
	edge[g.Index(0, 0, 0)] = true
	sd, _ = DeepMindSurfaceDistances(edge, edge, g)
	if len(sd.TruthToPred.Distances) != 8 {
		t.Errorf("border voxel surfels %d, want 8", len(sd.TruthToPred.Distances))
	}
}

// bruteDeepMind computes one side of the DeepMind distances by brute force
// on the uncropped corner lattice (corners 0..n along each axis).
func bruteDeepMind(from, to []bool, g volume.Grid) []float64 {
	lat := [3]int{g.Shape[0] + 1, g.Shape[1] + 1, g.Shape[2] + 1}
	code := func(m []bool, c [3]int) int {
		v := 0
		for e2 := 0; e2 < 2; e2++ {
			for e1 := 0; e1 < 2; e1++ {
				for e0 := 0; e0 < 2; e0++ {
					i, j, k := c[0]-1+e0, c[1]-1+e1, c[2]-1+e2
					if i >= 0 && j >= 0 && k >= 0 && i < g.Shape[0] && j < g.Shape[1] && k < g.Shape[2] && m[g.Index(i, j, k)] {
						v |= 1 << (7 - (4*e2 + 2*e1 + e0))
					}
				}
			}
		}
		return v
	}
	var fc, tc [][3]int
	for k := 0; k < lat[2]; k++ {
		for j := 0; j < lat[1]; j++ {
			for i := 0; i < lat[0]; i++ {
				c := [3]int{i, j, k}
				if x := code(from, c); x != 0 && x != 255 {
					fc = append(fc, c)
				}
				if x := code(to, c); x != 0 && x != 255 {
					tc = append(tc, c)
				}
			}
		}
	}
	var out []float64
	for _, a := range fc {
		best := math.Inf(1)
		for _, b := range tc {
			d0 := float64(a[2]-b[2]) * g.Spacing[2]
			d1 := float64(a[1]-b[1]) * g.Spacing[1]
			d2 := float64(a[0]-b[0]) * g.Spacing[0]
			best = math.Min(best, math.Sqrt((d0*d0+d1*d1)+d2*d2))
		}
		out = append(out, best)
	}
	slices.Sort(out)
	return out
}

// bruteMONAI computes MONAI edge distances by brute force.
func bruteMONAI(from, to []bool, g volume.Grid) []float64 {
	edge := func(m []bool, idx int) bool {
		if !m[idx] {
			return false
		}
		i, j, k := g.Coords(idx)
		for _, o := range [][3]int{{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}} {
			a, b, c := i+o[0], j+o[1], k+o[2]
			if a < 0 || b < 0 || c < 0 || a >= g.Shape[0] || b >= g.Shape[1] || c >= g.Shape[2] || !m[g.Index(a, b, c)] {
				return true
			}
		}
		return false
	}
	var out []float64
	for p := range from {
		if !edge(from, p) {
			continue
		}
		pi, pj, pk := g.Coords(p)
		best := math.Inf(1)
		for q := range to {
			if !edge(to, q) {
				continue
			}
			qi, qj, qk := g.Coords(q)
			d0 := float64(pk-qk) * g.Spacing[2]
			d1 := float64(pj-qj) * g.Spacing[1]
			d2 := float64(pi-qi) * g.Spacing[0]
			best = math.Min(best, math.Sqrt((d0*d0+d1*d1)+d2*d2))
		}
		out = append(out, best)
	}
	return out
}

func TestSurfaceDistancesMatchBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	for trial := 0; trial < 30; trial++ {
		g := volume.NewGrid(3+r.IntN(6), 3+r.IntN(6), 1+r.IntN(6))
		for ax := 0; ax < 3; ax++ {
			g.Spacing[ax] = 0.4 + 2*r.Float64()
		}
		a, b := make([]bool, g.Len()), make([]bool, g.Len())
		da, db := r.Float64()*0.6, r.Float64()*0.6
		for i := range a {
			a[i] = r.Float64() < da
			b[i] = r.Float64() < db
		}
		got, err := EdgeDistances(a, b, g, MONAIOptions{})
		if err != nil {
			t.Fatal(err)
		}
		want := bruteMONAI(a, b, g)
		if countTrue(b) > 0 && countTrue(a) > 0 {
			if len(got) != len(want) {
				t.Fatalf("trial %d: %d MONAI distances, want %d", trial, len(got), len(want))
			}
			for i := range want {
				if !near(got[i], want[i], 1e-12) {
					t.Fatalf("trial %d: MONAI distance %d = %v, want %v", trial, i, got[i], want[i])
				}
			}
		}
		sd, err := DeepMindSurfaceDistances(a, b, g)
		if err != nil {
			t.Fatal(err)
		}
		wantT := bruteDeepMind(a, b, g)
		wantP := bruteDeepMind(b, a, g)
		for side, pair := range [][2][]float64{{sd.TruthToPred.Distances, wantT}, {sd.PredToTruth.Distances, wantP}} {
			if len(pair[0]) != len(pair[1]) {
				t.Fatalf("trial %d side %d: %d surfels, want %d", trial, side, len(pair[0]), len(pair[1]))
			}
			for i := range pair[1] {
				if !near(pair[0][i], pair[1][i], 1e-12) {
					t.Fatalf("trial %d side %d: distance %d = %v, want %v", trial, side, i, pair[0][i], pair[1][i])
				}
			}
		}
		// Symmetry of the symmetric measures.
		sw, _ := DeepMindSurfaceDistances(b, a, g)
		if !near(sw.RobustHausdorff(95), sd.RobustHausdorff(95), 0) {
			t.Fatalf("trial %d: robust HD not symmetric", trial)
		}
	}
}

func TestTranslationInvariance(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	g := volume.NewGrid(14, 12, 10)
	g.Spacing = [3]float64{0.8, 1.1, 2.5}
	a, b := make([]bool, g.Len()), make([]bool, g.Len())
	a2, b2 := make([]bool, g.Len()), make([]bool, g.Len())
	for k := 1; k < 6; k++ {
		for j := 1; j < 7; j++ {
			for i := 1; i < 8; i++ {
				va, vb := r.IntN(2) == 0, r.IntN(3) == 0
				a[g.Index(i, j, k)], b[g.Index(i, j, k)] = va, vb
				a2[g.Index(i+5, j+4, k+3)], b2[g.Index(i+5, j+4, k+3)] = va, vb
			}
		}
	}
	s1, _ := DeepMindSurfaceDistances(a, b, g)
	s2, _ := DeepMindSurfaceDistances(a2, b2, g)
	if s1.RobustHausdorff(95) != s2.RobustHausdorff(95) || s1.MeanAverageSurfaceDistance() != s2.MeanAverageSurfaceDistance() {
		t.Errorf("DeepMind measures change under translation")
	}
	h1, _ := MONAIHausdorff(a, b, g, 95, Symmetric, MONAIOptions{})
	h2, _ := MONAIHausdorff(a2, b2, g, 95, Symmetric, MONAIOptions{})
	if h1 != h2 {
		t.Errorf("MONAI HD95 %v vs %v after translation", h1, h2)
	}
}

// TestDeepMindLibraryVectors uses the expected values of the upstream
// library's own 3D tests (two voxels 2 mm apart; two half-volumes shifted by
// one voxel), given there to 3 decimals.
func TestDeepMindLibraryVectors(t *testing.T) {
	g := npGrid([3]int{128, 128, 128}, [3]float64{3, 2, 1})
	sd, _ := DeepMindSurfaceDistances(npMask(g, [3]int{50, 60, 70}), npMask(g, [3]int{50, 60, 72}), g)
	a, b := sd.AverageSurfaceDistance()
	wt, tt := sd.TruthToPred.Within(1)
	if a != 1.5 || b != 1.5 || sd.RobustHausdorff(100) != 2 || sd.RobustHausdorff(95) != 2 || wt/tt != 0.5 || sd.SurfaceDice(1) != 0.5 {
		t.Errorf("2 voxels 2 mm apart: asd %v %v hd %v hd95 %v overlap %v sdice %v", a, b, sd.RobustHausdorff(100), sd.RobustHausdorff(95), wt/tt, sd.SurfaceDice(1))
	}
	g = npGrid([3]int{100, 100, 100}, [3]float64{2, 1, 1})
	truth := make([]bool, g.Len())
	pred := make([]bool, g.Len())
	for i := range truth {
		_, _, z := g.Coords(i)
		truth[i] = z < 50
		pred[i] = z < 51
	}
	sd, _ = DeepMindSurfaceDistances(truth, pred, g)
	a, b = sd.AverageSurfaceDistance()
	wt, tt = sd.TruthToPred.Within(1)
	wp, tp := sd.PredToTruth.Within(1)
	got := []float64{a, b, sd.RobustHausdorff(100), sd.RobustHausdorff(95), wt / tt, wp / tp, sd.SurfaceDice(1)}
	want := []float64{0.322, 0.339, 2, 2, 0.842, 0.830, 0.836}
	for i := range want {
		if math.Abs(got[i]-want[i]) > 0.0005 {
			t.Errorf("shifted half-volumes: measure %d = %v, want %v", i, got[i], want[i])
		}
	}
}
