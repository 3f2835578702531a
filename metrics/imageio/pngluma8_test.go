package imageio

import (
	"bytes"
	"image"
	"image/color"
	stdpng "image/png"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/rexmle/rexmle/metrics/imageio/internal/imagetest"
	"github.com/rexmle/rexmle/metrics/imageio/png"
)

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
// grey as png.ReadGray8FileInto; other PNGs and pictures declined.
func TestLuma8MatchesReadPictureFile(t *testing.T) {
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(8, 3))
	// The kinds the luma reader takes (bytes per pixel, bit depth, colour
	// type): 8-bit grey, 16-bit grey, grey + alpha, RGB, RGBA.
	for _, k := range []struct{ Bpp, Depth, Ct int }{{1, 8, 0}, {2, 16, 0}, {2, 8, 4}, {3, 8, 2}, {4, 8, 6}} {
		for fi, filters := range [][]byte{{0}, {1}, {2}, {3}, {4}, {4, 3, 2, 1, 0}} {
			w, h := 13, 9
			pix := make([]byte, w*h*k.Bpp)
			for i := range pix {
				switch {
				case k.Depth == 16 && i%2 == 0:
					pix[i] = byte(r.IntN(3)) // high bytes 0, 1, 2: clipped or not
				case i%5 == 0:
					pix[i] = 255
				default:
					pix[i] = byte(r.IntN(256))
				}
			}
			p := filepath.Join(dir, "k.png")
			if err := os.WriteFile(p, imagetest.LumaPNG(t, pix, w, h, k.Bpp, k.Depth, k.Ct, filters), 0o644); err != nil {
				t.Fatal(err)
			}
			got, gw, gh, ok := png.ReadLuma8FileInto(bytes.Repeat([]byte{0xa5}, 7), p)
			if !ok || gw != w || gh != h {
				t.Fatalf("depth %d colour %d filters %d: ok %v, %d×%d", k.Depth, k.Ct, fi, ok, gw, gh)
			}
			if want := wantLuma(t, p); !bytes.Equal(got, want) {
				t.Errorf("depth %d colour %d filters %v:\n got %v\nwant %v", k.Depth, k.Ct, filters, got, want)
			}
			_, _, _, gray := png.ReadGray8FileInto(nil, p)
			if gray != (k.Bpp == 1) {
				t.Errorf("depth %d colour %d: ReadGray8PictureFileInto ok %v", k.Depth, k.Ct, gray)
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
	for _, lv := range []stdpng.CompressionLevel{stdpng.NoCompression, stdpng.BestSpeed, stdpng.DefaultCompression, stdpng.BestCompression} {
		for name, img := range map[string]image.Image{"rgba": rgba, "rgb": rgb, "g16": g16} {
			p := filepath.Join(dir, name+".png")
			f, err := os.Create(p)
			if err != nil {
				t.Fatal(err)
			}
			if err := (&stdpng.Encoder{CompressionLevel: lv}).Encode(f, img); err != nil {
				t.Fatal(err)
			}
			f.Close()
			got, _, _, ok := png.ReadLuma8FileInto(nil, p)
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
		"rgb16":      imagetest.LumaPNG(t, make([]byte, 4*3*6), 4, 3, 6, 16, 2, []byte{0}),
		"palette":    imagetest.LumaPNG(t, make([]byte, 4*3), 4, 3, 1, 8, 3, []byte{0}, [2]string{"PLTE", "\x00\x00\x00"}),
		"trns":       imagetest.LumaPNG(t, rgb3, 4, 3, 3, 8, 2, []byte{0}, [2]string{"tRNS", "\x00\x00\x00\x00\x00\x00"}),
		"interlaced": func() []byte { b := imagetest.LumaPNG(t, rgb3, 4, 3, 3, 8, 2, []byte{0}); b[28] = 1; return b }(),
		"truncated":  imagetest.LumaPNG(t, rgb3, 4, 3, 3, 8, 2, []byte{0})[:50],
		"badfilter":  imagetest.LumaPNG(t, rgb3, 4, 3, 3, 8, 2, []byte{0, 7}),
	} {
		p := filepath.Join(dir, name+".png")
		if err := os.WriteFile(p, file, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, _, _, ok := png.ReadLuma8FileInto(nil, p); ok {
			t.Errorf("%s: accepted", name)
		}
	}
	p := filepath.Join(dir, "cap.png")
	if err := os.WriteFile(p, imagetest.LumaPNG(t, rgb3, 4, 3, 3, 8, 2, []byte{1}), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, _, ok := png.ReadLuma8FileInto(nil, p, Options{MaxBytes: 4 * 3 * 3 * 8}); !ok {
		t.Error("RGB 4×3 at exactly its 288-byte cap: declined")
	}
	if _, _, _, ok := png.ReadLuma8FileInto(nil, p, Options{MaxBytes: 4*3*3*8 - 1}); ok {
		t.Error("RGB 4×3 one byte over its cap: accepted")
	}
}
