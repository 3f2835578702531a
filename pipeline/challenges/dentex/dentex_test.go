package dentex

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rexmle/rexmle/pipeline/challenge"
	"github.com/rexmle/rexmle/pipeline/challenge/challengetest"
)

func writeFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestConformance(t *testing.T) {
	p := challengetest.Conformance(t, Challenge{})
	perfect := p.Submit(t, "perfect", func(ctx context.Context, out string) error {
		return Challenge{}.Perfect(ctx, p.Public(), p.Private(), out)
	})
	for _, mode := range []challenge.Mode{challenge.Reference, challenge.Official} {
		res := p.Grade(t, perfect, mode)
		for _, n := range metricNames() {
			if math.Abs(res.Values[n]-1) > 1e-12 {
				t.Errorf("%s: perfect %s = %v, want 1", mode, n, res.Values[n])
			}
		}
	}
	firstPred := func(dir string) string {
		tab, _ := challenge.ReadCSV(filepath.Join(dir, submissionFile))
		return filepath.Join(dir, tab.Rows[0][1])
	}
	// The reference iterates what a file holds: an empty string, or an
	// empty object under "annotations", is an image without predictions,
	// the same as an empty list.
	var empty *challenge.Result
	// A prediction registered at no level is never evaluated, so its score
	// is never read either.
	unregistered := `[{"bbox": [1, 2, 3, 4], "category_id_1": 99, "category_id_2": 99, "category_id_3": 99, "score": "high"}]`
	for _, body := range []string{`[]`, `{"annotations": {}}`, `{"annotations": ""}`, `""`, unregistered} {
		dir := filepath.Join(t.TempDir(), "s")
		challengetest.CopyDir(t, perfect, dir)
		writeFile(t, firstPred(dir), body)
		res := p.Grade(t, dir, challenge.Reference)
		if empty == nil {
			empty = res
			continue
		}
		for _, n := range metricNames() {
			if res.Values[n] != empty.Values[n] && !(math.IsNaN(res.Values[n]) && math.IsNaN(empty.Values[n])) {
				t.Errorf("%s: %s = %v, with [] %v", body, n, res.Values[n], empty.Values[n])
			}
		}
	}
	// NaN and Infinity, as json.dump writes non-finite scores, are numbers
	// to Python's json: graded (a NaN sorts after every score).
	for _, word := range []string{"NaN", "Infinity", "-Infinity", "1e400"} {
		dir := filepath.Join(t.TempDir(), "s")
		challengetest.CopyDir(t, perfect, dir)
		b, err := os.ReadFile(firstPred(dir))
		if err != nil {
			t.Fatal(err)
		}
		scores := regexp.MustCompile(`"score":\s*[-0-9.eE+]+`)
		if !scores.Match(b) {
			t.Fatalf("no score in %s", b)
		}
		writeFile(t, firstPred(dir), scores.ReplaceAllString(string(b), `"score": `+word))
		if _, err := challenge.SafeGrade(context.Background(), Challenge{}, dir, p.Private(), challenge.Reference); err != nil {
			t.Errorf("scores %s: %v", word, err)
		}
	}
	challengetest.CheckMalformed(t, p, perfect, []challengetest.Malformed{
		challengetest.MissingCSV(),
		challengetest.DropRow(),
		challengetest.RenameColumn(colID),
		challengetest.RenameColumn(colPred),
		{Name: "missing-json", Want: "not found", Break: func(t testing.TB, dir string) {
			os.Remove(firstPred(dir))
		}},
		// pandas keeps the blanks of a text id, so the reference misses the
		// image " <id>" does not name.
		{Name: "blank-around-id", Want: "missing", Break: func(t testing.TB, dir string) {
			challengetest.EditCSV(t, filepath.Join(dir, submissionFile), func(h []string, r [][]string) ([]string, [][]string) {
				for c, name := range h {
					if name == colID {
						r[0][c] = " " + r[0][c]
					}
				}
				return h, r
			})
		}},
		// Python's json takes space, tab, LF and CR around a value, no
		// other blank; and the reference reads the file as UTF-8 text.
		{Name: "form-feed-around-json", Want: "JSON", Break: func(t testing.TB, dir string) {
			writeFile(t, firstPred(dir), "\f[]")
		}},
		{Name: "image-id-null", Want: "image_id is null", Break: func(t testing.TB, dir string) {
			writeFile(t, firstPred(dir), `[{"bbox": [1,2,3,4], "image_id": null}]`)
		}},
		{Name: "list-category", Want: "list or an object", Break: func(t testing.TB, dir string) {
			writeFile(t, firstPred(dir), `[{"bbox": [1,2,3,4], "category_id_1": [1]}]`)
		}},
		{Name: "annotations-null", Want: "null", Break: func(t testing.TB, dir string) {
			writeFile(t, firstPred(dir), `{"annotations": null}`)
		}},
		{Name: "latin1-json", Want: "UTF-8", Break: func(t testing.TB, dir string) {
			writeFile(t, firstPred(dir), "[{\"bbox\": [1, 2, 3, 4], \"score\": 0.5, \"note\": \"d\xe9j\xe0\"}]")
		}},
		{Name: "bad-json", Want: "JSON", Break: func(t testing.TB, dir string) {
			writeFile(t, firstPred(dir), `[{"bbox": [1,2,3,4]`)
		}},
		{Name: "no-bbox", Want: "bbox", Break: func(t testing.TB, dir string) {
			writeFile(t, firstPred(dir), `[{"score": 0.3}]`)
		}},
		{Name: "short-bbox", Want: "bbox", Break: func(t testing.TB, dir string) {
			writeFile(t, firstPred(dir), `[{"bbox": [1,2,3], "category_id_1": 1}]`)
		}},
		{Name: "long-bbox", Want: "bbox", Break: func(t testing.TB, dir string) {
			writeFile(t, firstPred(dir), `[{"bbox": [1,2,3,4,5], "category_id_1": 1}]`)
		}},
		{Name: "nan-word-in-string-context", Want: "JSON", Break: func(t testing.TB, dir string) {
			writeFile(t, firstPred(dir), `[{"bbox": [1,2,3,4], "score": nan}]`) // Python's json knows NaN only
		}},
		{Name: "unknown-image", Want: "not a test image", Break: func(t testing.TB, dir string) {
			writeFile(t, firstPred(dir), `[{"bbox": [1,2,3,4], "image_id": 999999}]`)
		}},
		{Name: "dotdot-path", Want: "leaves", Break: func(t testing.TB, dir string) {
			challengetest.EditCSV(t, filepath.Join(dir, submissionFile), func(h []string, r [][]string) ([]string, [][]string) {
				r[0][1] = "../x.json"
				return h, r
			})
		}},
		{Name: "symlink-out", Want: "leaves", Break: func(t testing.TB, dir string) {
			outside := filepath.Join(t.TempDir(), "x.json")
			writeFile(t, outside, `[]`)
			os.Remove(firstPred(dir))
			if err := os.Symlink(outside, firstPred(dir)); err != nil {
				t.Skip(err)
			}
		}},
	})
}

