package usenhance

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/rexmle/rexmle/metrics/imageio/png"
	"github.com/rexmle/rexmle/metrics/volume"
)

// tiffBytes builds a little-endian one-page TIFF (LONG tags) with one strip
// per entry of strips.
func tiffBytes(w, h int, tags map[uint16][]uint32, strips ...[]byte) []byte {
	le := binary.LittleEndian
	var out bytes.Buffer
	out.WriteString("II*\x00\x00\x00\x00\x00")
	var offs, counts []uint32
	for _, s := range strips {
		offs, counts = append(offs, uint32(out.Len())), append(counts, uint32(len(s)))
		out.Write(s)
	}
	all := map[uint16][]uint32{256: {uint32(w)}, 257: {uint32(h)}, 273: offs, 278: {uint32(h)}, 279: counts}
	for k, v := range tags {
		all[k] = v
	}
	var keys []int
	for k := range all {
		keys = append(keys, int(k))
	}
	sort.Ints(keys)
	ext := map[int]uint32{}
	for _, k := range keys {
		if len(all[uint16(k)]) > 1 {
			ext[k] = uint32(out.Len())
			binary.Write(&out, le, all[uint16(k)])
		}
	}
	le.PutUint32(out.Bytes()[4:], uint32(out.Len()))
	binary.Write(&out, le, uint16(len(keys)))
	for _, k := range keys {
		v := all[uint16(k)]
		binary.Write(&out, le, []uint16{uint16(k), 4})
		binary.Write(&out, le, uint32(len(v)))
		if len(v) > 1 {
			binary.Write(&out, le, ext[k])
		} else {
			binary.Write(&out, le, v[0])
		}
	}
	out.Write(make([]byte, 4))
	return out.Bytes()
}

// TestLoadGrayPillowModes: loadGray gives Image.open(f).convert("L") for
// the TIFF and PNG cases the fuzz run found read differently (report a,
// U1 and U7).
func TestLoadGrayPillowModes(t *testing.T) {
	dir := t.TempDir()
	la16 := filepath.Join(dir, "la16.png")
	if err := png.WriteFile(la16, &volume.Volume{Grid: volume.NewGrid(2, 1), DType: volume.Uint16, Channels: 2,
		Data: []float64{0x1234, 0xffff, 0xff00, 0x8000}}, 16); err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{
		"one_black.tif": tiffBytes(4, 1, map[uint16][]uint32{258: {1}, 262: {1}}, []byte{0b10100000}),
		"one_white.tif": tiffBytes(4, 1, map[uint16][]uint32{258: {1}, 262: {0}}, []byte{0b10100000}),
		"white8.tif":    tiffBytes(2, 1, map[uint16][]uint32{258: {8}, 262: {0}}, []byte{0, 200}),
		"int8.tif":      tiffBytes(2, 1, map[uint16][]uint32{258: {8}, 262: {1}, 339: {2}}, []byte{5, 0xfe}),
		"planar.tif":    tiffBytes(1, 1, map[uint16][]uint32{258: {8, 8, 8}, 277: {3}, 262: {2}, 284: {2}}, []byte{255}, []byte{0}, []byte{0}),
		"rgb16.tif":     tiffBytes(1, 1, map[uint16][]uint32{258: {16, 16, 16}, 277: {3}, 262: {2}}, []byte{0xff, 0x10, 0xff, 0x10, 0xff, 0x10}),
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want := map[string][]float64{
		"la16.png":      {0x12, 0xff},
		"one_black.tif": {255, 0, 255, 0},
		"one_white.tif": {0, 255, 0, 255},
		"white8.tif":    {255, 55},
		"int8.tif":      {5, 254},
		"planar.tif":    {76}, // (19595·255 + 32768) >> 16
		"rgb16.tif":     {0x10},
	}
	for name, w := range want {
		im, err := loadGray(filepath.Join(dir, name))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if len(im.Pix) != len(w) {
			t.Errorf("%s: %v, want %v", name, im.Pix, w)
			continue
		}
		for i := range w {
			if im.Pix[i] != w[i] {
				t.Errorf("%s: %v, want %v", name, im.Pix, w)
				break
			}
		}
	}
	for _, name := range []string{"int64", "float64"} {
		p := filepath.Join(dir, name+".tif")
		sf := map[string]uint32{"int64": 2, "float64": 3}[name]
		if err := os.WriteFile(p, tiffBytes(1, 1, map[uint16][]uint32{258: {64}, 262: {1}, 339: {sf}}, make([]byte, 8)), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := loadGray(p); err == nil {
			t.Errorf("%s TIFF: read, want refused (Pillow cannot open it, cv2 refuses)", name)
		}
	}
}

// TestLoadGrayPBM: a PBM (P4) is Pillow mode "1", whose conversion to L is
// 0 for a set bit and 255 for a clear one.
func TestLoadGrayPBM(t *testing.T) {
	p := filepath.Join(t.TempDir(), "e.png")
	if err := os.WriteFile(p, []byte("P4\n10 1\n\xa0\x40"), 0o644); err != nil {
		t.Fatal(err)
	}
	im, err := loadGray(p)
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{0, 255, 0, 255, 255, 255, 255, 255, 255, 0}
	for i, v := range im.Pix {
		if v != want[i] {
			t.Fatalf("PBM as L: %v, want %v", im.Pix, want)
		}
	}
}
