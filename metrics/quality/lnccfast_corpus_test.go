package quality

import (
	"math"
	"math/rand/v2"
	"slices"
)

// The LNCC8Fast evidence corpus: seeded pairs (an "agent output" E and a
// truth T) of the kinds of picture the USenhance grader meets, generated
// here, none shipped.

// corpusKinds names the kinds corpusPair makes.
var corpusKinds = []string{
	"speckle", "noise", "fan", "sixteen", "rgb", "blurred", "median",
	"smooth", "plateau", "posterised", "gradient", "nearconst", "identical", "inverted",
}

// corpusPair returns a w×h pair of the given kind.
func corpusPair(kind string, w, h int, rng *rand.Rand) (e, t Gray8) {
	newG := func() Gray8 { return Gray8{W: w, H: h, Pix: make([]uint8, w*h)} }
	clip := func(v float64) uint8 { return uint8(math.Max(0, math.Min(255, math.Round(v)))) }
	f1, f2, ph := 0.01+0.05*rng.Float64(), 0.01+0.05*rng.Float64(), 6*rng.Float64()
	base := func(x, y int) float64 {
		return 110 + 60*math.Sin(f1*float64(x)+ph)*math.Cos(f2*float64(y))
	}
	speck := func(gain, sd float64) Gray8 {
		g := newG()
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				g.Pix[y*w+x] = clip(gain * base(x, y) * (1 + sd*rng.NormFloat64()))
			}
		}
		return g
	}
	switch kind {
	case "speckle":
		return speck(1, 0.2), speck(0.9, 0.2)
	case "noise": // full-frame noise, correlated
		e, t = newG(), newG()
		for i := range e.Pix {
			v := 255 * rng.Float64()
			t.Pix[i] = clip(v)
			e.Pix[i] = clip(v + 40*rng.NormFloat64())
		}
		return e, t
	case "fan": // sector scan, black surround
		e, t = speck(1, 0.2), speck(0.9, 0.25)
		tan := math.Tan((20 + 30*rng.Float64()) * math.Pi / 180)
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				dx, dy := float64(x)-float64(w)/2, float64(y)+1
				if math.Abs(dx) > tan*dy || dx*dx+dy*dy > 0.9*float64(h*h) {
					e.Pix[y*w+x], t.Pix[y*w+x] = 0, 0
				}
			}
		}
		return e, t
	case "sixteen": // 16-bit picture read as mode "L": clipped at 255
		e, t = newG(), newG()
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				v := 3 * base(x, y)
				t.Pix[y*w+x] = clip(v * (1 + 0.2*rng.NormFloat64()))
				e.Pix[y*w+x] = clip(v * (1 + 0.3*rng.NormFloat64()))
			}
		}
		return e, t
	case "rgb": // luma of a colour picture, Pillow's weights
		luma := func(sd float64) Gray8 {
			g := newG()
			for y := 0; y < h; y++ {
				for x := 0; x < w; x++ {
					b := base(x, y)
					r, gr, bl := clip(b*(1+sd*rng.NormFloat64())), clip(0.8*b*(1+sd*rng.NormFloat64())), clip(1.2*b)
					g.Pix[y*w+x] = uint8((19595*int(r) + 38470*int(gr) + 7471*int(bl) + 32768) >> 16)
				}
			}
			return g
		}
		return luma(0.2), luma(0.15)
	case "blurred": // box or Gaussian smoothing of a noisy truth
		t = speck(1, 0.2)
		if rng.IntN(2) == 0 {
			return boxBlur8(t, 1+rng.IntN(4)), t
		}
		return gaussBlur8(t, 0.7+2*rng.Float64()), t
	case "median":
		t = speck(1, 0.25)
		return median8(t, 1+rng.IntN(2)), t
	case "smooth": // large smooth regions with tiny variance
		e, t = newG(), newG()
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				v := 100 + 0.05*float64(x) + 0.03*float64(y)
				t.Pix[y*w+x] = clip(v + 0.6*rng.NormFloat64())
				e.Pix[y*w+x] = clip(v + 0.4*rng.NormFloat64())
			}
		}
		return e, t
	case "plateau": // saturated, uniform grey, text/caliper overlays
		e, t = speck(1.3, 0.2), speck(1.2, 0.2)
		for n := 0; n < 3; n++ {
			x0, y0 := rng.IntN(w), rng.IntN(h)
			x1, y1 := min(w, x0+1+rng.IntN(w/2+1)), min(h, y0+1+rng.IntN(h/2+1))
			v := []uint8{255, 128, 0, uint8(rng.IntN(256))}[rng.IntN(4)]
			for y := y0; y < y1; y++ {
				for x := x0; x < x1; x++ {
					e.Pix[y*w+x] = v
					if n%2 == 0 {
						t.Pix[y*w+x] = v
					}
				}
			}
		}
		for n := 0; n < 20; n++ { // caliper crosses and text dots
			x, y := rng.IntN(w), rng.IntN(h)
			for d := -2; d <= 2; d++ {
				if xx := x + d; xx >= 0 && xx < w {
					e.Pix[y*w+xx], t.Pix[y*w+xx] = 255, 255
				}
				if yy := y + d; yy >= 0 && yy < h {
					e.Pix[yy*w+x], t.Pix[yy*w+x] = 255, 255
				}
			}
		}
		return e, t
	case "posterised": // a few grey levels
		e, t = speck(1, 0.2), speck(1, 0.2)
		levels := 2 + rng.IntN(5)
		for _, g := range []Gray8{e, t} {
			for i, v := range g.Pix {
				g.Pix[i] = uint8(int(v) * levels / 256 * (255 / (levels - 1)))
			}
		}
		return e, t
	case "gradient":
		e, t = newG(), newG()
		ax, ay := rng.Float64()*2, rng.Float64()*2
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				t.Pix[y*w+x] = clip(ax*float64(x) + ay*float64(y))
				e.Pix[y*w+x] = clip(ax*float64(x) + ay*float64(y) + 2*rng.NormFloat64())
			}
		}
		return e, t
	case "nearconst": // constant with a few different pixels
		e, t = newG(), newG()
		ve, vt := uint8(rng.IntN(256)), uint8(rng.IntN(256))
		for i := range e.Pix {
			e.Pix[i], t.Pix[i] = ve, vt
		}
		for n := rng.IntN(4); n > 0; n-- {
			e.Pix[rng.IntN(len(e.Pix))] = uint8(rng.IntN(256))
			t.Pix[rng.IntN(len(t.Pix))] = uint8(rng.IntN(256))
		}
		return e, t
	case "identical":
		e = speck(1, 0.2)
		return e, Gray8{W: w, H: h, Pix: slices.Clone(e.Pix)}
	case "inverted":
		e = speck(1, 0.2)
		t = newG()
		for i, v := range e.Pix {
			t.Pix[i] = 255 - v
		}
		return e, t
	}
	panic("corpusPair: unknown kind " + kind)
}

