package usenhance

import (
	"bytes"
	"context"
	"fmt"
	"image"
	stdpng "image/png"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/image/bmp"

	"github.com/rexmle/rexmle/metrics/imageio/png"
	"github.com/rexmle/rexmle/metrics/volume"
	"github.com/rexmle/rexmle/pipeline/challenge"
	"github.com/rexmle/rexmle/pipeline/challenge/challengetest"
)

func writeTestPNG(t testing.TB, path string, w, h int, f func(i, j int) float64) {
	t.Helper()
	v := volume.New(volume.NewGrid(w, h), volume.Uint8)
	for i := 0; i < h; i++ {
		for j := 0; j < w; j++ {
			v.Data[j+w*i] = f(i, j)
		}
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := png.WriteFile(path, v, 8); err != nil {
		t.Fatal(err)
	}
}

func TestConformance(t *testing.T) {
	p := challengetest.Conformance(t, Challenge{})
	perfect := p.Submit(t, "perfect", func(ctx context.Context, out string) error {
		return Challenge{}.Perfect(ctx, p.Public(), p.Private(), out)
	})
	res := p.Grade(t, perfect, challenge.Reference)
	if res.Values["lncc"] != 1 || res.Values["ssim"] != 1 || !math.IsInf(res.Values["psnr"], 1) {
		t.Errorf("perfect: %v, want 1, 1, +Inf", res.Values)
	}
	firstImage := func(dir string) string {
		tab, _ := challenge.ReadCSV(filepath.Join(dir, submissionFile))
		return filepath.Join(dir, tab.Rows[0][1])
	}
	challengetest.CheckMalformed(t, p, perfect, []challengetest.Malformed{
		challengetest.MissingCSV(),
		challengetest.DropRow(),
		challengetest.DuplicateRow(),
		{Name: "answers-column-name", Want: "clashes", Break: func(t testing.TB, dir string) {
			challengetest.EditCSV(t, filepath.Join(dir, submissionFile), func(h []string, r [][]string) ([]string, [][]string) {
				for i := range r {
					r[i] = append(r[i], "x.png")
				}
				return append(h, colGT), r
			})
		}},
		challengetest.RenameColumn(colID),
		challengetest.RenameColumn(colEnhanced),
		{Name: "missing-image", Want: "not found", Break: func(t testing.TB, dir string) { os.Remove(firstImage(dir)) }},
		{Name: "corrupt-png", Want: "cannot read", Break: func(t testing.TB, dir string) {
			b, _ := os.ReadFile(firstImage(dir))
			os.WriteFile(firstImage(dir), b[:len(b)/2], 0o644)
		}},
		{Name: "not-an-image", Want: "cannot read", Break: func(t testing.TB, dir string) {
			os.WriteFile(firstImage(dir), []byte("hello"), 0o644)
		}},
		challengetest.SetCell("empty-path", colEnhanced, "", "empty path"),
		{Name: "dotdot-path", Want: "leaves", Break: func(t testing.TB, dir string) {
			challengetest.EditCSV(t, filepath.Join(dir, submissionFile), func(h []string, r [][]string) ([]string, [][]string) {
				r[0][1] = "../../x.png"
				return h, r
			})
		}},
		{Name: "symlink-out", Want: "leaves", Break: func(t testing.TB, dir string) {
			outside := filepath.Join(t.TempDir(), "x.png")
			writeTestPNG(t, outside, 8, 8, func(i, j int) float64 { return 1 })
			os.Remove(firstImage(dir))
			if err := os.Symlink(outside, firstImage(dir)); err != nil {
				t.Skip(err)
			}
		}},
		{Name: "huge-header", Want: "cannot read", Break: func(t testing.TB, dir string) {
			// A PNG header claiming 100000×100000 pixels.
			b, _ := os.ReadFile(firstImage(dir))
			for _, off := range []int{16, 20} {
				b[off], b[off+1], b[off+2], b[off+3] = 0, 1, 0x86, 0xa0
			}
			os.WriteFile(firstImage(dir), b, 0o644)
		}},
	})
}

// gradeFixture writes answers and a submission of single images into temp
// folders and grades them.
func gradeFixture(t *testing.T, truth map[string]func(i, j int) float64, sub map[string]func(i, j int) float64, size int, order []string) (*challenge.Result, error) {
	t.Helper()
	priv, subDir := t.TempDir(), t.TempDir()
	var ans, rows [][]string
	for _, id := range order {
		if f, ok := truth[id]; ok {
			writeTestPNG(t, filepath.Join(priv, "test", highDir, id+".png"), size, size, f)
			ans = append(ans, []string{id, "test/high_quality/" + id + ".png"})
		}
	}
	for _, id := range order {
		if f, ok := sub[id]; ok {
			writeTestPNG(t, filepath.Join(subDir, "enhanced", id+".png"), size, size, f)
			rows = append(rows, []string{id, "enhanced/" + id + ".png"})
		}
	}
	challenge.WriteCSV(filepath.Join(priv, "test_labels.csv"), []string{colID, colGT}, ans)
	challenge.WriteCSV(filepath.Join(subDir, submissionFile), []string{colID, colEnhanced}, rows)
	return Challenge{}.Grade(context.Background(), subDir, priv, challenge.Reference)
}

// Spec §7 U1–U5 through the whole grader (PNG round trip included).
func TestSpecVectors(t *testing.T) {
	v := func(i, j int) float64 { return float64(8*i + j) }
	cases := []struct {
		name             string
		e, tr            func(i, j int) float64
		lncc, ssim, psnr float64
	}{
		{"U1", func(i, j int) float64 { return 100 }, func(i, j int) float64 { return 50 }, 1, 0.8000040054321289, 0},
		{"U2", func(i, j int) float64 { return 2*v(i, j) + 10 }, v, 1, 0.583051398396492, 9.524733435270003},
		{"U3", v, v, 1, 1, math.Inf(1)},
		{"U4", func(i, j int) float64 { return 63 - v(i, j) }, v, -1.0000003576278687, -0.9548730850219727, 4.635484475303885},
		{"U5", func(i, j int) float64 { return 0 }, func(i, j int) float64 {
			if i == 3 && j == 4 {
				return 255
			}
			return 0
		}, 0, 0.008177714422345161, 18.06179973983887},
	}
	for _, c := range cases {
		res, err := gradeFixture(t, map[string]func(i, j int) float64{"a": c.tr}, map[string]func(i, j int) float64{"a": c.e}, 8, []string{"a"})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		got := res.Values
		if got["lncc"] != c.lncc || math.Abs(got["ssim"]-c.ssim) > 1e-15 || !(got["psnr"] == c.psnr || math.Abs(got["psnr"]-c.psnr) < 1e-12) {
			t.Errorf("%s: lncc %.17g ssim %.17g psnr %.17g; want %.17g %.17g %.17g", c.name, got["lncc"], got["ssim"], got["psnr"], c.lncc, c.ssim, c.psnr)
		}
	}
	// Validity: {a, b, b} invalid; {a, b, c} valid (c ignored).
	f := func(i, j int) float64 { return float64(i * j) }
	truth := map[string]func(i, j int) float64{"a": f, "b": f}
	if _, err := gradeFixture(t, truth, map[string]func(i, j int) float64{"a": f, "b": f, "c": f}, 8, []string{"a", "b", "c"}); err != nil {
		t.Errorf("extra id: %v, want valid", err)
	}
}

func TestDuplicateAndFallbackPath(t *testing.T) {
	priv, sub := t.TempDir(), t.TempDir()
	f := func(i, j int) float64 { return float64(i*9 + j) }
	writeTestPNG(t, filepath.Join(priv, "test", highDir, "a.png"), 9, 9, f)
	challenge.WriteCSV(filepath.Join(priv, "test_labels.csv"), []string{colID, colGT}, [][]string{{"a", "test/high_quality/a.png"}})
	// The file sits at the folder root while the CSV says enhanced/a.png.
	writeTestPNG(t, filepath.Join(sub, "a.png"), 9, 9, f)
	challenge.WriteCSV(filepath.Join(sub, submissionFile), []string{colID, colEnhanced}, [][]string{{"a", "enhanced/a.png"}})
	res, err := Challenge{}.Grade(context.Background(), sub, priv, challenge.Official)
	if err != nil || res.Values["lncc"] != 1 {
		t.Fatalf("fallback path: %v %v", res, err)
	}
	challenge.WriteCSV(filepath.Join(sub, submissionFile), []string{colID, colEnhanced}, [][]string{{"a", "a.png"}, {"a", "a.png"}})
	if _, err := (Challenge{}).Grade(context.Background(), sub, priv, challenge.Reference); !challenge.IsInvalid(err) || !strings.Contains(err.Error(), "duplicate") {
		t.Errorf("duplicate id: %v, want invalid", err)
	}
	// Two test images, a listed twice and b missing: the reference's merge
	// has two pairs for two test images and scores a twice (the mean of a
	// perfect and a poor pair); official mode wants every image once.
	writeTestPNG(t, filepath.Join(priv, "test", highDir, "b.png"), 9, 9, f)
	challenge.WriteCSV(filepath.Join(priv, "test_labels.csv"), []string{colID, colGT}, [][]string{{"a", "test/high_quality/a.png"}, {"b", "test/high_quality/b.png"}})
	writeTestPNG(t, filepath.Join(sub, "poor.png"), 9, 9, func(i, j int) float64 { return float64((i*7 + j*3) % 11 * 20) })
	challenge.WriteCSV(filepath.Join(sub, submissionFile), []string{colID, colEnhanced}, [][]string{{"a", "a.png"}, {"a", "poor.png"}})
	res, err = Challenge{}.Grade(context.Background(), sub, priv, challenge.Reference)
	if err != nil {
		t.Fatalf("duplicate a making up for missing b: %v", err)
	}
	poor := scorePair(sub, priv, row{"a", "test/high_quality/a.png", "poor.png"})
	if poor.err != nil || len(res.Cases) != 2 || res.Values["ssim"] != (1+poor.ssim)/2 || len(res.Notes) == 0 {
		t.Errorf("duplicate a making up for missing b: %v (poor pair %v), want the mean of both pairs of a and a note", res, poor)
	}
	if _, err := (Challenge{}).Grade(context.Background(), sub, priv, challenge.Official); !challenge.IsInvalid(err) {
		t.Errorf("official, duplicate and missing: %v, want invalid", err)
	}
	challenge.WriteCSV(filepath.Join(priv, "test_labels.csv"), []string{colID, colGT}, [][]string{{"a", "test/high_quality/a.png"}})
	// A wrongly sized image is resized (and noted), not rejected.
	writeTestPNG(t, filepath.Join(sub, "a.png"), 18, 18, func(i, j int) float64 { return f(i/2, j/2) })
	challenge.WriteCSV(filepath.Join(sub, submissionFile), []string{colID, colEnhanced}, [][]string{{"a", "a.png"}})
	res, err = Challenge{}.Grade(context.Background(), sub, priv, challenge.Reference)
	if err != nil || len(res.Notes) == 0 {
		t.Errorf("resized: %v %v, want a note", res, err)
	}
}

// The reference split: sklearn train_test_split(ids, 0.2, 42) over 50 pairs
// in (organ, name) order picks positions [13, 39, 30, 45, 17, 48, 26, 25, 32, 19].
func TestSplitPinned(t *testing.T) {
	raw, data := t.TempDir(), t.TempDir()
	var ids []string
	for _, organ := range []string{"breast", "carotid", "kidney", "liver", "thyroid"} {
		for k := 0; k < 10; k++ {
			name := fmt.Sprintf("%02d.png", k)
			for _, q := range []string{lowDir, highDir} {
				writeTestPNG(t, filepath.Join(raw, rawTrainDir, organ, q, name), 8, 8, func(i, j int) float64 { return float64(k) })
			}
			ids = append(ids, fmt.Sprintf("%s_%02d", organ, k))
		}
	}
	if err := (Challenge{}).Prepare(context.Background(), raw, data); err != nil {
		t.Fatal(err)
	}
	tab, _ := challenge.ReadCSV(filepath.Join(data, "private", "test_labels.csv"))
	got, _ := tab.Column(colID)
	var want []string
	pos := []int{13, 39, 30, 45, 17, 48, 26, 25, 32, 19}
	slices.Sort(pos) // labels are written in enumeration order
	for _, p := range pos {
		want = append(want, ids[p])
	}
	if !slices.Equal(got, want) {
		t.Errorf("test ids %v, want %v", got, want)
	}
	if _, err := os.Stat(filepath.Join(data, "public", "train", lowDir, ids[0]+".png")); err != nil {
		t.Errorf("train image missing: %v", err)
	}
}

func BenchmarkGrade(b *testing.B) {
	p := challengetest.Prepare(b, Challenge{}, 1)
	dir := p.Submit(b, "sample", func(ctx context.Context, out string) error {
		return Challenge{}.SampleSubmission(ctx, p.Public(), out)
	})
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := (Challenge{}).Grade(context.Background(), dir, p.Private(), challenge.Reference); err != nil {
			b.Fatal(err)
		}
	}
}

