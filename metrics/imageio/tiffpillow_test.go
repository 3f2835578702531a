package imageio

import (
	"bytes"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rexmle/rexmle/metrics/imageio/png"
	"github.com/rexmle/rexmle/metrics/imageio/tiff"
	"github.com/rexmle/rexmle/metrics/volume"
)

// rawTIFF builds a one-page TIFF: tags (SHORT or LONG values) plus one
// strip per entry of strips (StripOffsets and StripByteCounts are added).
func rawTIFF(be bool, w, h int, tags map[uint16][]uint32, strips ...[]byte) []byte {
	var bo binary.ByteOrder = binary.LittleEndian
	var out bytes.Buffer
	if be {
		bo = binary.BigEndian
		out.WriteString("MM\x00*")
	} else {
		out.WriteString("II*\x00")
	}
	out.Write(make([]byte, 4))
	var offs, counts []uint32
	for _, s := range strips {
		offs = append(offs, uint32(out.Len()))
		counts = append(counts, uint32(len(s)))
		out.Write(s)
	}
	all := map[uint16][]uint32{tiff.TagImageWidth: {uint32(w)}, tiff.TagImageLength: {uint32(h)},
		tiff.TagStripOffsets: offs, tiff.TagStripByteCounts: counts, tiff.TagRowsPerStrip: {uint32(h)}}
	for k, v := range tags {
		all[k] = v
	}
	var keys []int
	for k := range all {
		keys = append(keys, int(k))
	}
	for i := range keys { // sort
		for j := i + 1; j < len(keys); j++ {
			if keys[j] < keys[i] {
				keys[i], keys[j] = keys[j], keys[i]
			}
		}
	}
	ext := map[uint16]uint32{}
	for _, k := range keys {
		if v := all[uint16(k)]; len(v) > 1 {
			ext[uint16(k)] = uint32(out.Len())
			for _, x := range v {
				binary.Write(&out, bo, x)
			}
		}
	}
	ifd := out.Len()
	bo.PutUint32(out.Bytes()[4:], uint32(ifd))
	binary.Write(&out, bo, uint16(len(keys)))
	for _, k := range keys {
		v := all[uint16(k)]
		binary.Write(&out, bo, uint16(k))
		binary.Write(&out, bo, uint16(4)) // LONG
		binary.Write(&out, bo, uint32(len(v)))
		if len(v) > 1 {
			binary.Write(&out, bo, ext[uint16(k)])
		} else {
			binary.Write(&out, bo, v[0])
		}
	}
	out.Write(make([]byte, 4))
	return out.Bytes()
}

