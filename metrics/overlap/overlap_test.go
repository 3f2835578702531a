package overlap

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/rexmle/rexmle/metrics/volume"
)

// mask10 builds a 10×10×10 mask from numpy-style [z,y,x] indices.
func mask10(pts ...[3]int) []bool {
	g := volume.NewGrid(10, 10, 10)
	m := make([]bool, g.Len())
	for _, p := range pts {
		m[g.Index(p[2], p[1], p[0])] = true
	}
	return m
}

func block10(z0, z1, y0, y1, x0, x1 int) [][3]int {
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

func TestDiceISLESVectors(t *testing.T) {
	i6p := append(block10(3, 5, 2, 4, 2, 4), [3]int{2, 2, 2})
	cases := []struct {
		name        string
		truth, pred []bool
		want        float64
	}{
		{"I1", mask10([3]int{1, 1, 1}, [3]int{8, 8, 8}), mask10([3]int{1, 1, 1}, [3]int{5, 5, 5}), 0.5},
		{"I2", mask10([3]int{0, 0, 0}, [3]int{1, 1, 1}), mask10([3]int{0, 0, 0}), 2.0 / 3},
		{"I3", mask10(block10(2, 4, 2, 4, 2, 4)...), mask10(), 0},
		{"I4", mask10(), mask10(), 1},
		{"I5", mask10(), mask10([3]int{0, 0, 0}, [3]int{5, 5, 5}, [3]int{9, 9, 9}), 0},
		{"I6", mask10(block10(2, 6, 2, 4, 2, 4)...), mask10(i6p...), 0.72},
		{"I7", mask10(block10(2, 7, 2, 3, 2, 3)...), mask10([3]int{2, 2, 2}, [3]int{6, 2, 2}), 4.0 / 7},
	}
	for _, c := range cases {
		got, err := Dice(c.pred, c.truth, 1)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(got-c.want) > 1e-12 {
			t.Errorf("%s: dice %v, want %v", c.name, got, c.want)
		}
	}
}

func TestCountsConventions(t *testing.T) {
	empty := Counts{TN: 5}
	if empty.Dice(1) != 1 || empty.Dice(0) != 0 || !math.IsNaN(empty.Dice(math.NaN())) {
		t.Errorf("both-empty Dice convention not honoured")
	}
	c := Counts{TP: 3, FP: 1, FN: 2, TN: 10}
	if got := c.Dice(1); got != 6.0/9 {
		t.Errorf("Dice %v, want 6/9", got)
	}
	if c.Pred() != 4 || c.Truth() != 5 {
		t.Errorf("Pred/Truth %d/%d, want 4/5", c.Pred(), c.Truth())
	}
	if _, err := Confusion(make([]bool, 3), make([]bool, 4)); err == nil {
		t.Errorf("length mismatch accepted")
	}
}

func TestConfusionLargeMatchesSerial(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	n := 300001
	p, g := make([]bool, n), make([]bool, n)
	for i := range p {
		p[i], g[i] = r.IntN(3) == 0, r.IntN(2) == 0
	}
	want := directCounts(p, g)
	got, err := Confusion(p, g)
	if err != nil || got != want {
		t.Fatalf("Confusion %+v %v, want %+v", got, err, want)
	}
	if d, _ := Dice(p, p, 0); d != 1 {
		t.Errorf("Dice(a,a) = %v", d)
	}
}

func TestAbsVolumeDiff(t *testing.T) {
	// ISLES I2: |2·0.001 − 1·0.001| = 0.001.
	if d := AbsVolumeDiff(1, 2, 0.001); d != 0.001 {
		t.Errorf("AbsVolumeDiff %v, want 0.001", d)
	}
	if d := AbsVolumeDiff(3, 1, 0.5); d != 1 {
		t.Errorf("AbsVolumeDiff %v, want 1", d)
	}
}

// TestConfusionSmallSizes: every length from 0 to 40 (words and tails)
// against a direct count.
func TestConfusionSmallSizes(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 4))
	for n := 0; n <= 40; n++ {
		for trial := 0; trial < 20; trial++ {
			p, g := make([]bool, n), make([]bool, n)
			for i := range p {
				p[i], g[i] = r.IntN(2) == 0, r.IntN(2) == 0
			}
			want := directCounts(p, g)
			if got, err := Confusion(p, g); err != nil || got != want {
				t.Fatalf("n %d: %+v, want %+v (%v)", n, got, want, err)
			}
		}
	}
}

// directCounts counts the confusion matrix one voxel at a time.
func directCounts(p, g []bool) Counts {
	var c Counts
	for i := range p {
		switch {
		case p[i] && g[i]:
			c.TP++
		case p[i]:
			c.FP++
		case g[i]:
			c.FN++
		default:
			c.TN++
		}
	}
	return c
}
