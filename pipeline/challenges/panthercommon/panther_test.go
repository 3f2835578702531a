package panthercommon

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/rexmle/rexmle/metrics/imageio/metaimage"
	"github.com/rexmle/rexmle/metrics/num"
	"github.com/rexmle/rexmle/metrics/volume"
	"github.com/rexmle/rexmle/pipeline/challenge"
)

// npMask builds a mask from numpy [z,y,x] indices on a numpy-shaped grid
// (shape and spacing given in numpy order) and returns it in storage order.
func npMask(shape [3]int, s [3]float64, vox ...[3]int) ([]bool, volume.Grid) {
	g := volume.NewGrid(shape[2], shape[1], shape[0])
	g.Spacing = [3]float64{s[2], s[1], s[0]}
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
	all := npBlock([3]int{0, 0, 0}, [3]int{4, 5, 6})
	p3g := [][3]int{{1, 1, 1}, {1, 1, 2}, {2, 2, 2}}
	tests := []struct {
		name                 string
		shape                [3]int
		s                    [3]float64
		gt, pred             [][3]int
		dsc, msd, hd95, masd float64
		burden               float64
	}{
		{"P1 identical", [3]int{4, 4, 4}, [3]float64{1, 1, 1}, npBlock([3]int{1, 1, 1}, [3]int{3, 3, 3}), npBlock([3]int{1, 1, 1}, [3]int{3, 3, 3}), 1, 1, 0, 0, 0},
		{"P2 shift along axis 0", [3]int{6, 6, 6}, [3]float64{1, 1, 1}, [][3]int{{2, 2, 2}}, [][3]int{{3, 2, 2}}, 0, 1, 1, 0.5, 0},
		{"P2b s0=2", [3]int{6, 6, 6}, [3]float64{2, 1, 1}, [][3]int{{2, 2, 2}}, [][3]int{{3, 2, 2}}, 0, 1, 2, 1, 0},
		{"P2c s0=7", [3]int{6, 6, 6}, [3]float64{7, 1, 1}, [][3]int{{2, 2, 2}}, [][3]int{{3, 2, 2}}, 0, 0.5, 7, 3.5, 0},
		{"P2d s1=2", [3]int{6, 6, 6}, [3]float64{1, 2, 1}, [][3]int{{2, 2, 2}}, [][3]int{{3, 2, 2}}, 0, 1, 1, 0.5, 0},
		{"P3 empty prediction", [3]int{4, 5, 6}, [3]float64{2, 1, 1}, p3g, nil, 0, 0, math.Sqrt(125), math.Sqrt(125), 6},
		{"P4 swapped pairing", [3]int{4, 5, 6}, [3]float64{1.0, 0.5, 2.0}, p3g, nil, 0, 0, math.Sqrt(166.25), math.Sqrt(166.25), 3},
		{"P5 subset", [3]int{6, 6, 6}, [3]float64{1, 1, 1}, [][3]int{{2, 2, 2}, {2, 2, 3}}, [][3]int{{2, 2, 2}}, 2.0 / 3, 1, 1, 0.0949489742783178, 1},
		{"P6 all ones", [3]int{4, 5, 6}, [3]float64{1, 1, 1}, p3g, all, 0, 0, math.Sqrt(77), math.Sqrt(77), 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g, grid := npMask(tc.shape, tc.s, tc.gt...)
			p, _ := npMask(tc.shape, tc.s, tc.pred...)
			v, err := Score(p, g, grid)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range []struct {
				name      string
				got, want float64
			}{{"dsc", v.DSC, tc.dsc}, {"msd", v.MSD, tc.msd}, {"hd95", v.HD95, tc.hd95}, {"masd", v.MASD, tc.masd}, {"burden", v.Burden, tc.burden}} {
				if math.Abs(c.got-c.want) > 1e-9 {
					t.Errorf("%s = %.15g, want %.15g", c.name, c.got, c.want)
				}
			}
		})
	}
}

