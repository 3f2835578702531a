package cellseg

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rexmle/rexmle/metrics/imageio/tiff"
	"github.com/rexmle/rexmle/metrics/volume"
	"github.com/rexmle/rexmle/pipeline/challenge"
	"github.com/rexmle/rexmle/pipeline/challenge/challengetest"
)

func TestConformance(t *testing.T) {
	p := challengetest.Conformance(t, Challenge{})
	perfect := p.Submit(t, "perfect", func(ctx context.Context, o string) error { return Challenge{}.Perfect(ctx, p.Public(), p.Private(), o) })
	for _, m := range []challenge.Mode{challenge.Reference, challenge.Official} {
		res := p.Grade(t, perfect, m)
		for _, n := range MetricNames {
			// Synthetic truths always have interior cells, so perfect is 1.
			if res.Values[n] != 1 {
				t.Errorf("%s: perfect %s = %v, want 1", m, n, res.Values[n])
			}
		}
	}
}

// rect is (label, row0, row1, col0, col1), inclusive.
type rect [5]int

func mask(h, w int, rs ...rect) *volume.Volume {
	v := volume.New(volume.NewGrid(w, h), volume.Uint16)
	for _, r := range rs {
		for y := r[1]; y <= r[2]; y++ {
			for x := r[3]; x <= r[4]; x++ {
				v.Data[y*w+x] = float64(r[0])
			}
		}
	}
	return v
}

