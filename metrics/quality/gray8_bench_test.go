package quality

import (
	"math"
	"math/rand/v2"
	"testing"
)

// speckle8 returns a w×h 8-bit pair of speckled texture (the USenhance
// benchmark's kind of frame).
func speckle8(w, h int, seed uint64) (Gray8, Gray8) {
	rng := rand.New(rand.NewPCG(seed, 7))
	a := Gray8{W: w, H: h, Pix: make([]uint8, w*h)}
	b := Gray8{W: w, H: h, Pix: make([]uint8, w*h)}
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			base := 110 + 50*math.Sin(0.02*float64(x))*math.Cos(0.03*float64(y))
			e := base * (1 + 0.2*rng.NormFloat64())
			t := 0.9*base*(1+0.2*rng.NormFloat64()) + 3
			a.Pix[y*w+x] = uint8(math.Max(1, math.Min(255, math.Round(e))))
			b.Pix[y*w+x] = uint8(math.Max(1, math.Min(255, math.Round(t))))
		}
	}
	return a, b
}

func BenchmarkSSIM8x512(b *testing.B) {
	e, t := speckle8(512, 512, 1)
	opt := SSIMOptions{DataRange: JointRange8(e, t), Float32: true}
	for b.Loop() {
		if _, err := SSIM8(e, t, opt); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkLNCC8x512(b *testing.B) {
	e, t := speckle8(512, 512, 1)
	for b.Loop() {
		if _, err := LNCC8(e, t, 11); err != nil {
			b.Fatal(err)
		}
	}
}

// fan8 returns a w×h 8-bit pair of sector scans: speckle inside a fan
// (apex at the top centre, ±35°, radius 0.95·h), 0 outside, as real
// ultrasound frames are.
func fan8(w, h int, seed uint64) (Gray8, Gray8) {
	a, b := speckle8(w, h, seed)
	tan := math.Tan(35 * math.Pi / 180)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			dx, dy := float64(x)-float64(w)/2, float64(y)+1
			if math.Abs(dx) > tan*dy || dx*dx+dy*dy > 0.95*0.95*float64(h*h) {
				a.Pix[y*w+x], b.Pix[y*w+x] = 0, 0
			}
		}
	}
	return a, b
}

func BenchmarkSSIM8Fan512(b *testing.B) {
	e, t := fan8(512, 512, 1)
	opt := SSIMOptions{DataRange: JointRange8(e, t), Float32: true}
	for b.Loop() {
		if _, err := SSIM8(e, t, opt); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkLNCC8Fan512(b *testing.B) {
	e, t := fan8(512, 512, 1)
	for b.Loop() {
		if _, err := LNCC8(e, t, 11); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLNCCSSIM8x512 and BenchmarkLNCCSSIM8Apart512 time one 512×512
// speckle pair's LNCC and SSIM together (SSIM's row pass in the box
// kernel's shadow) and as two calls; the Fan ones the same on sector scans
// (which LNCCSSIM8 does not fuse, see fuseCoverage).
func BenchmarkLNCCSSIM8x512(b *testing.B)        { benchLNCCSSIM8(b, speckle8, true) }
func BenchmarkLNCCSSIM8Apart512(b *testing.B)    { benchLNCCSSIM8(b, speckle8, false) }
func BenchmarkLNCCSSIM8Fan512(b *testing.B)      { benchLNCCSSIM8(b, fan8, true) }
func BenchmarkLNCCSSIM8ApartFan512(b *testing.B) { benchLNCCSSIM8(b, fan8, false) }

func benchLNCCSSIM8(b *testing.B, pair func(w, h int, seed uint64) (Gray8, Gray8), together bool) {
	e, t := pair(512, 512, 1)
	opt := SSIMOptions{DataRange: JointRange8(e, t), Float32: true}
	for b.Loop() {
		if together {
			if _, _, err := LNCCSSIM8(e, t, 11, opt); err != nil {
				b.Fatal(err)
			}
			continue
		}
		if _, err := LNCC8(e, t, 11); err != nil {
			b.Fatal(err)
		}
		if _, err := SSIM8(e, t, opt); err != nil {
			b.Fatal(err)
		}
	}
}