func TestLoadGrayConversions(t *testing.T) {
	dir := t.TempDir()
	// RGB → Pillow L: (19595·R + 38470·G + 7471·B + 32768) >> 16.
	v := volume.New(volume.NewGrid(2, 1), volume.Uint8)
	v.Channels = 3
	v.Data = []float64{255, 0, 0, 10, 200, 30}
	p := filepath.Join(dir, "rgb.png")
	if err := png.WriteFile(p, v, 8); err != nil {
		t.Fatal(err)
	}
	im, err := loadGray(p)
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{float64((19595*255 + 32768) >> 16), float64((19595*10 + 38470*200 + 7471*30 + 32768) >> 16)}
	if im.Pix[0] != want[0] || im.Pix[1] != want[1] {
		t.Errorf("RGB → L = %v, want %v (76, 122)", im.Pix, want)
	}
	// 16-bit grey: values above 255 clip to 255.
	g := volume.New(volume.NewGrid(2, 1), volume.Uint16)
	g.Data = []float64{100, 4000}
	p = filepath.Join(dir, "g16.png")
	if err := png.WriteFile(p, g, 16); err != nil {
		t.Fatal(err)
	}
	if im, err := loadGray(p); err != nil || im.Pix[0] != 100 || im.Pix[1] != 255 {
		t.Errorf("16-bit → L = %v %v, want [100 255]", im.Pix, err)
	}
}

