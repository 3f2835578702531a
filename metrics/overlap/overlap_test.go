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
	if empty.IoU(1) != 1 || !math.IsNaN(empty.IoU(math.NaN())) {
		t.Errorf("both-empty IoU convention not honoured")
	}
	c := Counts{TP: 3, FP: 1, FN: 2, TN: 10}
	if got := c.Dice(1); got != 6.0/9 {
		t.Errorf("Dice %v, want 6/9", got)
	}
	if got := c.IoU(1); got != 0.5 {
		t.Errorf("IoU %v, want 0.5", got)
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
	var want Counts
	for i := range p {
		p[i], g[i] = r.IntN(3) == 0, r.IntN(2) == 0
		switch {
		case p[i] && g[i]:
			want.TP++
		case p[i]:
			want.FP++
		case g[i]:
			want.FN++
		default:
			want.TN++
		}
	}
	got, err := Confusion(p, g)
	if err != nil || got != want {
		t.Fatalf("Confusion %+v %v, want %+v", got, err, want)
	}
	if CountTrue(p) != want.TP+want.FP {
		t.Errorf("CountTrue %d, want %d", CountTrue(p), want.TP+want.FP)
	}
	if d, _ := Dice(p, p, 0); d != 1 {
		t.Errorf("Dice(a,a) = %v", d)
	}
}

func TestPerLabel(t *testing.T) {
	pred := []int32{0, 1, 1, 2, 2, 2, 5000, 7, 0, 3}
	truth := []int32{0, 1, 2, 2, 2, 0, 5000, 5000, 3, 0}
	got, err := PerLabel(pred, truth)
	if err != nil {
		t.Fatal(err)
	}
	want := []LabelCounts{
		{Label: 1, Pred: 2, Truth: 1, Inter: 1},
		{Label: 2, Pred: 3, Truth: 3, Inter: 2},
		{Label: 3, Pred: 1, Truth: 1, Inter: 0},
		{Label: 7, Pred: 1, Truth: 0, Inter: 0},
		{Label: 5000, Pred: 1, Truth: 2, Inter: 1},
	}
	if len(got) != len(want) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("label %d: got %+v, want %+v", want[i].Label, got[i], want[i])
		}
	}
	if d := got[1].Dice(1); d != 4.0/6 {
		t.Errorf("label 2 dice %v, want 2/3", d)
	}
	if d := got[4].IoU(1); d != 0.5 {
		t.Errorf("label 5000 IoU %v, want 1/2", d)
	}
	if (LabelCounts{Label: 9}).Dice(0) != 0 {
		t.Errorf("absent label convention")
	}
}

func TestPerLabelParallelMatchesSerial(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	n := 400000
	p, g := make([]int32, n), make([]int32, n)
	type key = int32
	pc, gc, ic := map[key]int{}, map[key]int{}, map[key]int{}
	for i := range p {
		p[i], g[i] = int32(r.IntN(14)), int32(r.IntN(14))
		if r.IntN(100) == 0 {
			p[i] = 70000
		}
		pc[p[i]]++
		gc[g[i]]++
		if p[i] == g[i] {
			ic[p[i]]++
		}
	}
	got, err := PerLabel(p, g)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 14 {
		t.Fatalf("%d labels, want 14", len(got))
	}
	for _, c := range got {
		if c.Pred != pc[c.Label] || c.Truth != gc[c.Label] || c.Inter != ic[c.Label] {
			t.Errorf("label %d: %+v, want %d/%d/%d", c.Label, c, pc[c.Label], gc[c.Label], ic[c.Label])
		}
	}
}

func TestPairs(t *testing.T) {
	pred := []int32{1, 1, 2, 2, 0, 3, 3}
	truth := []int32{5, 5, 5, 0, 6, 6, 0}
	got, err := Pairs(pred, truth)
	if err != nil {
		t.Fatal(err)
	}
	want := []Pair{{Pred: 1, Truth: 5, Inter: 2}, {Pred: 2, Truth: 5, Inter: 1}, {Pred: 3, Truth: 6, Inter: 1}}
	if len(got) != len(want) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("pair %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	s := LabelSizes(pred)
	if s[0] != 1 || s[1] != 2 || s[3] != 2 {
		t.Errorf("LabelSizes %v", s)
	}
}

func TestVolumes(t *testing.T) {
	g := volume.NewGrid(4, 4, 4)
	g.Spacing = [3]float64{2, 1, 0.5}
	if v := VoxelVolume(g); v != 1 {
		t.Errorf("VoxelVolume %v, want 1", v)
	}
	if ml := VolumeML(8, 1); ml != 0.008 {
		t.Errorf("VolumeML %v, want 0.008", ml)
	}
	// ISLES I2: |2·0.001 − 1·0.001| = 0.001.
	if d := AbsVolumeDiff(1, 2, 0.001); d != 0.001 {
		t.Errorf("AbsVolumeDiff %v, want 0.001", d)
	}
}