func TestReadPictureTIFFPillowTable(t *testing.T) {
	le8 := func(vals ...uint64) []byte {
		b := make([]byte, 8*len(vals))
		for i, v := range vals {
			binary.LittleEndian.PutUint64(b[8*i:], v)
		}
		return b
	}
	refused := map[string][]byte{
		"int64":           rawTIFF(false, 2, 1, map[uint16][]uint32{tiff.TagBitsPerSample: {64}, tiff.TagSampleFormat: {2}, tiff.TagPhotometric: {1}}, le8(1, 2)),
		"uint64":          rawTIFF(false, 2, 1, map[uint16][]uint32{tiff.TagBitsPerSample: {64}, tiff.TagSampleFormat: {1}, tiff.TagPhotometric: {1}}, le8(1, 2)),
		"float64":         rawTIFF(false, 2, 1, map[uint16][]uint32{tiff.TagBitsPerSample: {64}, tiff.TagSampleFormat: {3}, tiff.TagPhotometric: {1}}, le8(1, 2)),
		"uint32 BE":       rawTIFF(true, 2, 1, map[uint16][]uint32{tiff.TagBitsPerSample: {32}, tiff.TagSampleFormat: {1}, tiff.TagPhotometric: {1}}, make([]byte, 8)),
		"int8 white":      rawTIFF(false, 2, 1, map[uint16][]uint32{tiff.TagBitsPerSample: {8}, tiff.TagSampleFormat: {2}, tiff.TagPhotometric: {0}}, []byte{1, 255}),
		"uint16 BE white": rawTIFF(true, 2, 1, map[uint16][]uint32{tiff.TagBitsPerSample: {16}, tiff.TagPhotometric: {0}}, make([]byte, 4)),
		"float32 RGB": rawTIFF(false, 1, 1, map[uint16][]uint32{tiff.TagBitsPerSample: {32, 32, 32}, tiff.TagSampleFormat: {3, 3, 3},
			tiff.TagSamplesPerPixel: {3}, tiff.TagPhotometric: {2}}, make([]byte, 12)),
		"uint16 LA": rawTIFF(false, 1, 1, map[uint16][]uint32{tiff.TagBitsPerSample: {16, 16}, tiff.TagSamplesPerPixel: {2},
			tiff.TagPhotometric: {1}, tiff.TagExtraSamples: {2}}, make([]byte, 4)),
		"uint8 2 samples, no alpha": rawTIFF(false, 1, 1, map[uint16][]uint32{tiff.TagBitsPerSample: {8, 8}, tiff.TagSamplesPerPixel: {2},
			tiff.TagPhotometric: {1}}, make([]byte, 2)),
	}
	for name, b := range refused {
		if _, _, err := ReadPicture(bytes.NewReader(b)); err == nil || !strings.Contains(err.Error(), "Pillow cannot open") {
			t.Errorf("%s: ReadPicture error %v, want Pillow's refusal", name, err)
		}
		if _, err := tiff.Read(bytes.NewReader(b)); err != nil && name != "uint8 2 samples, no alpha" {
			t.Errorf("%s: ReadTIFF (tifffile) must still read it: %v", name, err)
		}
	}

	type want struct {
		nc   int
		dt   string
		vals []float64
	}
	read := map[string]struct {
		b    []byte
		pil  want
		tiff []float64 // tiff.Read (tifffile) samples
	}{
		"8-bit WhiteIsZero": {rawTIFF(false, 3, 1, map[uint16][]uint32{tiff.TagBitsPerSample: {8}, tiff.TagPhotometric: {0}}, []byte{0, 5, 255}),
			want{1, "uint8", []float64{255, 250, 0}}, []float64{0, 5, 255}},
		"8-bit, no PhotometricInterpretation": {rawTIFF(false, 2, 1, map[uint16][]uint32{tiff.TagBitsPerSample: {8}}, []byte{0, 5}),
			want{1, "uint8", []float64{255, 250}}, []float64{0, 5}},
		"1-bit WhiteIsZero": {rawTIFF(false, 4, 1, map[uint16][]uint32{tiff.TagBitsPerSample: {1}, tiff.TagPhotometric: {0}}, []byte{0b10100000}),
			want{1, "uint8", []float64{0, 1, 0, 1}}, []float64{1, 0, 1, 0}},
		"16-bit WhiteIsZero LE (not inverted)": {rawTIFF(false, 2, 1, map[uint16][]uint32{tiff.TagBitsPerSample: {16}, tiff.TagPhotometric: {0}}, []byte{1, 0, 0, 1}),
			want{1, "uint16", []float64{1, 256}}, []float64{1, 256}},
		"int8 read as bytes": {rawTIFF(false, 2, 1, map[uint16][]uint32{tiff.TagBitsPerSample: {8}, tiff.TagSampleFormat: {2}, tiff.TagPhotometric: {1}}, []byte{5, 0xfe}),
			want{1, "uint8", []float64{5, 254}}, []float64{5, -2}},
		"uint32 as int32": {rawTIFF(false, 1, 1, map[uint16][]uint32{tiff.TagBitsPerSample: {32}, tiff.TagPhotometric: {1}}, []byte{0xff, 0xff, 0xff, 0xff}),
			want{1, "int32", []float64{-1}}, []float64{4294967295}},
		"16-bit RGB → high byte": {rawTIFF(false, 1, 1, map[uint16][]uint32{tiff.TagBitsPerSample: {16, 16, 16}, tiff.TagSamplesPerPixel: {3}, tiff.TagPhotometric: {2}},
			[]byte{0xff, 0x01, 0x00, 0x02, 0x34, 0x12}), want{3, "uint8", []float64{1, 2, 0x12}}, []float64{0x1ff, 0x200, 0x1234}},
		"RGBA associated alpha": {rawTIFF(false, 2, 1, map[uint16][]uint32{tiff.TagBitsPerSample: {8, 8, 8, 8}, tiff.TagSamplesPerPixel: {4}, tiff.TagPhotometric: {2}, tiff.TagExtraSamples: {1}},
			[]byte{10, 20, 200, 100, 9, 9, 9, 0}), want{4, "uint8", []float64{25, 51, 255, 100, 0, 0, 0, 0}}, []float64{10, 20, 200, 100, 9, 9, 9, 0}},
		"RGBX → RGB": {rawTIFF(false, 1, 1, map[uint16][]uint32{tiff.TagBitsPerSample: {8, 8, 8, 8}, tiff.TagSamplesPerPixel: {4}, tiff.TagPhotometric: {2}, tiff.TagExtraSamples: {0}},
			[]byte{1, 2, 3, 4}), want{3, "uint8", []float64{1, 2, 3}}, []float64{1, 2, 3, 4}},
		"separate planes": {rawTIFF(false, 2, 1, map[uint16][]uint32{tiff.TagBitsPerSample: {8, 8, 8}, tiff.TagSamplesPerPixel: {3}, tiff.TagPhotometric: {2}, tiff.TagPlanarConfig: {2}},
			[]byte{1, 2}, []byte{3, 4}, []byte{5, 6}), want{3, "uint8", []float64{1, 3, 5, 2, 4, 6}}, nil},
		"FillOrder 2": {rawTIFF(false, 2, 1, map[uint16][]uint32{tiff.TagBitsPerSample: {8}, tiff.TagPhotometric: {1}, tiff.TagFillOrder: {2}}, []byte{0x01, 0x80}),
			want{1, "uint8", []float64{0x80, 0x01}}, []float64{1, 0x80}},
	}
	dir := t.TempDir()
	for name, c := range read {
		v, _, err := ReadPicture(bytes.NewReader(c.b))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if v.NumChannels() != c.pil.nc || string(v.DType) != c.pil.dt || !slices.Equal(v.Data, c.pil.vals) {
			t.Errorf("%s: ReadPicture %d × %s %v, want %d × %s %v", name, v.NumChannels(), v.DType, v.Data, c.pil.nc, c.pil.dt, c.pil.vals)
		}
		// ReadPicture8File gives the same samples.
		p := filepath.Join(dir, strings.ReplaceAll(name, " ", "_")+".tif")
		if err := os.WriteFile(p, c.b, 0o644); err != nil {
			t.Fatal(err)
		}
		p8, v8, _, err := ReadPicture8File(p, nil)
		if err != nil {
			t.Errorf("%s: ReadPicture8File: %v", name, err)
		} else if p8 != nil {
			got := make([]float64, len(p8.Pix))
			for i, x := range p8.Pix {
				got[i] = float64(x)
			}
			if p8.C != c.pil.nc || !slices.Equal(got, c.pil.vals) {
				t.Errorf("%s: ReadPicture8File %d × %v, want %v", name, p8.C, got, c.pil.vals)
			}
		} else if !slices.Equal(v8.Data, c.pil.vals) {
			t.Errorf("%s: ReadPicture8File %v, want %v", name, v8.Data, c.pil.vals)
		}
		if c.tiff != nil {
			if v, err := tiff.Read(bytes.NewReader(c.b)); err != nil || !slices.Equal(v.Data, c.tiff) {
				t.Errorf("%s: ReadTIFF (tifffile) changed: %v %v, want %v", name, v, err, c.tiff)
			}
		}
	}
}