// corpusSize draws a picture size: mostly ultrasound-like frames, some
// small ones down to the 11×11 window, non-square, up to maxW×maxH.
func corpusSize(rng *rand.Rand, maxW, maxH int) (w, h int) {
	side := func(most int) int {
		if rng.IntN(4) == 0 {
			return 11 + rng.IntN(40)
		}
		return 11 + rng.IntN(most-10)
	}
	return side(maxW), side(maxH)
}

// boxBlur8 is a (2r+1)² box mean with clamped borders, rounded.
func boxBlur8(g Gray8, r int) Gray8 {
	out := Gray8{W: g.W, H: g.H, Pix: make([]uint8, len(g.Pix))}
	for y := 0; y < g.H; y++ {
		for x := 0; x < g.W; x++ {
			s, n := 0, 0
			for dy := -r; dy <= r; dy++ {
				for dx := -r; dx <= r; dx++ {
					yy, xx := min(max(y+dy, 0), g.H-1), min(max(x+dx, 0), g.W-1)
					s += int(g.Pix[yy*g.W+xx])
					n++
				}
			}
			out.Pix[y*g.W+x] = uint8((s + n/2) / n)
		}
	}
	return out
}

// gaussBlur8 is a separable Gaussian blur (σ, radius 3σ, clamped borders),
// rounded.
func gaussBlur8(g Gray8, sigma float64) Gray8 {
	r := int(math.Ceil(3 * sigma))
	k := make([]float64, 2*r+1)
	var sum float64
	for i := range k {
		d := float64(i - r)
		k[i] = math.Exp(-d * d / (2 * sigma * sigma))
		sum += k[i]
	}
	tmp := make([]float64, len(g.Pix))
	for y := 0; y < g.H; y++ {
		for x := 0; x < g.W; x++ {
			var s float64
			for i, kv := range k {
				xx := min(max(x+i-r, 0), g.W-1)
				s += kv * float64(g.Pix[y*g.W+xx])
			}
			tmp[y*g.W+x] = s / sum
		}
	}
	out := Gray8{W: g.W, H: g.H, Pix: make([]uint8, len(g.Pix))}
	for y := 0; y < g.H; y++ {
		for x := 0; x < g.W; x++ {
			var s float64
			for i, kv := range k {
				yy := min(max(y+i-r, 0), g.H-1)
				s += kv * tmp[yy*g.W+x]
			}
			out.Pix[y*g.W+x] = uint8(math.Round(s / sum))
		}
	}
	return out
}

// median8 is a (2r+1)² median filter with clamped borders.
func median8(g Gray8, r int) Gray8 {
	out := Gray8{W: g.W, H: g.H, Pix: make([]uint8, len(g.Pix))}
	win := make([]uint8, 0, (2*r+1)*(2*r+1))
	for y := 0; y < g.H; y++ {
		for x := 0; x < g.W; x++ {
			win = win[:0]
			for dy := -r; dy <= r; dy++ {
				for dx := -r; dx <= r; dx++ {
					yy, xx := min(max(y+dy, 0), g.H-1), min(max(x+dx, 0), g.W-1)
					win = append(win, g.Pix[yy*g.W+xx])
				}
			}
			slices.Sort(win)
			out.Pix[y*g.W+x] = win[len(win)/2]
		}
	}
	return out
}