func TestPredictionMaskRules(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	tests := []struct {
		values []float64
		want   []bool // nil = invalid
	}{
		{[]float64{0, 1}, []bool{false, true}},
		{[]float64{0, 0}, []bool{false, false}},
		{[]float64{1, 1}, []bool{true, true}},
		{[]float64{0, 255}, []bool{false, true}},
		{[]float64{0, 2}, []bool{false, true}},
		{[]float64{0, 1, 2}, []bool{false, true, false}},
		{[]float64{1, 2}, []bool{true, false}},
		{[]float64{0, 1, 3}, nil},
		{[]float64{2, 2}, nil},
		{[]float64{0, 0.5, 1}, nil},
		{[]float64{0, -1}, []bool{false, false}},
		{[]float64{0, 1, 2, 3, 4}, []bool{false, true, false, false, false}},
		{[]float64{0, 3, 4, 5}, nil},
		// NaN is one value to numpy.unique (however many there are) and
		// never tumour (NaN == 1 and NaN > 0 are false); ±Inf are values.
		{[]float64{0, nan, nan, 0}, []bool{false, false, false, false}},
		{[]float64{nan, 0, nan}, []bool{false, false, false}},
		{[]float64{0, 1, nan}, nil},
		{[]float64{1, nan}, nil},
		{[]float64{nan, nan}, nil},
		{[]float64{0, 1, 2, nan, nan}, []bool{false, true, false, false, false}},
		{[]float64{1, 2, nan}, []bool{true, false, false}},
		{[]float64{0, inf}, []bool{false, true}},
		{[]float64{0, -inf}, []bool{false, false}},
		{[]float64{0, 1, inf}, nil},
	}
	for _, tc := range tests {
		got, err := PredictionMask(tc.values)
		if tc.want == nil {
			if err == nil {
				t.Errorf("values %v accepted, want invalid", tc.values)
			}
			continue
		}
		if err != nil {
			t.Errorf("values %v: %v", tc.values, err)
			continue
		}
		if fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("values %v → %v, want %v", tc.values, got, tc.want)
		}
	}
}

// The organisers' binary-mask rule (official mode).
func TestOfficialPredictionMaskRules(t *testing.T) {
	tests := []struct {
		values []float64
		want   []bool // nil = invalid
	}{
		{[]float64{0, 1}, []bool{false, true}},
		{[]float64{0, 0}, []bool{false, false}},
		{[]float64{1, 1}, []bool{true, true}},
		{[]float64{0, 255}, []bool{false, true}},
		{[]float64{0, -1}, []bool{false, false}}, // mask > 0
		{[]float64{0, 0.5}, []bool{false, true}},
		{[]float64{0, 1, 2}, nil},
		{[]float64{1, 2}, nil},
		{[]float64{2, 2}, nil},
	}
	for _, tc := range tests {
		got, err := OfficialPredictionMask(tc.values)
		if tc.want == nil {
			if err == nil {
				t.Errorf("values %v accepted, want invalid", tc.values)
			}
			continue
		}
		if err != nil || fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("values %v → %v (%v), want %v", tc.values, got, err, tc.want)
		}
	}
	// Ground truth: {0,1,2} keeps label 1; {0,255} is every non-zero voxel.
	v := volume.New(volume.NewGrid(4, 1, 1), volume.Uint8)
	v.Data = []float64{0, 1, 2, 1}
	if got := fmt.Sprint(OfficialTruth(v)); got != "[false true false true]" {
		t.Errorf("OfficialTruth {0,1,2} = %s", got)
	}
	v.Data = []float64{0, 255, 255, 0}
	if got := fmt.Sprint(OfficialTruth(v)); got != "[false true true false]" {
		t.Errorf("OfficialTruth {0,255} = %s", got)
	}
}

func TestSplitPinned(t *testing.T) {
	for _, tc := range []struct {
		n    int
		want []int
	}{
		{92, []int{40, 22, 55, 72, 0, 26, 39, 67, 10, 44, 83, 35, 89, 62, 12, 4, 18, 28, 49}},
		{50, []int{13, 39, 30, 45, 17, 48, 26, 25, 32, 19}},
	} {
		cases := make([]Case, tc.n)
		for i := range cases {
			cases[i] = Case{ImageID: fmt.Sprint(i)}
		}
		_, test := SplitCases(cases)
		if fmt.Sprint(test) != fmt.Sprint(func() []Case {
			var out []Case
			for _, w := range tc.want {
				out = append(out, cases[w])
			}
			return out
		}()) {
			t.Errorf("n=%d: test split %v, want positions %v", tc.n, test, tc.want)
		}
	}
}

