package isles22

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"

	"github.com/rexmle/rexmle/metrics/imageio/nifti"
	"github.com/rexmle/rexmle/metrics/volume"
	"github.com/rexmle/rexmle/pipeline/challenge"
	"github.com/rexmle/rexmle/pipeline/challenges/medseg"
)

// synthCases is the number of cases Synthesize writes by default (12 train
// / 3 test); realCases is the archive's annotated training set (spec
// isles22.md §1, split 200/50). Volumes are small (36–44 × 36–44 × 18–23
// voxels) unless the size asks for real images: then DWI/ADC of 104–120 ×
// 104–120 × 64–81 voxels (~2 mm, a 210–240 mm field of view) and a 2-D
// FLAIR of twice the in-plane resolution and half the slices (~1 × 1 × 4
// mm). No per-case size table is at hand: these are our estimates of the
// median clinical protocols of the three scanner types (config.yaml),
// consistent with the download's size (1.7 GB for 250 cases, ~7 MB a case of
// four gzip NIfTI; here ~1 MB DWI + ~1 MB ADC + ~2 MB FLAIR before gzip).
const (
	synthCases = 15
	realCases  = 250
)

// Synthesize writes a small ISLES'22-like dataset in the layout of the
// extracted ISLES-2022.zip (BIDS: sub-strokecaseNNNN/ses-0001/{anat,dwi} and
// derivatives/.../_msk.nii.gz). Each case is a brain-shaped ellipsoid with
// 1–3 ellipsoidal lesions, bright on DWI and dark on ADC, on an anisotropic
// grid; FLAIR lives on its own grid, as in the real data.
func Synthesize(ctx context.Context, rawDir string, seed int64, size challenge.SynthSize) error {
	root := filepath.Join(rawDir, "ISLES-2022")
	// Cases are independent (a stream each): written on the worker pool.
	return challenge.ForEach(ctx, size.Count(synthCases, realCases), func(i int) error {
		if err := synthCase(root, i+1, seed, size.RealImages()); err != nil {
			return fmt.Errorf("synthesize isles22 case %d: %w", i+1, err)
		}
		return nil
	})
}

// Synthesize implements challenge.Challenge.
func (Challenge) Synthesize(ctx context.Context, rawDir string, seed int64, size challenge.SynthSize) error {
	return Synthesize(ctx, rawDir, seed, size)
}

func synthCase(root string, c int, seed int64, realSize bool) error {
	rng := medseg.NewRand(seed, uint64(c))
	sub := fmt.Sprintf("sub-strokecase%04d", c)
	caseID := sub + "_ses-0001"
	// Lesion and shine-through radii scale with the brain at real size.
	base, span, lesionScale := [3]int{36, 36, 18}, [3]int{9, 9, 6}, 1.0
	if realSize {
		base, span, lesionScale = [3]int{104, 104, 64}, [3]int{17, 17, 18}, 2.5
	}
	g := volume.NewGrid(base[0]+rng.IntN(span[0]), base[1]+rng.IntN(span[1]), base[2]+rng.IntN(span[2]))
	g.Spacing = [3]float64{2, 2, 2}
	if rng.IntN(2) == 0 {
		g.Spacing = [3]float64{1.8, 1.8, 2.4}
	}
	a := newStrokeAnatomy(rng, g, lesionScale)
	// Texture: smoothed noise rescaled to unit variance, plus white noise.
	noise := make([]float64, g.Len())
	for i := range noise {
		noise[i] = rng.NormFloat64()
	}
	if realSize {
		noise = medseg.SmoothSeparable(g, noise)
	} else {
		noise = medseg.Smooth(g, noise)
	}
	for i := range noise {
		noise[i] *= 5
	}
	dwi, adc := a.diffusion(rng, noise, lesionScale)
	flair := a.flair(rng, noise, realSize)

	anat := filepath.Join(root, sub, "ses-0001", "anat")
	dwiDir := filepath.Join(root, sub, "ses-0001", "dwi")
	deriv := filepath.Join(root, "derivatives", sub, "ses-0001")
	for _, d := range []string{anat, dwiDir, deriv} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	writes := []struct {
		path string
		v    *volume.Volume
	}{
		{filepath.Join(anat, caseID+"_FLAIR.nii.gz"), flair},
		{filepath.Join(dwiDir, caseID+"_dwi.nii.gz"), dwi},
		{filepath.Join(dwiDir, caseID+"_adc.nii.gz"), adc},
		{filepath.Join(deriv, caseID+"_msk.nii.gz"), a.mask},
	}
	for _, w := range writes {
		if err := nifti.WriteFile(w.path, w.v, w.v.DType); err != nil {
			return err
		}
	}
	return nil
}

// strokeAnatomy is one synthetic case's layout on grid g: an ellipsoid
// brain (centre bc, radii br) and the lesion mask inside it.
type strokeAnatomy struct {
	g      volume.Grid
	brain  []bool
	bc, br [3]float64
	mask   *volume.Volume // uint8, 1 in a lesion
}

