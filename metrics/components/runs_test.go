package components

import (
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/rexmle/rexmle/metrics/volume"
)

// matchLesionsByLabel is the voxel-label definition MatchLesions must
// equal: label both masks (Label, itself checked against breadth-first
// search), mark the components that meet.
func matchLesionsByLabel(t *testing.T, pred, truth []bool, g volume.Grid, connectivity int) LesionMatch {
	t.Helper()
	tl, nt, err := Label(truth, g, connectivity)
	if err != nil {
		t.Fatal(err)
	}
	pl, np, err := Label(pred, g, connectivity)
	if err != nil {
		t.Fatal(err)
	}
	hitTruth, touchPred := make([]bool, nt+1), make([]bool, np+1)
	for i := range truth {
		if truth[i] && pred[i] {
			hitTruth[tl[i]], touchPred[pl[i]] = true, true
		}
	}
	m := LesionMatch{TruthCount: nt, PredCount: np}
	for i := range truth {
		m.TruthVoxels += boolInt(truth[i])
		m.PredVoxels += boolInt(pred[i])
		m.OverlapVoxels += boolInt(truth[i] && pred[i])
	}
	for l := 1; l <= nt; l++ {
		if hitTruth[l] {
			m.TP++
		} else {
			m.FN++
		}
	}
	for l := 1; l <= np; l++ {
		if !touchPred[l] {
			m.FP++
		}
	}
	return m
}

// randomMask fills a mask with one of three textures: independent voxels,
// short runs along axis 0 with gaps of one (the tie case of the run
// sweep), or blocks.
func randomMask(r *rand.Rand, g volume.Grid) []bool {
	m := make([]bool, g.Len())
	switch r.IntN(3) {
	case 0:
		d := r.Float64() * 0.7
		for i := range m {
			m[i] = r.Float64() < d
		}
	case 1:
		for i := 0; i < len(m); {
			n := 1 + r.IntN(4)
			on := r.IntN(2) == 0
			for k := 0; k < n && i < len(m); k++ {
				m[i] = on
				i++
			}
			i += r.IntN(2) // a gap of 0 or 1 more
		}
	default:
		for b := r.IntN(6); b > 0; b-- {
			i0, j0, k0 := r.IntN(g.Shape[0]), r.IntN(g.Shape[1]), r.IntN(g.Shape[2])
			for k := k0; k < min(k0+1+r.IntN(3), g.Shape[2]); k++ {
				for j := j0; j < min(j0+1+r.IntN(3), g.Shape[1]); j++ {
					for i := i0; i < min(i0+1+r.IntN(4), g.Shape[0]); i++ {
						m[g.Index(i, j, k)] = true
					}
				}
			}
		}
	}
	return m
}

// randomGrid picks one of shapes and a connectivity it allows (4 and 8
// only on a 2-D grid).
func randomGrid(r *rand.Rand, shapes [][3]int) ([3]int, volume.Grid, int) {
	sh := shapes[r.IntN(len(shapes))]
	conns := []int{6, 18, 26}
	if sh[2] == 1 {
		conns = append(conns, 4, 8)
	}
	return sh, volume.NewGrid(sh[0], sh[1], sh[2]), conns[r.IntN(len(conns))]
}

