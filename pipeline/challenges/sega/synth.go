package sega

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"

	"github.com/rexmle/rexmle/metrics/imageio/nrrd"
	"github.com/rexmle/rexmle/metrics/volume"
	"github.com/rexmle/rexmle/pipeline/challenge"
	"github.com/rexmle/rexmle/pipeline/challenges/medseg"
)

// institutions are the three AVT sources with the case counts Synthesize
// writes by default and the real dataset's (D1–D18, K1–K20, R1–R18: 56
// cases, spec seg_a.md §3). Volumes are small by default and CTA-sized
// when the size asks for real images (realGeometry).
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
// Cases are independent (a stream each): written on the bounded worker
// pool, so a real-size dataset never holds more than a few volumes at once.
func (Challenge) Synthesize(ctx context.Context, rawDir string, seed int64, size challenge.SynthSize) error {
	type job struct {
		dir, id string
		stream  uint64
	}
	var jobs []job
	counts := instCases(size)
	for i, inst := range institutions {
		for c := 1; c <= counts[i]; c++ {
			id := fmt.Sprintf("%s%d", inst.Prefix, c)
			jobs = append(jobs, job{filepath.Join(rawDir, inst.Name, inst.Name, id), id, uint64(len(jobs) + 1)})
		}
	}
	geo := demoGeometry
	if size.RealImages() {
		geo = realGeometry
	}
	return challenge.ForEach(ctx, len(jobs), func(i int) error {
		j := jobs[i]
		if err := os.MkdirAll(j.dir, 0o755); err != nil {
			return err
		}
		release, err := challenge.ReserveSynthMemory(ctx, geo.caseBytes())
		if err != nil {
			return err
		}
		defer release()
		if err := drawCase(seed, j.stream, geo).write(filepath.Join(j.dir, j.id)); err != nil {
			return fmt.Errorf("synthesize %s: %w", j.id, err)
		}
		return nil
	})
}

// geometry is the size of a synthetic CTA and of its anatomy: grid shape
// (base + a uniform draw below span, per axis), spacing (base + span draw,
// mm; y as x) and structure sizes in mm.
type geometry struct {
	shape, shapeSpan  [3]int
	spacingXY, spanXY float64
	spacingZ, spanZ   float64
	aorta, aortaSpan  float64 // aortic radius
	renal, bone       float64 // renal artery and spine radii
	kidney            [3]float64
	separable         bool // draw and smooth the noise slice by slice (medseg.SmoothedNoise)
}

// caseBytes bounds the memory a case of the geometry holds while it is
// drawn and written: a label and a tissue byte per voxel, the noise
// smoother's five float64 planes, the image slice and its encoding, and
// the writer's buffers.
func (geo geometry) caseBytes() int64 {
	plane := int64(geo.shape[0]+geo.shapeSpan[0]-1) * int64(geo.shape[1]+geo.shapeSpan[1]-1)
	return 2*plane*int64(geo.shape[2]+geo.shapeSpan[2]-1) + 44*plane + 4<<20
}

// demoGeometry is the demo's tiny volume (44–51 × 40–47 × 36–43 voxels).
var demoGeometry = geometry{
	shape: [3]int{44, 40, 36}, shapeSpan: [3]int{8, 8, 8},
	spacingXY: 0.9, spanXY: 0.2, spacingZ: 1.5, spanZ: 1,
	aorta: 4, aortaSpan: 1.5, renal: 2, bone: 5.5, kidney: [3]float64{5, 7, 10},
}

// realGeometry is an AVT CTA at its real size: the standard 512 × 512 CT
// matrix with 0.6–0.9 mm pixels, and 250–449 slices of 1.25–2 mm covering
// the aorta from the arch to the iliac bifurcation (~400–700 mm). The
// slice count is drawn uniformly per case (median ~350). Source: no
// per-case size table is at hand (the AVT data paper describes 512 × 512
// CTAs of varying length); the range is our estimate, consistent with the
// download's size (config.yaml: ~15 GB for 56 cases, ~270 MB a case of
// gzip NRRD pairs; here 350 × 512² int16 is 183 MB before gzip).
// Anatomy in mm: aortic radius 10–14 mm, iliacs 0.6 of it, renal arteries
// 3 mm, spine 15 mm, kidneys 25 × 35 × 50 mm.
var realGeometry = geometry{
	shape: [3]int{512, 512, 250}, shapeSpan: [3]int{1, 1, 200},
	spacingXY: 0.6, spanXY: 0.3, spacingZ: 1.25, spanZ: 0.75,
	aorta: 10, aortaSpan: 4, renal: 3, bone: 15, kidney: [3]float64{25, 35, 50},
	separable: true,
}

// Tissue classes of a case, in the order of precedence where structures
// overlap (the aorta's label outranks them all).
const (
	air uint8 = iota
	body
	kidney
	bone
)

// tissueMean is each class's mean intensity (HU).
var tissueMean = [...]float64{air: -1000, body: 40, kidney: 190, bone: 700}

// ctaCase is a drawn case before its image: the grid, the label and tissue
// class of every voxel (a byte each), the aorta's contrast, the smoothed
// noise and the generator of the per-voxel noise. Its image is computed
// slice by slice as it is written, so a case holds two bytes a voxel, not
// float64 volumes.
type ctaCase struct {
	g        volume.Grid
	lab      []uint8 // 1 in the aorta and its branches
	tissue   []uint8 // air, body, kidney or bone
	contrast float64
	noise    medseg.Slices // smoothed noise, slice by slice
	rng      *rand.Rand    // per-voxel noise
}