// One-image fixture for the spec vectors (§7): test image train_7 with id 3
// (and train_9 with id 5 for G).
type fixture struct {
	priv, sub string
}

func newFixture(t *testing.T, truth map[string][]string) *fixture {
	t.Helper()
	f := &fixture{priv: t.TempDir(), sub: t.TempDir()}
	ids := map[string]int{"train_7": 3, "train_9": 5}
	var rows [][]string
	for _, stem := range []string{"train_7", "train_9"} {
		anns, ok := truth[stem]
		if !ok {
			continue
		}
		js := `{"images":[{"id":` + itoa3(ids[stem]) + `,"file_name":"` + stem + `.png","width":2744,"height":1316}],"annotations":[`
		for i, a := range anns {
			if i > 0 {
				js += ","
			}
			js += a
		}
		js += `],"categories_1":[],"categories_2":[],"categories_3":[]}`
		writeFile(t, filepath.Join(f.priv, "ground_truth", stem+".json"), js)
		rows = append(rows, []string{stem, "ground_truth/" + stem + ".json"})
	}
	if err := challenge.WriteCSV(filepath.Join(f.priv, "test_labels.csv"), []string{colID, colGT}, rows); err != nil {
		t.Fatal(err)
	}
	return f
}

func itoa3(i int) string { b, _ := json.Marshal(i); return string(b) }

