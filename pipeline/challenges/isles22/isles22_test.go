package isles22

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/rexmle/rexmle/metrics/imageio/nifti"
	"github.com/rexmle/rexmle/metrics/num"
	"github.com/rexmle/rexmle/metrics/volume"
	"github.com/rexmle/rexmle/pipeline/challenge"
	"github.com/rexmle/rexmle/pipeline/challenge/challengetest"
)

func TestConformance(t *testing.T) {
	challengetest.Conformance(t, Challenge{})
}

// grid10 builds a 10×10×10 mask with the listed voxels set.
func mask10(vox ...[3]int) ([]bool, volume.Grid) {
	g := volume.NewGrid(10, 10, 10)
	m := make([]bool, g.Len())
	for _, v := range vox {
		m[g.Index(v[0], v[1], v[2])] = true
	}
	return m, g
}

func block(lo, hi [3]int) [][3]int {
	var out [][3]int
	for i := lo[0]; i < hi[0]; i++ {
		for j := lo[1]; j < hi[1]; j++ {
			for k := lo[2]; k < hi[2]; k++ {
				out = append(out, [3]int{i, j, k})
			}
		}
	}
	return out
}

func TestScoreVectors(t *testing.T) {
	unit := VoxelML(zooms(1, 1, 1))
	tests := []struct {
		name       string
		gt, pred   [][3]int
		vML        float64
		dice, f1   float64
		count, vol float64
	}{
		{"I1", [][3]int{{1, 1, 1}, {8, 8, 8}}, [][3]int{{1, 1, 1}, {5, 5, 5}}, unit, 0.5, 0.5, 0, 0},
		{"I2 corner-touching is one lesion", [][3]int{{0, 0, 0}, {1, 1, 1}}, [][3]int{{0, 0, 0}}, VoxelML(zooms(2, 1, 0.5)), 2.0 / 3, 1, 0, 0.001},
		{"I3 empty prediction", block([3]int{2, 2, 2}, [3]int{4, 4, 4}), nil, unit, 0, 0, 1, 0.008},
		{"I4 both empty", nil, nil, unit, 1, 1, 0, 0},
		{"I5 empty GT", nil, [][3]int{{0, 0, 0}, {5, 5, 5}, {9, 9, 9}}, unit, 0, 0, 3, 0.003},
		{"I6", block([3]int{2, 2, 2}, [3]int{6, 4, 4}), append(block([3]int{3, 2, 2}, [3]int{5, 4, 4}), [3]int{2, 2, 2}), VoxelML(zooms(1.2, 1.2, 1.2)), 0.72, 1, 0, 7 * (float64(float32(1.2)*float32(1.2)*float32(1.2)) / 1000)},
		{"I7 split prediction", [][3]int{{2, 2, 2}, {3, 2, 2}, {4, 2, 2}, {5, 2, 2}, {6, 2, 2}}, [][3]int{{2, 2, 2}, {6, 2, 2}}, unit, 4.0 / 7, 1, 1, 0.003},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g, gg := mask10(tc.gt...)
			p, _ := mask10(tc.pred...)
			s, err := Score(p, g, gg, tc.vML)
			if err != nil {
				t.Fatal(err)
			}
			want := CaseScores{tc.dice, tc.f1, tc.count, tc.vol}
			for _, c := range []struct {
				name      string
				got, want float64
			}{{"dice", s.Dice, want.Dice}, {"lesion_f1", s.LesionF1, want.LesionF1}, {"count", s.CountDiff, want.CountDiff}, {"volume", s.VolDiff, want.VolDiff}} {
				if math.Abs(c.got-c.want) > 1e-12 {
					t.Errorf("%s = %.12g, want %.12g", c.name, c.got, c.want)
				}
			}
		})
	}
}

