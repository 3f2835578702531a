package imageio

import (
	"bytes"
	"encoding/binary"
	"image"
	"image/color"
	stdpng "image/png"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rexmle/rexmle/metrics/imageio/internal/imagetest"
	"github.com/rexmle/rexmle/metrics/imageio/png"
	"github.com/rexmle/rexmle/metrics/imageio/tiff"
	"github.com/rexmle/rexmle/metrics/volume"
)

func TestPNGHandBuilt(t *testing.T) {
	tests := []struct {
		name     string
		file     []byte
		opts     Options
		shape    [3]int
		channels int
		dtype    volume.DType
		want     []float64
	}{
		{"1-bit gray gives 0/1", imagetest.PngFile(t, 3, 2, 1, 0, [][]byte{{0b10100000}, {0b01100000}}), Options{},
			[3]int{3, 2, 1}, 1, volume.Uint8, []float64{1, 0, 1, 0, 1, 1}},
		{"4-bit gray scaled ×17", imagetest.PngFile(t, 2, 1, 4, 0, [][]byte{{0x0F}}), Options{},
			[3]int{2, 1, 1}, 1, volume.Uint8, []float64{0, 255}},
		{"8-bit gray", imagetest.PngFile(t, 2, 2, 8, 0, [][]byte{{0, 200}, {17, 255}}), Options{},
			[3]int{2, 2, 1}, 1, volume.Uint8, []float64{0, 200, 17, 255}},
		{"8-bit gray with tRNS stays 1 channel", imagetest.PngFile(t, 2, 1, 8, 0, [][]byte{{5, 9}}, [2]string{"tRNS", "\x00\x05"}), Options{},
			[3]int{2, 1, 1}, 1, volume.Uint8, []float64{5, 9}},
		{"16-bit gray", imagetest.PngFile(t, 2, 1, 16, 0, [][]byte{{0x12, 0x34, 0xFF, 0xFF}}), Options{},
			[3]int{2, 1, 1}, 1, volume.Uint16, []float64{0x1234, 65535}},
		{"RGB", imagetest.PngFile(t, 2, 1, 8, 2, [][]byte{{1, 2, 3, 4, 5, 6}}), Options{},
			[3]int{2, 1, 1}, 3, volume.Uint8, []float64{1, 2, 3, 4, 5, 6}},
		{"RGB with tRNS stays 3 channels", imagetest.PngFile(t, 1, 1, 8, 2, [][]byte{{1, 2, 3}}, [2]string{"tRNS", "\x00\x01\x00\x02\x00\x03"}), Options{},
			[3]int{1, 1, 1}, 3, volume.Uint8, []float64{1, 2, 3}},
		{"RGB 16-bit", imagetest.PngFile(t, 1, 1, 16, 2, [][]byte{{0, 1, 2, 0, 255, 255}}), Options{},
			[3]int{1, 1, 1}, 3, volume.Uint16, []float64{1, 512, 65535}},
		{"gray+alpha", imagetest.PngFile(t, 2, 1, 8, 4, [][]byte{{10, 0, 20, 128}}), Options{},
			[3]int{2, 1, 1}, 2, volume.Uint8, []float64{10, 0, 20, 128}},
		{"RGBA not premultiplied", imagetest.PngFile(t, 1, 1, 8, 6, [][]byte{{200, 100, 50, 0}}), Options{},
			[3]int{1, 1, 1}, 4, volume.Uint8, []float64{200, 100, 50, 0}},
		{"palette indices", imagetest.PngFile(t, 3, 1, 8, 3, [][]byte{{2, 0, 1}}, [2]string{"PLTE", "\x00\x00\x00\x0a\x14\x1e\xff\x00\x80"}), Options{},
			[3]int{3, 1, 1}, 1, volume.Uint8, []float64{2, 0, 1}},
		{"palette expanded", imagetest.PngFile(t, 3, 1, 8, 3, [][]byte{{2, 0, 1}}, [2]string{"PLTE", "\x00\x00\x00\x0a\x14\x1e\xff\x00\x80"}), Options{ExpandPalette: true},
			[3]int{3, 1, 1}, 3, volume.Uint8, []float64{255, 0, 128, 0, 0, 0, 10, 20, 30}},
		{"palette with alpha expanded to RGBA", imagetest.PngFile(t, 2, 1, 8, 3, [][]byte{{1, 0}}, [2]string{"PLTE", "\x00\x00\x00\x0a\x14\x1e"}, [2]string{"tRNS", "\x40"}), Options{ExpandPalette: true},
			[3]int{2, 1, 1}, 4, volume.Uint8, []float64{10, 20, 30, 255, 0, 0, 0, 64}},
		{"2-bit palette indices", imagetest.PngFile(t, 4, 1, 2, 3, [][]byte{{0b00011011}}, [2]string{"PLTE", "\x00\x00\x00\x01\x01\x01\x02\x02\x02\x03\x03\x03"}), Options{},
			[3]int{4, 1, 1}, 1, volume.Uint8, []float64{0, 1, 2, 3}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v, err := png.Read(bytes.NewReader(tc.file), tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			if v.Shape != tc.shape || v.NumChannels() != tc.channels || v.DType != tc.dtype {
				t.Fatalf("shape %v channels %d dtype %s", v.Shape, v.Channels, v.DType)
			}
			imagetest.CheckVec(t, "data", v.Data, tc.want)
			if err := v.Check(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestPNGErrors(t *testing.T) {
	good := imagetest.PngFile(t, 2, 2, 8, 0, [][]byte{{0, 200}, {17, 255}})
	tests := []struct {
		name string
		file []byte
		opts Options
		want string
	}{
		{"empty", nil, Options{}, "truncated"},
		{"signature", append([]byte("GIF89a"), good[6:]...), Options{}, "signature"},
		// Cut 3 bytes into the IDAT data, before the rows (Pillow refuses;
		// cut after the rows, Pillow and png.Read load it).
		{"truncated IDAT", good[:8+25+8+3], Options{}, "png:"},
		{"huge claimed size", imagetest.PngFile(t, 1<<20, 1<<20, 8, 0, nil), Options{}, "limit"},
		{"overflowing claimed size", imagetest.PngFile(t, 1<<31-1, 1<<31-1, 16, 6, nil), Options{}, "overflow"},
		{"zero width", imagetest.PngFile(t, 0, 1, 8, 0, nil), Options{}, "width = 0"},
		{"over MaxBytes", good, Options{MaxBytes: 16}, "limit"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := png.Read(bytes.NewReader(tc.file), tc.opts)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

func TestPNGRoundTrip(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		channels, depth int
		max             float64
	}{{1, 8, 255}, {1, 16, 65535}, {2, 8, 255}, {3, 8, 255}, {4, 8, 255}, {3, 16, 65535}, {4, 16, 65535}} {
		v := &volume.Volume{Grid: volume.NewGrid(5, 3), Channels: tc.channels, Data: make([]float64, 15*tc.channels)}
		for i := range v.Data {
			v.Data[i] = float64((i * 7919) % int(tc.max+1))
		}
		v.Data[0] = tc.max
		p := filepath.Join(dir, "x.png")
		if err := png.WriteFile(p, v, tc.depth); err != nil {
			t.Fatal(err)
		}
		got, err := Read(p)
		if err != nil {
			t.Fatal(err)
		}
		if got.Shape != v.Shape || got.NumChannels() != tc.channels {
			t.Fatalf("%d ch %d bit: shape %v channels %d", tc.channels, tc.depth, got.Shape, got.Channels)
		}
		imagetest.CheckVec(t, "data", got.Data, v.Data)
	}
	v := &volume.Volume{Grid: volume.NewGrid(2, 1), Channels: 1, Data: []float64{1, 256}}
	if err := png.Write(&bytes.Buffer{}, v, 8); err == nil {
		t.Error("256 in 8-bit PNG: want error")
	}
	if err := png.Write(&bytes.Buffer{}, v, 12); err == nil {
		t.Error("12-bit PNG: want error")
	}
}

func TestPNGFromGoEncoder(t *testing.T) {
	// A paletted image written by Go's encoder decodes to its indices.
	img := image.NewPaletted(image.Rect(0, 0, 2, 2), color.Palette{color.Gray{0}, color.Gray{100}, color.Gray{200}})
	img.Pix = []uint8{0, 1, 2, 1}
	var buf bytes.Buffer
	if err := stdpng.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	v, err := png.Read(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	imagetest.CheckVec(t, "indices", v.Data, []float64{0, 1, 2, 1})
	v, err = png.Read(bytes.NewReader(buf.Bytes()), Options{ExpandPalette: true})
	if err != nil {
		t.Fatal(err)
	}
	imagetest.CheckVec(t, "colours", v.Data, []float64{0, 0, 0, 100, 100, 100, 200, 200, 200, 100, 100, 100})
}

func TestTIFFHandBuilt(t *testing.T) {
	le, be := binary.LittleEndian, binary.BigEndian
	gray := func(w, h, bits, format uint32) map[uint16]imagetest.TiffEntry {
		return map[uint16]imagetest.TiffEntry{256: imagetest.Long(w), 257: imagetest.Long(h), 258: imagetest.Short(bits), 262: imagetest.Short(1), 277: imagetest.Short(1), 339: imagetest.Short(format)}
	}
	with := func(m map[uint16]imagetest.TiffEntry, tag uint16, e imagetest.TiffEntry) map[uint16]imagetest.TiffEntry {
		m[tag] = e
		return m
	}
	tests := []struct {
		name     string
		file     []byte
		opts     Options
		shape    [3]int
		channels int
		dtype    volume.DType
		want     []float64
	}{
		{"uint16 BE two strips", imagetest.TiffFileBytes(be, with(gray(2, 3, 16, 1), 278, imagetest.Long(2)), 273, 279,
			[][]byte{imagetest.BinBytes(t, be, []uint16{1, 2, 3, 4}), imagetest.BinBytes(t, be, []uint16{65535, 6})}), Options{},
			[3]int{2, 3, 1}, 1, volume.Uint16, []float64{1, 2, 3, 4, 65535, 6}},
		{"float32 LE", imagetest.TiffFileBytes(le, gray(3, 1, 32, 3), 273, 279, [][]byte{imagetest.BinBytes(t, le, []float32{-1.5, 0, 1e10})}), Options{},
			[3]int{3, 1, 1}, 1, volume.Float32, []float64{-1.5, 0, float64(float32(1e10))}},
		{"float64 BE", imagetest.TiffFileBytes(be, gray(2, 1, 64, 3), 273, 279, [][]byte{imagetest.BinBytes(t, be, []float64{-1e300, 0.1})}), Options{},
			[3]int{2, 1, 1}, 1, volume.Float64, []float64{-1e300, 0.1}},
		{"int32 signed", imagetest.TiffFileBytes(le, gray(2, 1, 32, 2), 273, 279, [][]byte{imagetest.BinBytes(t, le, []int32{-7, 1 << 30})}), Options{},
			[3]int{2, 1, 1}, 1, volume.Int32, []float64{-7, 1 << 30}},
		{"int16 signed, no SampleFormat means unsigned", imagetest.TiffFileBytes(le, func() map[uint16]imagetest.TiffEntry { m := gray(1, 1, 16, 1); delete(m, 339); return m }(), 273, 279,
			[][]byte{imagetest.BinBytes(t, le, []int16{-1})}), Options{}, [3]int{1, 1, 1}, 1, volume.Uint16, []float64{65535}},
		{"PackBits uint8", imagetest.TiffFileBytes(le, with(gray(4, 2, 8, 1), 259, imagetest.Short(32773)), 273, 279,
			[][]byte{{0xFD, 7, 0x03, 1, 2, 3, 4}}), Options{}, [3]int{4, 2, 1}, 1, volume.Uint8, []float64{7, 7, 7, 7, 1, 2, 3, 4}},
		{"deflate with predictor uint16", imagetest.TiffFileBytes(le, with(with(gray(3, 1, 16, 1), 259, imagetest.Short(8)), 317, imagetest.Short(2)), 273, 279,
			[][]byte{imagetest.ZlibBytes(t, imagetest.BinBytes(t, le, []uint16{100, 5, 65535}))}), Options{}, [3]int{3, 1, 1}, 1, volume.Uint16, []float64{100, 105, 104}},
		{"RGB uint8", imagetest.TiffFileBytes(le, map[uint16]imagetest.TiffEntry{256: imagetest.Long(2), 257: imagetest.Long(1), 258: imagetest.Short(8, 8, 8), 262: imagetest.Short(2), 277: imagetest.Short(3)}, 273, 279,
			[][]byte{{1, 2, 3, 4, 5, 6}}), Options{}, [3]int{2, 1, 1}, 3, volume.Uint8, []float64{1, 2, 3, 4, 5, 6}},
		{"1-bit bilevel", imagetest.TiffFileBytes(le, gray(10, 1, 1, 1), 273, 279, [][]byte{{0b10000001, 0b01000000}}), Options{},
			[3]int{10, 1, 1}, 1, volume.Uint8, []float64{1, 0, 0, 0, 0, 0, 0, 1, 0, 1}},
		{"tiles 2×2 over 3×3", imagetest.TiffFileBytes(le, with(with(gray(3, 3, 8, 1), 322, imagetest.Long(2)), 323, imagetest.Long(2)), 324, 325,
			[][]byte{{1, 2, 4, 5}, {3, 0, 6, 0}, {7, 8, 0, 0}, {9, 0, 0, 0}}), Options{},
			[3]int{3, 3, 1}, 1, volume.Uint8, []float64{1, 2, 3, 4, 5, 6, 7, 8, 9}},
		// A tile may be taller and wider than the image (TileLength 4 over
		// 1 row): the tile is decoded whole, so a PackBits run across the
		// image's last row is valid.
		{"PackBits tile taller than the image", imagetest.TiffFileBytes(le, with(with(with(gray(2, 1, 8, 1), 259, imagetest.Short(32773)), 322, imagetest.Long(4)), 323, imagetest.Long(4)), 324, 325,
			[][]byte{{0xF1, 9}}), Options{}, [3]int{2, 1, 1}, 1, volume.Uint8, []float64{9, 9}},
		{"palette indices", imagetest.TiffFileBytes(le, with(with(gray(2, 1, 8, 1), 262, imagetest.Short(3)), 320, imagetest.Short(make([]uint32, 768)...)), 273, 279,
			[][]byte{{3, 200}}), Options{}, [3]int{2, 1, 1}, 1, volume.Uint8, []float64{3, 200}},
		{"palette expanded", imagetest.TiffFileBytes(le, with(with(gray(1, 1, 8, 1), 262, imagetest.Short(3)), 320, imagetest.Short(func() []uint32 {
			m := make([]uint32, 768)
			m[5], m[256+5], m[512+5] = 0xFFFF, 0x8000, 0x00FF
			return m
		}()...)), 273, 279, [][]byte{{5}}), Options{ExpandPalette: true}, [3]int{1, 1, 1}, 3, volume.Uint8, []float64{255, 128, 0}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v, err := tiff.Read(bytes.NewReader(tc.file), tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			if v.Shape != tc.shape || v.NumChannels() != tc.channels || v.DType != tc.dtype {
				t.Fatalf("shape %v channels %d dtype %s", v.Shape, v.Channels, v.DType)
			}
			imagetest.CheckVec(t, "data", v.Data, tc.want)
		})
	}
}

func TestTIFFErrors(t *testing.T) {
	le := binary.LittleEndian
	gray := map[uint16]imagetest.TiffEntry{256: imagetest.Long(2), 257: imagetest.Long(2), 258: imagetest.Short(8), 262: imagetest.Short(1), 277: imagetest.Short(1)}
	good := imagetest.TiffFileBytes(le, gray, 273, 279, [][]byte{{1, 2, 3, 4}})
	mod := func(tag uint16, e imagetest.TiffEntry) []byte {
		m := map[uint16]imagetest.TiffEntry{}
		for k, v := range gray {
			m[k] = v
		}
		m[tag] = e
		return imagetest.TiffFileBytes(le, m, 273, 279, [][]byte{{1, 2, 3, 4}})
	}
	tests := []struct {
		name string
		file []byte
		want string
	}{
		{"empty", nil, "truncated"},
		{"not tiff", []byte("P5 2 2 255\n...."), "byte-order mark"},
		{"bigtiff", []byte("II+\x00\x08\x00\x00\x00\x00\x00\x00\x00"), "BigTIFF"},
		{"IFD beyond file", []byte("II*\x00\xff\xff\x00\x00"), "beyond the file"},
		{"strip truncated", imagetest.TiffFileBytes(le, gray, 273, 279, [][]byte{{1, 2}}), "truncated"},
		{"zero width", mod(256, imagetest.Long(0)), "ImageWidth = 0"},
		{"huge", mod(257, imagetest.Long(1<<31-1)), "limit"},
		{"12-bit", mod(258, imagetest.Short(12)), "BitsPerSample 12"},
		{"jpeg", mod(259, imagetest.Short(7)), "Compression = 7"},
		{"cmyk", mod(262, imagetest.Short(5)), "PhotometricInterpretation = 5"},
		{"planar", imagetest.TiffFileBytes(le, map[uint16]imagetest.TiffEntry{256: imagetest.Long(1), 257: imagetest.Long(1), 258: imagetest.Short(8, 8, 8), 277: imagetest.Short(3), 284: imagetest.Short(2)}, 273, 279, [][]byte{{1}, {2}, {3}}), "PlanarConfiguration"},
		{"offset count mismatch", mod(278, imagetest.Long(1)), "strip/tile offsets"},
		{"float predictor", mod(317, imagetest.Short(3)), "Predictor = 3"},
		{"tile too big", mod(322, imagetest.Long(65536)), "TileWidth"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tiff.Read(bytes.NewReader(tc.file))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tc.want)
			}
		})
	}
	t.Run("loop", func(t *testing.T) {
		b := append([]byte(nil), good...)
		// Point the next-IFD offset back at the IFD itself.
		ifd := le.Uint32(b[4:])
		n := le.Uint16(b[ifd:])
		le.PutUint32(b[ifd+2+12*uint32(n):], ifd)
		if _, err := tiff.Read(bytes.NewReader(b)); err == nil || !strings.Contains(err.Error(), "loops") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("file over MaxBytes", func(t *testing.T) {
		if _, err := tiff.Read(bytes.NewReader(good), Options{MaxBytes: 10}); err == nil || !strings.Contains(err.Error(), "limit") {
			t.Fatalf("err = %v", err)
		}
	})
}

func TestTIFFRoundTrip(t *testing.T) {
	dir := t.TempDir()
	for _, dt := range imagetest.AllDTypes {
		for _, nc := range []int{1, 3} {
			v := &volume.Volume{Grid: volume.NewGrid(3, 2, 2), DType: dt, Channels: nc, Data: make([]float64, 12*nc)}
			vals := imagetest.SampleValues(dt)
			for i := range v.Data {
				v.Data[i] = vals[i%len(vals)]
			}
			p := filepath.Join(dir, string(dt)+".tif")
			if err := tiff.WriteFile(p, v, dt); err != nil {
				t.Fatal(err)
			}
			got, err := Read(p)
			if err != nil {
				t.Fatalf("%s: %v", dt, err)
			}
			if got.Shape != v.Shape || got.NumChannels() != nc || got.DType != dt {
				t.Fatalf("%s: shape %v channels %d dtype %s", dt, got.Shape, got.Channels, got.DType)
			}
			imagetest.CheckVec(t, string(dt), got.Data, v.Data)
			first, err := Read(p, Options{FirstPage: true})
			if err != nil {
				t.Fatal(err)
			}
			if first.Shape != [3]int{3, 2, 1} {
				t.Fatalf("FirstPage shape %v", first.Shape)
			}
			imagetest.CheckVec(t, "first page", first.Data, v.Data[:6*nc])
		}
	}
}

func FuzzReadTIFF(f *testing.F) {
	le := binary.LittleEndian
	f.Add(imagetest.TiffFileBytes(le, map[uint16]imagetest.TiffEntry{256: imagetest.Long(2), 257: imagetest.Long(2), 258: imagetest.Short(16), 277: imagetest.Short(1), 278: imagetest.Long(1)}, 273, 279,
		[][]byte{imagetest.BinBytes(f, le, []uint16{1, 2}), imagetest.BinBytes(f, le, []uint16{3, 4})}))
	f.Add(imagetest.TiffFileBytes(le, map[uint16]imagetest.TiffEntry{256: imagetest.Long(3), 257: imagetest.Long(3), 258: imagetest.Short(8), 259: imagetest.Short(32773), 322: imagetest.Long(2), 323: imagetest.Long(2)}, 324, 325,
		[][]byte{{0xFD, 7}, {0xFD, 7}, {0xFD, 7}, {0xFD, 7}}))
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := tiff.Read(bytes.NewReader(data), Options{MaxBytes: 1 << 24})
		if err != nil {
			return
		}
		if err := v.Check(); err != nil {
			t.Fatalf("decoded volume invalid: %v", err)
		}
	})
}

func FuzzReadPNG(f *testing.F) {
	f.Add(imagetest.PngFile(f, 2, 2, 8, 0, [][]byte{{0, 200}, {17, 255}}))
	f.Add(imagetest.PngFile(f, 3, 1, 8, 3, [][]byte{{2, 0, 1}}, [2]string{"PLTE", "\x00\x00\x00\x0a\x14\x1e\xff\x00\x80"}))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, expand := range []bool{false, true} {
			v, err := png.Read(bytes.NewReader(data), Options{MaxBytes: 1 << 24, ExpandPalette: expand})
			if err != nil {
				continue
			}
			if err := v.Check(); err != nil {
				t.Fatalf("decoded volume invalid: %v", err)
			}
		}
	})
}
