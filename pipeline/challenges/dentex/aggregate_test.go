package dentex

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/rexmle/rexmle/metrics/detection"
	"github.com/rexmle/rexmle/pipeline/challenge"
)

// aggImage is one test image of a generated data set.
type aggImage struct {
	id    int64
	anns  []string   // truth annotation JSON with image_id left as %d
	preds []predJSON // image_id left empty (set when written)
}

// randImages draws n images (ids 100, 200, …) with 0–4 truth boxes and 0–8
// predictions, scores from a few values so that they tie within and across
// images; some images have no truth, some no prediction.
func randImages(r *rand.Rand, n int) []aggImage {
	scores := []float64{0.9, 0.5, 0.5, 0.3, 1, 0}
	out := make([]aggImage, n)
	for i := range out {
		im := aggImage{id: int64(100 * (i + 1))}
		nT := r.IntN(5)
		var boxes [][4]float64
		for k := 0; k < nT; k++ {
			box := [4]float64{300 + r.Float64()*1500, 200 + r.Float64()*600, 60 + r.Float64()*100, 60 + r.Float64()*150}
			boxes = append(boxes, box)
			bj, _ := json.Marshal(box)
			im.anns = append(im.anns, ann(int(im.id)*10+k+1, 0, string(bj), r.IntN(4), r.IntN(8), r.IntN(4)))
		}
		nP := r.IntN(9)
		for k := 0; k < nP; k++ {
			var box [4]float64
			if len(boxes) > 0 && r.IntN(4) > 0 {
				box = boxes[r.IntN(len(boxes))]
				box[0] += r.NormFloat64() * 8
				box[1] += r.NormFloat64() * 8
			} else {
				box = [4]float64{300 + r.Float64()*1500, 200 + r.Float64()*600, 60 + r.Float64()*100, 60 + r.Float64()*150}
			}
			sc := scores[r.IntN(len(scores))]
			if r.IntN(3) == 0 {
				sc = r.Float64()
			}
			im.preds = append(im.preds, predJSON{BBox: box, Score: sc, Q: r.IntN(4), T: r.IntN(8), D: r.IntN(4)})
		}
		out[i] = im
	}
	return out
}

// writeImages writes the answers and a submission for the images, image k
// written w[k] times: copy c under id id+c (stem train_<id+c>), so that the
// copies sort right after the original.
func writeImages(t testing.TB, imgs []aggImage, w []int) (priv, sub string) {
	priv, sub = t.TempDir(), t.TempDir()
	var labels, rows [][]string
	for k, im := range imgs {
		for c := 0; c < w[k]; c++ {
			id := im.id + int64(c)
			stem := fmt.Sprintf("train_%d", id)
			anns := ""
			for j, a := range im.anns {
				if j > 0 {
					anns += ","
				}
				anns += bytes.NewBufferString(a).String()
			}
			// image_id 0 in the template: set it. A copy's annotations get
			// ids of their own (the template's for the original), since
			// pycocotools loads every repeated id as its last annotation.
			var list []map[string]any
			json.Unmarshal([]byte("["+anns+"]"), &list)
			for j, a := range list {
				a["image_id"] = id
				a["id"] = id*10 + int64(j) + 1
			}
			aj, _ := json.Marshal(list)
			js := `{"images":[{"id":` + fmt.Sprint(id) + `,"file_name":"` + stem + `.png","width":2744,"height":1316}],"annotations":` + string(aj) + `}`
			writeFile(t, filepath.Join(priv, "ground_truth", stem+".json"), js)
			labels = append(labels, []string{stem, "ground_truth/" + stem + ".json"})
			ps := slices.Clone(im.preds)
			for j := range ps {
				ps[j].ImageID = stem
			}
			if ps == nil {
				ps = []predJSON{}
			}
			pj, _ := json.Marshal(ps)
			writeFile(t, filepath.Join(sub, "predictions", stem+".json"), string(pj))
			rows = append(rows, []string{stem, "predictions/" + stem + ".json"})
		}
	}
	if err := challenge.WriteCSV(filepath.Join(priv, "test_labels.csv"), []string{colID, colGT}, labels); err != nil {
		t.Fatal(err)
	}
	if err := challenge.WriteCSV(filepath.Join(sub, submissionFile), []string{colID, colPred}, rows); err != nil {
		t.Fatal(err)
	}
	return priv, sub
}