func TestVoxelMLFloat32(t *testing.T) {
	v := VoxelML(zooms(1.2, 1.2, 1.2))
	// float32(1.2)^3 = 1.7280002 in float32, not 1.728.
	if v == 0.001728 || math.Abs(v-0.0017280001) > 1e-10 {
		t.Errorf("VoxelML(1.2,1.2,1.2) = %.12g, want the float32 product 1.7280002/1000", v)
	}
	if got := VoxelML(zooms(2, 1, 0.5)); got != 0.001 {
		t.Errorf("VoxelML(2,1,0.5) = %v, want 0.001", got)
	}
}

// zooms is a 3-D NIfTI-1 header with these voxel sizes.
func zooms(z ...float64) *nifti.Header {
	h := &nifti.Header{Version: 1, Dim: [8]int64{int64(len(z))}}
	for i, v := range z {
		h.Dim[i+1] = 4
		h.Pixdim[i+1] = v
	}
	return h
}

// TestVoxelMLAsNibabel: nibabel's header fixes (0 → 1, negative → absolute
// value), get_zooms' length (dim[0], at most three used) and NIfTI-2's
// float64 zooms.
func TestVoxelMLAsNibabel(t *testing.T) {
	nifti2 := zooms(1.2, 1.2, 1.2)
	nifti2.Version = 2
	flat := zooms(2, 3)
	flat.Pixdim[3] = 100 // unused: get_zooms()[:3] of a 2-D image has two values
	none := zooms()
	for _, c := range []struct {
		name string
		h    *nifti.Header
		want float64
	}{
		{"zero pixdim is 1", zooms(0, 2, 3), 0.006},
		{"negative pixdim is its absolute value", zooms(-1.5, 2, 1), 0.003},
		{"1-D", zooms(0.5), 0.0005},
		{"2-D", flat, 0.006},
		{"4-D uses three", zooms(2, 2, 2, 9), 0.008},
		{"dim[0] 0", none, 0.001},
		{"NIfTI-2 multiplies in float64", nifti2, 1.2 * 1.2 * 1.2 / 1000},
	} {
		if got := VoxelML(c.h); got != c.want {
			t.Errorf("%s: VoxelML = %.17g, want %.17g", c.name, got, c.want)
		}
	}
	if v := VoxelML(nifti2); v == VoxelML(zooms(1.2, 1.2, 1.2)) {
		t.Errorf("NIfTI-2 and NIfTI-1 products agree (%v); the check cannot tell them apart", v)
	}
	if v := VoxelML(zooms(math.NaN(), 1, 1)); !math.IsNaN(v) {
		t.Errorf("NaN pixdim: VoxelML = %v, want NaN (nibabel leaves it)", v)
	}
}

func TestSplitPinned(t *testing.T) {
	cases := make([]Case, 250)
	for i := range cases {
		cases[i] = Case{CaseID: fmt.Sprintf("sub-strokecase%04d_ses-0001", i+1)}
	}
	_, test := SplitCases(cases)
	want := []int{143, 7, 98, 61, 113, 182, 198, 185, 10, 105, 201, 217, 237, 241, 68, 225, 195, 16, 178, 25, 248, 20, 115, 69, 177, 46, 56, 11, 31, 121, 202, 34, 142, 220, 26, 112, 19, 197, 181, 160, 119, 97, 109, 186, 223, 17, 147, 70, 174, 39}
	if len(test) != len(want) {
		t.Fatalf("test size %d, want %d", len(test), len(want))
	}
	for i, w := range want {
		if id := fmt.Sprintf("sub-strokecase%04d", w); test[i].OutID() != id {
			t.Errorf("test[%d] = %s, want %s", i, test[i].OutID(), id)
		}
	}
}