func TestOneBitPictureFile(t *testing.T) {
	dir := t.TempDir()
	cases := map[string]struct {
		b    []byte
		want bool
	}{
		"one.tif":   {rawTIFF(false, 4, 1, map[uint16][]uint32{tiff.TagBitsPerSample: {1}, tiff.TagPhotometric: {0}}, []byte{0}), true},
		"oneBE.tif": {rawTIFF(true, 4, 1, map[uint16][]uint32{tiff.TagBitsPerSample: {1}, tiff.TagPhotometric: {1}}, []byte{0}), true},
		"l.tif":     {rawTIFF(false, 1, 1, map[uint16][]uint32{tiff.TagBitsPerSample: {8}, tiff.TagPhotometric: {1}}, []byte{0}), false},
	}
	for name, c := range cases {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, c.b, 0o644); err != nil {
			t.Fatal(err)
		}
		if got := OneBitPictureFile(p); got != c.want {
			t.Errorf("%s: %v, want %v", name, got, c.want)
		}
	}
}

func TestReadPicturePNG16Colour(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		nc   int
		in   []float64
		want []float64
	}{
		{2, []float64{0x1234, 0xff00, 0x00ff, 0x0100}, []float64{0x12, 0x12, 0x12, 0xff, 0, 0, 0, 1}},
		{3, []float64{0x1234, 0xff00, 0x00ff}, []float64{0x12, 0xff, 0}},
		{4, []float64{0x1234, 0xff00, 0x00ff, 0x0100}, []float64{0x12, 0xff, 0, 1}},
	} {
		v := &volume.Volume{Grid: volume.NewGrid(len(c.in)/c.nc, 1), DType: volume.Uint16, Channels: c.nc, Data: c.in}
		p := filepath.Join(dir, "x.png")
		if err := png.WriteFile(p, v, 16); err != nil {
			t.Fatal(err)
		}
		got, _, err := ReadPictureFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if got.DType != volume.Uint8 || !slices.Equal(got.Data, c.want) {
			t.Errorf("%d channels: %s %v, want uint8 %v (Pillow: high bytes, LA → RGBA)", c.nc, got.DType, got.Data, c.want)
		}
		if raw, err := png.ReadFile(p); err != nil || !slices.Equal(raw.Data, c.in) {
			t.Errorf("%d channels: ReadPNG must keep 16 bits: %v %v", c.nc, raw, err)
		}
	}
}

func TestReadTIFFFloat16(t *testing.T) {
	// 1.0, −2.5, 65504 (max), 2^−24 (smallest subnormal), +Inf
	halves := []uint16{0x3c00, 0xc100, 0x7bff, 0x0001, 0x7c00}
	b := make([]byte, 2*len(halves))
	for i, h := range halves {
		binary.LittleEndian.PutUint16(b[2*i:], h)
	}
	f := rawTIFF(false, len(halves), 1, map[uint16][]uint32{tiff.TagBitsPerSample: {16}, tiff.TagSampleFormat: {3}, tiff.TagPhotometric: {1}}, b)
	v, err := tiff.Read(bytes.NewReader(f))
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{1, -2.5, 65504, 1.0 / (1 << 24), math.Inf(1)}
	if !slices.Equal(v.Data, want) {
		t.Errorf("float16 %v, want %v", v.Data, want)
	}
	if _, _, err := ReadPicture(bytes.NewReader(f)); err == nil {
		t.Error("ReadPicture read float16; Pillow cannot open it")
	}
}
