package matching

import (
	"context"
	"math"
	"testing"
)

func TestMatchPointsSpecVectors(t *testing.T) {
	quirk := PointOptions{Radius: 15, RemoveFirstEqualCentroid: true}
	inclusive := PointOptions{Radius: 15, Inclusive: true, RemoveFirstEqualCentroid: true}
	strict121 := PointOptions{Radius: 15}
	tum := func(x, y, s float64) Point { return Point{X: x, Y: y, Class: "tumor", Score: s} }
	cases := []struct {
		name        string
		truth, pred []Point
		opt         PointOptions
		wantTP      int
	}{
		// puma-track1-task2 vector A (tumor part): d = 15 exactly is not < 15.
		{"distance 15 exclusive", []Point{tum(4, 4, 1)}, []Point{tum(19, 4, 0.9), tum(500, 500, 0.99)}, quirk, 0},
		// puma-track2-task2 vector A: d = 15 matches when inclusive.
		{"distance 15 inclusive", []Point{tum(4, 4, 1)}, []Point{tum(19, 4, 0.9)}, inclusive, 1},
		// track1-task2 vector D: first truth takes the only prediction.
		{"truth order", []Point{tum(0, 0, 1), tum(20, 0, 1)}, []Point{tum(10, 0, 1)}, quirk, 1},
		// track1-task2 vector E: removal quirk lets one prediction match twice.
		{"removal quirk", []Point{tum(1, 0, 1), tum(5, 0, 1), tum(20, 0, 1)},
			[]Point{tum(0, 0, 0.5), tum(0, 0, 0.9), tum(10, 0, 0.8)}, quirk, 3},
		{"strict one-to-one", []Point{tum(1, 0, 1), tum(5, 0, 1), tum(20, 0, 1)},
			[]Point{tum(0, 0, 0.5), tum(0, 0, 0.9), tum(10, 0, 0.8)}, strict121, 2},
		// track2-task2 vector G.
		{"inclusive then unmatched", []Point{tum(0, 0, 1), tum(30, 0, 1)}, []Point{tum(15, 0, 1)}, inclusive, 1},
		{"class must agree", []Point{{X: 0, Y: 0, Class: "TILs", Score: 1}}, []Point{tum(0, 0, 1)}, quirk, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := MatchPoints(tc.truth, tc.pred, tc.opt)
			if got["tumor"].TP != tc.wantTP {
				t.Errorf("tumor TP = %d, want %d (%+v)", got["tumor"].TP, tc.wantTP, got)
			}
		})
	}
}

// Ties: equal score prefers the nearer prediction; equal score and
// distance prefers the earlier one; higher score beats nearer.
func TestMatchPointsTies(t *testing.T) {
	opt := PointOptions{Radius: 15}
	truth := []Point{{X: 0, Y: 0, Class: "a", Score: 1}, {X: 100, Y: 0, Class: "a", Score: 1}}
	// For the first truth: p0 (d 5, s .5), p1 (d 3, s .5) → p1 nearer wins;
	// p2 (d 10, s .9) beats both by score.
	pred := []Point{{X: 5, Y: 0, Class: "a", Score: 0.5}, {X: 3, Y: 0, Class: "a", Score: 0.5}, {X: 10, Y: 0, Class: "a", Score: 0.9}}
	got := MatchPoints(truth, pred, opt)
	if c := got["a"]; c.TP != 1 || c.Pred != 3 || c.Truth != 2 {
		t.Fatalf("counts %+v", c)
	}
	// Verify the choice by checking what remains: a second truth at (4,0)
	// must still find p0 or p1 (both left after p2 was taken).
	truth2 := []Point{{X: 0, Y: 0, Class: "a", Score: 1}, {X: 4, Y: 0, Class: "a", Score: 1}, {X: 4, Y: 0, Class: "a", Score: 1}, {X: 4, Y: 0, Class: "a", Score: 1}}
	if c := MatchPoints(truth2, pred, opt)["a"]; c.TP != 3 {
		t.Errorf("TP = %d, want 3", c.TP)
	}
	// Equal score and distance: earliest pool element is taken, and with the
	// quirk the first equal-centroid element goes, which is the same one.
	same := []Point{{X: 3, Y: 0, Class: "a", Score: 1}, {X: -3, Y: 0, Class: "a", Score: 1}}
	c := MatchPoints([]Point{{Class: "a"}, {X: 6, Class: "a"}}, same, PointOptions{Radius: 4})
	if c["a"].TP != 1 {
		t.Errorf("earliest-first tie: TP %d, want 1 (truth 1 takes (3,0), leaving (-3,0) out of reach of (6,0))", c["a"].TP)
	}
}

func TestF1(t *testing.T) {
	cases := []struct {
		c    ClassCount
		want float64
	}{
		{ClassCount{}, 0},
		{ClassCount{TP: 1, Pred: 1, Truth: 1}, 1},
		{ClassCount{TP: 1, Pred: 1, Truth: 2}, 2.0 / 3},
		{ClassCount{TP: 0, Pred: 2, Truth: 1}, 0},
		{ClassCount{TP: 2, Pred: 4, Truth: 2}, 2 * 0.5 * 1 / 1.5},
	}
	for _, tc := range cases {
		if got := F1(tc.c); math.Abs(got-tc.want) > 1e-15 {
			t.Errorf("F1(%+v) = %v, want %v", tc.c, got, tc.want)
		}
	}
}