func ann(id, img int, box string, q, e, d int) string {
	return `{"id":` + itoa3(id) + `,"image_id":` + itoa3(img) + `,"bbox":` + box + `,"iscrowd":0,"area":` + areaOf(box) +
		`,"category_id_1":` + itoa3(q) + `,"category_id_2":` + itoa3(e) + `,"category_id_3":` + itoa3(d) + `}`
}

func areaOf(box string) string {
	var b []float64
	json.Unmarshal([]byte(box), &b)
	out, _ := json.Marshal(b[2] * b[3])
	return string(out)
}

func (f *fixture) submit(t *testing.T, rows map[string]string) {
	t.Helper()
	var csvRows [][]string
	for _, stem := range []string{"train_7", "train_9", "train_3"} {
		js, ok := rows[stem]
		if !ok {
			continue
		}
		writeFile(t, filepath.Join(f.sub, "predictions", stem+".json"), js)
		csvRows = append(csvRows, []string{stem, "predictions/" + stem + ".json"})
	}
	if err := challenge.WriteCSV(filepath.Join(f.sub, submissionFile), []string{colID, colPred}, csvRows); err != nil {
		t.Fatal(err)
	}
}

func (f *fixture) grade(t *testing.T, mode challenge.Mode) (*challenge.Result, error) {
	t.Helper()
	return Challenge{}.Grade(context.Background(), f.sub, f.priv, mode)
}

func pred(box string, q, e, d int, score float64, extra string) string {
	s, _ := json.Marshal(score)
	return `{"bbox":` + box + `,"category_id_1":` + itoa3(q) + `,"category_id_2":` + itoa3(e) + `,"category_id_3":` + itoa3(d) + `,"score":` + string(s) + extra + `}`
}

func allLevels(t *testing.T, name string, res *challenge.Result, ap, ap50, ap75, ar float64) {
	t.Helper()
	for _, lv := range []string{"quadrant", "enumeration", "diagnosis", "mean"} {
		for k, want := range map[string]float64{"ap": ap, "ap50": ap50, "ap75": ap75, "ar": ar} {
			if got := res.Rounded()[k+"_"+lv]; got != want {
				t.Errorf("%s: %s_%s = %v, want %v", name, k, lv, got, want)
			}
		}
	}
}

