package usenhance

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"

	"github.com/rexmle/rexmle/metrics/imageio/png"
	"github.com/rexmle/rexmle/metrics/volume"
	"github.com/rexmle/rexmle/pipeline/challenge"
)

const (
	synthW        = 72
	synthH        = 56
	synthPerOrgan = 5
	// realPairs is the official training set's pair count (1500 pairs of
	// five organs, spec usenhance.md §1; the reference splits it 1200/300).
	realPairs = 1500
)

var organs = []string{"breast", "carotid", "kidney", "liver", "thyroid"}

// frame is the size of a synthetic B-mode frame; structures (vessel,
// capsule, nodule, texture) scale with scale, speckle stays per pixel.
type frame struct {
	w, h  int
	scale float64
}

// demoFrame is the demo's 72 × 56 frame; realFrame the real frames' 512 ×
// 512 8-bit greyscale PNGs (the realistic set issue 34 timed the reference
// on: 300 pairs of 512² 8-bit PNGs; no per-image size table is at hand, so
// one size for all, not a distribution).
var (
	demoFrame = frame{synthW, synthH, 1}
	realFrame = frame{512, 512, 512.0 / synthW}
)

// scene draws the high-quality image of one synthetic B-mode frame: a
// smooth tissue texture fading with depth, an organ-specific structure
// (dark vessel, bright capsule, hypoechoic lesion) and fine speckle.
func scene(r *rand.Rand, organ int, f frame) []float64 {
	synthW, synthH := f.w, f.h
	img := make([]float64, synthW*synthH)
	cx, cy := (20+r.Float64()*32)*f.scale, (16+r.Float64()*24)*f.scale
	rad := (6 + r.Float64()*8) * f.scale
	f1, f2 := (0.15+0.2*r.Float64())/f.scale, (0.1+0.2*r.Float64())/f.scale
	ph := r.Float64() * 6
	for y := 0; y < synthH; y++ {
		depth := 1 - 0.5*float64(y)/float64(synthH)
		for x := 0; x < synthW; x++ {
			v := 110 + 30*math.Sin(f1*float64(x)+ph)*math.Cos(f2*float64(y))
			d := math.Hypot(float64(x)-cx, float64(y)-cy)
			switch organ {
			case 1: // carotid: anechoic vessel with bright wall
				if d < rad {
					v = 15
				} else if d < rad+2*f.scale {
					v = 220
				}
			case 2, 3: // kidney / liver: bright capsule line
				if math.Abs(d-rad*1.6) < 1.5*f.scale {
					v = 210
				}
			default: // breast / thyroid: hypoechoic nodule
				if d < rad {
					v = 55
				}
			}
			img[x+synthW*y] = v*depth + 6*r.NormFloat64()
		}
	}
	return img
}

// degrade makes the handheld version: 3×3 blur, lower contrast and
// multiplicative speckle.
func degrade(r *rand.Rand, hq []float64, f frame) []float64 {
	synthW, synthH := f.w, f.h
	out := make([]float64, len(hq))
	for y := 0; y < synthH; y++ {
		for x := 0; x < synthW; x++ {
			var s float64
			n := 0
			for dy := -1; dy <= 1; dy++ {
				for dx := -1; dx <= 1; dx++ {
					xx, yy := x+dx, y+dy
					if xx >= 0 && yy >= 0 && xx < synthW && yy < synthH {
						s += hq[xx+synthW*yy]
						n++
					}
				}
			}
			v := 0.7*s/float64(n) + 25
			out[x+synthW*y] = v * (1 + 0.25*r.NormFloat64())
		}
	}
	return out
}

func writeGray(path string, pix []float64, f frame) error {
	v := volume.New(volume.NewGrid(f.w, f.h), volume.Uint8)
	for i, p := range pix {
		v.Data[i] = math.Round(math.Max(0, math.Min(255, p)))
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return png.WriteFile(path, v, 8)
}

// Synthesize writes train_datasets/<organ>/{low_quality,high_quality}/<n>.png
// for five organs, as the extracted Google Drive archive has them; the
// pairs are shared out over the organs as evenly as they go. The demo's
// tiny pairs are drawn in order from one generator (their bytes are
// pinned); at the real image size each pair gets its own generator, seeded
// in order from the challenge's, so the 1500 pairs are drawn on every core
// and come out the same whatever the core count.
func (Challenge) Synthesize(ctx context.Context, rawDir string, seed int64, size challenge.SynthSize) error {
	r := rand.New(rand.NewPCG(uint64(seed), 0x05e4))
	n := size.Count(synthPerOrgan*len(organs), realPairs)
	type pair struct {
		organ, k int
		seed     uint64
	}
	var pairs []pair
	for o := range organs {
		perOrgan := n / len(organs)
		if o < n%len(organs) {
			perOrgan++
		}
		for k := 0; k < perOrgan; k++ {
			pairs = append(pairs, pair{organ: o, k: k})
		}
	}
	write := func(r *rand.Rand, p pair, f frame) error {
		hq := scene(r, p.organ, f)
		lq := degrade(r, hq, f)
		name := fmt.Sprintf("%d.png", 100+p.k)
		base := filepath.Join(rawDir, rawTrainDir, organs[p.organ])
		if err := writeGray(filepath.Join(base, highDir, name), hq, f); err != nil {
			return fmt.Errorf("synthesize: %w", err)
		}
		if err := writeGray(filepath.Join(base, lowDir, name), lq, f); err != nil {
			return fmt.Errorf("synthesize: %w", err)
		}
		return nil
	}
	if !size.RealImages() {
		for _, p := range pairs {
			if err := ctx.Err(); err != nil {
				return err
			}
			if err := write(r, p, demoFrame); err != nil {
				return err
			}
		}
		return nil
	}
	for i := range pairs {
		pairs[i].seed = r.Uint64()
	}
	return challenge.ForEach(ctx, len(pairs), func(i int) error {
		return write(rand.New(rand.NewPCG(pairs[i].seed, 0x05e4)), pairs[i], realFrame)
	})
}
