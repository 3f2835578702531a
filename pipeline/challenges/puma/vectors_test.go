package puma

import (
	"context"
	"image"
	"image/color"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rexmle/rexmle/metrics/polygon"
	"github.com/rexmle/rexmle/pipeline/challenge"
)

// rect is a labelled inclusive rectangle (label, row0, row1, col0, col1).
type rect [5]int

func maskOf(n int, rs ...rect) *polygon.Mask {
	m := polygon.NewMask(n, n)
	for _, r := range rs {
		for y := r[1]; y <= r[2]; y++ {
			for x := r[3]; x <= r[4]; x++ {
				m.Pix[y*n+x] = uint8(r[0])
			}
		}
	}
	return m
}

// tissueFixture writes truths (reference and official folders alike) and
// predictions, and returns (submissionDir, privateDir).
func tissueFixture(t *testing.T, truths []*polygon.Mask, preds []func(path string) error) (string, string) {
	t.Helper()
	root := t.TempDir()
	sub, priv := filepath.Join(root, "sub"), filepath.Join(root, "priv")
	var ans, rows [][]string
	for i, tm := range truths {
		id := "case" + string(rune('a'+i))
		rel := "test/labels/" + id + ".tif"
		for _, d := range []string{priv, filepath.Join(priv, officialDir)} {
			if err := writeMaskTIFF(filepath.Join(d, rel), tm); err != nil {
				t.Fatal(err)
			}
		}
		ans = append(ans, []string{id, "test/images/" + id + ".tif", rel})
		p := "predictions/" + id + ".png"
		if err := os.MkdirAll(filepath.Join(sub, "predictions"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := preds[i](filepath.Join(sub, p)); err != nil {
			t.Fatal(err)
		}
		rows = append(rows, []string{id, p})
	}
	if err := challenge.WriteCSV(filepath.Join(priv, answersCSV), []string{"case_id", "image_path", "label_path"}, ans); err != nil {
		t.Fatal(err)
	}
	if err := challenge.WriteCSV(filepath.Join(sub, submissionFile), []string{"case_id", "predicted_mask_path"}, rows); err != nil {
		t.Fatal(err)
	}
	return sub, priv
}

func grayPNG(m *polygon.Mask) func(string) error {
	return func(p string) error {
		f, err := os.Create(p)
		if err != nil {
			return err
		}
		defer f.Close()
		return png.Encode(f, &image.Gray{Pix: m.Pix, Stride: m.W, Rect: image.Rect(0, 0, m.W, m.H)})
	}
}

func rgbPNG(m *polygon.Mask, g, b uint8) func(string) error {
	return func(p string) error {
		img := image.NewNRGBA(image.Rect(0, 0, m.W, m.H))
		for i, v := range m.Pix {
			img.SetNRGBA(i%m.W, i/m.W, color.NRGBA{v, g, b, 255})
		}
		f, err := os.Create(p)
		if err != nil {
			return err
		}
		defer f.Close()
		return png.Encode(f, img)
	}
}

func TestTissueSpecVectors(t *testing.T) {
	N := Size
	bands := maskOf(N, rect{1, 0, 99, 0, N - 1}, rect{2, 100, 199, 0, N - 1}, rect{3, 200, 299, 0, N - 1}, rect{4, 300, 399, 0, N - 1}, rect{5, 400, 499, 0, N - 1})
	five := maskOf(N, rect{1, 0, 0, 0, 0}, rect{2, 0, 0, 1, 1}, rect{3, 0, 0, 2, 2}, rect{4, 0, 0, 3, 3}, rect{5, 0, 0, 4, 4})
	bad := maskOf(N, rect{6, 5, 5, 5, 5})
	cases := []struct {
		name   string
		truths []*polygon.Mask
		preds  []func(string) error
		t1, t2 float64 // reference values; NaN = invalid
	}{
		{"A", []*polygon.Mask{maskOf(N, rect{3, 0, 99, 0, 99}, rect{1, 200, 299, 0, 99})},
			[]func(string) error{grayPNG(maskOf(N, rect{3, 0, 99, 0, 49}, rect{1, 200, 299, 0, 99}, rect{5, 500, 500, 500, 500}))},
			0.33333533335777793, 0.33333333337777776},
		{"B", []*polygon.Mask{maskOf(N, rect{3, 0, 9, 0, 9}), maskOf(N, rect{3, 0, 99, 0, 99})},
			[]func(string) error{grayPNG(maskOf(N, rect{3, 0, 9, 0, 9})), grayPNG(maskOf(N))},
			0.003921568819684736, 0.003921568819684736},
		{"C all zero", []*polygon.Mask{maskOf(N)}, []func(string) error{grayPNG(maskOf(N))}, 0, 0},
		{"D one pixel each", []*polygon.Mask{maskOf(N)}, []func(string) error{grayPNG(five)}, 9.99990000099999e-06, 0},
		{"E identical", []*polygon.Mask{bands}, []func(string) error{grayPNG(bands)}, 1, 1},
		{"F value 6", []*polygon.Mask{bands}, []func(string) error{grayPNG(bad)}, math.NaN(), math.NaN()},
		{"G 512 resized", []*polygon.Mask{maskOf(N, rect{3, 0, 199, 0, 199})}, []func(string) error{grayPNG(maskOf(512, rect{3, 0, 99, 0, 99}))}, 0.2, 0.2},
		{"H/K RGB", []*polygon.Mask{bands}, []func(string) error{rgbPNG(bands, 200, 255)}, 1, math.NaN()},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			sub, priv := tissueFixture(t, tc.truths, tc.preds)
			for _, c := range []Challenge{Track1Task1, Track2Task1} {
				want := tc.t1
				if c.track == 2 {
					want = tc.t2
				}
				res, err := c.Grade(context.Background(), sub, priv, challenge.Reference)
				if math.IsNaN(want) {
					if !challenge.IsInvalid(err) {
						t.Errorf("track %d: want invalid, got %v %v", c.track, res, err)
					}
					continue
				}
				if err != nil {
					t.Fatalf("track %d: %v", c.track, err)
				}
				if got := res.Values["dice"]; math.Abs(got-want) > 1e-15*math.Max(1, want) {
					t.Errorf("track %d: dice = %.17g, want %.17g", c.track, got, want)
				}
			}
		})
	}
}

