package sega

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rexmle/rexmle/metrics/imageio/nrrd"
	"github.com/rexmle/rexmle/metrics/num"
	"github.com/rexmle/rexmle/metrics/volume"
	"github.com/rexmle/rexmle/pipeline/challenge"
	"github.com/rexmle/rexmle/pipeline/challenge/challengetest"
)

func TestConformance(t *testing.T) { challengetest.Conformance(t, Challenge{}) }

// npMask builds a mask from numpy [z,y,x] indices on a numpy-shaped grid.
func npMask(shape [3]int, vox ...[3]int) ([]bool, volume.Grid) {
	g := volume.NewGrid(shape[2], shape[1], shape[0])
	m := make([]bool, g.Len())
	for _, v := range vox {
		m[g.Index(v[2], v[1], v[0])] = true
	}
	return m, g
}

func npBlock(lo, hi [3]int) [][3]int {
	var out [][3]int
	for z := lo[0]; z < hi[0]; z++ {
		for y := lo[1]; y < hi[1]; y++ {
			for x := lo[2]; x < hi[2]; x++ {
				out = append(out, [3]int{z, y, x})
			}
		}
	}
	return out
}

func TestScoreVectors(t *testing.T) {
	blockG := npBlock([3]int{1, 1, 1}, [3]int{4, 4, 4})
	tests := []struct {
		name     string
		shape    [3]int
		gt, pred [][3]int
		hd, dsc  float64
	}{
		{"S1", [3]int{6, 6, 6}, blockG, npBlock([3]int{2, 1, 1}, [3]int{5, 4, 4}), 1, 2.0 * 18 / 54},
		{"S2", [3]int{9, 9, 9}, [][3]int{{2, 2, 2}}, [][3]int{{2, 2, 2}, {2, 2, 6}}, 4, 2.0 / 3},
		{"S3 directed", [3]int{9, 9, 9}, [][3]int{{2, 2, 2}, {2, 2, 6}}, [][3]int{{2, 2, 2}}, 0, 2.0 / 3},
		{"S4 float32", [3]int{5, 5, 5}, [][3]int{{2, 2, 2}}, [][3]int{{1, 1, 2}}, 1.4142135381698608, 0},
		{"S5 float32 large", [3]int{301, 401, 2}, [][3]int{{300, 400, 1}}, [][3]int{{0, 0, 0}}, 500.0010070800781, 0},
		{"S6 empty GT", [3]int{4, 5, 6}, nil, [][3]int{{1, 1, 1}}, 8.774964387392123, 0},
		{"S7 empty prediction", [3]int{4, 5, 6}, [][3]int{{1, 1, 1}}, nil, 8.774964387392123, 0},
		{"S8 both empty", [3]int{4, 5, 6}, nil, nil, 0, 1},
		{"S9 identical", [3]int{6, 6, 6}, blockG, blockG, 0, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g, grid := npMask(tc.shape, tc.gt...)
			p, _ := npMask(tc.shape, tc.pred...)
			hd, dsc, err := Score(p, g, grid, challenge.Reference)
			if err != nil {
				t.Fatal(err)
			}
			if hd != tc.hd {
				t.Errorf("hd = %.17g, want %.17g", hd, tc.hd)
			}
			if math.Abs(dsc-tc.dsc) > 1e-12 {
				t.Errorf("dsc = %v, want %v", dsc, tc.dsc)
			}
		})
	}
}

func TestMedian(t *testing.T) {
	for _, tc := range []struct {
		in   []float64
		want float64
	}{
		{[]float64{1.0, 4.0, 500.0010070800781}, 4},
		{[]float64{1, 4}, 2.5},
		{[]float64{2.0 / 3, 2.0 / 3, 0}, 2.0 / 3},
		{[]float64{7}, 7},
	} {
		if got := num.Median(tc.in); got != tc.want {
			t.Errorf("Median(%v) = %v, want %v", tc.in, got, tc.want)
		}
	}
	if !math.IsNaN(num.Median(nil)) {
		t.Error("Median(nil) should be NaN")
	}
}

func TestSplitPinned(t *testing.T) {
	var cases []Case
	for _, p := range []struct {
		prefix string
		n      int
	}{{"D", 18}, {"K", 20}, {"R", 18}} {
		for i := 1; i <= p.n; i++ {
			cases = append(cases, Case{ID: fmt.Sprintf("%s%d", p.prefix, i)})
		}
	}
	// Discover's string sort.
	sortCases(cases)
	_, test := SplitCases(cases)
	want := []string{"D1", "D14", "K5", "D5", "K10", "R4", "K8", "K17", "R15", "D4", "R8", "D12"}
	var got []string
	for _, c := range test {
		got = append(got, c.ID)
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("test ids %v, want %v", got, want)
	}
}