// storeOrder sorts cases by id as the store returns them.
func storeOrder(cases []challenge.Case) []challenge.Case {
	out := slices.Clone(cases)
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

func ones(n int) []int {
	w := make([]int, n)
	for i := range w {
		w[i] = 1
	}
	return w
}

func allIdx(n int) []int {
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	return idx
}

// On the full sample, in the store's order (not the grading order), every
// metric's statistic is the graded value bit for bit; on many random data
// sets full of tied scores, in both modes.
func TestCaseStatisticReproducesGrade(t *testing.T) {
	ctx := context.Background()
	for seed := uint64(0); seed < 40; seed++ {
		r := rand.New(rand.NewPCG(seed, 18))
		imgs := randImages(r, 2+r.IntN(15))
		imgs[0].preds = append(imgs[0].preds, predJSON{BBox: [4]float64{400, 300, 100, 100}, Score: 0.5})
		priv, sub := writeImages(t, imgs, ones(len(imgs)))
		for _, mode := range []challenge.Mode{challenge.Reference, challenge.Official} {
			res, err := Challenge{}.Grade(ctx, sub, priv, mode)
			if err != nil {
				t.Fatal(err)
			}
			cases := storeOrder(res.Cases)
			for _, m := range metricNames() {
				stat, err := Challenge{}.CaseStatistic(m, cases)
				if err != nil {
					t.Fatal(err)
				}
				if got, want := stat(allIdx(len(cases))), res.Values[m]; math.Float64bits(got) != math.Float64bits(want) {
					t.Fatalf("seed %d %s: %s full sample %v, graded %v", seed, mode, m, got, want)
				}
			}
		}
	}
}

// A resample is, by definition, the submission with the drawn images
// physically repeated (copies under new ids right after the original's):
// its statistic equals grading that submission, bit for bit.
func TestCaseStatisticResampleIsRepeatedImages(t *testing.T) {
	ctx := context.Background()
	for seed := uint64(0); seed < 25; seed++ {
		r := rand.New(rand.NewPCG(seed, 19))
		imgs := randImages(r, 2+r.IntN(10))
		for k := range imgs { // every image predicts something: a resample is never empty
			imgs[k].preds = append(imgs[k].preds, predJSON{BBox: [4]float64{400, 300, 100, 100}, Score: 0.5, Q: 1, T: 1, D: 1})
		}
		mode := []challenge.Mode{challenge.Reference, challenge.Official}[seed%2]
		priv, sub := writeImages(t, imgs, ones(len(imgs)))
		res, err := Challenge{}.Grade(ctx, sub, priv, mode)
		if err != nil {
			t.Fatal(err)
		}
		cases := storeOrder(res.Cases)
		stats := map[string]func([]int) float64{}
		for _, m := range metricNames() {
			if stats[m], err = (Challenge{}).CaseStatistic(m, cases); err != nil {
				t.Fatal(err)
			}
		}
		at := map[string]int{} // stem → image
		for k, im := range imgs {
			at[fmt.Sprintf("train_%d", im.id)] = k
		}
		for trial := 0; trial < 3; trial++ {
			idx := make([]int, len(cases))
			w := make([]int, len(imgs))
			for i := range idx {
				idx[i] = r.IntN(len(cases))
				w[at[cases[idx[i]].ID]]++
			}
			rp, rs := writeImages(t, imgs, w)
			want, err := Challenge{}.Grade(ctx, rs, rp, mode)
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range metricNames() {
				if got := stats[m](idx); math.Float64bits(got) != math.Float64bits(want.Values[m]) {
					t.Fatalf("seed %d, weights %v: %s resample %v, repeated images graded %v", seed, w, m, got, want.Values[m])
				}
			}
		}
	}
}

// Edge cases: images without truth, without (registered) detections, and a
// resample holding no truth at all (−1, as grading gives).
func TestCaseStatisticEdgeCases(t *testing.T) {
	ctx := context.Background()
	imgs := []aggImage{
		{id: 100, anns: []string{ann(1, 0, "[500,400,200,300]", 1, 2, 1)}, preds: []predJSON{{BBox: [4]float64{500, 400, 200, 300}, Score: 0.9, Q: 1, T: 2, D: 1}}},
		{id: 200}, // no truth, no prediction
		{id: 300, preds: []predJSON{{BBox: [4]float64{500, 400, 200, 300}, Score: 0.4, Q: 0, T: 0, D: 0}}}, // no truth; class 0 is not registered in reference mode
	}
	priv, sub := writeImages(t, imgs, ones(3))
	res, err := Challenge{}.Grade(ctx, sub, priv, challenge.Reference)
	if err != nil {
		t.Fatal(err)
	}
	cases := storeOrder(res.Cases)
	for _, m := range metricNames() {
		stat, err := Challenge{}.CaseStatistic(m, cases)
		if err != nil {
			t.Fatal(err)
		}
		if got := stat([]int{0, 1, 2}); got != res.Values[m] {
			t.Errorf("%s: full sample %v, graded %v", m, got, res.Values[m])
		}
		if got := stat([]int{1, 2, 2}); got != -1 {
			t.Errorf("%s: resample without truth %v, want −1", m, got)
		}
		if got := stat([]int{0, 0, 1}); math.Abs(got-res.Values[m]) > 1e-15 {
			t.Errorf("%s: the perfect image twice %v, want %v (up to pycocotools' ε)", m, got, res.Values[m])
		}
	}
	// Stored without details (graded before), or corrupt: no statistic.
	bare := slices.Clone(cases)
	bare[1].Detail = nil
	if _, err := (Challenge{}).CaseStatistic("ap_mean", bare); !errors.Is(err, challenge.ErrNotAMean) {
		t.Errorf("cases without details: %v, want ErrNotAMean", err)
	}
	bad := slices.Clone(cases)
	bad[1].Detail = append(slices.Clone(bad[1].Detail), 0)
	if _, err := (Challenge{}).CaseStatistic("ap_mean", bad); err == nil {
		t.Error("accepted a detail with trailing bytes")
	}
	dup := slices.Clone(cases)
	dup[2].Detail = dup[1].Detail
	if _, err := (Challenge{}).CaseStatistic("ap_mean", dup); err == nil {
		t.Error("accepted two cases of the same image")
	}
	if _, err := (Challenge{}).CaseStatistic("dice", cases); err == nil {
		t.Error("accepted an unknown metric")
	}
}

// The detail round-trips.
func TestDetailRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	for n := 0; n < 200; n++ {
		var recs [3]detection.ImageRecord
		for l, a := range aspects {
			for k := 0; k < a.nClasses; k++ {
				if r.IntN(2) == 0 {
					continue
				}
				c := detection.CategoryRecord{K: k, NPos: r.IntN(5)}
				for d := r.IntN(6); d > 0; d-- {
					c.Dets = append(c.Dets, detection.DetRecord{Score: r.NormFloat64(), Match: r.Uint64() & 1023, Ignore: r.Uint64() & 1023})
				}
				recs[l].Categories = append(recs[l].Categories, c)
			}
		}
		id := r.Int64() - r.Int64()
		b := encodeDetail(nil, id, 10, recs)
		gotID, got, err := decodeDetail(b)
		if err != nil || gotID != id || fmt.Sprint(got) != fmt.Sprint(recs) {
			t.Fatalf("round trip: %v %d %v, want %d %v", err, gotID, got, id, recs)
		}
		for cut := 0; cut < len(b); cut++ {
			if _, _, err := decodeDetail(b[:cut]); err == nil {
				t.Fatalf("accepted a detail cut at %d of %d bytes", cut, len(b))
			}
		}
	}
}

