package detection

import (
	"context"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
)

// tieScene is a random scene built to stress the order-dependent parts of
// the evaluation: scores drawn from a few values (ties within and across
// images), crowd and zero-id truths, areas across the COCO ranges and
// outside [0, ∞) (negative widths), detections of unregistered categories,
// images without truth or without detections, and a small maxDets.
func tieScene(r *rand.Rand, nImg int) ([]GroundTruth, []Detection, Params) {
	var gts []GroundTruth
	var dts []Detection
	var imgs []int64
	cats := []int64{1, 2, 3}
	scores := []float64{0.9, 0.5, 0.5, 0.25, 0, math.Copysign(0, -1), 1}
	for i := 0; i < nImg; i++ {
		id := int64(10 * (i + 1))
		imgs = append(imgs, id)
		nG := r.IntN(5)
		if r.IntN(6) == 0 {
			nG = 0
		}
		var boxes []Box
		for j := 0; j < nG; j++ {
			s := []float64{8, 20, 40, 70, 120}[r.IntN(5)]
			b := Box{r.Float64() * 200, r.Float64() * 200, s * (0.5 + r.Float64()), s * (0.5 + r.Float64())}
			boxes = append(boxes, b)
			area := b.Area()
			if r.IntN(5) == 0 {
				area = -1
			}
			gts = append(gts, GroundTruth{ImageID: id, Category: cats[r.IntN(3)], Box: b, Area: area, Crowd: r.IntN(7) == 0, ID: int64(r.IntN(20))})
		}
		nD := r.IntN(9)
		if r.IntN(6) == 0 {
			nD = 0
		}
		for j := 0; j < nD; j++ {
			var b Box
			if len(boxes) > 0 && r.IntN(3) > 0 {
				g := boxes[r.IntN(len(boxes))]
				b = Box{g[0] + r.NormFloat64()*3, g[1] + r.NormFloat64()*3, g[2] * (1 + 0.1*r.NormFloat64()), g[3] * (1 + 0.1*r.NormFloat64())}
			} else {
				b = Box{r.Float64() * 200, r.Float64() * 200, 5 + r.Float64()*80, 5 + r.Float64()*80}
			}
			if r.IntN(12) == 0 {
				b[2] = -b[2]
			}
			sc := scores[r.IntN(len(scores))]
			if r.IntN(3) == 0 {
				sc = r.Float64()
			}
			dts = append(dts, Detection{ImageID: id, Category: int64(1 + r.IntN(4)), Box: b, Score: sc})
		}
	}
	r.Shuffle(len(gts), func(i, j int) { gts[i], gts[j] = gts[j], gts[i] })
	p := DefaultParams(imgs, cats)
	if r.IntN(2) == 0 {
		p.MaxDets = []int{1, 2, 4}
	}
	return gts, dts, p
}

func sameBits(a, b []float64) int {
	if len(a) != len(b) {
		return 0
	}
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return i
		}
	}
	return -1
}

// The single-pass evaluator equals the previous one bit for bit: every
// precision, recall and summary value, on scenes full of ties.
func TestEvaluateMatchesOracle(t *testing.T) {
	ctx := context.Background()
	for seed := uint64(0); seed < 300; seed++ {
		r := rand.New(rand.NewPCG(seed, 77))
		gts, dts, p := tieScene(r, 1+r.IntN(25))
		got, err := Evaluate(ctx, gts, dts, p)
		if err != nil {
			t.Fatal(err)
		}
		want, err := evaluateOracle(ctx, gts, dts, p)
		if err != nil {
			t.Fatal(err)
		}
		if i := sameBits(got.Precision, want.Precision); i >= 0 {
			t.Fatalf("seed %d: precision[%d] = %v, oracle %v", seed, i, got.Precision[i], want.Precision[i])
		}
		if i := sameBits(got.Recall, want.Recall); i >= 0 {
			t.Fatalf("seed %d: recall[%d] = %v, oracle %v", seed, i, got.Recall[i], want.Recall[i])
		}
		if i := sameBits(got.Stats[:], want.Stats[:]); i >= 0 {
			t.Fatalf("seed %d: stats %v, oracle %v", seed, got.Stats, want.Stats)
		}
	}
	// Same on the larger random scenes of the other tests.
	r := rand.New(rand.NewPCG(3, 4))
	gts, dts, imgs, cats := randomScene(r, 200, 10, 6)
	got, _ := Evaluate(ctx, gts, dts, DefaultParams(imgs, cats))
	want, _ := evaluateOracle(ctx, gts, dts, DefaultParams(imgs, cats))
	if sameBits(got.Precision, want.Precision) >= 0 || sameBits(got.Recall, want.Recall) >= 0 || got.Stats != want.Stats {
		t.Errorf("random scene: stats %v, oracle %v", got.Stats, want.Stats)
	}
}