// writeLabel writes a uint8 NRRD with numpy [z,y,x] voxels set to value.
func writeLabel(t testing.TB, path string, shape [3]int, spacing [3]float64, value float64, vox ...[3]int) {
	t.Helper()
	g := volume.NewGrid(shape[2], shape[1], shape[0])
	g.Spacing = spacing
	v := volume.New(g, volume.Int16)
	for _, x := range vox {
		v.Data[g.Index(x[2], x[1], x[0])] = value
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := nrrd.WriteFile(path, v, volume.Int16, true); err != nil {
		t.Fatal(err)
	}
}

func miniTask(t *testing.T, shape [3]int, spacing [3]float64, gts map[string][][3]int) string {
	priv := t.TempDir()
	var rows [][]string
	for _, id := range challenge.SortedKeys(gts) {
		writeLabel(t, filepath.Join(priv, "test", "labels", id+".seg.nrrd"), shape, spacing, 1, gts[id]...)
		rows = append(rows, []string{id, "test/images/" + id + ".nrrd", "test/labels/" + id + ".seg.nrrd"})
	}
	if err := challenge.WriteCSV(filepath.Join(priv, "test_labels.csv"), []string{"image_id", "image_path", "label_path"}, rows); err != nil {
		t.Fatal(err)
	}
	return priv
}

func writeSub(t *testing.T, rows [][]string) string {
	sub := t.TempDir()
	if err := challenge.WriteCSV(filepath.Join(sub, "submission.csv"), []string{"image_id", "predicted_mask_path"}, rows); err != nil {
		t.Fatal(err)
	}
	return sub
}

// TestQuirksDirectedAndUnits: S3 (prediction inside the GT surface) scores 0
// in the reference and 4 voxels × 2 mm = 8 mm officially (symmetric, mm).
// S10: negative values are background.
func TestQuirksDirectedAndUnits(t *testing.T) {
	spacing := [3]float64{2, 2, 2}
	priv := miniTask(t, [3]int{9, 9, 9}, spacing, map[string][][3]int{"a": {{2, 2, 2}, {2, 2, 6}}, "b": {{1, 1, 1}}})
	sub := writeSub(t, [][]string{{"a", "a.seg.nrrd"}, {"b", "b.seg.nrrd"}})
	writeLabel(t, filepath.Join(sub, "a.seg.nrrd"), [3]int{9, 9, 9}, spacing, 1, [3]int{2, 2, 2})
	writeLabel(t, filepath.Join(sub, "b.seg.nrrd"), [3]int{9, 9, 9}, spacing, -1, [3]int{1, 1, 1})
	ref, err := Challenge{}.Grade(context.Background(), sub, priv, challenge.Reference)
	if err != nil {
		t.Fatal(err)
	}
	off, err := Challenge{}.Grade(context.Background(), sub, priv, challenge.Official)
	if err != nil {
		t.Fatal(err)
	}
	diag := math.Sqrt(3 * 81)
	if ref.Cases[0].Values[CaseHD] != 0 || ref.Cases[1].Values[CaseHD] != diag || ref.Cases[1].Values[CaseDSC] != 0 {
		t.Errorf("reference cases %+v, want hd 0 and %v", ref.Cases, diag)
	}
	if off.Cases[0].Values[CaseHD] != 8 || off.Cases[1].Values[CaseHD] != 2*diag {
		t.Errorf("official cases %+v, want hd 8 and %v", off.Cases, 2*diag)
	}
	if ref.Values[MetricHD50] != diag/2 || ref.Values[MetricDSC50] != 1.0/3 {
		t.Errorf("reference medians %v", ref.Values)
	}
}

// TestNonFiniteVoxelsReference: the reference thresholds a prediction with
// (mask > 0), so a NaN or −Inf voxel is background and +Inf foreground;
// reference mode grades such masks alike, official mode refuses them.
func TestNonFiniteVoxelsReference(t *testing.T) {
	shape, spacing := [3]int{9, 9, 9}, [3]float64{1, 1, 1}
	priv := miniTask(t, shape, spacing, map[string][][3]int{"a": {{2, 2, 2}, {2, 2, 6}}})
	grade := func(fill float64, mode challenge.Mode) (*challenge.Result, error) {
		sub := writeSub(t, [][]string{{"a", "a.seg.nrrd"}})
		g := volume.NewGrid(shape[2], shape[1], shape[0])
		v := volume.New(g, volume.Float32)
		v.Data[g.Index(2, 2, 2)] = 1
		v.Data[g.Index(4, 4, 4)] = fill
		if err := nrrd.WriteFile(filepath.Join(sub, "a.seg.nrrd"), v, volume.Float32, true); err != nil {
			t.Fatal(err)
		}
		return Challenge{}.Grade(context.Background(), sub, priv, mode)
	}
	for _, c := range []struct{ fill, same float64 }{{math.NaN(), 0}, {math.Inf(-1), 0}, {math.Inf(1), 1}} {
		want, err := grade(c.same, challenge.Reference)
		if err != nil {
			t.Fatal(err)
		}
		got, err := grade(c.fill, challenge.Reference)
		if err != nil {
			t.Fatalf("reference refused a mask holding %v: %v", c.fill, err)
		}
		for _, m := range []string{CaseHD, CaseDSC} {
			if g, w := got.Cases[0].Values[m], want.Cases[0].Values[m]; g != w {
				t.Errorf("%v at (4,4,4): %s %v, with %v there %v", c.fill, m, g, c.same, w)
			}
		}
		if _, err := grade(c.fill, challenge.Official); !challenge.IsInvalid(err) || !strings.Contains(err.Error(), "finite") {
			t.Errorf("official, %v voxel: %v, want an invalid submission naming finite values", c.fill, err)
		}
	}
	// The two masks differ: +Inf is the extra voxel, NaN is not.
	a, _ := grade(math.Inf(1), challenge.Reference)
	b, _ := grade(math.NaN(), challenge.Reference)
	if a.Cases[0].Values[CaseHD] == b.Cases[0].Values[CaseHD] {
		t.Errorf("+Inf and NaN voxels scored alike (HD %v): the case does not tell them apart", a.Cases[0].Values[CaseHD])
	}
}

func TestQuirkResize(t *testing.T) {
	priv := miniTask(t, [3]int{4, 4, 4}, [3]float64{1, 1, 1}, map[string][][3]int{"a": npBlock([3]int{2, 2, 2}, [3]int{4, 4, 4})})
	sub := writeSub(t, [][]string{{"a", "a.seg.nrrd"}})
	writeLabel(t, filepath.Join(sub, "a.seg.nrrd"), [3]int{2, 2, 2}, [3]float64{1, 1, 1}, 1, [3]int{1, 1, 1})
	ref, err := Challenge{}.Grade(context.Background(), sub, priv, challenge.Reference)
	if err != nil {
		t.Fatal(err)
	}
	if ref.Values[MetricDSC50] != 1 || ref.Values[MetricHD50] != 0 || len(ref.Notes) != 1 {
		t.Errorf("reference %v notes %q, want a perfect resized mask", ref.Values, ref.Notes)
	}
	if _, err := (Challenge{}).Grade(context.Background(), sub, priv, challenge.Official); !challenge.IsInvalid(err) {
		t.Errorf("official accepted a wrong-shaped mask: %v", err)
	}
}

func TestMalformed(t *testing.T) {
	p := challengetest.Prepare(t, Challenge{}, 5)
	valid := p.Submit(t, "perfect", func(ctx context.Context, out string) error {
		return Challenge{}.Perfect(ctx, p.Public(), p.Private(), out)
	})
	firstPred := func(t testing.TB, dir string) string {
		tab, err := challenge.ReadCSV(filepath.Join(dir, "submission.csv"))
		if err != nil {
			t.Fatal(err)
		}
		return filepath.Join(dir, tab.Rows[0][1])
	}
	cases := []challengetest.Malformed{
		challengetest.MissingCSV(),
		challengetest.DropRow(),
		challengetest.RenameColumn("image_id"),
		challengetest.RenameColumn("predicted_mask_path"),
		challengetest.SetCell("extra-id", "image_id", "Z99", "unexpected"),
		challengetest.SetCell("dotdot-path", "predicted_mask_path", "../../x.seg.nrrd", "leaves"),
		challengetest.SetCell("absolute-path", "predicted_mask_path", "/etc/x.nrrd", "absolute"),
		challengetest.SetCell("dicom", "predicted_mask_path", "predictions/x.dcm", "unsupported"),
		{Name: "missing-prediction", Want: "not found", Break: func(t testing.TB, dir string) {
			if err := os.Remove(firstPred(t, dir)); err != nil {
				t.Fatal(err)
			}
		}},
		{Name: "truncated", Want: "cannot read", Break: func(t testing.TB, dir string) {
			p := firstPred(t, dir)
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, b[:len(b)/2], 0o644); err != nil {
				t.Fatal(err)
			}
		}},
		{Name: "huge-header", Want: "cannot read", Break: func(t testing.TB, dir string) {
			hdr := "NRRD0004\ntype: uint8\ndimension: 3\nsizes: 50000 50000 50000\nencoding: raw\n\nxx"
			if err := os.WriteFile(firstPred(t, dir), []byte(hdr), 0o644); err != nil {
				t.Fatal(err)
			}
		}},
		{Name: "symlink-out", Want: "leaves", Break: func(t testing.TB, dir string) {
			p := firstPred(t, dir)
			outside := filepath.Join(t.TempDir(), "outside.seg.nrrd")
			if err := os.Rename(p, outside); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(outside, p); err != nil {
				t.Skip("symlinks unsupported:", err)
			}
		}},
	}
	challengetest.CheckMalformed(t, p, valid, cases)
}

