package imageio

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rexmle/rexmle/metrics/imageio/internal/imagetest"
	"github.com/rexmle/rexmle/metrics/imageio/tiff"
)

// TestTIFFOrientationHand reads a 3×2 grey TIFF ([1 2 3; 4 5 6]) under each
// Orientation value as Pillow ≥ 10 loads it: transposed on load, the
// expected rows written out by hand from Pillow's transpose names.
func TestTIFFOrientationHand(t *testing.T) {
	want := map[uint32][][]float64{
		1: {{1, 2, 3}, {4, 5, 6}},
		2: {{3, 2, 1}, {6, 5, 4}},   // FLIP_LEFT_RIGHT
		3: {{6, 5, 4}, {3, 2, 1}},   // ROTATE_180
		4: {{4, 5, 6}, {1, 2, 3}},   // FLIP_TOP_BOTTOM
		5: {{1, 4}, {2, 5}, {3, 6}}, // TRANSPOSE
		6: {{4, 1}, {5, 2}, {6, 3}}, // ROTATE_270 (clockwise)
		7: {{6, 3}, {5, 2}, {4, 1}}, // TRANSVERSE
		8: {{3, 6}, {2, 5}, {1, 4}}, // ROTATE_90 (counter-clockwise)
		9: {{1, 2, 3}, {4, 5, 6}},   // out of range: ignored
		0: {{1, 2, 3}, {4, 5, 6}},   // out of range: ignored
	}
	dir := t.TempDir()
	for o, rows := range want {
		b := rawTIFF(false, 3, 2, map[uint16][]uint32{tiff.TagBitsPerSample: {8}, tiff.TagPhotometric: {1}, tiff.TagOrientation: {o}}, []byte{1, 2, 3, 4, 5, 6})
		p := filepath.Join(dir, fmt.Sprintf("o%d.tif", o))
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		var flat []float64
		for _, r := range rows {
			flat = append(flat, r...)
		}
		v, _, err := ReadPictureFile(p)
		if err != nil {
			t.Fatalf("orientation %d: %v", o, err)
		}
		if v.Shape[0] != len(rows[0]) || v.Shape[1] != len(rows) || !slices.Equal(v.Data, flat) {
			t.Errorf("orientation %d: %v %v, want %d×%d %v", o, v.Shape, v.Data, len(rows[0]), len(rows), flat)
		}
		// The 8-bit path hands such a page to decodeTIFF: same result.
		p8, v8, _, err := ReadPicture8File(p, nil)
		if err != nil || p8 != nil && o >= 2 && o <= 8 {
			t.Errorf("orientation %d: ReadPicture8File %v, %v (want the transposed volume)", o, p8, err)
		} else if v8 != nil && !slices.Equal(v8.Data, flat) {
			t.Errorf("orientation %d: ReadPicture8File %v, want %v", o, v8.Data, flat)
		}
		// tifffile semantics ignore the tag.
		if tv, err := tiff.ReadFile(p); err != nil || !slices.Equal(tv.Data, []float64{1, 2, 3, 4, 5, 6}) {
			t.Errorf("orientation %d: ReadTIFFFile %v %v, want the stored order", o, tv, err)
		}
	}
	// Two values (a tuple to Pillow) match no transpose.
	b := rawTIFF(false, 3, 2, map[uint16][]uint32{tiff.TagBitsPerSample: {8}, tiff.TagPhotometric: {1}, tiff.TagOrientation: {6, 6}}, []byte{1, 2, 3, 4, 5, 6})
	if v, err := tiff.ReadPillow(strings.NewReader(string(b))); err != nil || !slices.Equal(v.Data, []float64{1, 2, 3, 4, 5, 6}) {
		t.Errorf("orientation (6, 6): %v %v, want the stored order", v, err)
	}
}

// TestPillowTIFFOrientation writes random 8-bit TIFFs (strips and tiles,
// every compression the decoder reads, 1–4 samples, both byte orders) under
// each Orientation 1–8 and compares ReadPictureFile and ReadPicture8File
// with numpy.array(Image.open(f)). Pillow 9 transposes the samples too but
// keeps the stored width and height in the array's shape for 5–8; there
// only the samples in order are compared.
func TestPillowTIFFOrientation(t *testing.T) {
	py := imagetest.PillowPython(t)
	ver, err := exec.Command(py, "-c", "import PIL; print(PIL.__version__)").Output()
	if err != nil {
		t.Fatal(err)
	}
	major, _ := strconv.Atoi(strings.Split(strings.TrimSpace(string(ver)), ".")[0])
	dir := t.TempDir()
	if d := os.Getenv("FID_KEEP"); d != "" {
		dir = d
	}
	r := rand.New(rand.NewPCG(35, 274))
	var paths []string
	orient := map[string]uint32{}
	for i := 0; i < 160; i++ {
		o := uint32(1 + i%8)
		b, _, _, _, _ := imagetest.RandomTIFF8Tags(t, r, map[uint16]imagetest.TiffEntry{tiff.TagOrientation: imagetest.Short(o)})
		p := filepath.Join(dir, fmt.Sprintf("%03d_o%d.tif", i, o))
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, _, err := ReadPictureFile(p); err != nil {
			continue // a layout Pillow cannot open (TestPillowTIFFLayouts covers those)
		}
		paths = append(paths, p)
		orient[p] = o
	}
	if len(paths) < 100 {
		t.Fatalf("only %d of 160 files readable", len(paths))
	}
	res := imagetest.RunPillow(t, py, append([]string{"read"}, paths...)...)
	if len(res) != len(paths) {
		t.Fatalf("Pillow read %d of %d files", len(res), len(paths))
	}
	for _, c := range res {
		o := orient[c.Path]
		v, _, err := ReadPictureFile(c.Path)
		if err != nil {
			t.Errorf("%s: %v", filepath.Base(c.Path), err)
			continue
		}
		p8, v8, _, err := ReadPicture8File(c.Path, nil)
		if err != nil {
			t.Errorf("%s: ReadPicture8File: %v", filepath.Base(c.Path), err)
			continue
		}
		got8, shape8 := []float64(nil), [3]int{}
		if p8 != nil {
			for _, b := range p8.Pix {
				got8 = append(got8, float64(b))
			}
			shape8 = [3]int{p8.W, p8.H, 1}
		} else {
			got8, shape8 = v8.Data, v8.Shape
		}
		for name, got := range map[string][]float64{"ReadPictureFile": v.Data, "ReadPicture8File": got8} {
			if !slices.Equal(got, c.Values) {
				t.Errorf("%s (%s mode %s): samples differ from Pillow", filepath.Base(c.Path), name, c.Mode)
			}
		}
		if major < 10 && o >= 5 {
			continue
		}
		if v.Shape[0] != c.Shape[1] || v.Shape[1] != c.Shape[0] || shape8 != v.Shape {
			t.Errorf("%s: %v (8-bit path %v), Pillow shape %v", filepath.Base(c.Path), v.Shape, shape8, c.Shape)
		}
	}
}