// TestFormatsByContent: an enhanced image stored as BMP or PGM under a .png
// name, or as PNG under a .tif name, is read by content (as Pillow does),
// and a grey PNG Pillow refuses (a bad ancillary CRC) as the reference's
// OpenCV fallback reads it: each scores exactly as the same pixels in a PNG.
func TestFormatsByContent(t *testing.T) {
	f := func(i, j int) float64 { return float64((i*7 + j*13) % 200) }
	g := func(i, j int) float64 { return float64((i*5 + j*11) % 180) }
	const n = 24
	want, err := gradeFixture(t, map[string]func(i, j int) float64{"a": g}, map[string]func(i, j int) float64{"a": f}, n, []string{"a"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, ext string }{{"bmp", ".png"}, {"png", ".tif"}, {"pgm", ".png"}, {"png-bad-ancillary-crc", ".png"}} {
		priv, sub := t.TempDir(), t.TempDir()
		writeTestPNG(t, filepath.Join(priv, "test", highDir, "a.png"), n, n, g)
		gray := image.NewGray(image.Rect(0, 0, n, n))
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				gray.Pix[i*n+j] = uint8(f(i, j))
			}
		}
		var buf bytes.Buffer
		var err error
		switch tc.name {
		case "bmp":
			err = bmp.Encode(&buf, gray)
		case "pgm": // Pillow's PPM plugin reads it
			fmt.Fprintf(&buf, "P5\n%d %d\n255\n", n, n)
			buf.Write(gray.Pix)
		default:
			err = stdpng.Encode(&buf, gray)
		}
		if err != nil {
			t.Fatal(err)
		}
		if tc.name == "png-bad-ancillary-crc" {
			// A tEXt chunk with a wrong CRC after IHDR: Pillow refuses the
			// file, the reference's cv2.imread fallback reads it.
			b := buf.Bytes()
			text := []byte("\x00\x00\x00\x03tEXtk\x00v\x00\x00\x00\x00")
			buf = *bytes.NewBuffer(append(append(append([]byte(nil), b[:33]...), text...), b[33:]...))
		}
		if err := os.MkdirAll(filepath.Join(sub, "enhanced"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(sub, "enhanced", "a"+tc.ext), buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		challenge.WriteCSV(filepath.Join(priv, "test_labels.csv"), []string{colID, colGT}, [][]string{{"a", "test/high_quality/a.png"}})
		challenge.WriteCSV(filepath.Join(sub, submissionFile), []string{colID, colEnhanced}, [][]string{{"a", "enhanced/a" + tc.ext}})
		got, err := Challenge{}.Grade(context.Background(), sub, priv, challenge.Reference)
		if err != nil {
			t.Fatalf("%s as %s: %v", tc.name, tc.ext, err)
		}
		for _, k := range []string{"lncc", "ssim", "psnr"} {
			if got.Values[k] != want.Values[k] {
				t.Errorf("%s as %s: %s = %v, PNG %v", tc.name, tc.ext, k, got.Values[k], want.Values[k])
			}
		}
	}
}

// findPython returns a python3 (the system one first) that imports the
// listed modules, or skips the test (also in -short mode).
func findPython(t *testing.T, modules string) string {
	t.Helper()
	if testing.Short() {
		t.Skip("short mode")
	}
	for _, p := range []string{"/usr/bin/python3", "python3"} {
		if exec.Command(p, "-c", "import "+modules).Run() == nil {
			return p
		}
	}
	t.Skipf("no python3 with %s", modules)
	return ""
}