// TestRunsMatchLabel: Count and MatchLesions (both on runs) equal the
// voxel labelling on random masks of every shape kind and connectivity,
// and so do FindLesions and MatchFound (the lesions found apart).
func TestRunsMatchLabel(t *testing.T) {
	r := rand.New(rand.NewPCG(22, 3))
	shapes := [][3]int{{7, 6, 5}, {5, 9, 1}, {1, 1, 6}, {9, 1, 4}, {4, 5, 11}, {12, 11, 1}, {1, 7, 7}, {16, 3, 3}}
	for trial := 0; trial < 3000; trial++ {
		sh, g, c := randomGrid(r, shapes)
		truth, pred := randomMask(r, g), randomMask(r, g)
		if r.IntN(3) == 0 { // a prediction that overlaps the truth
			for i := range pred {
				pred[i] = truth[i] != (r.IntN(8) == 0)
			}
		}
		_, want, err := Label(truth, g, c)
		if err != nil {
			t.Fatal(err)
		}
		if n, err := Count(truth, g, c); err != nil || n != want {
			t.Fatalf("trial %d shape %v conn %d: Count %d (%v), Label %d", trial, sh, c, n, err, want)
		}
		got, err := MatchLesions(pred, truth, g, c)
		if err != nil {
			t.Fatal(err)
		}
		if w := matchLesionsByLabel(t, pred, truth, g, c); got != w {
			t.Fatalf("trial %d shape %v conn %d: MatchLesions %+v, by labels %+v", trial, sh, c, got, w)
		}
		// The same lesions found apart and matched.
		tl, err := FindLesions(truth, g, c)
		if err != nil {
			t.Fatal(err)
		}
		pl, err := FindLesions(pred, g, c)
		if err != nil {
			t.Fatal(err)
		}
		if m, err := MatchFound(pl, tl); err != nil || m != got {
			t.Fatalf("trial %d shape %v conn %d: MatchFound %+v (%v), MatchLesions %+v", trial, sh, c, m, err, got)
		}
		if tl.Count() != got.TruthCount || tl.Voxels() != got.TruthVoxels || pl.Count() != got.PredCount || pl.Voxels() != got.PredVoxels {
			t.Fatalf("trial %d: counts %d/%d voxels %d/%d, want %+v", trial, tl.Count(), pl.Count(), tl.Voxels(), pl.Voxels(), got)
		}
	}
}

// TestMatchFoundErrors: lesions of different shapes or connectivities do
// not match; a mask that does not fit its grid is refused.
func TestMatchFoundErrors(t *testing.T) {
	g, h := volume.NewGrid(4, 3, 2), volume.NewGrid(3, 4, 2)
	a, _ := FindLesions(make([]bool, g.Len()), g, 26)
	b, _ := FindLesions(make([]bool, h.Len()), h, 26)
	c, _ := FindLesions(make([]bool, g.Len()), g, 6)
	if _, err := MatchFound(a, b); err == nil || !strings.Contains(err.Error(), "shape") {
		t.Errorf("shapes [4 3 2] and [3 4 2]: %v, want a shape error", err)
	}
	if _, err := MatchFound(a, c); err == nil || !strings.Contains(err.Error(), "connectivity 26, truth with 6") {
		t.Errorf("connectivities 26 and 6: %v, want a connectivity error", err)
	}
	if _, err := FindLesions(make([]bool, 5), g, 26); err == nil || !strings.Contains(err.Error(), "5 voxels") {
		t.Errorf("5 voxels on a 24-voxel grid: %v, want a length error", err)
	}
	if _, err := FindLesions(make([]bool, g.Len()), g, 7); err == nil {
		t.Error("connectivity 7 accepted")
	}
	if m, err := MatchFound(a, a); err != nil || m.F1() != 1 || m != (LesionMatch{}) {
		t.Errorf("two empty masks: %+v %v, want all zero and F1 1", m, err)
	}
}

