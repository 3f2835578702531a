package components

import (
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/rexmle/rexmle/metrics/volume"
)

// bruteLabel labels by breadth-first search from every unlabelled voxel in
// storage order, testing adjacency directly from index differences.
func bruteLabel(mask []bool, g volume.Grid, connectivity int) ([]int32, int) {
	adjacent := func(a, b int) bool {
		ai, aj, ak := g.Coords(a)
		bi, bj, bk := g.Coords(b)
		d0, d1, d2 := abs(ai-bi), abs(aj-bj), abs(ak-bk)
		if d0 > 1 || d1 > 1 || d2 > 1 || d0+d1+d2 == 0 {
			return false
		}
		switch connectivity {
		case 4:
			return d2 == 0 && d0+d1 == 1
		case 8:
			return d2 == 0
		case 6:
			return d0+d1+d2 == 1
		case 18:
			return d0+d1+d2 <= 2
		}
		return true
	}
	labels := make([]int32, len(mask))
	n := int32(0)
	for s := range mask {
		if !mask[s] || labels[s] != 0 {
			continue
		}
		n++
		labels[s] = n
		queue := []int{s}
		for len(queue) > 0 {
			v := queue[0]
			queue = queue[1:]
			for w := range mask {
				if mask[w] && labels[w] == 0 && adjacent(v, w) {
					labels[w] = n
					queue = append(queue, w)
				}
			}
		}
	}
	return labels, int(n)
}

func TestLabelMatchesBruteForce(t *testing.T) {
	saved := minParallel
	minParallel = 1
	defer func() { minParallel = saved }()
	r := rand.New(rand.NewPCG(7, 8))
	shapes := [][3]int{{7, 6, 5}, {5, 9, 1}, {1, 1, 6}, {9, 1, 4}, {4, 5, 11}, {12, 11, 1}}
	for _, procs := range []int{1, 3} {
		old := runtime.GOMAXPROCS(procs)
		for _, sh := range shapes {
			g := volume.NewGrid(sh[0], sh[1], sh[2])
			conns := []int{6, 18, 26}
			if sh[2] == 1 {
				conns = append(conns, 4, 8)
			}
			for _, density := range []float64{0.15, 0.35, 0.6} {
				mask := make([]bool, g.Len())
				for i := range mask {
					mask[i] = r.Float64() < density
				}
				for _, c := range conns {
					got, n, err := Label(mask, g, c)
					if err != nil {
						t.Fatal(err)
					}
					want, wn := bruteLabel(mask, g, c)
					if n != wn {
						t.Fatalf("procs %d shape %v conn %d density %v: %d components, want %d", procs, sh, c, density, n, wn)
					}
					for i := range want {
						if got[i] != want[i] {
							t.Fatalf("procs %d shape %v conn %d: voxel %d label %d, want %d", procs, sh, c, i, got[i], want[i])
						}
					}
				}
			}
		}
		runtime.GOMAXPROCS(old)
	}
}

func TestLabelHandVectors(t *testing.T) {
	g := volume.NewGrid(3, 3, 3)
	m := make([]bool, 27)
	m[g.Index(0, 0, 0)], m[g.Index(1, 1, 1)] = true, true // corner-touching
	for conn, want := range map[int]int{6: 2, 18: 2, 26: 1} {
		if n, _ := Count(m, g, conn); n != want {
			t.Errorf("corner pair, connectivity %d: %d components, want %d", conn, n, want)
		}
	}
	m[g.Index(1, 1, 1)], m[g.Index(1, 1, 0)] = false, true // edge-touching
	for conn, want := range map[int]int{6: 2, 18: 1, 26: 1} {
		if n, _ := Count(m, g, conn); n != want {
			t.Errorf("edge pair, connectivity %d: %d components, want %d", conn, n, want)
		}
	}
	// Scan order numbering: the component whose first voxel comes first in
	// storage order is 1 even if the other one is larger.
	m = make([]bool, 27)
	m[g.Index(2, 0, 0)] = true
	m[g.Index(0, 2, 2)], m[g.Index(1, 2, 2)], m[g.Index(2, 2, 2)] = true, true, true
	labels, n, err := Label(m, g, 6)
	if err != nil || n != 2 || labels[g.Index(2, 0, 0)] != 1 || labels[g.Index(1, 2, 2)] != 2 {
		t.Errorf("numbering: n=%d labels=%v err=%v", n, labels, err)
	}
	if s := Sizes(labels, n); s[0] != 1 || s[1] != 3 {
		t.Errorf("Sizes %v, want [1 3]", s)
	}
	if n, _ := Count(make([]bool, 27), g, 26); n != 0 {
		t.Errorf("empty mask has %d components", n)
	}
	full := make([]bool, 27)
	for i := range full {
		full[i] = true
	}
	if n, _ := Count(full, g, 6); n != 1 {
		t.Errorf("full mask has %d components", n)
	}
	// 2D: diagonal pixels.
	g2 := volume.NewGrid(2, 2)
	d := []bool{true, false, false, true}
	if n, _ := Count(d, g2, 4); n != 2 {
		t.Errorf("diagonal 4-conn: %d", n)
	}
	if n, _ := Count(d, g2, 8); n != 1 {
		t.Errorf("diagonal 8-conn: %d", n)
	}
}