func TestDiscoverBIDS(t *testing.T) {
	raw := t.TempDir()
	if err := Synthesize(context.Background(), raw, 3, challenge.SynthSize{}); err != nil {
		t.Fatal(err)
	}
	// Remove one modality: that case must be skipped.
	if err := os.Remove(filepath.Join(raw, "ISLES-2022", "sub-strokecase0002", "ses-0001", "anat", "sub-strokecase0002_ses-0001_FLAIR.nii.gz")); err != nil {
		t.Fatal(err)
	}
	dir, err := datasetDir(raw)
	if err != nil {
		t.Fatal(err)
	}
	cases, err := Discover(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) != synthCases-1 {
		t.Fatalf("discovered %d cases, want %d", len(cases), synthCases-1)
	}
	if cases[0].CaseID != "sub-strokecase0001_ses-0001" || cases[1].CaseID != "sub-strokecase0003_ses-0001" {
		t.Errorf("first cases %s, %s", cases[0].CaseID, cases[1].CaseID)
	}
	if filepath.Base(cases[0].DWI) != "sub-strokecase0001_ses-0001_dwi.nii.gz" || filepath.Base(filepath.Dir(cases[0].FLAIR)) != "anat" {
		t.Errorf("modalities located wrongly: %+v", cases[0])
	}
}

