package detection

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
)

func eval(t *testing.T, gts []GroundTruth, dts []Detection, imgs, cats []int64) *Eval {
	t.Helper()
	e, err := Evaluate(context.Background(), gts, dts, DefaultParams(imgs, cats))
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func approx(t *testing.T, name string, got, want, tol float64) {
	t.Helper()
	if math.Abs(got-want) > tol || math.IsNaN(got) {
		t.Errorf("%s = %.17g, want %.17g", name, got, want)
	}
}

func TestThresholds(t *testing.T) {
	iou := COCOIoUThresholds()
	want := []float64{0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.8999999999999999, 0.95}
	for i := range want {
		if iou[i] != want[i] {
			t.Errorf("IoU threshold %d = %.17g, want %.17g", i, iou[i], want[i])
		}
	}
	rec := COCORecallThresholds()
	if len(rec) != 101 || rec[70] != 0.7000000000000001 || rec[50] != 0.5 || rec[100] != 1 || rec[35] == 0.35 {
		t.Errorf("recall thresholds: r70=%.17g r50=%v r100=%v r35=%.17g", rec[70], rec[50], rec[100], rec[35])
	}
}

func TestIoU(t *testing.T) {
	cases := []struct {
		d, g  Box
		crowd bool
		want  float64
	}{
		{Box{0, 0, 10, 10}, Box{0, 0, 10, 10}, false, 1},
		{Box{0, 0, 10, 10}, Box{5, 0, 10, 10}, false, 50.0 / 150},
		{Box{0, 0, 10, 10}, Box{10, 0, 10, 10}, false, 0}, // touching: width 0
		{Box{0, 0, 10, 10}, Box{0, 0, 20, 20}, true, 1},   // crowd: inter / area_d
		{Box{6, 5, 10, 10}, Box{5, 5, 10, 10}, false, 90.0 / 110},
	}
	for _, c := range cases {
		if got := IoU(c.d, c.g, c.crowd); math.Abs(got-c.want) > 1e-15 {
			t.Errorf("IoU(%v, %v, %v) = %v, want %v", c.d, c.g, c.crowd, got, c.want)
		}
	}
}

const eps = 2.220446049250313e-16

// Several categories: one with a leading false positive, one with truth but
// no detection, one matched only at the lower IoU thresholds, one with
// detections but no truth (excluded). Hand-derived in the comments.
func TestSeveralCategories(t *testing.T) {
	gts := []GroundTruth{
		{ImageID: 1, Category: 1, Box: Box{0, 0, 10, 10}, Area: 100, ID: 1},
		{ImageID: 1, Category: 2, Box: Box{50, 50, 20, 20}, Area: 400, ID: 2},
		{ImageID: 2, Category: 1, Box: Box{0, 0, 10, 10}, Area: 100, ID: 3},
		{ImageID: 2, Category: 3, Box: Box{5, 5, 10, 10}, Area: 100, ID: 4},
	}
	dts := []Detection{
		{ImageID: 1, Category: 1, Box: Box{0, 0, 10, 10}, Score: 0.9},
		{ImageID: 2, Category: 1, Box: Box{200, 200, 10, 10}, Score: 0.95},
		{ImageID: 2, Category: 1, Box: Box{0, 0, 10, 10}, Score: 0.6},
		{ImageID: 2, Category: 3, Box: Box{6, 5, 10, 10}, Score: 0.5}, // IoU 90/110 = 0.818
		{ImageID: 1, Category: 4, Box: Box{0, 0, 10, 10}, Score: 0.7},
		{ImageID: 1, Category: 9, Box: Box{0, 0, 10, 10}, Score: 0.7}, // unregistered: ignored
	}
	e := eval(t, gts, dts, []int64{1, 2}, []int64{1, 2, 3, 4})
	// cat 1: FP(.95), TP(.9), TP(.6) → rc 0, .5, 1; pr 0, 1/2, 2/3 → envelope 2/3 everywhere.
	ap1 := 2 / (3 + eps)
	// cat 3: TP at the 7 thresholds ≤ 0.8, FP at 0.85, 0.9, 0.95; AP per t = 1/(1+eps) or 0.
	one := 1 / (1 + eps)
	approx(t, "AP cat1", e.Summarize(true, math.NaN(), "all", 100, 0), ap1, 1e-15)
	approx(t, "AP cat2", e.Summarize(true, math.NaN(), "all", 100, 1), 0, 0)
	approx(t, "AP cat3", e.Summarize(true, math.NaN(), "all", 100, 2), 0.7*one, 1e-15)
	if v := e.Summarize(true, math.NaN(), "all", 100, 3); v != -1 {
		t.Errorf("AP of a category without truth = %v, want -1", v)
	}
	approx(t, "AP", e.Stats[0], (ap1+0+0.7*one)/3, 1e-15)
	approx(t, "AP50", e.Stats[1], (ap1+0+one)/3, 1e-15)
	approx(t, "AP75", e.Stats[2], (ap1+0+one)/3, 1e-15)
	approx(t, "AR@100", e.Stats[8], (1+0+0.7)/3, 1e-15)
	// maxDets 1: image 2 / cat 1 keeps only the FP → recall 1/2.
	approx(t, "AR@1", e.Stats[6], (0.5+0+0.7)/3, 1e-15)
	approx(t, "AP small", e.Stats[3], e.Stats[0], 0) // every truth is small
	if e.Stats[4] != -1 || e.Stats[5] != -1 || e.Stats[10] != -1 {
		t.Errorf("medium/large stats %v, want -1 (no truth there)", e.Stats)
	}
}

// Area ranges: a truth of each size; the out-of-range truth and the
// detections matched to it or outside the range are ignored.
func TestAreaRanges(t *testing.T) {
	gts := []GroundTruth{
		{ImageID: 1, Category: 1, Box: Box{0, 0, 10, 10}, Area: 100, ID: 1},
		{ImageID: 1, Category: 1, Box: Box{100, 100, 100, 100}, Area: 10000, ID: 2},
	}
	dts := []Detection{
		{ImageID: 1, Category: 1, Box: Box{500, 500, 40, 40}, Score: 0.95}, // medium FP
		{ImageID: 1, Category: 1, Box: Box{0, 0, 10, 10}, Score: 0.9},
		{ImageID: 1, Category: 1, Box: Box{100, 100, 100, 100}, Score: 0.8},
	}
	e := eval(t, gts, dts, []int64{1}, []int64{1})
	// all: FP, TP, TP → envelope 2/3 everywhere.
	approx(t, "AP all", e.Stats[0], 2/(3+eps), 1e-15)
	approx(t, "AP small", e.Stats[3], 1/(1+eps), 1e-15)
	approx(t, "AP large", e.Stats[5], 1/(1+eps), 1e-15)
	if e.Stats[4] != -1 {
		t.Errorf("AP medium %v, want -1", e.Stats[4])
	}
	approx(t, "AR small", e.Stats[9], 1, 0)
}

// maxDets: the 101st detection (by score) of an image is never seen at 100.
func TestMaxDetsCut(t *testing.T) {
	for _, nFP := range []int{99, 100} {
		gts := []GroundTruth{{ImageID: 1, Category: 1, Box: Box{0, 0, 10, 10}, Area: 100, ID: 1}}
		var dts []Detection
		for i := 0; i < nFP; i++ {
			dts = append(dts, Detection{ImageID: 1, Category: 1, Box: Box{1000 + 20*float64(i), 0, 10, 10}, Score: 0.99 - float64(i)*0.001})
		}
		dts = append(dts, Detection{ImageID: 1, Category: 1, Box: Box{0, 0, 10, 10}, Score: 0.01})
		e := eval(t, gts, dts, []int64{1}, []int64{1})
		if nFP == 100 {
			if e.Stats[0] != 0 || e.Stats[8] != 0 {
				t.Errorf("TP cut at maxDets 100: AP %v AR %v, want 0", e.Stats[0], e.Stats[8])
			}
			continue
		}
		// TP is the 100th: precision 1/100 at recall 1 → AP = 1/(100+eps·…).
		approx(t, "AP with TP at rank 100", e.Stats[0], 1.0/100, 1e-15)
		approx(t, "AR@100", e.Stats[8], 1, 0)
		approx(t, "AR@10", e.Stats[7], 0, 0)
	}
}

// Spec dentex vectors E, I, L on one category.
func TestSpecVectors(t *testing.T) {
	g := func(id int64, b Box) GroundTruth {
		return GroundTruth{ImageID: 3, Category: 1, Box: b, Area: b.Area(), ID: id}
	}
	d := func(b Box, s float64) Detection { return Detection{ImageID: 3, Category: 1, Box: b, Score: s} }
	// E
	e := eval(t, []GroundTruth{g(1, Box{500, 400, 100, 100}), g(2, Box{800, 400, 100, 100})},
		[]Detection{d(Box{500, 400, 100, 100}, 0.9), d(Box{1500, 400, 100, 100}, 0.8), d(Box{820, 400, 100, 100}, 0.7)},
		[]int64{3}, []int64{1, 2, 3, 4})
	approx(t, "E AP", e.Stats[0], 0.6369636963696369, 1e-15)
	approx(t, "E AP50", e.Stats[1], (51*(1/(1+eps))+50*(2/(3+eps)))/101, 1e-15)
	approx(t, "E AP75", e.Stats[2], 51/101.0*(1/(1+eps)), 1e-15)
	approx(t, "E AR", e.Stats[8], 0.7, 1e-15)
	// I: recall of exactly 7/10 does not reach r70 = 0.7000000000000001.
	var gts []GroundTruth
	for i := 0; i < 10; i++ {
		gts = append(gts, g(int64(i+1), Box{300 + 150*float64(i), 400, 100, 100}))
	}
	var dts []Detection
	for i := 0; i < 7; i++ {
		dts = append(dts, d(gts[i].Box, 0.99-0.01*float64(i)))
	}
	dts = append(dts, d(Box{2500, 1000, 100, 100}, 0.5), d(gts[7].Box, 0.4))
	e = eval(t, gts, dts, []int64{3}, []int64{1})
	approx(t, "I AP", e.Stats[0], 0.7898789878987899, 1e-15)
	approx(t, "I AR", e.Stats[8], 0.8, 1e-15)
	// L: a duplicate after full recall is harmless.
	e = eval(t, []GroundTruth{g(1, Box{500, 400, 200, 300})}, []Detection{d(Box{500, 400, 200, 300}, 0.9), d(Box{500, 400, 200, 300}, 0.8)}, []int64{3}, []int64{1})
	approx(t, "L AP", e.Stats[0], 1, 1e-15)
	approx(t, "L AR", e.Stats[8], 1, 0)
	// Duplicates before a second truth is found cost precision: g1, g2;
	// d(g1) .9, d(g1) .8 (FP), d(g2) .7 → rc .5 .5 1, pr 1 .5 2/3 → AP50 = (51·1 + 50·2/3)/101.
	e = eval(t, []GroundTruth{g(1, Box{0, 0, 10, 10}), g(2, Box{50, 0, 10, 10})},
		[]Detection{d(Box{0, 0, 10, 10}, 0.9), d(Box{0, 0, 10, 10}, 0.8), d(Box{50, 0, 10, 10}, 0.7)}, []int64{3}, []int64{1})
	approx(t, "dup AP50", e.Stats[1], (51/(1+eps)+50*2/(3+eps))/101, 1e-15)
}

// Truth id 0: consumed by the match, but pycocotools reads the stored id 0
// as "unmatched", so the detection is a false positive.
func TestTruthIDZero(t *testing.T) {
	e := eval(t, []GroundTruth{{ImageID: 1, Category: 1, Box: Box{0, 0, 10, 10}, Area: 100, ID: 0}},
		[]Detection{{ImageID: 1, Category: 1, Box: Box{0, 0, 10, 10}, Score: 0.9}}, []int64{1}, []int64{1})
	if e.Stats[0] != 0 || e.Stats[8] != 0 {
		t.Errorf("truth id 0: AP %v AR %v, want 0", e.Stats[0], e.Stats[8])
	}
}

func TestErrors(t *testing.T) {
	_, err := Evaluate(context.Background(), nil, []Detection{{ImageID: 9, Category: 1, Box: Box{0, 0, 1, 1}, Score: 1}}, DefaultParams([]int64{1}, []int64{1}))
	if err == nil {
		t.Error("accepted a detection on an unknown image")
	}
	e := eval(t, nil, nil, []int64{1}, []int64{1})
	for i, s := range e.Stats {
		if s != -1 {
			t.Errorf("empty evaluation stat %d = %v, want -1", i, s)
		}
	}
}

func randomScene(r *rand.Rand, nImg, perImg, nCat int) ([]GroundTruth, []Detection, []int64, []int64) {
	var gts []GroundTruth
	var dts []Detection
	var imgs, cats []int64
	for c := 1; c <= nCat; c++ {
		cats = append(cats, int64(c))
	}
	id := int64(1)
	for i := 1; i <= nImg; i++ {
		imgs = append(imgs, int64(i))
		for j := 0; j < perImg; j++ {
			b := Box{r.Float64() * 900, r.Float64() * 900, 5 + r.Float64()*150, 5 + r.Float64()*150}
			c := int64(1 + r.IntN(nCat))
			gts = append(gts, GroundTruth{ImageID: int64(i), Category: c, Box: b, Area: b.Area(), ID: id})
			id++
			jit := Box{b[0] + r.NormFloat64()*5, b[1] + r.NormFloat64()*5, b[2] * (1 + 0.1*r.NormFloat64()), b[3] * (1 + 0.1*r.NormFloat64())}
			if r.Float64() < 0.2 {
				c = int64(1 + r.IntN(nCat))
			}
			dts = append(dts, Detection{ImageID: int64(i), Category: c, Box: jit, Score: r.Float64()})
		}
	}
	return gts, dts, imgs, cats
}

// Properties: perfect detections give AP = AR = 1 (up to pycocotools' ε);
// shuffling detections with distinct scores changes nothing.
func TestProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	gts, dts, imgs, cats := randomScene(r, 30, 8, 4)
	var perfect []Detection
	for _, g := range gts {
		perfect = append(perfect, Detection{ImageID: g.ImageID, Category: g.Category, Box: g.Box, Score: r.Float64()})
	}
	e := eval(t, gts, perfect, imgs, cats)
	for _, i := range []int{0, 1, 2, 8} {
		approx(t, "perfect stat", e.Stats[i], 1, 1e-14)
	}
	base := eval(t, gts, dts, imgs, cats)
	if base.Stats[0] <= 0 || base.Stats[0] >= 1 {
		t.Fatalf("random scene AP %v, want strictly between 0 and 1", base.Stats[0])
	}
	for trial := 0; trial < 3; trial++ {
		sh := append([]Detection(nil), dts...)
		r.Shuffle(len(sh), func(i, j int) { sh[i], sh[j] = sh[j], sh[i] })
		e := eval(t, gts, sh, imgs, cats)
		if e.Stats != base.Stats {
			t.Errorf("shuffled detections: %v, want %v", e.Stats, base.Stats)
		}
	}
}

