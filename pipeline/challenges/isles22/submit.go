package isles22

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/rexmle/rexmle/pipeline/fsutil"

	"github.com/rexmle/rexmle/metrics/components"
	"github.com/rexmle/rexmle/metrics/imageio/nifti"
	"github.com/rexmle/rexmle/metrics/volume"
	"github.com/rexmle/rexmle/pipeline/challenge"
	"github.com/rexmle/rexmle/pipeline/challenges/medseg"
)

// testIDs reads the test ids and prediction paths of public/sample_submission.csv.
func testIDs(publicDir string) (ids, paths []string, err error) {
	cols, err := challenge.ReadColumns(filepath.Join(publicDir, "sample_submission.csv"), colID, colPath)
	if err != nil {
		return nil, nil, fmt.Errorf("read sample submission: %w", err)
	}
	return cols[0], cols[1], nil
}

// writeMasks writes submission.csv and one mask per test case, built by
// fn from the case's DWI image (the mask gets the DWI's grid and placement).
func writeMasks(ctx context.Context, publicDir, outDir string, fn func(i int, id string, dwi *volume.Volume) ([]bool, error)) error {
	ids, paths, err := testIDs(publicDir)
	if err != nil {
		return err
	}
	err = challenge.ForEach(ctx, len(ids), func(i int) error {
		dwi, err := nifti.ReadFile(filepath.Join(publicDir, "test", ids[i]+"_dwi.nii.gz"))
		if err != nil {
			return err
		}
		m, err := fn(i, ids[i], dwi)
		if err != nil {
			return err
		}
		out := maskVolume(dwi, m)
		dst := filepath.Join(outDir, filepath.FromSlash(paths[i]))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		return nifti.WriteFile(dst, out, volume.Uint8)
	})
	if err != nil {
		return err
	}
	return writeCSV(outDir, ids, paths)
}

func writeCSV(outDir string, ids, paths []string) error {
	return challenge.WriteColumns(filepath.Join(outDir, medseg.SubmissionFile), []string{colID, colPath}, ids, paths)
}

// maskVolume wraps a boolean mask as a uint8 volume placed like ref.
func maskVolume(ref *volume.Volume, m []bool) *volume.Volume {
	out := volume.New(ref.Grid, volume.Uint8)
	out.Origin, out.Direction = ref.Origin, ref.Direction
	for i, b := range m {
		if b {
			out.Data[i] = 1
		}
	}
	return out
}

// SampleSubmission writes sample_submission.csv with, for every test case, a
// placeholder mask: a small sphere at the centre of the DWI grid (an
// uninformed guess, as the reference's dummy agent submits).
func (Challenge) SampleSubmission(ctx context.Context, publicDir, outDir string) error {
	return writeMasks(ctx, publicDir, outDir, func(_ int, _ string, dwi *volume.Volume) ([]bool, error) {
		m := make([]bool, dwi.Len())
		var c, r [3]float64
		for a := 0; a < 3; a++ {
			c[a] = float64(dwi.Shape[a]-1) / 2
			r[a] = math.Max(1, float64(dwi.Shape[a])/10)
		}
		medseg.Ellipsoid(dwi.Grid, c, r, func(i int) { m[i] = true })
		return m, nil
	})
}

// Trivial writes an all-background mask for every test case.
func (Challenge) Trivial(ctx context.Context, publicDir, outDir string) error {
	return writeMasks(ctx, publicDir, outDir, func(_ int, _ string, dwi *volume.Volume) ([]bool, error) {
		return make([]bool, dwi.Len()), nil
	})
}

// Perfect copies the private answer masks as the predictions.
func (Challenge) Perfect(ctx context.Context, publicDir, privateDir, outDir string) error {
	ids, paths, err := testIDs(publicDir)
	if err != nil {
		return err
	}
	for i, id := range ids {
		if err := fsutil.CopyFile(filepath.Join(privateDir, "test", id+"_msk.nii.gz"), filepath.Join(outDir, filepath.FromSlash(paths[i]))); err != nil {
			return err
		}
	}
	return writeCSV(outDir, ids, paths)
}

// zscore normalises DWI intensities by the mean and standard deviation of
// the voxels above 20% of the image's 99th percentile (a rough brain mask).
func zscore(dwi *volume.Volume) []float64 {
	vals := append([]float64(nil), dwi.Data...)
	sort.Float64s(vals)
	cut := 0.2 * vals[int(0.99*float64(len(vals)-1))]
	var s, ss, n float64
	for _, x := range dwi.Data {
		if x > cut {
			s += x
			ss += x * x
			n++
		}
	}
	mean, sd := 0.0, 1.0
	if n > 1 {
		mean = s / n
		sd = math.Sqrt(math.Max(ss/n-mean*mean, 1e-12))
	}
	z := make([]float64, len(dwi.Data))
	for i, x := range dwi.Data {
		z[i] = (x - mean) / sd
	}
	return z
}

