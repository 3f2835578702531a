package panthercommon

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"

	"github.com/rexmle/rexmle/metrics/imageio/metaimage"
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
	caseBytes := t.caseBytes(realSize)
	err := challenge.ForEach(ctx, n, func(i int) error {
		release, err := challenge.ReserveSynthMemory(ctx, caseBytes)
		if err != nil {
			return err
		}
		defer release()
		c := t.drawCase(seed, uint64(i+1), realSize)
		id := t.caseID(t.Synth.FirstPID + i)
		if err := c.writeImage(filepath.Join(rawDir, "ImagesTr", id+"_0000.mha")); err != nil {
			return err
		}
		return c.writeLabel(filepath.Join(rawDir, "LabelsTr", id+".mha"))
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
		release, err := challenge.ReserveSynthMemory(ctx, caseBytes)
		if err != nil {
			return err
		}
		defer release()
		c := t.drawCase(seed, stream0+uint64(i), realSize)
		return c.writeImage(filepath.Join(dir, fmt.Sprintf("%d_0002_0000.mha", t.Synth.FirstPID+500+i)))
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

// Structures of a case, as bits of its anatomy byte (they overlap).
const (
	inBody uint8 = 1 << iota
	inAorta
	inPancreas
)

// ctCase is a drawn case before its image: the grid and origin, the
// tumour label and anatomy bits of every voxel (a byte each), the mean
// intensity of each anatomy, the smoothed noise, the gain and the
// generator of the per-voxel noise. Its image is computed slice by slice as
// it is written, so a case holds two bytes a voxel, not float64 volumes.
type ctCase struct {
	g       volume.Grid
	origin  [3]float64
	lab     []uint8 // 1 in the tumour
	anatomy []uint8 // inBody | inAorta | inPancreas
	mean    [8]float64
	tumour  float64 // the tumour's mean
	noise   medseg.Slices
	gain    float64
	rng     *rand.Rand
}

// caseBytes bounds the memory a case holds while it is drawn and written:
// two bytes a voxel, the noise smoother's five float64 planes and the
// image slice (the demo's whole noise is tiny), the compressed image (at
// most its raw size) and the writers' buffers.
func (t Task) caseBytes(realSize bool) int64 {
	shape := t.Synth.Shape
	if realSize {
		shape = t.Synth.RealShape
	}
	plane := int64(shape[0]+5) * int64(shape[1]+5)
	voxels := plane * int64(shape[2]+2)
	return 4*voxels + 44*plane + 4<<20
}

// noiseStream marks the generator stream of a real-size case's smoothed
// noise (case streams stay below 2⁴¹).
const noiseStream = 1 << 62

// drawCase draws one case; realSize: at the real image size, with the aorta
// (11 mm radius) and pancreas (8–12 mm) at their anatomical sizes. The
// demo's sizes keep the order of their draws (the smoothed noise drawn
// whole, before the gain, from the case's generator; Smooth's arithmetic),
// which their recorded digests pin; the real size draws the noise
// (medseg.UnitNoise) from a stream of its own, smoothed slice by slice.
func (t Task) drawCase(seed int64, stream uint64, realSize bool) *ctCase {
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
	c := &ctCase{g: g, lab: make([]uint8, n), anatomy: make([]uint8, n), rng: rng}
	c.origin = [3]float64{-100, -80, 20 * rng.Float64()}
	mark := func(bit uint8) func(int) { return func(i int) { c.anatomy[i] |= bit } }
	nx, ny, nz := float64(g.Shape[0]), float64(g.Shape[1]), float64(g.Shape[2])
	medseg.EllipsoidRows(g, [3]float64{nx / 2, ny / 2, nz / 2}, [3]float64{nx * 0.47, ny * 0.42, nz * 5}, func(start, end int) {
		for i := range c.anatomy[start:end] {
			c.anatomy[start+i] |= inBody
		}
	})
	aortaR := 3.5 * g.Spacing[0]
	if realSize {
		aortaR = 11
	}
	medseg.Tube(g, [][3]float64{{nx * 0.55, ny * 0.62, -1}, {nx * 0.55, ny * 0.62, nz}}, aortaR, g.Spacing, mark(inAorta))
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
	medseg.Tube(g, pts, radius, g.Spacing, mark(inPancreas))
	// Tumour: an ellipsoid centred on the pancreas.
	seg := rng.IntN(len(pts) - 1)
	f := rng.Float64()
	var ctr, r [3]float64
	for a := 0; a < 3; a++ {
		ctr[a] = pts[seg][a] + f*(pts[seg+1][a]-pts[seg][a])
		r[a] = (6 + 6*rng.Float64()) / g.Spacing[a]
	}
	medseg.Ellipsoid(g, ctr, r, func(i int) {
		if c.anatomy[i]&inBody != 0 {
			c.lab[i] = 1
		}
	})
	// Mean intensity by anatomy, the pancreas over the aorta over the body.
	for bits := range c.mean {
		switch b := uint8(bits); {
		case b&inPancreas != 0:
			c.mean[bits] = 520
		case b&inAorta != 0:
			c.mean[bits] = 820
		case b&inBody != 0:
			c.mean[bits] = 180
		default:
			c.mean[bits] = 10
		}
	}
	c.tumour = 520 * cfg.TumourGain
	c.noise = medseg.SmoothedNoise(g, !realSize, rng, medseg.NewRand(seed, stream|noiseStream))
	c.gain = 0.85 + 0.3*rng.Float64()
	return c
}

// header is the geometry of the case's files.
func (c *ctCase) header() *volume.Volume {
	return &volume.Volume{Grid: c.g, Origin: c.origin, Channels: 1}
}

// fillSlice computes slice k of the image; it is called for k = 0, 1, …
// in order (the noise is drawn as it goes).
func (c *ctCase) fillSlice(k int, img []int16) {
	plane := len(img)
	noise := c.noise.Next()
	lab, anatomy := c.lab[k*plane:(k+1)*plane], c.anatomy[k*plane:(k+1)*plane]
	for i := range img {
		mean := c.mean[anatomy[i]]
		if lab[i] == 1 {
			mean = c.tumour
		}
		v := c.gain * (mean + 150*noise[i] + 35*c.rng.NormFloat64())
		if v < 0 {
			v = 0 // math.Max(0, v) for the finite v drawn here
		}
		img[i] = medseg.ClampInt16(math.Round(v))
	}
}

// writeImage writes the image as a compressed int16 MetaImage, a slice at
// a time; it draws the noise, so it runs once per case.
func (c *ctCase) writeImage(path string) error {
	w, err := metaimage.Create(path, c.header(), volume.Int16, true)
	if err != nil {
		return err
	}
	return medseg.WriteInt16Slices(w, c.g, c.fillSlice)
}

// writeLabel writes the tumour label as a compressed uint8 MetaImage.
func (c *ctCase) writeLabel(path string) error {
	w, err := metaimage.Create(path, c.header(), volume.Uint8, true)
	if err != nil {
		return err
	}
	return medseg.WriteUint8(w, c.lab)
}