// Track 1 reference keeps ε/(U+ε) for a class on one side only; official
// zeroes it (vector D: 9.99990000099999e-06 → 0).
func TestTissueEpsilonQuirk(t *testing.T) {
	five := maskOf(Size, rect{1, 0, 0, 0, 0}, rect{2, 0, 0, 1, 1}, rect{3, 0, 0, 2, 2}, rect{4, 0, 0, 3, 3}, rect{5, 0, 0, 4, 4})
	sub, priv := tissueFixture(t, []*polygon.Mask{maskOf(Size)}, []func(string) error{grayPNG(five)})
	ref, err := Track1Task1.Grade(context.Background(), sub, priv, challenge.Reference)
	if err != nil {
		t.Fatal(err)
	}
	off, err := Track1Task1.Grade(context.Background(), sub, priv, challenge.Official)
	if err != nil {
		t.Fatal(err)
	}
	if ref.Values["dice"] != 9.99990000099999e-06 || off.Values["dice"] != 0 {
		t.Errorf("reference %v (want 9.99990000099999e-06), official %v (want 0)", ref.Values["dice"], off.Values["dice"])
	}
}

// On data with the real tissue_* names the reference truth is all
// background: every submission, even the one built from the real
// annotations, scores 0 in reference mode (≤ 1e-5 on track 1) while it
// scores 1 in official mode.
func TestTissueNameQuirk(t *testing.T) {
	for _, c := range []Challenge{Track1Task1, Track2Task1} {
		scores := gradeAll(t, c, 1)
		ref, off := scores["perfect"][challenge.Reference], scores["perfect"][challenge.Official]
		if ref > 1e-5 || off != 1 {
			t.Errorf("%s: perfect scores %v in reference mode (want ≤ 1e-5) and %v in official mode (want 1)", c.ID(), ref, off)
		}
		if c.track == 2 && ref != 0 {
			t.Errorf("%s: reference score %v, want exactly 0", c.ID(), ref)
		}
	}
}