func TestSpecVectors(t *testing.T) {
	const g7 = "[500,400,200,300]"
	// A
	f := newFixture(t, map[string][]string{"train_7": {ann(1, 3, g7, 1, 2, 1)}})
	f.submit(t, map[string]string{"train_7": "[" + pred(g7, 1, 2, 1, 0.9, `,"image_id":"train_7"`) + "]"})
	res, err := f.grade(t, challenge.Reference)
	if err != nil {
		t.Fatal(err)
	}
	allLevels(t, "A", res, 1, 1, 1, 1)
	if res.Values["ap_mean"] != 0.9999999999999997 {
		t.Errorf("A: raw ap_mean %.17g, want 0.9999999999999997", res.Values["ap_mean"])
	}
	// B: the corner heuristic corrupts a genuine xywh box (reference only).
	f = newFixture(t, map[string][]string{"train_7": {ann(1, 3, "[100,100,200,200]", 1, 2, 1)}})
	f.submit(t, map[string]string{"train_7": "[" + pred("[100,100,200,200]", 1, 2, 1, 0.9, "") + "]"})
	res, _ = f.grade(t, challenge.Reference)
	allLevels(t, "B reference", res, 0, 0, 0, 0)
	res, _ = f.grade(t, challenge.Official)
	allLevels(t, "B official", res, 1, 1, 1, 1)
	// C: quadrant class 0 is not registered in reference mode.
	f = newFixture(t, map[string][]string{"train_7": {ann(1, 3, g7, 0, 3, 2)}})
	f.submit(t, map[string]string{"train_7": "[" + pred(g7, 0, 3, 2, 0.9, "") + "]"})
	res, _ = f.grade(t, challenge.Reference)
	r := res.Rounded()
	if r["ap_quadrant"] != -1 || r["ar_quadrant"] != -1 || r["ap_enumeration"] != 1 || r["ap_diagnosis"] != 1 || r["ap_mean"] != 0.33333 || r["ar_mean"] != 0.33333 {
		t.Errorf("C reference: %v", r)
	}
	if res.Values["ap_mean"] != 0.3333333333333332 {
		t.Errorf("C raw ap_mean %.17g, want 0.3333333333333332", res.Values["ap_mean"])
	}
	res, _ = f.grade(t, challenge.Official)
	allLevels(t, "C official", res, 1, 1, 1, 1)
	// D: aliases quadrant_id etc. → category 2, truth 1 → 0 everywhere.
	f = newFixture(t, map[string][]string{"train_7": {ann(1, 3, g7, 1, 1, 1)}})
	f.submit(t, map[string]string{"train_7": `[{"bbox":` + g7 + `,"quadrant_id":2,"enumeration_id":2,"diagnosis_id":2,"score":0.9}]`})
	res, _ = f.grade(t, challenge.Reference)
	allLevels(t, "D", res, 0, 0, 0, 0)
	// E
	f = newFixture(t, map[string][]string{"train_7": {ann(1, 3, "[500,400,100,100]", 1, 1, 1), ann(2, 3, "[800,400,100,100]", 1, 1, 1)}})
	f.submit(t, map[string]string{"train_7": "[" + pred("[500,400,100,100]", 1, 1, 1, 0.9, "") + "," + pred("[1500,400,100,100]", 1, 1, 1, 0.8, "") + "," + pred("[820,400,100,100]", 1, 1, 1, 0.7, "") + "]"})
	res, _ = f.grade(t, challenge.Reference)
	allLevels(t, "E", res, 0.63696, 0.83498, 0.50495, 0.7)
	// F: empty result list → invalid in both modes (issue 15.8: the
	// organisers' evaluation also calls pycocotools' loadRes, which fails
	// on an empty list).
	f = newFixture(t, map[string][]string{"train_7": {ann(1, 3, g7, 1, 2, 1)}})
	f.submit(t, map[string]string{"train_7": "[]"})
	for _, mode := range []challenge.Mode{challenge.Reference, challenge.Official} {
		if _, err := f.grade(t, mode); !challenge.IsInvalid(err) {
			t.Errorf("F %s: err %v, want invalid", mode, err)
		}
	}
	// G: defaults (categories 1, score 0.5, image from the row), two images.
	f = newFixture(t, map[string][]string{"train_7": {ann(1, 3, g7, 1, 1, 1)}, "train_9": {ann(2, 5, "[600,500,150,150]", 1, 1, 1)}})
	f.submit(t, map[string]string{"train_7": `[{"bbox":` + g7 + `}]`, "train_9": "[]"})
	res, _ = f.grade(t, challenge.Reference)
	allLevels(t, "G", res, 0.50495, 0.50495, 0.50495, 0.5)
	// H: corner format rewritten → perfect.
	f = newFixture(t, map[string][]string{"train_7": {ann(1, 3, g7, 1, 2, 1)}})
	f.submit(t, map[string]string{"train_7": "[" + pred("[500,400,700,700]", 1, 2, 1, 0.9, "") + "]"})
	res, _ = f.grade(t, challenge.Reference)
	allLevels(t, "H", res, 1, 1, 1, 1)
	// I: recall-threshold exactness.
	var truths, preds []string
	for i := 0; i < 10; i++ {
		truths = append(truths, ann(i+1, 3, "["+itoa3(300+150*i)+",400,100,100]", 1, 1, 1))
	}
	for i := 0; i < 7; i++ {
		preds = append(preds, pred("["+itoa3(300+150*i)+",400,100,100]", 1, 1, 1, 0.99-0.01*float64(i), ""))
	}
	preds = append(preds, pred("[2500,1000,100,100]", 1, 1, 1, 0.5, ""), pred("[1350,400,100,100]", 1, 1, 1, 0.4, ""))
	f = newFixture(t, map[string][]string{"train_7": truths})
	js := "["
	for i, p := range preds {
		if i > 0 {
			js += ","
		}
		js += p
	}
	f.submit(t, map[string]string{"train_7": js + "]"})
	res, _ = f.grade(t, challenge.Reference)
	allLevels(t, "I", res, 0.78988, 0.78988, 0.78988, 0.8)
	// J: integer image id not in the truth → invalid.
	f = newFixture(t, map[string][]string{"train_7": {ann(1, 3, g7, 1, 2, 1)}})
	f.submit(t, map[string]string{"train_7": "[" + pred(g7, 1, 2, 1, 0.9, `,"image_id":999`) + "]"})
	if _, err := f.grade(t, challenge.Reference); !challenge.IsInvalid(err) {
		t.Errorf("J: err %v, want invalid", err)
	}
	// K: an extra row train_3 falls back to int("3") = train_7's id.
	f.submit(t, map[string]string{"train_7": "[]", "train_3": "[" + pred(g7, 1, 2, 1, 0.9, "") + "]"})
	res, err = f.grade(t, challenge.Reference)
	if err != nil {
		t.Fatalf("K: %v", err)
	}
	allLevels(t, "K", res, 1, 1, 1, 1)
	// L: duplicate after full recall.
	f = newFixture(t, map[string][]string{"train_7": {ann(1, 3, g7, 1, 1, 1)}})
	f.submit(t, map[string]string{"train_7": "[" + pred(g7, 1, 1, 1, 0.9, "") + "," + pred(g7, 1, 1, 1, 0.8, "") + "]"})
	res, _ = f.grade(t, challenge.Reference)
	allLevels(t, "L", res, 1, 1, 1, 1)
}