// writeMask writes a uint8 NIfTI mask of shape sh with the given voxels set.
func writeMask(t testing.TB, path string, sh [3]int, vox ...[3]int) {
	t.Helper()
	g := volume.NewGrid(sh[0], sh[1], sh[2])
	v := volume.New(g, volume.Uint8)
	for _, x := range vox {
		v.Data[g.Index(x[0], x[1], x[2])] = 1
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := nifti.WriteFile(path, v, volume.Uint8); err != nil {
		t.Fatal(err)
	}
}

// miniTask builds a private folder with GT masks and returns it.
func miniTask(t *testing.T, gts map[string][][3]int, sh [3]int) string {
	t.Helper()
	priv := t.TempDir()
	var rows [][]string
	for _, id := range challenge.SortedKeys(gts) {
		writeMask(t, filepath.Join(priv, "test", id+"_msk.nii.gz"), sh, gts[id]...)
		rows = append(rows, []string{id, "", "", "", "test/" + id + "_msk.nii.gz"})
	}
	if err := challenge.WriteCSV(filepath.Join(priv, "test_labels.csv"), []string{"case_id", "dwi_path", "adc_path", "flair_path", "mask_path"}, rows); err != nil {
		t.Fatal(err)
	}
	return priv
}

func writeSub(t *testing.T, rows [][]string) string {
	t.Helper()
	sub := t.TempDir()
	if err := challenge.WriteCSV(filepath.Join(sub, "submission.csv"), []string{"case_id", "predicted_mask_path"}, rows); err != nil {
		t.Fatal(err)
	}
	return sub
}

func TestAggregationAndDuplicates(t *testing.T) {
	sh := [3]int{6, 6, 6}
	priv := miniTask(t, map[string][][3]int{"a": {{1, 1, 1}}, "b": {{1, 1, 1}, {2, 1, 1}}, "c": {{4, 4, 4}}}, sh)
	sub := writeSub(t, [][]string{{"a", "p/a.nii.gz"}, {"b", "p/b.nii.gz"}, {"c", "p/c.nii.gz"}})
	writeMask(t, filepath.Join(sub, "p/a.nii.gz"), sh, [3]int{1, 1, 1})                  // dice 1
	writeMask(t, filepath.Join(sub, "p/b.nii.gz"), sh, [3]int{1, 1, 1}, [3]int{3, 3, 3}) // 2·1/(2+2) = 0.5
	writeMask(t, filepath.Join(sub, "p/c.nii.gz"), sh)                                   // dice 0
	res, err := Challenge{}.Grade(context.Background(), sub, priv, challenge.Reference)
	if err != nil {
		t.Fatal(err)
	}
	if res.Values[MetricDice] != 0.5 {
		t.Errorf("mean dice %v, want 0.5", res.Values[MetricDice])
	}
	// {a, a, b, c}: a duplicated row is valid and counts twice: (1+1+0.5+0)/4.
	sub2 := writeSub(t, [][]string{{"a", "p/a.nii.gz"}, {"a", "p/a.nii.gz"}, {"b", "p/b.nii.gz"}, {"c", "p/c.nii.gz"}})
	challengetest.CopyDir(t, filepath.Join(sub, "p"), filepath.Join(sub2, "p"))
	res, err = Challenge{}.Grade(context.Background(), sub2, priv, challenge.Reference)
	if err != nil {
		t.Fatalf("duplicated row rejected: %v", err)
	}
	if res.Values[MetricDice] != 0.625 || len(res.Cases) != 4 {
		t.Errorf("mean dice with a duplicated row %v over %d cases, want 0.625 over 4", res.Values[MetricDice], len(res.Cases))
	}
	// {a, b, c, d} and {a, b}: invalid.
	for _, rows := range [][][]string{
		{{"a", "p/a.nii.gz"}, {"b", "p/b.nii.gz"}, {"c", "p/c.nii.gz"}, {"d", "p/c.nii.gz"}},
		{{"a", "p/a.nii.gz"}, {"b", "p/b.nii.gz"}},
	} {
		s := writeSub(t, rows)
		challengetest.CopyDir(t, filepath.Join(sub, "p"), filepath.Join(s, "p"))
		if _, err := (Challenge{}).Grade(context.Background(), s, priv, challenge.Reference); !challenge.IsInvalid(err) {
			t.Errorf("ids %v: got %v, want an invalid submission", rows, err)
		}
	}
}

func TestQuirkResize(t *testing.T) {
	sh := [3]int{4, 4, 4}
	priv := miniTask(t, map[string][][3]int{"a": block([3]int{2, 2, 2}, [3]int{4, 4, 4})}, sh)
	sub := writeSub(t, [][]string{{"a", "p/a.nii.gz"}})
	// 2×2×2 prediction with (1,1,1) set → zoomed to the block [2:4]^3: perfect.
	writeMask(t, filepath.Join(sub, "p/a.nii.gz"), [3]int{2, 2, 2}, [3]int{1, 1, 1})
	res, err := Challenge{}.Grade(context.Background(), sub, priv, challenge.Reference)
	if err != nil {
		t.Fatal(err)
	}
	if res.Values[MetricDice] != 1 || len(res.Notes) != 1 {
		t.Errorf("reference: dice %v notes %q, want 1 and one resize note", res.Values[MetricDice], res.Notes)
	}
	_, err = Challenge{}.Grade(context.Background(), sub, priv, challenge.Official)
	if !challenge.IsInvalid(err) {
		t.Errorf("official: got %v, want the wrong shape rejected", err)
	}
}

// TestNonFiniteVoxelsAreLesion: NaN and ±Inf prediction voxels count as
// lesion, as numpy's astype(bool) makes them (the reference and the
// organisers' metric functions): the same scores as a 1 there.
func TestNonFiniteVoxelsAreLesion(t *testing.T) {
	sh := [3]int{6, 6, 6}
	priv := miniTask(t, map[string][][3]int{"a": {{1, 1, 1}, {2, 1, 1}}}, sh)
	write := func(path string, fill float64, dt volume.DType) {
		g := volume.NewGrid(sh[0], sh[1], sh[2])
		v := volume.New(g, dt)
		v.Data[g.Index(1, 1, 1)] = 1
		v.Data[g.Index(4, 4, 4)] = fill // a second lesion, outside the GT
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := nifti.WriteFile(path, v, dt); err != nil {
			t.Fatal(err)
		}
	}
	grade := func(fill float64, dt volume.DType, mode challenge.Mode) map[string]float64 {
		sub := writeSub(t, [][]string{{"a", "p/a.nii.gz"}})
		write(filepath.Join(sub, "p/a.nii.gz"), fill, dt)
		res, err := Challenge{}.Grade(context.Background(), sub, priv, mode)
		if err != nil {
			t.Fatalf("fill %v (%v, %v): %v", fill, dt, mode, err)
		}
		return res.Values
	}
	for _, mode := range []challenge.Mode{challenge.Reference, challenge.Official} {
		want := grade(1, volume.Uint8, mode)
		// Dice 2·1/(2+2), one extra lesion.
		if want[MetricDice] != 0.5 || want[MetricCountDiff] != 1 {
			t.Fatalf("%v: with a 1: %v, want dice 0.5 and count difference 1", mode, want)
		}
		for _, c := range []struct {
			fill float64
			dt   volume.DType
		}{{math.NaN(), volume.Float32}, {math.Inf(1), volume.Float64}, {math.Inf(-1), volume.Float32}} {
			got := grade(c.fill, c.dt, mode)
			for _, m := range []string{MetricDice, MetricLesionF1, MetricCountDiff, MetricVolDiff} {
				if got[m] != want[m] {
					t.Errorf("%v: %s with %v at (4,4,4) = %v, with 1 = %v", mode, m, c.fill, got[m], want[m])
				}
			}
		}
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
	rewrite := func(t testing.TB, path string, fn func(v *volume.Volume) (*volume.Volume, volume.DType)) {
		v, err := nifti.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		nv, dt := fn(v)
		if err := nifti.WriteFile(path, nv, dt); err != nil {
			t.Fatal(err)
		}
	}
	cases := []challengetest.Malformed{
		challengetest.MissingCSV(),
		challengetest.DropRow(),
		challengetest.RenameColumn("case_id"),
		challengetest.RenameColumn("predicted_mask_path"),
		challengetest.SetCell("extra-id", "case_id", "sub-strokecase9999", "unexpected"),
		challengetest.SetCell("dotdot-path", "predicted_mask_path", "../../private/test/x.nii.gz", "leaves"),
		challengetest.SetCell("absolute-path", "predicted_mask_path", "/etc/passwd", "absolute"),
		{Name: "not-nifti", Want: "NIfTI", Break: func(t testing.TB, dir string) {
			challengetest.CopyDir(t, filepath.Join(dir, "predictions"), filepath.Join(dir, "png"))
			challengetest.EditCSV(t, filepath.Join(dir, "submission.csv"), func(h []string, r [][]string) ([]string, [][]string) {
				os.Rename(filepath.Join(dir, r[0][1]), filepath.Join(dir, "x.png"))
				r[0][1] = "x.png"
				return h, r
			})
		}},
		{Name: "missing-prediction", Want: "not found", Break: func(t testing.TB, dir string) {
			if err := os.Remove(firstPred(t, dir)); err != nil {
				t.Fatal(err)
			}
		}},
		{Name: "two-d-image", Want: "dimensions", Break: func(t testing.TB, dir string) {
			rewrite(t, firstPred(t, dir), func(v *volume.Volume) (*volume.Volume, volume.DType) {
				g := volume.NewGrid(v.Shape[0], v.Shape[1])
				return volume.New(g, volume.Uint8), volume.Uint8
			})
		}},
		{Name: "truncated-gzip", Want: "truncated", Break: func(t testing.TB, dir string) {
			p := firstPred(t, dir)
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, b[:len(b)/2], 0o644); err != nil {
				t.Fatal(err)
			}
		}},
		{Name: "not-gzip", Want: "NIfTI", Break: func(t testing.TB, dir string) {
			if err := os.WriteFile(firstPred(t, dir), []byte("hello, not an image"), 0o644); err != nil {
				t.Fatal(err)
			}
		}},
		{Name: "huge-header", Want: "limit", Break: func(t testing.TB, dir string) {
			p := firstPred(t, dir)
			v, err := nifti.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			if err := nifti.Write(&buf, v, volume.Uint8, true); err != nil {
				t.Fatal(err)
			}
			// Claim 30000×30000×30000 voxels in an otherwise small file.
			raw := hugeHeader(t, v)
			if err := os.WriteFile(p, raw, 0o644); err != nil {
				t.Fatal(err)
			}
		}},
		{Name: "symlink-out", Want: "leaves", Break: func(t testing.TB, dir string) {
			p := firstPred(t, dir)
			outside := filepath.Join(t.TempDir(), "outside.nii.gz")
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

// hugeHeader returns a gzipped NIfTI whose header claims 30000^3 voxels.
func hugeHeader(t testing.TB, v *volume.Volume) []byte {
	var plain bytes.Buffer
	if err := nifti.Write(&plain, v, volume.Uint8, false); err != nil {
		t.Fatal(err)
	}
	b := plain.Bytes()
	for i := 1; i <= 3; i++ {
		binary.LittleEndian.PutUint16(b[40+2*i:], 30000)
	}
	var gz bytes.Buffer
	zw := newGzip(&gz)
	zw.Write(b)
	zw.Close()
	return gz.Bytes()
}

// TestPrepareFromZip leaves only ISLES-2022.zip in raw/ and checks Prepare
// extracts it.
func TestPrepareFromZip(t *testing.T) {
	synth := t.TempDir()
	if err := Synthesize(context.Background(), synth, 2, challenge.SynthSize{}); err != nil {
		t.Fatal(err)
	}
	raw := t.TempDir()
	if err := challengetest.ZipDir(synth, filepath.Join(raw, archiveName)); err != nil {
		t.Fatal(err)
	}
	data := t.TempDir()
	if err := (Challenge{}).Prepare(context.Background(), raw, data); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"public/sample_submission.csv", "public/description.md", "private/test_labels.csv"} {
		if _, err := os.Stat(filepath.Join(data, p)); err != nil {
			t.Error(err)
		}
	}
	train, _ := filepath.Glob(filepath.Join(data, "public", "train", "*_msk.nii.gz"))
	if len(train) != 12 {
		t.Errorf("%d training masks, want 12", len(train))
	}
}

// TestMeansArePandasMeans: each metric is pandas' Series.mean of the case
// values — numpy's pairwise sum, which from eight values on differs from a
// running sum in the last bits. The cases are built so that it does here.
func TestMeansArePandasMeans(t *testing.T) {
	sh := [3]int{24, 4, 4}
	gts := map[string][][3]int{}
	preds := map[string][][3]int{}
	var rows [][]string
	for k := 0; k < 21; k++ {
		id := fmt.Sprintf("c%02d", k)
		for x := 0; x <= k; x++ {
			gts[id] = append(gts[id], [3]int{x, 1, 1})
		}
		for x := 0; x < 1+k%4; x++ {
			preds[id] = append(preds[id], [3]int{x, 1, 1})
		}
		preds[id] = append(preds[id], [3]int{23 - k%3, 3, 3}) // a false lesion
		rows = append(rows, []string{id, "p/" + id + ".nii.gz"})
	}
	priv := miniTask(t, gts, sh)
	sub := writeSub(t, rows)
	for id, vox := range preds {
		writeMask(t, filepath.Join(sub, "p", id+".nii.gz"), sh, vox...)
	}
	res, err := Challenge{}.Grade(context.Background(), sub, priv, challenge.Reference)
	if err != nil {
		t.Fatal(err)
	}
	differs := false
	for _, m := range []string{MetricDice, MetricLesionF1, MetricCountDiff, MetricVolDiff} {
		var vals []float64
		running := 0.0
		for _, c := range res.Cases {
			vals = append(vals, c.Values[m])
			running += c.Values[m]
		}
		want := num.Mean(vals)
		if got := res.Values[m]; math.Float64bits(got) != math.Float64bits(want) {
			t.Errorf("%s = %v, want numpy's mean %v", m, got, want)
		}
		differs = differs || want != running/float64(len(vals))
	}
	if !differs {
		t.Fatal("no metric's running mean differs from numpy's here: the test cannot tell them apart")
	}
}

// TestNibabelName: nibabel keeps a lower- or upper-case ".nii" and looks
// for the lower-case name of a mixed-case one (checked with nibabel 5.0:
// t.NII.gz and t.nii.Gz load, t.Nii.Gz looks for t.nii.Gz).
func TestNibabelName(t *testing.T) {
	for in, want := range map[string]string{
		"p/a.nii": "p/a.nii", "p/A.NII": "p/A.NII", "p/a.Nii": "p/a.nii",
		"a.nii.gz": "a.nii.gz", "a.NII.gz": "a.NII.gz", "a.nii.GZ": "a.nii.GZ", "a.Nii.Gz": "a.nii.Gz",
	} {
		if got := nibabelName(in); got != want {
			t.Errorf("nibabelName(%q) = %q, want %q", in, got, want)
		}
	}
}