func TestSubmissionScores(t *testing.T) {
	c := Challenge{}
	p := challengetest.Prepare(t, c, 11)
	var log bytes.Buffer
	subs := map[string]string{
		"perfect":  p.Submit(t, "perfect", func(ctx context.Context, out string) error { return c.Perfect(ctx, p.Public(), p.Private(), out) }),
		"sample":   p.Submit(t, "sample", func(ctx context.Context, out string) error { return c.SampleSubmission(ctx, p.Public(), out) }),
		"trivial":  p.Submit(t, "trivial", func(ctx context.Context, out string) error { return c.Trivial(ctx, p.Public(), out) }),
		"baseline": p.Submit(t, "baseline", func(ctx context.Context, out string) error { return c.Baseline(ctx, p.Public(), out, &log) }),
	}
	t.Log(log.String())
	for _, mode := range []challenge.Mode{challenge.Reference, challenge.Official} {
		got := map[string]map[string]float64{}
		for _, name := range []string{"perfect", "sample", "trivial", "baseline"} {
			r := p.Grade(t, subs[name], mode)
			got[name] = r.Values
			t.Logf("%-8s %-9s hd_50pc=%.5f dsc_50pc=%.5f", name, mode, r.Values[MetricHD50], r.Values[MetricDSC50])
		}
		if got["perfect"][MetricHD50] != 0 || got["perfect"][MetricDSC50] != 1 {
			t.Errorf("%s: perfect %v", mode, got["perfect"])
		}
		if got["trivial"][MetricDSC50] != 0 {
			t.Errorf("%s: trivial %v", mode, got["trivial"])
		}
		if b, s := got["baseline"][MetricDSC50], got["sample"][MetricDSC50]; b <= s || b < 0.5 {
			t.Errorf("%s: baseline dsc %v should beat the sample's %v and exceed 0.5", mode, b, s)
		}
	}
}