// img builds an h×w mask with rectangles (label, r0, r1, c0, c1 inclusive).
func img(h, w int, rects ...[5]int) []int32 {
	m := make([]int32, h*w)
	for _, r := range rects {
		for y := r[1]; y <= r[2]; y++ {
			for x := r[3]; x <= r[4]; x++ {
				m[y*w+x] = int32(r[0])
			}
		}
	}
	return m
}

var ths = []float64{0.5, 0.6, 0.7, 0.8, 0.9}

func f1s(c InstanceCounts) []float64 {
	out := make([]float64, len(c.TP))
	for i, tp := range c.TP {
		out[i] = InstanceF1(tp, c.Truth, c.Pred)
	}
	return out
}

func TestMatchInstancesSpecVectors(t *testing.T) {
	cases := []struct {
		name        string
		h, w        int
		truth, pred []int32
		want        []float64
	}{
		{"A IoU 0.75", 10, 10, img(10, 10, [5]int{1, 3, 6, 3, 6}), img(10, 10, [5]int{5, 3, 6, 3, 5}), []float64{1, 1, 1, 0, 0}},
		{"B border cell removed from both", 10, 10, img(10, 10, [5]int{1, 0, 2, 0, 2}), img(10, 10, [5]int{1, 0, 2, 0, 2}), []float64{0, 0, 0, 0, 0}},
		{"C two halves at IoU 0.5", 10, 10, img(10, 10, [5]int{1, 3, 6, 3, 6}), img(10, 10, [5]int{7, 3, 6, 3, 4}, [5]int{300, 3, 6, 5, 6}), []float64{2.0 / 3, 0, 0, 0, 0}},
		{"E 12x12", 12, 12, img(12, 12, [5]int{1, 2, 4, 2, 4}, [5]int{2, 2, 4, 6, 8}, [5]int{3, 6, 8, 2, 4}),
			img(12, 12, [5]int{1, 2, 4, 2, 4}, [5]int{2, 2, 4, 6, 7}), []float64{0.8, 0.8, 0.4, 0.4, 0.4}},
		{"G prediction touches band", 10, 10, img(10, 10, [5]int{1, 3, 6, 3, 6}), img(10, 10, [5]int{1, 1, 6, 3, 6}), []float64{0, 0, 0, 0, 0}},
		{"empty prediction", 10, 10, img(10, 10, [5]int{1, 3, 6, 3, 6}), img(10, 10), []float64{0, 0, 0, 0, 0}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := MatchInstances(context.Background(), tc.truth, tc.pred, tc.h, tc.w, ths)
			if err != nil {
				t.Fatal(err)
			}
			got := f1s(c)
			for i := range got {
				if math.Abs(got[i]-tc.want[i]) > 1e-12 {
					t.Errorf("F1 at %v = %v, want %v", ths[i], got[i], tc.want[i])
				}
			}
		})
	}
}

func TestMatchInstancesDoesNotModifyInputs(t *testing.T) {
	tr := img(10, 10, [5]int{9, 0, 2, 0, 2})
	pr := img(10, 10, [5]int{9, 0, 2, 0, 2})
	if _, err := MatchInstances(context.Background(), tr, pr, 10, 10, ths); err != nil {
		t.Fatal(err)
	}
	if tr[0] != 9 || pr[0] != 9 {
		t.Error("inputs modified")
	}
}

func TestMatchInstancesNegativeLabel(t *testing.T) {
	pr := img(10, 10, [5]int{-3, 4, 5, 4, 5})
	if _, err := MatchInstances(context.Background(), img(10, 10, [5]int{1, 4, 5, 4, 5}), pr, 10, 10, ths); err == nil {
		t.Error("negative label accepted")
	}
}

func TestRemoveBorderNoInteriorQuirk(t *testing.T) {
	// 4×4 image: everything is band; no 0 in the band → smallest label kept.
	m := []int32{3, 3, 5, 5, 3, 3, 5, 5, 3, 3, 5, 5, 3, 3, 5, 5}
	RemoveBorderInstances(m, 4, 4, 2)
	for i, v := range m {
		want := int32(3)
		if i%4 >= 2 {
			want = 0
		}
		if v != want {
			t.Fatalf("pixel %d = %d, want %d (%v)", i, v, want, m)
		}
	}
}

func TestRelabelSequential(t *testing.T) {
	m := []int32{0, 7, 7, 300, 2, 0}
	k, err := RelabelSequential(m)
	if err != nil || k != 3 {
		t.Fatalf("k=%d err=%v", k, err)
	}
	want := []int32{0, 2, 2, 3, 1, 0}
	for i := range m {
		if m[i] != want[i] {
			t.Fatalf("got %v want %v", m, want)
		}
	}
}

// Spec vectors H and I: a cell crossing the 2000-px tile edge is dropped on
// the tiled path (≥ 25 M pixels) but kept on the direct path.
func TestMatchInstancesPatchPath(t *testing.T) {
	if testing.Short() {
		t.Skip("large images")
	}
	for _, tc := range []struct {
		h, w int
		want float64
	}{{5000, 5000, 1}, {4999, 5000, 2.0 / 3}} {
		tr := img(tc.h, tc.w, [5]int{1, 100, 109, 100, 109}, [5]int{2, 100, 109, 1995, 2004})
		pr := img(tc.h, tc.w, [5]int{1, 100, 109, 100, 109})
		c, err := MatchInstances(context.Background(), tr, pr, tc.h, tc.w, ths)
		if err != nil {
			t.Fatal(err)
		}
		for i, f := range f1s(c) {
			if math.Abs(f-tc.want) > 1e-12 {
				t.Errorf("%dx%d: F1 at %v = %v, want %v", tc.h, tc.w, ths[i], f, tc.want)
			}
		}
	}
}