// drawCase draws the anatomy of a case. The demo's geometry keeps the
// order of its draws (the smoothed noise drawn whole, before the contrast,
// from the case's generator; Smooth's arithmetic), which its recorded
// digests pin; the real size draws the noise (medseg.UnitNoise) from a
// stream of its own and smooths it slice by slice (medseg.SmoothedNoise).
func drawCase(seed int64, stream uint64, geo geometry) *ctaCase {
	rng := medseg.NewRand(seed, stream)
	g := volume.NewGrid(geo.shape[0]+rng.IntN(geo.shapeSpan[0]), geo.shape[1]+rng.IntN(geo.shapeSpan[1]), geo.shape[2]+rng.IntN(geo.shapeSpan[2]))
	g.Spacing = [3]float64{geo.spacingXY + geo.spanXY*rng.Float64(), 0, geo.spacingZ + geo.spanZ*rng.Float64()}
	g.Spacing[1] = g.Spacing[0]
	n := g.Len()
	nx, ny, nz := float64(g.Shape[0]), float64(g.Shape[1]), float64(g.Shape[2])
	c := &ctaCase{g: g, lab: make([]uint8, n), tissue: make([]uint8, n), rng: rng}
	mark := func(class uint8) func(int) {
		return func(i int) { c.tissue[i] = max(c.tissue[i], class) }
	}
	medseg.EllipsoidRows(g, [3]float64{nx / 2, ny / 2, nz / 2}, [3]float64{nx * 0.46, ny * 0.40, nz * 5}, func(start, end int) {
		for i, t := range c.tissue[start:end] {
			c.tissue[start+i] = max(t, body)
		}
	})
	medseg.Tube(g, [][3]float64{{nx * 0.5, ny * 0.74, -1}, {nx * 0.5, ny * 0.74, nz}}, geo.bone, g.Spacing, mark(bone))
	// Aorta: descends from the top, bifurcates at zb into the iliacs.
	ax, ay := nx*(0.5+0.06*(rng.Float64()-0.5)), ny*0.55
	zb := nz * (0.3 + 0.1*rng.Float64())
	r := geo.aorta + geo.aortaSpan*rng.Float64() // mm
	vessel := func(pts [][3]float64, radius float64) {
		medseg.Tube(g, pts, radius, g.Spacing, func(i int) { c.lab[i] = 1 })
	}
	vessel([][3]float64{{ax, ay, nz}, {ax, ay + 1, zb}}, r)
	spread := nx * (0.18 + 0.06*rng.Float64())
	vessel([][3]float64{{ax, ay + 1, zb}, {ax - spread, ay + 2, -1}}, r*0.6)
	vessel([][3]float64{{ax, ay + 1, zb}, {ax + spread, ay + 2, -1}}, r*0.6)
	zr := zb + (nz-zb)*(0.4+0.2*rng.Float64())
	vessel([][3]float64{{ax, ay, zr}, {ax - nx*0.25, ay + 2, zr + 1}}, geo.renal)
	vessel([][3]float64{{ax, ay, zr}, {ax + nx*0.25, ay + 2, zr - 1}}, geo.renal)
	// Kidneys enhance too (arterial phase): a trap for a pure intensity band.
	for _, side := range []float64{-1, 1} {
		medseg.Ellipsoid(g, [3]float64{ax + side*nx*0.3, ay + 3, zr}, [3]float64{geo.kidney[0] / g.Spacing[0], geo.kidney[1] / g.Spacing[1], geo.kidney[2] / g.Spacing[2]}, mark(kidney))
	}
	c.noise = medseg.SmoothedNoise(g, !geo.separable, rng, medseg.NewRand(seed, stream|noiseStream))
	c.contrast = 200 + 250*rng.Float64()
	return c
}

// noiseStream marks the generator stream of a real-size case's smoothed
// noise (case streams are small numbers).
const noiseStream = 1 << 62

// fillSlice computes slice k of the image; it is called for k = 0, 1, …
// in order (the noise is drawn as it goes).
func (c *ctaCase) fillSlice(k int, img []int16) {
	plane := len(img)
	noise := c.noise.Next()
	lab, tissue := c.lab[k*plane:(k+1)*plane], c.tissue[k*plane:(k+1)*plane]
	for i := range img {
		mean := tissueMean[tissue[i]]
		if lab[i] == 1 {
			mean = c.contrast
		}
		img[i] = medseg.ClampInt16(math.Round(mean + 150*noise[i] + 60*c.rng.NormFloat64()))
	}
}

// write writes the case's image and label as stem.nrrd (int16) and
// stem.seg.nrrd (uint8), gzip-encoded, the image a slice at a time.
func (c *ctaCase) write(stem string) error {
	hdr := &volume.Volume{Grid: c.g, Channels: 1}
	w, err := nrrd.Create(stem+".nrrd", hdr, volume.Int16, true)
	if err != nil {
		return err
	}
	if err := medseg.WriteInt16Slices(w, c.g, c.fillSlice); err != nil {
		return err
	}
	if w, err = nrrd.Create(stem+".seg.nrrd", hdr, volume.Uint8, true); err != nil {
		return err
	}
	return medseg.WriteUint8(w, c.lab)
}
