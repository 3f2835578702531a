package imageio

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

// filterRowBpp applies PNG filter ft to one row of bpp-byte pixels (prev
// nil for the first row) and returns the filter byte followed by the result.
func filterRowBpp(ft byte, cur, prev []byte, bpp int) []byte {
	out := []byte{ft}
	for i, x := range cur {
		var a, b, c int
		if i >= bpp {
			a = int(cur[i-bpp])
		}
		if prev != nil {
			b = int(prev[i])
			if i >= bpp {
				c = int(prev[i-bpp])
			}
		}
		pred := pngPredictor(ft, a, b, c)
		out = append(out, x-byte(pred))
	}
	return out
}

// lumaPNG builds a PNG by hand of the rows in pix (h rows of w pixels of
// bpp bytes), bit depth depth and colour type ct, row y filtered with
// filters[y%len].
func lumaPNG(t testing.TB, pix []byte, w, h, bpp, depth, ct int, filters []byte, extra ...[2]string) []byte {
	stride := w * bpp
	var raw []byte
	for y := 0; y < h; y++ {
		var prev []byte
		if y > 0 {
			prev = pix[(y-1)*stride : y*stride]
		}
		raw = append(raw, filterRowBpp(filters[y%len(filters)], pix[y*stride:(y+1)*stride], prev, bpp)...)
	}
	return pngFileRaw(t, uint32(w), uint32(h), byte(depth), byte(ct), raw, extra...)
}

// wantLuma is Pillow's convert("L") of ReadPictureFile's samples, as
// usenhance's loadGray computes it: grey clipped to 0…255, grey+alpha the
// grey channel, colour (19595 R + 38470 G + 7471 B + 32768) >> 16.
func wantLuma(t *testing.T, path string) []byte {
	t.Helper()
	v, _, err := ReadPictureFile(path)
	if err != nil {
		t.Fatal(err)
	}
	c := v.NumChannels()
	n := v.Grid.Shape[0] * v.Grid.Shape[1]
	out := make([]byte, n)
	for i := 0; i < n; i++ {
		s := v.Data[i*c : i*c+c]
		switch c {
		case 1, 2:
			out[i] = byte(min(max(s[0], 0), 255))
		default:
			out[i] = byte((19595*int64(s[0]) + 38470*int64(s[1]) + 7471*int64(s[2]) + 32768) >> 16)
		}
	}
	return out
}