// miniTask writes GT label files (MHA, numpy-shaped [z,y,x], true spacing
// given as MHA ElementSpacing x y z) and test_labels.csv.
func miniTask(t *testing.T, ids []string, shape [3]int, elemSpacing [3]float64, gts map[string][][3]int) string {
	t.Helper()
	priv := t.TempDir()
	var rows [][]string
	for _, id := range ids {
		writeMHA(t, filepath.Join(priv, "test", "labels", id+".mha"), shape, elemSpacing, 1, gts[id]...)
		rows = append(rows, []string{id, "test/images/" + id + "_0000.mha", "test/labels/" + id + ".mha"})
	}
	if err := challenge.WriteCSV(filepath.Join(priv, "test_labels.csv"), []string{"image_id", "image_path", "label_path"}, rows); err != nil {
		t.Fatal(err)
	}
	return priv
}

func writeMHA(t testing.TB, path string, shape [3]int, elemSpacing [3]float64, value float64, vox ...[3]int) {
	t.Helper()
	g := volume.NewGrid(shape[2], shape[1], shape[0])
	g.Spacing = elemSpacing
	v := volume.New(g, volume.Uint8)
	for _, x := range vox {
		v.Data[g.Index(x[2], x[1], x[0])] = value
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := metaimage.WriteFile(path, v, volume.Uint8, true); err != nil {
		t.Fatal(err)
	}
}

func writeSub(t *testing.T, rows [][]string) string {
	t.Helper()
	sub := t.TempDir()
	if err := challenge.WriteCSV(filepath.Join(sub, "submission.csv"), []string{"image_id", "predicted_mask_path"}, rows); err != nil {
		t.Fatal(err)
	}
	return sub
}

var testChallenge = Challenge{Task: Task{ID: "panther-test", IDFields: 1}}

// TestQuirkPredictionSpacing is vector P4 through files: ElementSpacing
// "0.5 2.0 1.0" on an empty prediction gives √166.25 in the reference
// (spacing (sz, sx, sy) from the prediction) and √125 with the official
// pairing from the GT's (sx, sy, sz)… which here is (0.5, 2, 1) against
// (z, y, x): √((4·0.5)² + (5·2)² + (6·1)²) = √140.
func TestQuirkPredictionSpacing(t *testing.T) {
	p3 := [][3]int{{1, 1, 1}, {1, 1, 2}, {2, 2, 2}}
	es := [3]float64{0.5, 2.0, 1.0}
	priv := miniTask(t, []string{"10303"}, [3]int{4, 5, 6}, es, map[string][][3]int{"10303": p3})
	sub := writeSub(t, [][]string{{"10303.0", "p/a.mha"}})
	writeMHA(t, filepath.Join(sub, "p/a.mha"), [3]int{4, 5, 6}, es, 1)
	ref, err := testChallenge.Grade(context.Background(), sub, priv, challenge.Reference)
	if err != nil {
		t.Fatal(err)
	}
	if got := ref.Values[MetricHD95]; math.Abs(got-math.Sqrt(166.25)) > 1e-12 {
		t.Errorf("reference hd95 %v, want √166.25", got)
	}
	if got := ref.Values[MetricRMSE]; math.Abs(got-3) > 1e-12 {
		t.Errorf("reference rmse %v, want 3", got)
	}
	off, err := testChallenge.Grade(context.Background(), sub, priv, challenge.Official)
	if err != nil {
		t.Fatal(err)
	}
	if got := off.Values[MetricHD95]; math.Abs(got-math.Sqrt(140)) > 1e-12 {
		t.Errorf("official hd95 %v, want √140", got)
	}
}

func TestQuirkLabelOneAndResize(t *testing.T) {
	priv := t.TempDir()
	// GT with tumour (1) and pancreas (2).
	writeMHA(t, filepath.Join(priv, "test", "labels", "a.mha"), [3]int{6, 6, 6}, [3]float64{1, 1, 1}, 1, [3]int{2, 2, 2})
	g := volume.NewGrid(6, 6, 6)
	lab, err := metaimage.ReadFile(filepath.Join(priv, "test", "labels", "a.mha"))
	if err != nil {
		t.Fatal(err)
	}
	lab.Data[g.Index(2, 2, 3)] = 2
	if err := metaimage.WriteFile(filepath.Join(priv, "test", "labels", "a.mha"), lab, volume.Uint8, true); err != nil {
		t.Fatal(err)
	}
	if err := challenge.WriteCSV(filepath.Join(priv, "test_labels.csv"), []string{"image_id", "image_path", "label_path"}, [][]string{{"a", "", "test/labels/a.mha"}}); err != nil {
		t.Fatal(err)
	}
	// Prediction = the tumour voxel only: perfect in both modes — the
	// reference keeps GT == 1, official mode follows PANTHER's convention
	// (1 tumour, 2 pancreas; issue 19), not "every non-zero label", which
	// would give 2/3.
	sub := writeSub(t, [][]string{{"a", "p.mha"}})
	writeMHA(t, filepath.Join(sub, "p.mha"), [3]int{6, 6, 6}, [3]float64{1, 1, 1}, 1, [3]int{2, 2, 2})
	ref, err := testChallenge.Grade(context.Background(), sub, priv, challenge.Reference)
	if err != nil {
		t.Fatal(err)
	}
	off, err := testChallenge.Grade(context.Background(), sub, priv, challenge.Official)
	if err != nil {
		t.Fatal(err)
	}
	if ref.Values[MetricDSC] != 1 || off.Values[MetricDSC] != 1 {
		t.Errorf("dsc reference %v official %v, want 1 and 1", ref.Values[MetricDSC], off.Values[MetricDSC])
	}
	// A prediction carrying tumour and pancreas ({0, 1, 2}): label 1 scored
	// in the reference, refused officially (not binary; issue 15.5).
	sub3 := writeSub(t, [][]string{{"a", "p.mha"}})
	writeMHA(t, filepath.Join(sub3, "p.mha"), [3]int{6, 6, 6}, [3]float64{1, 1, 1}, 1, [3]int{2, 2, 2})
	p3, err := metaimage.ReadFile(filepath.Join(sub3, "p.mha"))
	if err != nil {
		t.Fatal(err)
	}
	p3.Data[g.Index(2, 2, 3)] = 2
	if err := metaimage.WriteFile(filepath.Join(sub3, "p.mha"), p3, volume.Uint8, true); err != nil {
		t.Fatal(err)
	}
	if r3, err := testChallenge.Grade(context.Background(), sub3, priv, challenge.Reference); err != nil || r3.Values[MetricDSC] != 1 {
		t.Errorf("reference {0,1,2} prediction: %v, dsc %v, want 1", err, r3)
	}
	if _, err := testChallenge.Grade(context.Background(), sub3, priv, challenge.Official); !challenge.IsInvalid(err) {
		t.Errorf("official accepted a {0,1,2} mask: %v", err)
	}
	// A 3×3×3 prediction is zoomed in the reference and rejected officially.
	sub2 := writeSub(t, [][]string{{"a", "p.mha"}})
	writeMHA(t, filepath.Join(sub2, "p.mha"), [3]int{3, 3, 3}, [3]float64{1, 1, 1}, 1, [3]int{1, 1, 1})
	r2, err := testChallenge.Grade(context.Background(), sub2, priv, challenge.Reference)
	if err != nil {
		t.Fatal(err)
	}
	if len(r2.Notes) != 1 {
		t.Errorf("resize note missing: %q", r2.Notes)
	}
	if _, err := testChallenge.Grade(context.Background(), sub2, priv, challenge.Official); !challenge.IsInvalid(err) {
		t.Errorf("official accepted a wrong-shaped mask: %v", err)
	}
}

func TestAggregationRMSE(t *testing.T) {
	// Cases P1 and P3 (unit spacing for P1, (2,1,1) for P3 via ElementSpacing "1 1 2").
	priv := t.TempDir()
	writeMHA(t, filepath.Join(priv, "l", "a.mha"), [3]int{4, 4, 4}, [3]float64{1, 1, 1}, 1, npBlock([3]int{1, 1, 1}, [3]int{3, 3, 3})...)
	writeMHA(t, filepath.Join(priv, "l", "b.mha"), [3]int{4, 5, 6}, [3]float64{1, 1, 2}, 1, [3]int{1, 1, 1}, [3]int{1, 1, 2}, [3]int{2, 2, 2})
	if err := challenge.WriteCSV(filepath.Join(priv, "test_labels.csv"), []string{"image_id", "image_path", "label_path"}, [][]string{{"a", "", "l/a.mha"}, {"b", "", "l/b.mha"}}); err != nil {
		t.Fatal(err)
	}
	sub := writeSub(t, [][]string{{"a", "a.mha"}, {"b", "b.mha"}})
	writeMHA(t, filepath.Join(sub, "a.mha"), [3]int{4, 4, 4}, [3]float64{1, 1, 1}, 1, npBlock([3]int{1, 1, 1}, [3]int{3, 3, 3})...)
	writeMHA(t, filepath.Join(sub, "b.mha"), [3]int{4, 5, 6}, [3]float64{1, 1, 2}, 1)
	r, err := testChallenge.Grade(context.Background(), sub, priv, challenge.Reference)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{MetricDSC: 0.5, MetricMSD: 0.5, MetricHD95: 5.590169943749474, MetricMASD: 5.590169943749474, MetricRMSE: 4.242640687119285}
	for k, w := range want {
		if math.Abs(r.Values[k]-w) > 1e-12 {
			t.Errorf("%s = %.15g, want %.15g", k, r.Values[k], w)
		}
	}
}

// TestMeansAreNumpyMeans: each metric is np.mean of the case values (and
// RMSE the root of np.mean of the squared burdens) — numpy's pairwise sum,
// which from eight values on differs from a running sum in the last bits.
// The cases are built so that it does here.
func TestMeansAreNumpyMeans(t *testing.T) {
	priv, sub := t.TempDir(), t.TempDir()
	var labels, rows [][]string
	for k := 0; k < 27; k++ {
		id := fmt.Sprintf("c%02d", k)
		shape := [3]int{6, 6, 6}
		gt := npBlock([3]int{1, 1, 1}, [3]int{2 + k%4, 3 + k%2, 3 + k%5})
		pred := npBlock([3]int{1, 1 + k%2, 1 + k%3}, [3]int{2 + (k*7)%4, 2 + k%3, 4 + k%2})
		spacing := [3]float64{0.7 + 0.01*float64(k), 1.1, 1.3}
		writeMHA(t, filepath.Join(priv, "l", id+".mha"), shape, spacing, 1, gt...)
		writeMHA(t, filepath.Join(sub, id+".mha"), shape, spacing, 1, pred...)
		labels = append(labels, []string{id, "", "l/" + id + ".mha"})
		rows = append(rows, []string{id, id + ".mha"})
	}
	if err := challenge.WriteCSV(filepath.Join(priv, "test_labels.csv"), []string{"image_id", "image_path", "label_path"}, labels); err != nil {
		t.Fatal(err)
	}
	if err := challenge.WriteCSV(filepath.Join(sub, "submission.csv"), []string{"image_id", "predicted_mask_path"}, rows); err != nil {
		t.Fatal(err)
	}
	r, err := testChallenge.Grade(context.Background(), sub, priv, challenge.Reference)
	if err != nil {
		t.Fatal(err)
	}
	differs := false
	check := func(metric string, want, running float64) {
		if got := r.Values[metric]; math.Float64bits(got) != math.Float64bits(want) {
			t.Errorf("%s = %v, want numpy's %v", metric, got, want)
		}
		differs = differs || want != running
	}
	for _, m := range []string{MetricDSC, MetricMSD, MetricHD95, MetricMASD} {
		var vals []float64
		running := 0.0
		for _, c := range r.Cases {
			vals = append(vals, c.Values[m])
			running += c.Values[m]
		}
		check(m, num.Mean(vals), running/float64(len(vals)))
	}
	var sq []float64
	running := 0.0
	for _, c := range r.Cases {
		b := c.Values[CaseBurden]
		sq = append(sq, b*b)
		running += b * b
	}
	check(MetricRMSE, math.Sqrt(num.Mean(sq)), math.Sqrt(running/float64(len(sq))))
	if !differs {
		t.Fatal("no metric's running mean differs from numpy's here: the test cannot tell them apart")
	}
}
