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
		img, lab := synthCase(seed, j.stream, geo)
		if err := imageio.WriteNRRDFile(filepath.Join(j.dir, j.id+".nrrd"), img, volume.Int16, true); err != nil {
			return fmt.Errorf("synthesize %s: %w", j.id, err)
		}
		if err := imageio.WriteNRRDFile(filepath.Join(j.dir, j.id+".seg.nrrd"), lab, volume.Uint8, true); err != nil {
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
	separable         bool // smooth the noise with medseg.SmoothSeparable
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

func synthCase(seed int64, stream uint64, geo geometry) (img, lab *volume.Volume) {
	rng := medseg.NewRand(seed, stream)
	g := volume.NewGrid(geo.shape[0]+rng.IntN(geo.shapeSpan[0]), geo.shape[1]+rng.IntN(geo.shapeSpan[1]), geo.shape[2]+rng.IntN(geo.shapeSpan[2]))
	g.Spacing = [3]float64{geo.spacingXY + geo.spanXY*rng.Float64(), 0, geo.spacingZ + geo.spanZ*rng.Float64()}
	g.Spacing[1] = g.Spacing[0]
	n := g.Len()
	nx, ny, nz := float64(g.Shape[0]), float64(g.Shape[1]), float64(g.Shape[2])
	lab = volume.New(g, volume.Uint8)
	img = volume.New(g, volume.Int16)
	body := make([]bool, n)
	medseg.Ellipsoid(g, [3]float64{nx / 2, ny / 2, nz / 2}, [3]float64{nx * 0.46, ny * 0.40, nz * 5}, func(i int) { body[i] = true })
	bone := make([]bool, n)
	medseg.Tube(g, [][3]float64{{nx * 0.5, ny * 0.74, -1}, {nx * 0.5, ny * 0.74, nz}}, geo.bone, g.Spacing, func(i int) { bone[i] = true })
	// Aorta: descends from the top, bifurcates at zb into the iliacs.
	ax, ay := nx*(0.5+0.06*(rng.Float64()-0.5)), ny*0.55
	zb := nz * (0.3 + 0.1*rng.Float64())
	r := geo.aorta + geo.aortaSpan*rng.Float64() // mm
	vessel := func(pts [][3]float64, radius float64) {
		medseg.Tube(g, pts, radius, g.Spacing, func(i int) { lab.Data[i] = 1 })
	}
	vessel([][3]float64{{ax, ay, nz}, {ax, ay + 1, zb}}, r)
	spread := nx * (0.18 + 0.06*rng.Float64())
	vessel([][3]float64{{ax, ay + 1, zb}, {ax - spread, ay + 2, -1}}, r*0.6)
	vessel([][3]float64{{ax, ay + 1, zb}, {ax + spread, ay + 2, -1}}, r*0.6)
	zr := zb + (nz-zb)*(0.4+0.2*rng.Float64())
	vessel([][3]float64{{ax, ay, zr}, {ax - nx*0.25, ay + 2, zr + 1}}, geo.renal)
	vessel([][3]float64{{ax, ay, zr}, {ax + nx*0.25, ay + 2, zr - 1}}, geo.renal)
	// Kidneys enhance too (arterial phase): a trap for a pure intensity band.
	kidney := make([]bool, n)
	for _, side := range []float64{-1, 1} {
		medseg.Ellipsoid(g, [3]float64{ax + side*nx*0.3, ay + 3, zr}, [3]float64{geo.kidney[0] / g.Spacing[0], geo.kidney[1] / g.Spacing[1], geo.kidney[2] / g.Spacing[2]}, func(i int) { kidney[i] = true })
	}
	noise := make([]float64, n)
	for i := range noise {
		noise[i] = rng.NormFloat64()
	}
	if geo.separable {
		noise = medseg.SmoothSeparable(g, noise)
	} else {
		noise = medseg.Smooth(g, noise)
	}
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