func summaryOf(e *Eval) Summary { return Summary{e.Stats[0], e.Stats[1], e.Stats[2], e.Stats[8]} }

func sameSummary(a, b Summary) bool {
	return sameBits([]float64{a.AP, a.AP50, a.AP75, a.AR}, []float64{b.AP, b.AP50, b.AP75, b.AR}) < 0
}

// The pool re-accumulates the full sample bit for bit, and a resample equals
// evaluating the scene with the drawn images physically repeated (copies
// under new ids that sort right after the original's).
func TestPoolMatchesRepeatedImages(t *testing.T) {
	ctx := context.Background()
	for seed := uint64(0); seed < 200; seed++ {
		r := rand.New(rand.NewPCG(seed, 78))
		nImg := 1 + r.IntN(20)
		gts, dts, p := tieScene(r, nImg)
		e, err := Evaluate(ctx, gts, dts, p)
		if err != nil {
			t.Fatal(err)
		}
		pl, err := NewPool(e.Params, e.Images)
		if err != nil {
			t.Fatal(err)
		}
		ones := make([]int, nImg)
		for i := range ones {
			ones[i] = 1
		}
		full, err := pl.Stats(ones)
		if err != nil {
			t.Fatal(err)
		}
		if !sameSummary(full, summaryOf(e)) {
			t.Fatalf("seed %d: full sample %+v, evaluation %+v", seed, full, summaryOf(e))
		}
		for trial := 0; trial < 3; trial++ {
			w := make([]int, nImg)
			for range nImg {
				w[r.IntN(nImg)]++
			}
			got, err := pl.Stats(w)
			if err != nil {
				t.Fatal(err)
			}
			// Physically repeated: copy c of image id gets id·100 + c.
			var rg []GroundTruth
			var rd []Detection
			var ids []int64
			for i, id := range p.ImageIDs {
				for c := 0; c < w[i]; c++ {
					nid := id*100 + int64(c)
					ids = append(ids, nid)
					for _, g := range gts {
						if g.ImageID == id {
							g.ImageID = nid
							rg = append(rg, g)
						}
					}
					for _, d := range dts {
						if d.ImageID == id {
							d.ImageID = nid
							rd = append(rd, d)
						}
					}
				}
			}
			rp := p
			rp.ImageIDs = ids
			want, err := evaluateOracle(ctx, rg, rd, rp)
			if err != nil {
				t.Fatal(err)
			}
			if !sameSummary(got, summaryOf(want)) {
				t.Fatalf("seed %d, weights %v: pool %+v, repeated images %+v", seed, w, got, summaryOf(want))
			}
		}
	}
}