// fixture writes truths and predictions (uint16 TIFF unless the volume's
// DType says otherwise) and returns (submission, private) folders.
func fixture(t testing.TB, truths, preds []*volume.Volume) (string, string) {
	t.Helper()
	root := t.TempDir()
	sub, priv := filepath.Join(root, "sub"), filepath.Join(root, "priv")
	for _, d := range []string{filepath.Join(sub, "predictions"), filepath.Join(priv, "test", "labels")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	var ans, rows [][]string
	for i := range truths {
		id := fmt.Sprintf("cell_%05d", i+1)
		if err := tiff.WriteFile(filepath.Join(priv, "test", "labels", id+"_label.tiff"), truths[i], volume.Uint16); err != nil {
			t.Fatal(err)
		}
		dt := preds[i].DType
		if err := tiff.WriteFile(filepath.Join(sub, "predictions", id+"_label.tiff"), preds[i], dt); err != nil {
			t.Fatal(err)
		}
		ans = append(ans, []string{id, "test/images/" + id + ".png", "test/labels/" + id + "_label.tiff"})
		rows = append(rows, []string{id, "predictions/" + id + "_label.tiff"})
	}
	if err := challenge.WriteCSV(filepath.Join(priv, "test_labels.csv"), []string{"image_id", "image_path", "label_path"}, ans); err != nil {
		t.Fatal(err)
	}
	if err := challenge.WriteCSV(filepath.Join(sub, submissionFile), []string{"image_id", "predicted_mask_path"}, rows); err != nil {
		t.Fatal(err)
	}
	return sub, priv
}

func TestSpecVectors(t *testing.T) {
	neg := mask(10, 10, rect{1, 3, 6, 3, 6})
	neg.DType = volume.Int32
	neg.Data[55] = -4
	// numpy's astype(np.int32) of float labels: NaN and values outside the
	// int32 range become −2^31, a negative label (invalid), unless a resize
	// first casts it to uint16 (0, background).
	withAt := func(v *volume.Volume, dt volume.DType, i int, x float64) *volume.Volume {
		v.DType = dt
		v.Data[i] = x
		return v
	}
	cases := []struct {
		name          string
		truths, preds []*volume.Volume
		want          []float64 // nil = invalid
	}{
		{"L NaN label", []*volume.Volume{mask(10, 10, rect{1, 3, 6, 3, 6})}, []*volume.Volume{withAt(mask(10, 10, rect{1, 3, 6, 3, 6}), volume.Float32, 55, math.NaN())}, nil},
		{"M 2^32+3 float label", []*volume.Volume{mask(10, 10, rect{1, 3, 6, 3, 6})}, []*volume.Volume{withAt(mask(10, 10, rect{1, 3, 6, 3, 6}), volume.Float64, 55, 1<<32+3)}, nil},
		{"N NaN resized", []*volume.Volume{mask(10, 10, rect{1, 4, 7, 4, 7})}, []*volume.Volume{withAt(mask(5, 5, rect{3, 2, 3, 2, 3}), volume.Float32, 0, math.NaN())}, []float64{1, 1, 1, 1, 1}},
		{"A IoU 0.75", []*volume.Volume{mask(10, 10, rect{1, 3, 6, 3, 6})}, []*volume.Volume{mask(10, 10, rect{5, 3, 6, 3, 5})}, []float64{1, 1, 1, 0, 0}},
		{"B border cell", []*volume.Volume{mask(10, 10, rect{1, 0, 2, 0, 2})}, []*volume.Volume{mask(10, 10, rect{1, 0, 2, 0, 2})}, []float64{0, 0, 0, 0, 0}},
		{"C halves", []*volume.Volume{mask(10, 10, rect{1, 3, 6, 3, 6})}, []*volume.Volume{mask(10, 10, rect{7, 3, 6, 3, 4}, rect{300, 3, 6, 5, 6})}, []float64{2.0 / 3, 0, 0, 0, 0}},
		{"D two images", []*volume.Volume{mask(10, 10, rect{1, 3, 6, 3, 6}), mask(10, 10, rect{1, 3, 4, 3, 4}, rect{2, 5, 7, 5, 7})},
			[]*volume.Volume{mask(10, 10, rect{1, 3, 6, 3, 6}), mask(10, 10)}, []float64{0.5, 0.5, 0.5, 0.5, 0.5}},
		{"E 12x12", []*volume.Volume{mask(12, 12, rect{1, 2, 4, 2, 4}, rect{2, 2, 4, 6, 8}, rect{3, 6, 8, 2, 4})},
			[]*volume.Volume{mask(12, 12, rect{1, 2, 4, 2, 4}, rect{2, 2, 4, 6, 7})}, []float64{0.8, 0.8, 0.4, 0.4, 0.4}},
		{"F 5x5 resized", []*volume.Volume{mask(10, 10, rect{1, 4, 7, 4, 7})}, []*volume.Volume{mask(5, 5, rect{3, 2, 3, 2, 3})}, []float64{1, 1, 1, 1, 1}},
		{"G touches band", []*volume.Volume{mask(10, 10, rect{1, 3, 6, 3, 6})}, []*volume.Volume{mask(10, 10, rect{1, 1, 6, 3, 6})}, []float64{0, 0, 0, 0, 0}},
		{"K negative label", []*volume.Volume{mask(10, 10, rect{1, 3, 6, 3, 6})}, []*volume.Volume{neg}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			sub, priv := fixture(t, tc.truths, tc.preds)
			res, err := Challenge{}.Grade(context.Background(), sub, priv, challenge.Reference)
			if tc.want == nil {
				if !challenge.IsInvalid(err) {
					t.Fatalf("want invalid, got %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for k, n := range MetricNames {
				if math.Abs(res.Values[n]-tc.want[k]) > 1e-12 {
					t.Errorf("%s = %v, want %v", n, res.Values[n], tc.want[k])
				}
			}
		})
	}
}

// TestResizedMaskOfficial: a mask of another size than its image is
// resized and noted in reference mode, and makes the submission invalid in
// official mode, where the organisers' script compares same-sized masks.
func TestResizedMaskOfficial(t *testing.T) {
	sub, priv := fixture(t, []*volume.Volume{mask(10, 10, rect{1, 4, 7, 4, 7})}, []*volume.Volume{mask(5, 5, rect{3, 2, 3, 2, 3})})
	res, err := Challenge{}.Grade(context.Background(), sub, priv, challenge.Reference)
	if err != nil || res.Values["f1_0.5"] != 1 || len(res.Notes) == 0 {
		t.Errorf("reference: %v %v, want F1 1 and a resize note", res, err)
	}
	if _, err := (Challenge{}).Grade(context.Background(), sub, priv, challenge.Official); !challenge.IsInvalid(err) || !strings.Contains(err.Error(), "5×5") {
		t.Errorf("official: %v, want the 5×5 mask refused", err)
	}
}

// Cells touching the border are ignored on both sides: a prediction that
// misses every border cell but finds the interior one is perfect, and one
// that finds only the border cells scores 0.
func TestBorderCells(t *testing.T) {
	truth := mask(20, 20, rect{1, 0, 4, 5, 9}, rect{2, 15, 19, 15, 19}, rect{3, 8, 12, 8, 12}, rect{4, 8, 12, 0, 1})
	onlyInterior := mask(20, 20, rect{9, 8, 12, 8, 12})
	onlyBorder := mask(20, 20, rect{1, 0, 4, 5, 9}, rect{2, 15, 19, 15, 19}, rect{4, 8, 12, 0, 1})
	for _, tc := range []struct {
		name string
		pred *volume.Volume
		want float64
	}{{"interior only", onlyInterior, 1}, {"border only", onlyBorder, 0}, {"identical", truth, 1}} {
		sub, priv := fixture(t, []*volume.Volume{truth}, []*volume.Volume{tc.pred})
		res, err := Challenge{}.Grade(context.Background(), sub, priv, challenge.Reference)
		if err != nil {
			t.Fatal(err)
		}
		if res.Values["f1_0.9"] != tc.want {
			t.Errorf("%s: f1_0.9 = %v, want %v", tc.name, res.Values["f1_0.9"], tc.want)
		}
	}
}

// Official mode rounds each image's F1 to 4 decimals (2/3 → 0.6667).
func TestOfficialRounding(t *testing.T) {
	sub, priv := fixture(t, []*volume.Volume{mask(10, 10, rect{1, 3, 6, 3, 6})}, []*volume.Volume{mask(10, 10, rect{7, 3, 6, 3, 4}, rect{300, 3, 6, 5, 6})})
	ref, err := Challenge{}.Grade(context.Background(), sub, priv, challenge.Reference)
	if err != nil {
		t.Fatal(err)
	}
	off, err := Challenge{}.Grade(context.Background(), sub, priv, challenge.Official)
	if err != nil {
		t.Fatal(err)
	}
	if ref.Values["f1_0.5"] != 2.0/3 || off.Values["f1_0.5"] != 0.6667 {
		t.Errorf("reference %v (want 2/3), official %v (want 0.6667)", ref.Values["f1_0.5"], off.Values["f1_0.5"])
	}
}

func TestSplitPinned(t *testing.T) {
	// Stems per spec §3.2: training 00001..01000, tuning 00001..00101.
	var all []Pair
	for i := 1; i <= 1000; i++ {
		all = append(all, Pair{ImageID: fmt.Sprintf("cell_%05d", i), Image: "train"})
	}
	for i := 1; i <= 101; i++ {
		all = append(all, Pair{ImageID: fmt.Sprintf("cell_%05d", i), Image: "tuning"})
	}
	sortStable(all)
	_, test := Split(all)
	if len(test) != 221 {
		t.Fatalf("%d test rows, want 221", len(test))
	}
	want := []string{"00228", "00589", "00313", "00620", "00144", "00660", "00049", "00505", "00785", "00051", "00994", "00036", "00233", "00353", "00071", "00443", "00192", "00298", "00665", "00386"}
	for i, w := range want {
		if test[i].ImageID != "cell_"+w {
			t.Errorf("test[%d] = %s, want cell_%s", i, test[i].ImageID, w)
		}
	}
	if test[9].Image != "tuning" || test[14].Image != "tuning" || test[0].Image != "train" {
		t.Errorf("sources: %s %s %s, want tuning tuning train", test[9].Image, test[14].Image, test[0].Image)
	}
	distinct := map[string]bool{}
	for _, p := range test {
		distinct[p.ImageID] = true
	}
	if len(distinct) != 215 {
		t.Errorf("%d distinct test ids, want 215", len(distinct))
	}
}

func TestMalformed(t *testing.T) {
	c := Challenge{}
	p := challengetest.Prepare(t, c, 2)
	valid := p.Submit(t, "perfect", func(ctx context.Context, o string) error { return c.Perfect(ctx, p.Public(), p.Private(), o) })
	first := func(t testing.TB, dir string) string {
		tab, err := challenge.ReadCSV(filepath.Join(dir, submissionFile))
		if err != nil {
			t.Fatal(err)
		}
		return filepath.Join(dir, tab.Rows[0][1])
	}
	put := func(v *volume.Volume, dt volume.DType) func(t testing.TB, dir string) {
		return func(t testing.TB, dir string) {
			if err := tiff.WriteFile(first(t, dir), v, dt); err != nil {
				t.Fatal(err)
			}
		}
	}
	rgb := &volume.Volume{Grid: volume.NewGrid(8, 8), DType: volume.Uint8, Channels: 3, Data: make([]float64, 192)}
	pages := volume.New(volume.NewGrid(8, 8, 2), volume.Uint16)
	challengetest.CheckMalformed(t, p, valid, []challengetest.Malformed{
		challengetest.MissingCSV(),
		{Name: "missing-id", Want: "missing", Break: func(t testing.TB, dir string) {
			challengetest.EditCSV(t, filepath.Join(dir, submissionFile), func(h []string, r [][]string) ([]string, [][]string) {
				var keep [][]string
				for _, row := range r {
					if row[0] != r[0][0] {
						keep = append(keep, row)
					}
				}
				return h, keep
			})
		}},
		challengetest.RenameColumn("image_id"),
		challengetest.RenameColumn("predicted_mask_path"),
		challengetest.SetCell("extra-id", "image_id", "cell_99999", "not a test image"),
		challengetest.SetCell("missing-file", "predicted_mask_path", "predictions/none.tiff", "not found"),
		challengetest.SetCell("dotdot", "predicted_mask_path", "../../x.tiff", "leaves"),
		{Name: "rgb", Want: "channel", Break: put(rgb, volume.Uint8)},
		{Name: "multi-page", Want: "pages", Break: put(pages, volume.Uint16)},
		{Name: "truncated", Want: "cannot read", Break: func(t testing.TB, dir string) {
			b, _ := os.ReadFile(first(t, dir))
			if err := os.WriteFile(first(t, dir), b[:len(b)/2], 0o644); err != nil {
				t.Fatal(err)
			}
		}},
		{Name: "huge-header", Want: "cannot read", Break: func(t testing.TB, dir string) {
			if err := os.WriteFile(first(t, dir), hugeTIFF(), 0o644); err != nil {
				t.Fatal(err)
			}
		}},
		{Name: "symlink-out", Want: "link", Break: func(t testing.TB, dir string) {
			out := filepath.Join(t.TempDir(), "x.tiff")
			if err := os.WriteFile(out, []byte("x"), 0o644); err != nil {
				t.Fatal(err)
			}
			os.Remove(first(t, dir))
			if err := os.Symlink(out, first(t, dir)); err != nil {
				t.Fatal(err)
			}
		}},
	})
}

// hugeTIFF is a little-endian TIFF header whose single page claims
// 100000 × 100000 16-bit pixels but holds none.
func hugeTIFF() []byte {
	le := binary.LittleEndian
	b := []byte("II*\x00")
	b = le.AppendUint32(b, 8)
	entries := [][3]uint32{{256, 4, 100000}, {257, 4, 100000}, {258, 3, 16}, {259, 3, 1}, {262, 3, 1}, {273, 4, 200}, {277, 3, 1}, {278, 4, 100000}, {279, 4, 2000000000}}
	b = le.AppendUint16(b, uint16(len(entries)))
	for _, e := range entries {
		b = le.AppendUint16(b, uint16(e[0]))
		b = le.AppendUint16(b, uint16(e[1]))
		b = le.AppendUint32(b, 1)
		if e[1] == 3 {
			b = le.AppendUint16(b, uint16(e[2]))
			b = le.AppendUint16(b, 0)
		} else {
			b = le.AppendUint32(b, e[2])
		}
	}
	return le.AppendUint32(b, 0)
}

// TestInt32Of: numpy's astype(np.int32) on x86-64.
func TestInt32Of(t *testing.T) {
	for _, c := range []struct {
		x     float64
		float bool
		want  int32
	}{
		{7, false, 7}, {1<<32 + 5, false, 5}, {-1, false, -1}, {1 << 63, false, 0}, {1<<63 + 4096, false, 4096},
		{7.9, true, 7}, {-7.9, true, -7}, {math.NaN(), true, math.MinInt32}, {math.Inf(1), true, math.MinInt32},
		{math.Inf(-1), true, math.MinInt32}, {1 << 31, true, math.MinInt32}, {1<<31 - 1, true, math.MaxInt32}, {-(1 << 31), true, math.MinInt32},
		{1<<32 + 9, true, math.MinInt32},
	} {
		if got := int32Of(c.x, c.float); got != c.want {
			t.Errorf("int32Of(%v, float %v) = %d, want %d", c.x, c.float, got, c.want)
		}
	}
}

// TestPathlibSuffix: PurePath(name).suffix.
func TestPathlibSuffix(t *testing.T) {
	for name, want := range map[string]string{"a.tif": ".tif", ".tif": "", "a.": "", "a.b.TIFF": ".TIFF", "a": "", "..tif": ".tif"} {
		if got := pathlibSuffix(name); got != want {
			t.Errorf("pathlibSuffix(%q) = %q, want %q", name, got, want)
		}
	}
}

// tifffileTIFF is a 2×2 8-bit grey TIFF whose first page carries the
// ImageDescription desc, as tifffile writes its {"shape": …} metadata.
func tifffileTIFF(desc string) []byte {
	le := binary.LittleEndian
	d := append([]byte(desc), 0)
	const nTags = 10
	ifdOff := 8
	descOff := ifdOff + 2 + 12*nTags + 4
	pixOff := descOff + len(d)
	b := make([]byte, pixOff+4)
	copy(b, "II*\x00")
	le.PutUint32(b[4:], uint32(ifdOff))
	le.PutUint16(b[ifdOff:], nTags)
	tags := [nTags][4]uint32{
		{256, 3, 1, 2}, {257, 3, 1, 2}, {258, 3, 1, 8}, {259, 3, 1, 1}, {262, 3, 1, 1},
		{270, 2, uint32(len(d)), uint32(descOff)}, {273, 4, 1, uint32(pixOff)}, {277, 3, 1, 1}, {278, 3, 1, 2}, {279, 4, 1, 4},
	}
	for i, tg := range tags {
		e := b[ifdOff+2+12*i:]
		le.PutUint16(e, uint16(tg[0]))
		le.PutUint16(e[2:], uint16(tg[1]))
		le.PutUint32(e[4:], tg[2])
		if tg[1] == 3 {
			le.PutUint16(e[8:], uint16(tg[3]))
		} else {
			le.PutUint32(e[8:], tg[3])
		}
	}
	copy(b[descOff:], d)
	copy(b[pixOff:], []byte{0, 1, 1, 0})
	return b
}

// TestTifffileShapedMask: tifffile reads a mask saved as mask[None] back as
// (1, H, W), where the reference fails; a (H, W) description is a mask.
func TestTifffileShapedMask(t *testing.T) {
	dir := t.TempDir()
	for desc, ok := range map[string]bool{`{"shape": [2, 2]}`: true, `{"shape": [1, 2, 2]}`: false, `{"shape": [2, 2, 1]}`: false, "plain text": true} {
		p := filepath.Join(dir, "m.tif")
		if err := os.WriteFile(p, tifffileTIFF(desc), 0o644); err != nil {
			t.Fatal(err)
		}
		m, err := decodePrediction(p)
		if ok && (err != nil || m.W != 2 || m.H != 2 || m.Pix[1] != 1) {
			t.Errorf("%s: %v, %v; want the 2×2 mask", desc, m, err)
		}
		if !ok && (err == nil || !strings.Contains(err.Error(), "tifffile reads this file as an array of shape")) {
			t.Errorf("%s: %v, want the shape refused", desc, err)
		}
		// Under another name Pillow reads the first page: a 2-D image.
		q := filepath.Join(dir, "m.png")
		os.Rename(p, q)
		if _, err := decodePrediction(q); err != nil {
			t.Errorf("%s as m.png: %v", desc, err)
		}
	}
}
