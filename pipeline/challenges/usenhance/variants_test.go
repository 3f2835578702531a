package usenhance

import (
	"image"
	"image/color"
	stdpng "image/png"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/rexmle/rexmle/metrics/quality"
)

// The benchmark's input variants beyond speckle and sector scans: what a
// real submission or answer folder may hold. Each writes a w×h picture of
// the speckle texture (scaled by gain) through Go's PNG encoder, whose
// adaptive filters use every filter type.

// writeNoisy writes 8-bit grey noise over the whole frame (no black
// window, nothing for zlib to find): the costliest 8-bit PNG to inflate.
func writeNoisy(tb testing.TB, path string, w, h int, r *rand.Rand, gain float64) {
	img := image.NewGray(image.Rect(0, 0, w, h))
	for i := range img.Pix {
		img.Pix[i] = uint8(math.Max(1, math.Min(255, gain*(40+175*r.Float64()))))
	}
	encodePNG(tb, path, img)
}

// writeDeep writes a 16-bit grey PNG whose samples span 0…4095 (a 12-bit
// scanner's range): the reference's Pillow clips them to 0…255.
func writeDeep(tb testing.TB, path string, w, h int, r *rand.Rand, gain float64) {
	img := image.NewGray16(image.Rect(0, 0, w, h))
	f1, f2 := 0.01+0.03*r.Float64(), 0.01+0.03*r.Float64()
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			base := 300 + 250*math.Sin(f1*float64(x))*math.Cos(f2*float64(y))
			v := math.Max(0, math.Min(4095, gain*base*(1+0.3*r.NormFloat64())))
			img.SetGray16(x, y, color.Gray16{Y: uint16(v)})
		}
	}
	encodePNG(tb, path, img)
}

// writeRGB writes an 8-bit RGB PNG of tinted speckle (a frame exported
// from a scanner's colour display): Pillow converts it to "L".
func writeRGB(tb testing.TB, path string, w, h int, r *rand.Rand, gain float64) {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	f1, f2 := 0.01+0.03*r.Float64(), 0.01+0.03*r.Float64()
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			base := 110 + 50*math.Sin(f1*float64(x))*math.Cos(f2*float64(y))
			p := math.Max(0, math.Min(255, gain*base*(1+0.2*r.NormFloat64())))
			img.SetNRGBA(x, y, color.NRGBA{R: uint8(p), G: uint8(p * 0.9), B: uint8(math.Min(255, p*1.1)), A: 255})
		}
	}
	encodePNG(tb, path, img)
}

func encodePNG(tb testing.TB, path string, img image.Image) {
	tb.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		tb.Fatal(err)
	}
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	if err := stdpng.Encode(f, img); err != nil {
		f.Close()
		tb.Fatal(err)
	}
	if err := f.Close(); err != nil {
		tb.Fatal(err)
	}
}

// TestScorePairVariantsMatchFloat: 16-bit, RGB and noisy pictures, alone
// or against an 8-bit grey one, score through scorePair (which turns any
// mode-"L" picture into bytes for the 8-bit metrics) exactly as through the
// float path on loadGray's samples; a pair of other sizes is still resized.
func TestScorePairVariantsMatchFloat(t *testing.T) {
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(5, 6))
	type writer func(testing.TB, string, int, int, *rand.Rand, float64)
	gray := func(tb testing.TB, path string, w, h int, r *rand.Rand, gain float64) {
		writeNoisy(tb, path, w, h, r, gain*0.8)
	}
	for _, p := range []struct {
		name   string
		e, t   writer
		ew, eh int
	}{
		{"deep", writeDeep, writeDeep, 70, 50},
		{"rgb", writeRGB, writeRGB, 70, 50},
		{"noisy", writeNoisy, writeNoisy, 70, 50},
		{"rgb-on-gray", writeRGB, gray, 70, 50},
		{"gray-on-deep", gray, writeDeep, 70, 50},
		{"deep-resized", writeDeep, writeRGB, 61, 44},
	} {
		p.e(t, filepath.Join(dir, p.name+"_e.png"), p.ew, p.eh, r, 0.9)
		p.t(t, filepath.Join(dir, p.name+"_t.png"), 70, 50, r, 1)
		rw := row{p.name, p.name + "_t.png", p.name + "_e.png"}
		got := scorePair(dir, dir, rw)
		e, err1 := loadGray(filepath.Join(dir, rw.enh))
		tr, err2 := loadGray(filepath.Join(dir, rw.gt))
		if err1 != nil || err2 != nil || got.err != nil {
			t.Fatal(p.name, err1, err2, got.err)
		}
		want := scoreImages(e, tr, false, rw.enh, "x")
		if got.resized != want.resized || got.resized != (p.ew != 70) {
			t.Errorf("%s: resized %v, float path %v", p.name, got.resized, want.resized)
		}
		for _, m := range [][3]any{{"lncc", got.lncc, want.lncc}, {"ssim", got.ssim, want.ssim}, {"psnr", got.psnr, want.psnr}} {
			if math.Float64bits(m[1].(float64)) != math.Float64bits(m[2].(float64)) {
				t.Errorf("%s %s: scorePair %v, float path %v", p.name, m[0], m[1], m[2])
			}
		}
	}
}

// TestAsGray8RefusesFractionsAndOutOfRange: only whole numbers 0…255 turn
// into bytes.
func TestAsGray8RefusesFractionsAndOutOfRange(t *testing.T) {
	var buf []byte
	for _, c := range []struct {
		pix []float64
		ok  bool
	}{
		{[]float64{0, 1, 254, 255}, true},
		{[]float64{0, 1, 254, 255.5}, false},
		{[]float64{0, 1, 254, 256}, false},
		{[]float64{-1, 1, 254, 255}, false},
		{[]float64{0, math.NaN(), 2, 3}, false},
	} {
		g, ok := asGray8(quality.Image{W: 2, H: 2, Pix: c.pix}, &buf)
		if ok != c.ok {
			t.Errorf("%v: ok %v, want %v", c.pix, ok, c.ok)
		}
		if ok {
			for i, v := range c.pix {
				if float64(g.Pix[i]) != v {
					t.Errorf("%v: byte %d is %d", c.pix, i, g.Pix[i])
				}
			}
		}
	}
}