func TestPoolEdgeCases(t *testing.T) {
	ctx := context.Background()
	// No truth anywhere: every statistic −1, also in a resample.
	dts := []Detection{{ImageID: 1, Category: 1, Box: Box{0, 0, 10, 10}, Score: 0.5}}
	e, err := Evaluate(ctx, nil, dts, DefaultParams([]int64{1, 2}, []int64{1}))
	if err != nil {
		t.Fatal(err)
	}
	pl, err := NewPool(e.Params, e.Images)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range [][]int{{1, 1}, {2, 0}, {0, 2}} {
		s, _ := pl.Stats(w)
		if s != (Summary{-1, -1, -1, -1}) {
			t.Errorf("no truth, weights %v: %+v, want all −1", w, s)
		}
	}
	// Truth but no detections: 0; a resample without the image with truth: −1.
	gts := []GroundTruth{{ImageID: 2, Category: 1, Box: Box{0, 0, 10, 10}, Area: 100, ID: 1}}
	e, _ = Evaluate(ctx, gts, nil, DefaultParams([]int64{1, 2}, []int64{1}))
	pl, _ = NewPool(e.Params, e.Images)
	if s, _ := pl.Stats([]int{1, 1}); s != (Summary{0, 0, 0, 0}) || !sameSummary(s, summaryOf(e)) {
		t.Errorf("no detections: %+v, evaluation %+v", s, summaryOf(e))
	}
	if s, _ := pl.Stats([]int{2, 0}); s != (Summary{-1, -1, -1, -1}) {
		t.Errorf("resample without truth: %+v", s)
	}
	if _, err := pl.Stats([]int{1}); err == nil {
		t.Error("accepted weights of the wrong length")
	}
	bad := []ImageRecord{{Categories: []CategoryRecord{{K: 3}}}}
	if _, err := NewPool(e.Params, bad); err == nil {
		t.Error("accepted a category index out of range")
	}
	bad = []ImageRecord{{Categories: []CategoryRecord{{K: 0, Dets: []DetRecord{{Score: 0.1}, {Score: 0.2}}}}}}
	if _, err := NewPool(e.Params, bad); err == nil {
		t.Error("accepted detections out of score order")
	}
}

func BenchmarkCOCO1000x50Oracle(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	gts, dts, imgs, cats := randomScene(r, 1000, 50, 10)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := evaluateOracle(context.Background(), gts, dts, DefaultParams(imgs, cats)); err != nil {
			b.Fatal(err)
		}
	}
}

// Restricted to area "all" and maxDets 100, the evaluation gives the same
// AP, AP50, AP75, AR@100 (averaged and per category) as the full defaults:
// areas and maxDets are evaluated independently.
func TestRestrictedParamsSameRankedStats(t *testing.T) {
	ctx := context.Background()
	for seed := uint64(0); seed < 100; seed++ {
		r := rand.New(rand.NewPCG(seed, 79))
		gts, dts, p := tieScene(r, 1+r.IntN(25))
		p.MaxDets = []int{1, 10, 100}
		if seed%2 == 0 {
			p.MaxDets = []int{1, 2, 3}
		}
		full, err := Evaluate(ctx, gts, dts, p)
		if err != nil {
			t.Fatal(err)
		}
		q := p
		q.AreaRanges, q.AreaNames, q.MaxDets = p.AreaRanges[:1], p.AreaNames[:1], p.MaxDets[len(p.MaxDets)-1:]
		part, err := Evaluate(ctx, gts, dts, q)
		if err != nil {
			t.Fatal(err)
		}
		if !sameSummary(summaryOf(part), summaryOf(full)) {
			t.Fatalf("seed %d: restricted %+v, full %+v", seed, summaryOf(part), summaryOf(full))
		}
		md := p.MaxDets[len(p.MaxDets)-1]
		for k := range p.Categories {
			for _, thr := range []float64{math.NaN(), 0.5, 0.75} {
				a, b := part.Summarize(true, thr, "all", md, k), full.Summarize(true, thr, "all", md, k)
				if math.Float64bits(a) != math.Float64bits(b) {
					t.Fatalf("seed %d: category %d AP@%v restricted %v, full %v", seed, k, thr, a, b)
				}
			}
		}
		if !reflect.DeepEqual(part.Images, full.Images) {
			t.Fatalf("seed %d: the image records differ", seed)
		}
	}
}