// BenchmarkBootstrapCOCO1000 is the largest case of issue 18: 1,000 DENTEX
// images (3 truth + 20 predicted boxes each) and B resamples, each asking
// for all 16 metrics as the rank stage does. Reported: time per resample
// (sec/op is B of them), setup (decoding the details, sorting the pools),
// and the detail's size per image.
func BenchmarkBootstrapCOCO1000(b *testing.B) {
	priv, sub := bench1000(b)
	res, err := Challenge{}.Grade(context.Background(), sub, priv, challenge.Reference)
	if err != nil {
		b.Fatal(err)
	}
	cases := storeOrder(res.Cases)
	size := 0
	for _, c := range cases {
		size += len(c.Detail)
	}
	const B = 1000
	r := rand.New(rand.NewPCG(1, 1))
	idx := make([][]int, B)
	for k := range idx {
		idx[k] = make([]int, len(cases))
		for i := range idx[k] {
			idx[k][i] = r.IntN(len(cases))
		}
	}
	b.ResetTimer()
	var setup time.Duration
	for n := 0; n < b.N; n++ {
		t0 := time.Now()
		stats, err := Challenge{}.CaseStatistics(metricNames(), cases) // as the rank stage asks
		if err != nil {
			b.Fatal(err)
		}
		setup += time.Since(t0)
		for k := 0; k < B; k++ {
			for _, f := range stats {
				if v := f(idx[k]); math.IsNaN(v) {
					b.Fatal("NaN")
				}
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds()-setup.Nanoseconds())/float64(b.N*B)/1e6, "ms/resample")
	b.ReportMetric(float64(setup.Nanoseconds())/float64(b.N)/1e6, "ms-setup")
	b.ReportMetric(float64(size)/float64(len(cases)), "detail-B/image")
}

// From parallelImages images on, the three levels are re-accumulated in
// parallel: same values (run under -race too).
func TestCaseStatisticParallelLevels(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(7, 18))
	imgs := randImages(r, parallelImages+20)
	for k := range imgs {
		imgs[k].preds = append(imgs[k].preds, predJSON{BBox: [4]float64{400, 300, 100, 100}, Score: 0.5, Q: 1, T: 1, D: 1})
	}
	priv, sub := writeImages(t, imgs, ones(len(imgs)))
	res, err := Challenge{}.Grade(ctx, sub, priv, challenge.Reference)
	if err != nil {
		t.Fatal(err)
	}
	cases := storeOrder(res.Cases)
	at := map[string]int{}
	for k, im := range imgs {
		at[fmt.Sprintf("train_%d", im.id)] = k
	}
	idx := make([]int, len(cases))
	w := make([]int, len(imgs))
	for i := range idx {
		idx[i] = r.IntN(len(cases))
		w[at[cases[idx[i]].ID]]++
	}
	rp, rs := writeImages(t, imgs, w)
	want, err := Challenge{}.Grade(ctx, rs, rp, challenge.Reference)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range metricNames() {
		stat, err := Challenge{}.CaseStatistic(m, cases)
		if err != nil {
			t.Fatal(err)
		}
		if got := stat(allIdx(len(cases))); math.Float64bits(got) != math.Float64bits(res.Values[m]) {
			t.Errorf("%s: full sample %v, graded %v", m, got, res.Values[m])
		}
		if got := stat(idx); math.Float64bits(got) != math.Float64bits(want.Values[m]) {
			t.Errorf("%s: resample %v, repeated images graded %v", m, got, want.Values[m])
		}
	}
}