// The category-id quirk on the prepared synthetic data: a submission with
// 1-based labels (as a reader of the task might expect) is shifted against
// the truth in reference mode; the 0-based perfect submission scores 1 in
// both modes but reference mode silently drops every class-0 box.
func TestCategoryQuirkOnSyntheticData(t *testing.T) {
	p := challengetest.Prepare(t, Challenge{}, 3)
	perfect := p.Submit(t, "perfect", func(ctx context.Context, out string) error {
		return Challenge{}.Perfect(ctx, p.Public(), p.Private(), out)
	})
	ref := p.Grade(t, perfect, challenge.Reference)
	skippedNote := false
	for _, n := range ref.Notes {
		if strings.Contains(n, "were not scored") {
			skippedNote = true
		}
	}
	if !skippedNote {
		t.Errorf("reference notes do not report the unscored class-0 boxes: %v", ref.Notes)
	}
	// Shift every label by +1 (1-based, as the FDI numbers read).
	shifted := p.Submit(t, "shifted", func(ctx context.Context, out string) error {
		challengetest.CopyDir(t, perfect, out)
		tab, _ := challenge.ReadCSV(filepath.Join(out, submissionFile))
		for _, row := range tab.Rows {
			path := filepath.Join(out, row[1])
			b, _ := os.ReadFile(path)
			var ps []predJSON
			json.Unmarshal(b, &ps)
			for i := range ps {
				ps[i].Q++
				ps[i].T++
				ps[i].D++
			}
			nb, _ := json.Marshal(ps)
			os.WriteFile(path, nb, 0o644)
		}
		return nil
	})
	rs := p.Grade(t, shifted, challenge.Reference)
	os_ := p.Grade(t, shifted, challenge.Official)
	if !(rs.Values["ap_mean"] < 0.5) || !(os_.Values["ap_mean"] < 0.5) {
		t.Errorf("1-based labels should miss the 0-based truth: reference %v official %v", rs.Values["ap_mean"], os_.Values["ap_mean"])
	}
}