func TestRasterizeTissueNames(t *testing.T) {
	sq := [][]polygon.Ring{{{{10, 10}, {20, 10}, {20, 20}, {10, 20}, {10, 10}}}}
	feats := []polygon.Feature{
		{ClassName: "tissue_tumor", GeometryType: "Polygon", Polygons: sq},
		{Name: "Stroma", GeometryType: "Polygon", Polygons: [][]polygon.Ring{{{{30, 30}, {40, 30}, {40, 40}, {30, 30}}}}},
	}
	ref := RasterizeTissue(feats, false)
	off := RasterizeTissue(feats, true)
	if ref.Pix[15*Size+15] != 0 || off.Pix[15*Size+15] != 3 {
		t.Errorf("tissue_tumor: reference %d (want 0), official %d (want 3)", ref.Pix[15*Size+15], off.Pix[15*Size+15])
	}
	if ref.Pix[31*Size+38] != 1 || off.Pix[31*Size+38] != 1 {
		t.Errorf("properties.name fallback 'Stroma': reference %d, official %d, want 1", ref.Pix[31*Size+38], off.Pix[31*Size+38])
	}
}

// Nuclei ---------------------------------------------------------------------

func nucleiFixture(t *testing.T, truths, preds []string, pathCol string) (string, string) {
	t.Helper()
	root := t.TempDir()
	sub, priv := filepath.Join(root, "sub"), filepath.Join(root, "priv")
	var ans, rows [][]string
	for i := range truths {
		id := "case" + string(rune('a'+i))
		rel := "test/labels/" + id + "_nuclei.json"
		for _, d := range []string{priv, filepath.Join(priv, officialDir)} {
			if err := os.MkdirAll(filepath.Dir(filepath.Join(d, rel)), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(d, rel), []byte(truths[i]), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		ans = append(ans, []string{id, "x", rel})
		if i < len(preds) {
			p := "predictions/" + id + ".json"
			if err := os.MkdirAll(filepath.Join(sub, "predictions"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(sub, p), []byte(preds[i]), 0o644); err != nil {
				t.Fatal(err)
			}
			rows = append(rows, []string{id, p})
		}
	}
	if err := challenge.WriteCSV(filepath.Join(priv, answersCSV), []string{"case_id", "image_path", "label_path"}, ans); err != nil {
		t.Fatal(err)
	}
	if err := challenge.WriteCSV(filepath.Join(sub, submissionFile), []string{"case_id", pathCol}, rows); err != nil {
		t.Fatal(err)
	}
	return sub, priv
}

// sq is the 4-point square of half-size 3 around (x, y) as JSON.
func sq(x, y int) string {
	f := itoa
	return "[[" + f(x-3) + "," + f(y-3) + "],[" + f(x+3) + "," + f(y-3) + "],[" + f(x+3) + "," + f(y+3) + "],[" + f(x-3) + "," + f(y+3) + "]]"
}

func itoa(a int) string {
	if a < 0 {
		return "-" + itoa(-a)
	}
	if a < 10 {
		return string(rune('0' + a))
	}
	return itoa(a/10) + string(rune('0'+a%10))
}

func P(name, pts string, score ...string) string {
	s := `{"name":"` + name + `","path_points":` + pts
	if len(score) > 0 {
		s += `,"score":` + score[0]
	}
	return s + "}"
}

func C(class, xy string, conf ...string) string {
	s := `{"class":"` + class + `","centroid":` + xy
	if len(conf) > 0 {
		s += `,"confidence":` + conf[0]
	}
	return s + "}"
}

func polys(items ...string) string  { return `{"polygons":[` + strings.Join(items, ",") + `]}` }
func nuclei(items ...string) string { return `{"nuclei":[` + strings.Join(items, ",") + `]}` }

func TestNucleiTrack1SpecVectors(t *testing.T) {
	closed := "[[0,0],[10,0],[10,10],[0,10],[0,0]]"
	cases := []struct {
		name         string
		truth, preds []string
		want         float64 // NaN = invalid
	}{
		{"A", []string{polys(P("tumor", closed), P("TILs", "[[100,100],[110,100],[110,110],[100,110]]"), P("other", "[[300,300],[306,300],[306,306],[300,306]]"))},
			[]string{polys(P("tumor", sq(19, 4), "0.9"), P("lymphocytes", sq(105, 110), "0.5"), P("other", sq(303, 303), "0.7"), P("tumor", sq(500, 500), "0.99"))}, 0.6666666666666666},
		{"B", []string{polys(P("tumor", sq(50, 50)))}, []string{polys(P("tumor", sq(50, 50)))}, 1.0 / 3},
		{"C", []string{polys(P("tumor", sq(50, 50))), polys(P("tumor", sq(50, 50)), P("tumor", sq(200, 50)))},
			[]string{polys(P("tumor", sq(52, 50))), polys(P("tumor", sq(50, 55)))}, 0.27777777777777773},
		{"D", []string{nuclei(C("tumor", "[0,0]"), C("tumor", "[20,0]"))}, []string{nuclei(C("tumor", "[10,0]", "1.0"))}, 2.0 / 9},
		{"E quirk", []string{nuclei(C("tumor", "[1,0]"), C("tumor", "[5,0]"), C("tumor", "[20,0]"))},
			[]string{nuclei(C("tumor", "[0,0]", "0.5"), C("tumor", "[0,0]", "0.9"), C("tumor", "[10,0]", "0.8"))}, 1.0 / 3},
		{"F raw truth name", []string{polys(P("nuclei_lymphocyte", sq(50, 50)), P("tumor", sq(200, 200)))},
			[]string{polys(P("TILs", sq(50, 50)), P("tumor", sq(200, 200)))}, 1.0 / 3},
		{"G empty", []string{polys(P("tumor", sq(50, 50)))}, []string{`{"polygons": []}`}, 0},
		{"H both rows", []string{polys(P("tumor", sq(50, 50))), polys(P("tumor", sq(50, 50)))},
			[]string{polys(P("tumor", sq(50, 50))), `{"polygons": []}`}, 1.0 / 6},
		{"H one row", []string{polys(P("tumor", sq(50, 50))), polys(P("tumor", sq(50, 50)))},
			[]string{polys(P("tumor", sq(50, 50)))}, 1.0 / 3},
		{"I top-level array", []string{nuclei(C("tumor", "[0,0]"))}, []string{`[` + C("tumor", "[0,0]") + `]`}, math.NaN()},
		{"J TUMOUR with space", []string{nuclei(C("tumor", "[0,0]"))}, []string{nuclei(C("TUMOUR ", "[3,4]"))}, 1.0 / 3},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			sub, priv := nucleiFixture(t, tc.truth, tc.preds, "predicted_nuclei_path")
			res, err := Track1Task2.Grade(context.Background(), sub, priv, challenge.Reference)
			if math.IsNaN(tc.want) {
				if !challenge.IsInvalid(err) {
					t.Fatalf("want invalid, got %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := res.Values["macro_f1"]; math.Abs(got-tc.want) > 1e-15 {
				t.Errorf("macro_f1 = %.17g, want %.17g", got, tc.want)
			}
			if res.Values["f1"] != res.Values["macro_f1"] {
				t.Error("f1 and macro_f1 differ")
			}
		})
	}
}

func TestNucleiTrack2SpecVectors(t *testing.T) {
	closed := "[[0,0],[10,0],[10,10],[0,10],[0,0]]"
	cases := []struct {
		name         string
		truth, preds []string
		want         float64
	}{
		{"A", []string{polys(P("tumor", closed), P("nuclei_lymphocyte", sq(100, 100)), P("epithelium", sq(300, 300)))},
			[]string{polys(P("tumor", sq(19, 4), "0.9"), P("lymphocytes", sq(100, 100)), P("nuclei_epithelium", sq(300, 300)), P("TILs", sq(600, 600)))}, 0.2},
		{"B", []string{polys(P("tumor", sq(50, 50)), P("lymphocytes", sq(200, 200))), polys(P("tumor", sq(50, 50)), P("epithelium", sq(300, 300)))},
			[]string{polys(P("tumor", sq(50, 50))), polys(P("tumor", sq(51, 50)), P("epithelium", sq(300, 301)))}, 0.2},
		{"C tumour dropped", []string{nuclei(C("tumor", "[0,0]"))}, []string{nuclei(C("TUMOUR ", "[3,4]"))}, 0},
		{"D nuclei_tumor dropped", []string{nuclei(C("tumor", "[0,0]"))}, []string{nuclei(C("nuclei_tumor", "[0,0]"))}, 0},
		{"E alias mapped", []string{nuclei(C("lymphocytes", "[0,0]"))}, []string{nuclei(C("nuclei_lymphocyte", "[0,0]"))}, 0.1},
		{"F top-level array", []string{nuclei(C("tumor", "[0,0]"))}, []string{`[]`}, math.NaN()},
		{"G inclusive 15", []string{nuclei(C("tumor", "[0,0]"), C("tumor", "[30,0]"))}, []string{nuclei(C("tumor", "[15,0]"))}, 0.06666666666666667},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			sub, priv := nucleiFixture(t, tc.truth, tc.preds, "predicted_nuclei_path")
			res, err := Track2Task2.Grade(context.Background(), sub, priv, challenge.Reference)
			if math.IsNaN(tc.want) {
				if !challenge.IsInvalid(err) {
					t.Fatalf("want invalid, got %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := res.Values["f1"]; math.Abs(got-tc.want) > 1e-15 {
				t.Errorf("f1 = %.17g, want %.17g", got, tc.want)
			}
		})
	}
}

// Official mode: strict < 15, per-class mean over all images, stray names
// kept as classes.
func TestNucleiTrack2OfficialDiffers(t *testing.T) {
	// Vector G: inclusive gives 2/3 for tumor; strict gives 0.
	sub, priv := nucleiFixture(t, []string{polys(P("tumor", sq(0, 0)), P("tumor", sq(30, 0)))}, []string{polys(P("tumor", sq(15, 0)))}, "predicted_nuclei_path")
	off, err := Track2Task2.Grade(context.Background(), sub, priv, challenge.Official)
	if err != nil {
		t.Fatal(err)
	}
	if off.Values["f1_tumor"] != 0 {
		t.Errorf("official f1_tumor = %v, want 0 (d = 15 is not < 15)", off.Values["f1_tumor"])
	}
	// Vector B: epithelium occurs in one of two images with F1 1: reference 1, official 1/2.
	sub, priv = nucleiFixture(t, []string{polys(P("tumor", sq(50, 50)), P("lymphocytes", sq(200, 200))), polys(P("tumor", sq(50, 50)), P("epithelium", sq(300, 300)))},
		[]string{polys(P("tumor", sq(50, 50))), polys(P("tumor", sq(51, 50)), P("epithelium", sq(300, 301)))}, "predicted_nuclei_path")
	ref, _ := Track2Task2.Grade(context.Background(), sub, priv, challenge.Reference)
	off, err = Track2Task2.Grade(context.Background(), sub, priv, challenge.Official)
	if err != nil {
		t.Fatal(err)
	}
	if ref.Values["f1_epithelium"] != 1 || off.Values["f1_epithelium"] != 0.5 {
		t.Errorf("f1_epithelium reference %v (want 1), official %v (want 0.5)", ref.Values["f1_epithelium"], off.Values["f1_epithelium"])
	}
	// Official macro: classes seen = tumor, lymphocytes, epithelium → (1 + 0 + 0.5)/3.
	if want := 1.5 / 3; math.Abs(off.Values["f1"]-want) > 1e-15 {
		t.Errorf("official f1 = %v, want %v", off.Values["f1"], want)
	}
}

// Official mode scores the dataset's own class names (issue 15.4):
// nuclei_tumor, nuclei_epithelium and nuclei_endothelium predictions match
// tumor/epithelium/endothelium truth; the reference drops them.
func TestNucleiTrack2OfficialDatasetNames(t *testing.T) {
	truth := []string{polys(P("tumor", sq(0, 0)), P("epithelium", sq(100, 100)), P("endothelium", sq(200, 200)))}
	pred := []string{polys(P("nuclei_tumor", sq(0, 0)), P("nuclei_epithelium", sq(100, 100)), P("nuclei_endothelium", sq(200, 200)))}
	sub, priv := nucleiFixture(t, truth, pred, "predicted_nuclei_path")
	off, err := Track2Task2.Grade(context.Background(), sub, priv, challenge.Official)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"f1_tumor", "f1_epithelium", "f1_endothelium", "f1"} {
		if off.Values[k] != 1 {
			t.Errorf("official %s = %v, want 1", k, off.Values[k])
		}
	}
	ref, err := Track2Task2.Grade(context.Background(), sub, priv, challenge.Reference)
	if err != nil {
		t.Fatal(err)
	}
	if ref.Values["f1_tumor"] != 0 {
		t.Errorf("reference f1_tumor = %v, want 0 (nuclei_tumor dropped)", ref.Values["f1_tumor"])
	}
}

// Issue 15.7: official mode refuses a submission missing a test case; the
// reference grades the rows it has (and here scores higher without the
// bad image).
func TestNucleiOfficialRejectsMissingCase(t *testing.T) {
	truth := []string{nuclei(C("tumor", "[0,0]")), nuclei(C("tumor", "[50,50]"))}
	pred := []string{nuclei(C("tumor", "[0,0]"))} // case b has no row
	sub, priv := nucleiFixture(t, truth, pred, "predicted_nuclei_path")
	for _, task := range []Challenge{Track1Task2, Track2Task2} {
		if _, err := task.Grade(context.Background(), sub, priv, challenge.Official); !challenge.IsInvalid(err) {
			t.Errorf("%s official: err = %v, want invalid (case missing)", task.ID(), err)
		}
		ref, err := task.Grade(context.Background(), sub, priv, challenge.Reference)
		if err != nil {
			t.Fatalf("%s reference: %v", task.ID(), err)
		}
		if ref.Values["f1_tumor"] != 1 {
			t.Errorf("%s reference f1_tumor = %v, want 1 (only the submitted case)", task.ID(), ref.Values["f1_tumor"])
		}
	}
}

// puma-track1-task2: with the real names the reference truth has no TILs.
func TestNucleiTILsQuirk(t *testing.T) {
	p := gradeAll(t, Track1Task2, 1)
	if p["perfect"][challenge.Reference] > 2.0/3 || p["perfect"][challenge.Official] != 1 {
		t.Errorf("perfect: reference %v (want ≤ 2/3), official %v (want 1)", p["perfect"][challenge.Reference], p["perfect"][challenge.Official])
	}
}

func TestSplitPinned(t *testing.T) {
	var ids []string
	for i := 1; i <= 102; i++ {
		ids = append(ids, "training_set_metastatic_roi_"+pad3(i))
	}
	for i := 1; i <= 103; i++ {
		ids = append(ids, "training_set_primary_roi_"+pad3(i))
	}
	_, test := Split(ids)
	if len(test) != 41 {
		t.Fatalf("%d test cases, want 41", len(test))
	}
	want := []string{"metastatic_roi_016", "metastatic_roi_010", "metastatic_roi_101", "primary_roi_031", "metastatic_roi_069"}
	for i, w := range want {
		if test[i] != "training_set_"+w {
			t.Errorf("test[%d] = %s, want training_set_%s", i, test[i], w)
		}
	}
	if test[40] != "training_set_primary_roi_045" {
		t.Errorf("test[40] = %s, want training_set_primary_roi_045", test[40])
	}
}

func pad3(i int) string {
	s := itoa(i)
	for len(s) < 3 {
		s = "0" + s
	}
	return s
}