func BenchmarkGrade(b *testing.B) {
	c := Challenge{}
	p := challengetest.Prepare(b, c, 1)
	sub := p.Submit(b, "baseline", func(ctx context.Context, out string) error {
		var log bytes.Buffer
		return c.Baseline(ctx, p.Public(), out, &log)
	})
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := c.Grade(context.Background(), sub, p.Private(), challenge.Reference); err != nil {
			b.Fatal(err)
		}
	}
}

// TestPrepareFromNestedZips builds the Figshare download (avt_dataset.zip
// holding Dongyang.zip, KiTS.zip and Rider.zip) and checks Prepare extracts
// it and finds every case.
func TestPrepareFromNestedZips(t *testing.T) {
	synth := t.TempDir()
	if err := (Challenge{}).Synthesize(context.Background(), synth, 2, challenge.SynthSize{}); err != nil {
		t.Fatal(err)
	}
	inner := t.TempDir()
	for _, inst := range institutions {
		// Each nested archive holds <Institution>/<case>/...
		if err := challengetest.ZipDir(filepath.Join(synth, inst.Name), filepath.Join(inner, inst.Name+".zip")); err != nil {
			t.Fatal(err)
		}
	}
	raw := t.TempDir()
	if err := challengetest.ZipDir(inner, filepath.Join(raw, mainArchive)); err != nil {
		t.Fatal(err)
	}
	data := t.TempDir()
	if err := (Challenge{}).Prepare(context.Background(), raw, data); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(raw, "KiTS", "KiTS", "K3", "K3.seg.nrrd")); err != nil {
		t.Errorf("nested archive not extracted into raw/KiTS/: %v", err)
	}
	tab, err := challenge.ReadCSV(filepath.Join(data, "private", "test_labels.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if len(tab.Rows) != 3 {
		t.Errorf("%d test rows, want 3 of 15 cases", len(tab.Rows))
	}
}