func TestLabelErrors(t *testing.T) {
	g := volume.NewGrid(3, 3, 3)
	if _, _, err := Label(make([]bool, 27), g, 8); err == nil {
		t.Errorf("8-connectivity on a 3D grid accepted")
	}
	if _, _, err := Label(make([]bool, 27), g, 10); err == nil {
		t.Errorf("connectivity 10 accepted")
	}
	if _, _, err := Label(make([]bool, 26), g, 6); err == nil {
		t.Errorf("short mask accepted")
	}
}

// isles builds a 10×10×10 mask from numpy [z,y,x] points.
func isles(pts ...[3]int) []bool {
	g := volume.NewGrid(10, 10, 10)
	m := make([]bool, g.Len())
	for _, p := range pts {
		m[g.Index(p[2], p[1], p[0])] = true
	}
	return m
}

func TestMatchLesionsISLES(t *testing.T) {
	g := volume.NewGrid(10, 10, 10)
	var i3, i6g, i6p, i7g [][3]int
	for z := 2; z < 4; z++ {
		for y := 2; y < 4; y++ {
			for x := 2; x < 4; x++ {
				i3 = append(i3, [3]int{z, y, x})
			}
		}
	}
	for z := 2; z < 6; z++ {
		for y := 2; y < 4; y++ {
			for x := 2; x < 4; x++ {
				i6g = append(i6g, [3]int{z, y, x})
				if z >= 3 && z < 5 {
					i6p = append(i6p, [3]int{z, y, x})
				}
			}
		}
	}
	i6p = append(i6p, [3]int{2, 2, 2})
	for z := 2; z <= 6; z++ {
		i7g = append(i7g, [3]int{z, 2, 2})
	}
	cases := []struct {
		name        string
		truth, pred []bool
		f1          float64
		countDiff   int
		tp, fn, fp  int
	}{
		{"I1", isles([3]int{1, 1, 1}, [3]int{8, 8, 8}), isles([3]int{1, 1, 1}, [3]int{5, 5, 5}), 0.5, 0, 1, 1, 1},
		{"I2", isles([3]int{0, 0, 0}, [3]int{1, 1, 1}), isles([3]int{0, 0, 0}), 1, 0, 1, 0, 0},
		{"I3", isles(i3...), isles(), 0, 1, 0, 1, 0},
		{"I4", isles(), isles(), 1, 0, 0, 0, 0},
		{"I5", isles(), isles([3]int{0, 0, 0}, [3]int{5, 5, 5}, [3]int{9, 9, 9}), 0, 3, 0, 0, 3},
		{"I6", isles(i6g...), isles(i6p...), 1, 0, 1, 0, 0},
		{"I7", isles(i7g...), isles([3]int{2, 2, 2}, [3]int{6, 2, 2}), 1, 1, 1, 0, 0},
	}
	for _, c := range cases {
		m, err := MatchLesions(c.pred, c.truth, g, 26)
		if err != nil {
			t.Fatal(err)
		}
		if m.TP != c.tp || m.FN != c.fn || m.FP != c.fp || m.F1() != c.f1 || m.CountDiff() != c.countDiff {
			t.Errorf("%s: %+v F1 %v diff %d, want TP %d FN %d FP %d F1 %v diff %d", c.name, m, m.F1(), m.CountDiff(), c.tp, c.fn, c.fp, c.f1, c.countDiff)
		}
	}
	// I2 with 6-connectivity: two truth lesions → count diff 1.
	m, _ := MatchLesions(isles([3]int{0, 0, 0}), isles([3]int{0, 0, 0}, [3]int{1, 1, 1}), g, 6)
	if m.CountDiff() != 1 {
		t.Errorf("I2 with 6-connectivity: count diff %d, want 1", m.CountDiff())
	}
	// One prediction bridging two truth lesions makes both TP.
	m, _ = MatchLesions(isles([3]int{1, 1, 1}, [3]int{1, 1, 2}, [3]int{1, 1, 3}), isles([3]int{1, 1, 1}, [3]int{1, 1, 3}), g, 26)
	if m.TP != 2 || m.FP != 0 || m.F1() != 1 {
		t.Errorf("bridge: %+v", m)
	}
	if n, _ := Count(isles([3]int{1, 1, 1}, [3]int{5, 5, 5}), g, 26); n != 2 {
		t.Errorf("Count of two apart lesions %d, want 2", n)
	}
	if n, _ := Count(isles([3]int{1, 1, 1}, [3]int{2, 2, 2}), g, 26); n != 1 {
		t.Errorf("Count of two corner-touching lesions with 26-connectivity %d, want 1", n)
	}
	if n, _ := Count(isles([3]int{1, 1, 1}, [3]int{2, 2, 2}), g, 6); n != 2 {
		t.Errorf("Count of two corner-touching lesions with 6-connectivity %d, want 2", n)
	}
}