// baselineModel is a DWI z-score threshold plus a minimum component size.
type baselineModel struct {
	Threshold float64
	MinSize   int
}

func (m baselineModel) predict(z []float64, g volume.Grid) ([]bool, error) {
	mask := make([]bool, len(z))
	for i, v := range z {
		mask[i] = v > m.Threshold
	}
	if m.MinSize <= 1 {
		return mask, nil
	}
	labels, n, err := components.Label(mask, g, 26)
	if err != nil {
		return nil, err
	}
	sizes := components.Sizes(labels, n)
	for i, l := range labels {
		if l > 0 && sizes[l-1] < m.MinSize {
			mask[i] = false
		}
	}
	return mask, nil
}

type trainCase struct {
	id    string
	g     volume.Grid
	z     []float64
	truth []bool
}

// fit picks the threshold maximising mean Dice over the cases, then the
// minimum component size maximising it given that threshold.
func fit(cases []trainCase) (baselineModel, float64, error) {
	best := baselineModel{Threshold: 2, MinSize: 1}
	bestDice := -1.0
	for t := 0.5; t <= 5.0001; t += 0.25 {
		d, err := meanDice(cases, baselineModel{Threshold: t, MinSize: 1})
		if err != nil {
			return best, 0, err
		}
		if d > bestDice {
			best, bestDice = baselineModel{Threshold: t, MinSize: 1}, d
		}
	}
	for _, ms := range []int{2, 4, 8, 16} {
		m := baselineModel{Threshold: best.Threshold, MinSize: ms}
		d, err := meanDice(cases, m)
		if err != nil {
			return best, 0, err
		}
		if d > bestDice {
			best, bestDice = m, d
		}
	}
	return best, bestDice, nil
}

func meanDice(cases []trainCase, m baselineModel) (float64, error) {
	return medseg.MeanDice(cases, func(c trainCase) ([]bool, []bool, error) {
		p, err := m.predict(c.z, c.g)
		return p, c.truth, err
	})
}

// Baseline fits a DWI intensity threshold (per-case z-scores) and a minimum
// 26-connected lesion size on the training cases, checks it on a held-out
// fifth of them, refits on all and segments the test cases.
func (Challenge) Baseline(ctx context.Context, publicDir, outDir string, log io.Writer) error {
	masks, err := filepath.Glob(filepath.Join(publicDir, "train", "*_msk.nii.gz"))
	if err != nil || len(masks) == 0 {
		return fmt.Errorf("baseline: no training masks in %s", filepath.Join(publicDir, "train"))
	}
	sort.Strings(masks)
	cases := make([]trainCase, len(masks))
	err = challenge.ForEach(ctx, len(masks), func(i int) error {
		id := strings.TrimSuffix(filepath.Base(masks[i]), "_msk.nii.gz")
		dwi, err := nifti.ReadFile(filepath.Join(publicDir, "train", id+"_dwi.nii.gz"))
		if err != nil {
			return err
		}
		gt, err := nifti.ReadFile(masks[i])
		if err != nil {
			return err
		}
		if !gt.SameShape(dwi.Grid) {
			return fmt.Errorf("baseline: %s mask shape %v differs from DWI %v", id, gt.Shape, dwi.Shape)
		}
		cases[i] = trainCase{id: id, g: dwi.Grid, z: zscore(dwi), truth: gt.Mask()}
		return nil
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(log, "loaded %d training cases (DWI + mask) from %s\n", len(cases), filepath.Join(publicDir, "train"))
	if m, d, vd, nVal, err := medseg.HoldOut(cases, fit, meanDice); err != nil {
		return err
	} else if nVal > 0 {
		fmt.Fprintf(log, "fitted on %d cases: DWI z-score > %.2f, min lesion %d voxels (train Dice %.4f); held-out Dice on %d cases: %.4f\n", len(cases)-nVal, m.Threshold, m.MinSize, d, nVal, vd)
	}
	model, d, err := fit(cases)
	if err != nil {
		return err
	}
	fmt.Fprintf(log, "refitted on all %d cases: DWI z-score > %.2f, min lesion %d voxels (train Dice %.4f)\n", len(cases), model.Threshold, model.MinSize, d)
	err = writeMasks(ctx, publicDir, outDir, func(_ int, _ string, dwi *volume.Volume) ([]bool, error) {
		return model.predict(zscore(dwi), dwi.Grid)
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(log, "predicted masks for the test cases into %s\n", outDir)
	return nil
}