// TestLuma8MatchesReadPictureFile: 16-bit grey, grey+alpha, RGB and RGBA
// PNGs (every filter type by hand, and Go's encoder) read through the luma
// fast path exactly as convert("L") of ReadPictureFile's samples; 8-bit
// grey as ReadGray8PictureFileInto; other PNGs and pictures declined.
func TestLuma8MatchesReadPictureFile(t *testing.T) {
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(8, 3))
	for _, k := range []lumaKind{lumaKinds[[2]int{8, 0}], lumaKinds[[2]int{16, 0}], lumaKinds[[2]int{8, 4}], lumaKinds[[2]int{8, 2}], lumaKinds[[2]int{8, 6}]} {
		for fi, filters := range [][]byte{{0}, {1}, {2}, {3}, {4}, {4, 3, 2, 1, 0}} {
			w, h := 13, 9
			pix := make([]byte, w*h*k.bpp)
			for i := range pix {
				switch {
				case k.depth == 16 && i%2 == 0:
					pix[i] = byte(r.IntN(3)) // high bytes 0, 1, 2: clipped or not
				case i%5 == 0:
					pix[i] = 255
				default:
					pix[i] = byte(r.IntN(256))
				}
			}
			p := filepath.Join(dir, "k.png")
			if err := os.WriteFile(p, lumaPNG(t, pix, w, h, k.bpp, k.depth, k.ct, filters), 0o644); err != nil {
				t.Fatal(err)
			}
			got, gw, gh, ok := ReadLuma8PictureFileInto(bytes.Repeat([]byte{0xa5}, 7), p)
			if !ok || gw != w || gh != h {
				t.Fatalf("depth %d colour %d filters %d: ok %v, %d×%d", k.depth, k.ct, fi, ok, gw, gh)
			}
			if want := wantLuma(t, p); !bytes.Equal(got, want) {
				t.Errorf("depth %d colour %d filters %v:\n got %v\nwant %v", k.depth, k.ct, filters, got, want)
			}
			_, _, _, gray := ReadGray8PictureFileInto(nil, p)
			if gray != (k.bpp == 1) {
				t.Errorf("depth %d colour %d: ReadGray8PictureFileInto ok %v", k.depth, k.ct, gray)
			}
		}
	}
	// Go's encoder (its own filter choice per row, every compression level).
	w, h := 61, 37
	rgba := image.NewNRGBA(image.Rect(0, 0, w, h))
	rgb := image.NewRGBA(image.Rect(0, 0, w, h)) // opaque: written as RGB
	g16 := image.NewGray16(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			v := uint8(x*4 + y + r.IntN(20))
			rgba.SetNRGBA(x, y, color.NRGBA{v, v / 2, 255 - v, uint8(r.IntN(256))})
			rgb.SetRGBA(x, y, color.RGBA{v, uint8(y * 7), uint8(r.IntN(256)), 255})
			g16.SetGray16(x, y, color.Gray16{uint16(x*9 + y*3 + r.IntN(300))})
		}
	}
	for _, lv := range []png.CompressionLevel{png.NoCompression, png.BestSpeed, png.DefaultCompression, png.BestCompression} {
		for name, img := range map[string]image.Image{"rgba": rgba, "rgb": rgb, "g16": g16} {
			p := filepath.Join(dir, name+".png")
			f, err := os.Create(p)
			if err != nil {
				t.Fatal(err)
			}
			if err := (&png.Encoder{CompressionLevel: lv}).Encode(f, img); err != nil {
				t.Fatal(err)
			}
			f.Close()
			got, _, _, ok := ReadLuma8PictureFileInto(nil, p)
			if !ok {
				t.Errorf("%s level %d: declined", name, lv)
				continue
			}
			if want := wantLuma(t, p); !bytes.Equal(got, want) {
				t.Errorf("%s level %d: samples differ from ReadPictureFile's", name, lv)
			}
		}
	}
	// Declined: 16-bit colour, a palette, interlacing, a tRNS chunk, a
	// size over MaxBytes counted as ReadPictureFile counts it, damage.
	rgb3 := make([]byte, 4*3*3)
	for name, file := range map[string][]byte{
		"rgb16":      lumaPNG(t, make([]byte, 4*3*6), 4, 3, 6, 16, 2, []byte{0}),
		"palette":    lumaPNG(t, make([]byte, 4*3), 4, 3, 1, 8, 3, []byte{0}, [2]string{"PLTE", "\x00\x00\x00"}),
		"trns":       lumaPNG(t, rgb3, 4, 3, 3, 8, 2, []byte{0}, [2]string{"tRNS", "\x00\x00\x00\x00\x00\x00"}),
		"interlaced": func() []byte { b := lumaPNG(t, rgb3, 4, 3, 3, 8, 2, []byte{0}); b[28] = 1; return b }(),
		"truncated":  lumaPNG(t, rgb3, 4, 3, 3, 8, 2, []byte{0})[:50],
		"badfilter":  lumaPNG(t, rgb3, 4, 3, 3, 8, 2, []byte{0, 7}),
	} {
		p := filepath.Join(dir, name+".png")
		if err := os.WriteFile(p, file, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, _, _, ok := ReadLuma8PictureFileInto(nil, p); ok {
			t.Errorf("%s: accepted", name)
		}
	}
	p := filepath.Join(dir, "cap.png")
	if err := os.WriteFile(p, lumaPNG(t, rgb3, 4, 3, 3, 8, 2, []byte{1}), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, _, ok := ReadLuma8PictureFileInto(nil, p, Options{MaxBytes: 4 * 3 * 3 * 8}); !ok {
		t.Error("RGB 4×3 at exactly its 288-byte cap: declined")
	}
	if _, _, _, ok := ReadLuma8PictureFileInto(nil, p, Options{MaxBytes: 4*3*3*8 - 1}); ok {
		t.Error("RGB 4×3 one byte over its cap: accepted")
	}
}

// TestMode8CapsByKind: ReadMode8PictureFileInto reads an 8-bit grey PNG as
// ReadGray8PictureFileInto does under the grey cap, the other kinds as
// ReadLuma8PictureFileInto does under opts' cap, each cap exact to the
// byte, and says which kind it read.
func TestMode8CapsByKind(t *testing.T) {
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(3, 8))
	const w, h = 5, 4
	for _, k := range []lumaKind{lumaKinds[[2]int{8, 0}], lumaKinds[[2]int{16, 0}], lumaKinds[[2]int{8, 4}], lumaKinds[[2]int{8, 2}], lumaKinds[[2]int{8, 6}]} {
		pix := make([]byte, w*h*k.bpp)
		for i := range pix {
			pix[i] = byte(r.IntN(256))
		}
		p := filepath.Join(dir, "m.png")
		if err := os.WriteFile(p, lumaPNG(t, pix, w, h, k.bpp, k.depth, k.ct, []byte{4, 3}), 0o644); err != nil {
			t.Fatal(err)
		}
		want, _, _, ok := ReadLuma8PictureFileInto(nil, p)
		if !ok {
			t.Fatalf("depth %d colour %d: ReadLuma8PictureFileInto declined", k.depth, k.ct)
		}
		size := int64(w * h * k.channels * 8) // as ReadPictureFile counts it
		grey := k.bpp == 1
		for _, c := range []struct {
			gray8, other int64
			ok           bool
		}{
			{size, size, true},
			{size - 1, size, !grey},
			{size, size - 1, grey},
			{size - 1, size - 1, false},
		} {
			got, gw, gh, gray, ok := ReadMode8PictureFileInto(bytes.Repeat([]byte{0xa5}, 3), p, c.gray8, Options{MaxBytes: c.other})
			if ok != c.ok {
				t.Errorf("depth %d colour %d, caps %d/%d: ok %v, want %v", k.depth, k.ct, c.gray8, c.other, ok, c.ok)
				continue
			}
			if ok && (gray != grey || gw != w || gh != h || !bytes.Equal(got, want)) {
				t.Errorf("depth %d colour %d: gray %v %d×%d %v, want gray %v %v", k.depth, k.ct, gray, gw, gh, got, grey, want)
			}
		}
	}
}