func BenchmarkCOCO1000x50(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	gts, dts, imgs, cats := randomScene(r, 1000, 50, 10)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Evaluate(context.Background(), gts, dts, DefaultParams(imgs, cats)); err != nil {
			b.Fatal(err)
		}
	}
}

// TestNaNScoreSortsLast: numpy's argsort(-scores, kind='mergesort') puts a
// NaN score after every number, per image and when accumulating; a NaN on
// the true positive behind a 0.5 on a false positive gives precision 1/2
// at every recall, AP 0.5 (the reference's value, json.dump writes NaN).
func TestNaNScoreSortsLast(t *testing.T) {
	gts := []GroundTruth{{ImageID: 1, Category: 1, Box: Box{10, 10, 20, 20}, Area: 400, ID: 1}}
	dts := []Detection{
		{ImageID: 1, Category: 1, Box: Box{10, 10, 20, 20}, Score: math.NaN()},
		{ImageID: 1, Category: 1, Box: Box{60, 60, 20, 20}, Score: 0.5},
	}
	e := eval(t, gts, dts, []int64{1}, []int64{1})
	approx(t, "AP", e.Stats[0], 0.5, 1e-12)
	// The same detections with the NaN replaced by the lowest score.
	dts[0].Score = 0.1
	approx(t, "AP with 0.1", eval(t, gts, dts, []int64{1}, []int64{1}).Stats[0], 0.5, 1e-12)
	// Without the false positive the NaN detection alone is a perfect hit.
	dts[0].Score = math.NaN()
	approx(t, "AP of the NaN detection alone", eval(t, gts, dts[:1], []int64{1}, []int64{1}).Stats[0], 1, 1e-12)
}
