package panthercommon

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

// caseID returns the image id of patient pid for the task
// (task 1: "<pid>_0001", task 2: "<pid>").
func (t Task) caseID(pid int) string {
	if t.IDFields == 2 {
		return fmt.Sprintf("%d_0001", pid)
	}
	return fmt.Sprintf("%d", pid)
}

// Synthesize writes a PANTHER-like dataset: raw/ImagesTr/<id>_0000.mha
// and raw/LabelsTr/<id>.mha (labels 0 background, 1 tumour; the pancreas is visible in the image only), plus
// raw/ImagesTr_unlabeled for task 1. Each case is an abdomen-shaped ellipse
// with a bright aorta, a curved pancreas and a tumour blob on it, on an
// anisotropic grid whose in-plane spacings sometimes differ.
// The labelled case count is size.Count(Synth.Cases, Synth.RealCases);
// volumes are tiny unless size.RealImages (then Synth.RealShape, and the
// unlabeled pool is Synth.RealUnlabeled scaled with the labelled count).
// Cases are independent (a stream each) and written on the worker pool.
func (c Challenge) Synthesize(ctx context.Context, rawDir string, seed int64, size challenge.SynthSize) error {
	t := c.Task
	for _, d := range []string{"ImagesTr", "LabelsTr"} {
		if err := os.MkdirAll(filepath.Join(rawDir, d), 0o755); err != nil {
			return err
		}
	}
	realSize := size.RealImages()
	n := size.Count(t.Synth.Cases, t.Synth.RealCases)
	err := challenge.ForEach(ctx, n, func(i int) error {
		pid := t.Synth.FirstPID + i
		img, lab := t.synthCase(seed, uint64(i+1), realSize)
		id := t.caseID(pid)
		if err := imageio.WriteMetaImageFile(filepath.Join(rawDir, "ImagesTr", id+"_0000.mha"), img, volume.Int16, true); err != nil {
			return err
		}
		return imageio.WriteMetaImageFile(filepath.Join(rawDir, "LabelsTr", id+".mha"), lab, volume.Uint8, true)
	})
	if err != nil || !t.Unlabeled {
		return err
	}
	dir := filepath.Join(rawDir, "ImagesTr_unlabeled")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	stream0 := uint64(1000)
	if realSize {
		stream0 = 1 << 40 // clear of the labelled streams at any count
	}
	return challenge.ForEach(ctx, t.unlabeledCount(n, realSize), func(i int) error {
		img, _ := t.synthCase(seed, stream0+uint64(i), realSize)
		name := fmt.Sprintf("%d_0002_0000.mha", t.Synth.FirstPID+500+i)
		return imageio.WriteMetaImageFile(filepath.Join(dir, name), img, volume.Int16, true)
	})
}

// unlabeledCount is the unlabeled pool beside n labelled cases: the demo's
// few, or at the real size the real pool in proportion (at least one).
func (t Task) unlabeledCount(n int, realSize bool) int {
	if !realSize || t.Synth.RealCases == 0 {
		return t.Synth.Unlabeled
	}
	return max(1, (n*t.Synth.RealUnlabeled+t.Synth.RealCases/2)/t.Synth.RealCases)
}

// synthCase draws one case; realSize: at the real image size, with the aorta
// (11 mm radius) and pancreas (8–12 mm) at their anatomical sizes.
func (t Task) synthCase(seed int64, stream uint64, realSize bool) (img, lab *volume.Volume) {
	rng := medseg.NewRand(seed, stream)
	cfg := t.Synth
	shape, spacing := cfg.Shape, cfg.Spacing
	if realSize {
		shape, spacing = cfg.RealShape, cfg.RealSpacing
	}
	g := volume.NewGrid(shape[0]+rng.IntN(6), shape[1]+rng.IntN(6), shape[2]+rng.IntN(3))
	g.Spacing = spacing
	if rng.IntN(3) == 0 {
		g.Spacing[1] *= 1.1 // in-plane spacings differ: the reference's x/y pairing shows
	}
	n := g.Len()
	lab = volume.New(g, volume.Uint8)
	img = volume.New(g, volume.Int16)
	img.Origin = [3]float64{-100, -80, 20 * rng.Float64()}
	lab.Origin = img.Origin
	nx, ny, nz := float64(g.Shape[0]), float64(g.Shape[1]), float64(g.Shape[2])
	body := make([]bool, n)
	medseg.Ellipsoid(g, [3]float64{nx / 2, ny / 2, nz / 2}, [3]float64{nx * 0.47, ny * 0.42, nz * 5}, func(i int) { body[i] = true })
	aorta := make([]bool, n)
	aortaR := 3.5 * g.Spacing[0]
	if realSize {
		aortaR = 11
	}
	medseg.Tube(g, [][3]float64{{nx * 0.55, ny * 0.62, -1}, {nx * 0.55, ny * 0.62, nz}}, aortaR, g.Spacing, func(i int) { aorta[i] = true })
	// Pancreas: a curved tube across the upper abdomen.
	zc := nz/2 + (rng.Float64()-0.5)*nz*0.2
	pts := [][3]float64{
		{nx * 0.30, ny * 0.45, zc - 1},
		{nx * 0.45, ny * (0.50 + 0.05*rng.Float64()), zc},
		{nx * 0.62, ny * 0.48, zc + 0.5},
		{nx * 0.75, ny * (0.40 + 0.05*rng.Float64()), zc + 1},
	}
	u := rng.Float64()
	radius := (6 + 2*u) * g.Spacing[0] / 1.5
	if realSize {
		radius = 8 + 4*u
	}
	pancreas := make([]bool, n)
	medseg.Tube(g, pts, radius, g.Spacing, func(i int) { pancreas[i] = true })
	// Tumour: an ellipsoid centred on the pancreas.
	seg := rng.IntN(len(pts) - 1)
	f := rng.Float64()
	var c, r [3]float64
	for a := 0; a < 3; a++ {
		c[a] = pts[seg][a] + f*(pts[seg+1][a]-pts[seg][a])
		r[a] = (6 + 6*rng.Float64()) / g.Spacing[a]
	}
	medseg.Ellipsoid(g, c, r, func(i int) {
		if body[i] {
			lab.Data[i] = 1
		}
	})
	noise := make([]float64, n)
	for i := range noise {
		noise[i] = rng.NormFloat64()
	}
	if realSize {
		noise = medseg.SmoothSeparable(g, noise)
	} else {
		noise = medseg.Smooth(g, noise)
	}
	gain := 0.85 + 0.3*rng.Float64()
	for i := 0; i < n; i++ {
		var mean float64
		switch {
		case lab.Data[i] == 1:
			mean = 520 * cfg.TumourGain
		case pancreas[i]:
			mean = 520
		case aorta[i]:
			mean = 820
		case body[i]:
			mean = 180
		default:
			mean = 10
		}
		v := gain * (mean + 150*noise[i] + 35*rng.NormFloat64())
		img.Data[i] = math.Round(math.Max(0, v))
	}
	return img, lab
}
