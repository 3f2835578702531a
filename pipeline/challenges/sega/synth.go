package sega

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"

	"github.com/rexmle/rexmle/metrics/imageio"
	"github.com/rexmle/rexmle/metrics/volume"
	"github.com/rexmle/rexmle/pipeline/challenge"
	"github.com/rexmle/rexmle/pipeline/challenges/medseg"
)

// institutions are the three AVT sources with the case counts Synthesize
// writes by default and the real dataset's (D1–D18, K1–K20, R1–R18: 56
// cases, spec seg_a.md §3). Volumes stay small at every size.
var institutions = []struct {
	Name, Prefix string
	Cases, Real  int
}{{"Dongyang", "D", 5, 18}, {"KiTS", "K", 5, 20}, {"Rider", "R", 5, 18}}

// instCases shares n cases out over the institutions in proportion to
// their real counts (the default: five each).
func instCases(size challenge.SynthSize) []int {
	out := make([]int, len(institutions))
	if size.IsDefault() {
		for i, inst := range institutions {
			out[i] = inst.Cases
		}
		return out
	}
	realTotal := 0
	for _, inst := range institutions {
		realTotal += inst.Real
	}
	left, leftReal := size.Count(0, realTotal), realTotal
	for i, inst := range institutions {
		if i == len(institutions)-1 {
			out[i] = left
			break
		}
		_, out[i] = challenge.ShareCases(left, leftReal-inst.Real, inst.Real)
		left -= out[i]
		leftReal -= inst.Real
	}
	return out
}

// Synthesize writes a small AVT-like dataset in the layout left by
// extracting avt_dataset.zip and its nested archives:
// raw/<Institution>/<Institution>/<case>/<case>.nrrd and <case>.seg.nrrd.
// Each CTA has a body, a bright contrast-filled aorta that bifurcates into
// the iliac arteries with two renal branches, and a brighter spine.
func (Challenge) Synthesize(ctx context.Context, rawDir string, seed int64, size challenge.SynthSize) error {
	stream := uint64(0)
	counts := instCases(size)
	for i, inst := range institutions {
		for c := 1; c <= counts[i]; c++ {
			if err := ctx.Err(); err != nil {
				return err
			}
			stream++
			id := fmt.Sprintf("%s%d", inst.Prefix, c)
			dir := filepath.Join(rawDir, inst.Name, inst.Name, id)
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return err
			}
			img, lab := synthCase(seed, stream)
			if err := imageio.WriteNRRDFile(filepath.Join(dir, id+".nrrd"), img, volume.Int16, true); err != nil {
				return err
			}
			if err := imageio.WriteNRRDFile(filepath.Join(dir, id+".seg.nrrd"), lab, volume.Uint8, true); err != nil {
				return err
			}
		}
	}
	return nil
}

func synthCase(seed int64, stream uint64) (img, lab *volume.Volume) {
	rng := medseg.NewRand(seed, stream)
	g := volume.NewGrid(44+rng.IntN(8), 40+rng.IntN(8), 36+rng.IntN(8))
	g.Spacing = [3]float64{0.9 + 0.2*rng.Float64(), 0, 1.5 + rng.Float64()}
	g.Spacing[1] = g.Spacing[0]
	n := g.Len()
	nx, ny, nz := float64(g.Shape[0]), float64(g.Shape[1]), float64(g.Shape[2])
	lab = volume.New(g, volume.Uint8)
	img = volume.New(g, volume.Int16)
	body := make([]bool, n)
	medseg.Ellipsoid(g, [3]float64{nx / 2, ny / 2, nz / 2}, [3]float64{nx * 0.46, ny * 0.40, nz * 5}, func(i int) { body[i] = true })
	bone := make([]bool, n)
	medseg.Tube(g, [][3]float64{{nx * 0.5, ny * 0.74, -1}, {nx * 0.5, ny * 0.74, nz}}, 5.5, g.Spacing, func(i int) { bone[i] = true })
	// Aorta: descends from the top, bifurcates at zb into the iliacs.
	ax, ay := nx*(0.5+0.06*(rng.Float64()-0.5)), ny*0.55
	zb := nz * (0.3 + 0.1*rng.Float64())
	r := 4 + 1.5*rng.Float64() // mm
	vessel := func(pts [][3]float64, radius float64) {
		medseg.Tube(g, pts, radius, g.Spacing, func(i int) { lab.Data[i] = 1 })
	}
	vessel([][3]float64{{ax, ay, nz}, {ax, ay + 1, zb}}, r)
	spread := nx * (0.18 + 0.06*rng.Float64())
	vessel([][3]float64{{ax, ay + 1, zb}, {ax - spread, ay + 2, -1}}, r*0.6)
	vessel([][3]float64{{ax, ay + 1, zb}, {ax + spread, ay + 2, -1}}, r*0.6)
	zr := zb + (nz-zb)*(0.4+0.2*rng.Float64())
	vessel([][3]float64{{ax, ay, zr}, {ax - nx*0.25, ay + 2, zr + 1}}, 2)
	vessel([][3]float64{{ax, ay, zr}, {ax + nx*0.25, ay + 2, zr - 1}}, 2)
	// Kidneys enhance too (arterial phase): a trap for a pure intensity band.
	kidney := make([]bool, n)
	for _, side := range []float64{-1, 1} {
		medseg.Ellipsoid(g, [3]float64{ax + side*nx*0.3, ay + 3, zr}, [3]float64{5 / g.Spacing[0], 7 / g.Spacing[1], 10 / g.Spacing[2]}, func(i int) { kidney[i] = true })
	}
	noise := make([]float64, n)
	for i := range noise {
		noise[i] = rng.NormFloat64()
	}
	noise = medseg.Smooth(g, noise)
	contrast := 200 + 250*rng.Float64()
	for i := 0; i < n; i++ {
		var mean float64
		switch {
		case lab.Data[i] == 1:
			mean = contrast
		case bone[i]:
			mean = 700
		case kidney[i]:
			mean = 190
		case body[i]:
			mean = 40
		default:
			mean = -1000
		}
		img.Data[i] = math.Round(mean + 150*noise[i] + 60*rng.NormFloat64())
	}
	return img, lab
}