// BenchmarkMatchLesionsISLES: lesion matching of an ISLES'22-sized case
// (112×112×73, eight ellipsoidal lesions, a shifted prediction).
func BenchmarkMatchLesionsISLES(b *testing.B) {
	g := volume.NewGrid(112, 112, 73)
	truth, pred := make([]bool, g.Len()), make([]bool, g.Len())
	r := rand.New(rand.NewPCG(1, 1))
	for l := 0; l < 8; l++ {
		c := [3]int{20 + r.IntN(72), 20 + r.IntN(72), 20 + r.IntN(33)}
		rad := 1 + r.IntN(8)
		for k := c[2] - rad; k <= c[2]+rad; k++ {
			for j := c[1] - rad; j <= c[1]+rad; j++ {
				for i := c[0] - rad; i <= c[0]+rad+1; i++ {
					d := (i-c[0])*(i-c[0]) + (j-c[1])*(j-c[1]) + (k-c[2])*(k-c[2])
					if d <= rad*rad {
						truth[g.Index(i, j, k)] = true
					}
					if e := (i-c[0]-1)*(i-c[0]-1) + (j-c[1])*(j-c[1]) + (k-c[2])*(k-c[2]); e <= rad*rad {
						pred[g.Index(i, j, k)] = true
					}
				}
			}
		}
	}
	for b.Loop() {
		if _, err := MatchLesions(pred, truth, g, 26); err != nil {
			b.Fatal(err)
		}
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// maskBytes stores mask as bytes: 0 for false, a random non-zero value
// (1, 255, 0x80 or any other) for true, as an 8-bit mask or label map
// holds it.
func maskBytes(r *rand.Rand, mask []bool) []byte {
	b := make([]byte, len(mask))
	for i, on := range mask {
		if on {
			switch r.IntN(4) {
			case 0:
				b[i] = 1
			case 1:
				b[i] = 255
			case 2:
				b[i] = 0x80
			default:
				b[i] = byte(1 + r.IntN(255))
			}
		}
	}
	return b
}

// sparseMask is a mask of a few short runs scattered over long zero
// stretches (the background of a lesion mask), so that zero skipping
// crosses rows and whole blocks of zeros.
func sparseMask(r *rand.Rand, g volume.Grid) []bool {
	m := make([]bool, g.Len())
	for n := r.IntN(8); n > 0; n-- {
		i := r.IntN(len(m))
		for k := 0; k < 1+r.IntN(20) && i+k < len(m); k++ {
			m[i+k] = true
		}
	}
	return m
}

// TestFindLesionsNonZeroMatchesBool: the lesions FindLesionsNonZero finds
// on a mask's bytes are those FindLesions finds on the mask as booleans
// (the same runs and labels), on random and sparse masks of many shapes,
// row lengths that are and are not multiples of 8 and rows longer than
// the zero blocks skipped at once; matched against lesions found either
// way they give the same LesionMatch.
func TestFindLesionsNonZeroMatchesBool(t *testing.T) {
	r := rand.New(rand.NewPCG(34, 8))
	shapes := [][3]int{{7, 6, 5}, {5, 9, 1}, {1, 1, 6}, {9, 1, 4}, {16, 3, 3}, {8, 8, 8}, {600, 3, 2}, {1030, 1, 1}, {37, 29, 11}, {112, 11, 7}}
	for trial := 0; trial < 3000; trial++ {
		sh, g, c := randomGrid(r, shapes)
		mask := randomMask(r, g)
		if r.IntN(2) == 0 {
			mask = sparseMask(r, g)
		}
		b := maskBytes(r, mask)
		want, err := FindLesions(mask, g, c)
		if err != nil {
			t.Fatal(err)
		}
		got, err := FindLesionsNonZero(b, g, c)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("trial %d shape %v conn %d: lesions of the bytes %+v, of the bools %+v", trial, sh, c, got.l.rs, want.l.rs)
		}
		other := randomMask(r, g)
		ol, err := FindLesions(other, g, c)
		if err != nil {
			t.Fatal(err)
		}
		m1, err1 := MatchFound(got, ol)
		m2, err2 := MatchFound(want, ol)
		if err1 != nil || err2 != nil || m1 != m2 {
			t.Fatalf("trial %d: matched from bytes %+v (%v), from bools %+v (%v)", trial, m1, err1, m2, err2)
		}
	}
}

// TestFindLesionsNonZeroErrors: FindLesionsNonZero refuses what
// FindLesions refuses, with the same errors.
func TestFindLesionsNonZeroErrors(t *testing.T) {
	g := volume.NewGrid(4, 3, 2)
	for _, c := range []struct {
		n, conn int
	}{{5, 26}, {g.Len(), 7}, {g.Len(), 4}, {0, 6}} {
		_, want := FindLesions(make([]bool, c.n), g, c.conn)
		_, got := FindLesionsNonZero(make([]byte, c.n), g, c.conn)
		if want == nil || got == nil || got.Error() != want.Error() {
			t.Errorf("%d voxels, connectivity %d: %v, FindLesions %v", c.n, c.conn, got, want)
		}
	}
}