// newStrokeAnatomy draws 1–3 ellipsoid lesions (radii times lesionScale)
// clipped to the brain.
func newStrokeAnatomy(rng *rand.Rand, g volume.Grid, lesionScale float64) *strokeAnatomy {
	a := &strokeAnatomy{g: g, brain: make([]bool, g.Len())}
	a.bc = [3]float64{float64(g.Shape[0]-1) / 2, float64(g.Shape[1]-1) / 2, float64(g.Shape[2]-1) / 2}
	a.br = [3]float64{float64(g.Shape[0]) * 0.42, float64(g.Shape[1]) * 0.45, float64(g.Shape[2]) * 0.45}
	medseg.Ellipsoid(g, a.bc, a.br, func(i int) { a.brain[i] = true })
	a.mask = volume.New(g, volume.Uint8)
	lesions := 1 + rng.IntN(3)
	for l := 0; l < lesions; l++ {
		var c, r [3]float64
		for ax := 0; ax < 3; ax++ {
			c[ax] = a.bc[ax] + (rng.Float64()*2-1)*a.br[ax]*0.55
			r[ax] = (1.2 + rng.Float64()*3) * lesionScale
		}
		r[2] *= 0.7
		medseg.Ellipsoid(g, c, r, func(i int) {
			if a.brain[i] {
				a.mask.Data[i] = 1
			}
		})
	}
	return a
}

// diffusion draws the DWI and ADC volumes: lesions bright on DWI and dark
// on ADC, 0–2 T2 shine-through regions bright on DWI but not dark on ADC
// (a trap for DWI-only methods), brain and background levels, each with
// the texture noise and white noise.
func (a *strokeAnatomy) diffusion(rng *rand.Rand, noise []float64, lesionScale float64) (dwi, adc *volume.Volume) {
	g := a.g
	shine := make([]bool, g.Len())
	for s := rng.IntN(3); s > 0; s-- {
		var c, r [3]float64
		for ax := 0; ax < 3; ax++ {
			c[ax] = a.bc[ax] + (rng.Float64()*2-1)*a.br[ax]*0.6
			r[ax] = (1 + rng.Float64()*2) * lesionScale
		}
		medseg.Ellipsoid(g, c, r, func(i int) { shine[i] = a.brain[i] && a.mask.Data[i] == 0 })
	}
	dwi = volume.New(g, volume.Int16)
	adc = volume.New(g, volume.Int16)
	gain := 0.8 + 0.4*rng.Float64()
	for i := range dwi.Data {
		switch {
		case a.mask.Data[i] != 0:
			dwi.Data[i] = math.Round(gain * (520 + 45*noise[i] + 45*rng.NormFloat64()))
			adc.Data[i] = math.Round(480 + 60*noise[i] + 60*rng.NormFloat64())
		case shine[i]:
			dwi.Data[i] = math.Round(gain * (500 + 45*noise[i] + 45*rng.NormFloat64()))
			adc.Data[i] = math.Round(900 + 60*noise[i] + 60*rng.NormFloat64())
		case a.brain[i]:
			dwi.Data[i] = math.Round(gain * (330 + 45*noise[i] + 45*rng.NormFloat64()))
			adc.Data[i] = math.Round(820 + 60*noise[i] + 60*rng.NormFloat64())
		default:
			dwi.Data[i] = math.Round(math.Abs(8 * rng.NormFloat64()))
			adc.Data[i] = math.Round(math.Abs(8 * rng.NormFloat64()))
		}
	}
	return dwi, adc
}

// flair draws the FLAIR volume on its own, finer in-plane and
// thicker-slice grid covering the same field of view.
func (a *strokeAnatomy) flair(rng *rand.Rand, noise []float64, realSize bool) *volume.Volume {
	g := a.g
	fg := volume.NewGrid(g.Shape[0]*4/3, g.Shape[1]*4/3, g.Shape[2]*2/3)
	if realSize {
		fg = volume.NewGrid(g.Shape[0]*2, g.Shape[1]*2, g.Shape[2]/2)
	}
	for ax := 0; ax < 3; ax++ {
		fg.Spacing[ax] = g.Spacing[ax] * float64(g.Shape[ax]) / float64(fg.Shape[ax])
	}
	flair := volume.New(fg, volume.Int16)
	for k := 0; k < fg.Shape[2]; k++ {
		for j := 0; j < fg.Shape[1]; j++ {
			for i := 0; i < fg.Shape[0]; i++ {
				src := g.Index(i*g.Shape[0]/fg.Shape[0], j*g.Shape[1]/fg.Shape[1], k*g.Shape[2]/fg.Shape[2])
				v := math.Abs(6 * rng.NormFloat64())
				if a.brain[src] {
					v = 250 + 40*noise[src] + 15*rng.NormFloat64()
					if a.mask.Data[src] != 0 {
						v += 90
					}
				}
				flair.Data[fg.Index(i, j, k)] = math.Round(v)
			}
		}
	}
	return flair
}
