package usenhance

import (
	"image"
	stdpng "image/png"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/rexmle/rexmle/metrics/imageio/png"
)

// TestScorePairGray8MatchesFloat: pairs of 8-bit grey PNGs (written by our
// encoder and by Go's, whose adaptive filters use every filter type) score
// through the 8-bit path exactly as through the float path (loadGray and
// the float metrics), including identical images and a black surround; a
// pair of different sizes takes the resize path.
func TestScorePairGray8MatchesFloat(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(9, 1))
	write := func(name string, w, h int, goEnc bool, f func(x, y int) float64) {
		path := filepath.Join(dir, name)
		if !goEnc {
			writeTestPNG(t, path, w, h, func(i, j int) float64 { return f(j, i) })
			return
		}
		img := image.NewGray(image.Rect(0, 0, w, h))
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				img.Pix[y*w+x] = uint8(f(x, y))
			}
		}
		fh, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		defer fh.Close()
		if err := stdpng.Encode(fh, img); err != nil {
			t.Fatal(err)
		}
	}
	speckle := func(gain float64) func(x, y int) float64 {
		return func(x, y int) float64 {
			base := 110 + 50*math.Sin(0.03*float64(x))*math.Cos(0.02*float64(y))
			return math.Round(math.Max(0, math.Min(255, gain*base*(1+0.2*rng.NormFloat64()))))
		}
	}
	fan := func(x, y int) float64 {
		dx := float64(x) - 60
		if math.Abs(dx) > 0.7*float64(y) || dx*dx+float64(y*y) > 90*90 {
			return 0
		}
		return float64(20 + rng.IntN(230))
	}
	type pair struct {
		name string
		w, h int
		e, t func(x, y int) float64
		goE  bool
	}
	same := speckle(1)
	cache := map[[2]int]float64{}
	sameVals := func(x, y int) float64 {
		if v, ok := cache[[2]int{x, y}]; ok {
			return v
		}
		v := same(x, y)
		cache[[2]int{x, y}] = v
		return v
	}
	for _, p := range []pair{
		{"speckle", 130, 97, speckle(0.9), speckle(1), false},
		{"goenc", 64, 80, speckle(1.1), speckle(1), true},
		{"fan", 120, 100, fan, fan, true},
		{"identical", 40, 30, sameVals, sameVals, false},
		{"tiny", 7, 9, speckle(1), speckle(1), false},
	} {
		write(p.name+"_e.png", p.w, p.h, p.goE, p.e)
		write(p.name+"_t.png", p.w, p.h, p.goE, p.t)
		r := row{p.name, p.name + "_t.png", p.name + "_e.png"}
		got := scorePair(dir, dir, r)
		e, err1 := loadGray(filepath.Join(dir, r.enh))
		tr, err2 := loadGray(filepath.Join(dir, r.gt))
		if err1 != nil || err2 != nil || got.err != nil {
			t.Fatal(err1, err2, got.err)
		}
		if _, _, _, ok := png.ReadGray8FileInto(nil, filepath.Join(dir, r.enh)); !ok {
			t.Errorf("%s: the 8-bit path was not taken", p.name)
		}
		want := scoreImages(e, tr, false, r.enh, "x")
		for _, m := range [][3]any{{"lncc", got.lncc, want.lncc}, {"ssim", got.ssim, want.ssim}, {"psnr", got.psnr, want.psnr}} {
			if math.Float64bits(m[1].(float64)) != math.Float64bits(m[2].(float64)) {
				t.Errorf("%s %s: 8-bit path %v, float path %v", p.name, m[0], m[1], m[2])
			}
		}
		if p.name == "identical" && !math.IsInf(got.psnr, 1) {
			t.Errorf("identical: psnr %v, want +Inf", got.psnr)
		}
	}
	// Different sizes: resized through the float path.
	write("small_e.png", 50, 40, false, speckle(1))
	write("big_t.png", 60, 45, true, speckle(1))
	sc := scorePair(dir, dir, row{"rs", "big_t.png", "small_e.png"})
	if sc.err != nil || !sc.resized {
		t.Fatalf("size mismatch: resized %v, err %v", sc.resized, sc.err)
	}
	// The 8-bit picture is resized from its bytes: the float path's values.
	e, err1 := loadGray(filepath.Join(dir, "small_e.png"))
	tr, err2 := loadGray(filepath.Join(dir, "big_t.png"))
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	want := scoreImages(e, tr, false, "small_e.png", "x")
	for _, m := range [][3]float64{{sc.lncc, want.lncc}, {sc.ssim, want.ssim}, {sc.psnr, want.psnr}} {
		if math.Float64bits(m[0]) != math.Float64bits(m[1]) {
			t.Errorf("resized from bytes %v, from float64 %v", m[0], m[1])
		}
	}
}