func TestSplitMatchesReference(t *testing.T) {
	ids := make([]int64, 705)
	for i := range ids {
		ids[i] = int64(i + 1)
	}
	train, test := splitIDs(ids)
	if len(train) != 564 || len(test) != 141 || test[0] != 513 || test[2] != 4 {
		t.Errorf("split: %d/%d, test starts %v (want ids 513, 598, 4)", len(train), len(test), test[:3])
	}
}

func BenchmarkGrade(b *testing.B) {
	p := challengetest.Prepare(b, Challenge{}, 1)
	dir := p.Submit(b, "perfect", func(ctx context.Context, out string) error {
		return Challenge{}.Perfect(ctx, p.Public(), p.Private(), out)
	})
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := (Challenge{}).Grade(context.Background(), dir, p.Private(), challenge.Reference); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGrade1000 grades a realistic-size submission: 1,000 test images
// of 2744×1316 with 3 truth boxes each and 20 predictions per image.
func BenchmarkGrade1000(b *testing.B) {
	priv, sub := bench1000(b)
	b.ResetTimer()
	cpu0 := processCPU()
	for i := 0; i < b.N; i++ {
		res, err := Challenge{}.Grade(context.Background(), sub, priv, challenge.Reference)
		if err != nil {
			b.Fatal(err)
		}
		if i == 0 {
			b.ReportMetric(res.Values["ap_mean"], "ap_mean")
		}
	}
	// CPU seconds (all threads) per grading: less sensitive than wall time
	// to other load on a shared machine.
	b.ReportMetric((processCPU()-cpu0).Seconds()/float64(b.N), "cpu-s/op")
}

// processCPU is the user + system CPU time of the process so far.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// bench1000 writes the realistic-size data set of BenchmarkGrade1000.
func bench1000(b *testing.B) (priv, sub string) {
	priv, sub = challengetest.BenchDirs(b)
	r := rand.New(rand.NewPCG(4, 2))
	var labels, rows [][]string
	for i := 1; i <= 1000; i++ {
		stem := fmt.Sprintf("train_%d", i)
		var anns []string
		var preds []predJSON
		for k := 0; k < 3; k++ {
			box := [4]float64{300 + r.Float64()*2000, 200 + r.Float64()*800, 80 + r.Float64()*80, 150 + r.Float64()*150}
			q, e, d := r.IntN(4), r.IntN(8), r.IntN(4)
			bj, _ := json.Marshal(box)
			anns = append(anns, ann(i*10+k, i, string(bj), q, e, d))
			for j := 0; j < 5; j++ {
				jb := box
				jb[0] += r.NormFloat64() * 10
				jb[1] += r.NormFloat64() * 10
				preds = append(preds, predJSON{ImageID: stem, BBox: jb, Score: r.Float64(), Q: (q + j/3) % 4, T: e, D: (d + j/4) % 4})
			}
		}
		for len(preds) < 20 {
			preds = append(preds, predJSON{ImageID: stem, BBox: [4]float64{300 + r.Float64()*2000, 200 + r.Float64()*800, 100, 200}, Score: r.Float64() / 2, Q: r.IntN(4), T: r.IntN(8), D: r.IntN(4)})
		}
		js := `{"images":[{"id":` + itoa3(i) + `,"file_name":"` + stem + `.png","width":2744,"height":1316}],"annotations":[` + strings.Join(anns, ",") + `],"categories_1":[],"categories_2":[],"categories_3":[]}`
		writeFile(b, filepath.Join(priv, "ground_truth", stem+".json"), js)
		labels = append(labels, []string{stem, "ground_truth/" + stem + ".json"})
		pj, _ := json.Marshal(preds)
		writeFile(b, filepath.Join(sub, "predictions", stem+".json"), string(pj))
		rows = append(rows, []string{stem, "predictions/" + stem + ".json"})
	}
	challenge.WriteCSV(filepath.Join(priv, "test_labels.csv"), []string{colID, colGT}, labels)
	challenge.WriteCSV(filepath.Join(sub, submissionFile), []string{colID, colPred}, rows)
	return priv, sub
}
