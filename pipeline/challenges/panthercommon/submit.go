package panthercommon

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

	"github.com/rexmle/rexmle/metrics/imageio/metaimage"
	"github.com/rexmle/rexmle/metrics/volume"
	"github.com/rexmle/rexmle/pipeline/challenge"
	"github.com/rexmle/rexmle/pipeline/challenges/medseg"
)

// testRows reads the ids and prediction paths of public/sample_submission.csv
// and the test image file of each id.
func testRows(publicDir string) (ids, paths, images []string, err error) {
	cols, err := challenge.ReadColumns(filepath.Join(publicDir, "sample_submission.csv"), colID, colPath)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("read sample submission: %w", err)
	}
	for _, id := range cols[0] {
		images = append(images, filepath.Join(publicDir, "test", "images", id+"_0000.mha"))
	}
	return cols[0], cols[1], images, nil
}

// writeMasks writes submission.csv and, per test case, the mask fn builds
// from the test image, as a uint8 MetaImage with the image's geometry.
func writeMasks(ctx context.Context, publicDir, outDir string, fn func(img *volume.Volume) ([]bool, error)) error {
	ids, paths, images, err := testRows(publicDir)
	if err != nil {
		return err
	}
	err = challenge.ForEach(ctx, len(ids), func(i int) error {
		img, err := metaimage.ReadFile(images[i])
		if err != nil {
			return err
		}
		m, err := fn(img)
		if err != nil {
			return err
		}
		out := volume.New(img.Grid, volume.Uint8)
		out.Origin, out.Direction = img.Origin, img.Direction
		for j, b := range m {
			if b {
				out.Data[j] = 1
			}
		}
		dst := filepath.Join(outDir, filepath.FromSlash(paths[i]))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		return metaimage.WriteFile(dst, out, volume.Uint8, true)
	})
	if err != nil {
		return err
	}
	return writeCSV(outDir, ids, paths)
}

func writeCSV(outDir string, ids, paths []string) error {
	return challenge.WriteColumns(filepath.Join(outDir, medseg.SubmissionFile), []string{colID, colPath}, ids, paths)
}

// SampleSubmission writes, per test case, a placeholder mask: a small
// ellipsoid at the centre of the image (an uninformed guess).
func (Challenge) SampleSubmission(ctx context.Context, publicDir, outDir string) error {
	return writeMasks(ctx, publicDir, outDir, func(img *volume.Volume) ([]bool, error) {
		m := make([]bool, img.Len())
		var c, r [3]float64
		for a := 0; a < 3; a++ {
			c[a] = float64(img.Shape[a]-1) / 2
			r[a] = math.Max(1, 10/img.Spacing[a])
		}
		medseg.Ellipsoid(img.Grid, c, r, func(i int) { m[i] = true })
		return m, nil
	})
}

// Trivial writes all-background masks (the grader's uniform-prediction penalty applies).
func (Challenge) Trivial(ctx context.Context, publicDir, outDir string) error {
	return writeMasks(ctx, publicDir, outDir, func(img *volume.Volume) ([]bool, error) {
		return make([]bool, img.Len()), nil
	})
}

// Perfect copies the private label files as the predictions.
func (Challenge) Perfect(ctx context.Context, publicDir, privateDir, outDir string) error {
	ids, paths, _, err := testRows(publicDir)
	if err != nil {
		return err
	}
	_, labels, err := medseg.Answers(privateDir, colID, "label_path")
	if err != nil {
		return err
	}
	if len(labels) != len(ids) {
		return fmt.Errorf("perfect: %d answers for %d test ids", len(labels), len(ids))
	}
	for i := range ids {
		if err := fsutil.CopyFile(filepath.Join(privateDir, filepath.FromSlash(labels[i])), filepath.Join(outDir, filepath.FromSlash(paths[i]))); err != nil {
			return err
		}
	}
	return writeCSV(outDir, ids, paths)
}

// bandModel keeps voxels whose per-image z-score lies in (Lo, Hi) and then
// the largest 26-connected component.
type bandModel struct{ Lo, Hi float64 }

func zscore(img *volume.Volume) []float64 {
	var s, ss float64
	for _, x := range img.Data {
		s += x
		ss += x * x
	}
	n := float64(len(img.Data))
	mean := s / n
	sd := math.Sqrt(math.Max(ss/n-mean*mean, 1e-12))
	z := make([]float64, len(img.Data))
	for i, x := range img.Data {
		z[i] = (x - mean) / sd
	}
	return z
}

func (m bandModel) predict(z []float64, g volume.Grid) ([]bool, error) {
	mask := make([]bool, len(z))
	for i, v := range z {
		mask[i] = v > m.Lo && v < m.Hi
	}
	return medseg.LargestComponent(mask, g)
}

type trainCase struct {
	g     volume.Grid
	z     []float64
	truth []bool
}

func meanDice(cases []trainCase, m bandModel) (float64, error) {
	return medseg.MeanDice(cases, func(c trainCase) ([]bool, []bool, error) {
		p, err := m.predict(c.z, c.g)
		return p, c.truth, err
	})
}

// fit searches the intensity band (z-score bounds on a 0.25 grid) by mean
// Dice: the tumour's band is chosen from where its voxels' z-scores lie.
func fit(cases []trainCase) (bandModel, float64, error) {
	// Candidate bounds around the tumour's own z-score range.
	var zs []float64
	for _, c := range cases {
		for i, t := range c.truth {
			if t {
				zs = append(zs, c.z[i])
			}
		}
	}
	lo, hi, d, ok, err := medseg.BandSearch(zs, []float64{0.02, 0.05, 0.1, 0.2}, []float64{0.8, 0.9, 0.95, 0.98}, 0,
		func(lo, hi float64) (float64, error) { return meanDice(cases, bandModel{Lo: lo, Hi: hi}) })
	if !ok {
		return bandModel{Lo: 1, Hi: 2}, 0, nil
	}
	return bandModel{Lo: lo, Hi: hi}, d, err
}

// Baseline fits an intensity band (per-image z-scores) that brackets the
// tumour on the training cases, keeps the largest 26-connected component,
// reports a held-out Dice, refits on all cases and segments the test images.
func (Challenge) Baseline(ctx context.Context, publicDir, outDir string, log io.Writer) error {
	labels, err := filepath.Glob(filepath.Join(publicDir, "train", "labels", "*.mha"))
	if err != nil || len(labels) == 0 {
		return fmt.Errorf("baseline: no training labels in %s", filepath.Join(publicDir, "train", "labels"))
	}
	sort.Strings(labels)
	cases := make([]trainCase, len(labels))
	err = challenge.ForEach(ctx, len(labels), func(i int) error {
		id := strings.TrimSuffix(filepath.Base(labels[i]), ".mha")
		img, err := metaimage.ReadFile(filepath.Join(publicDir, "train", "images", id+"_0000.mha"))
		if err != nil {
			return err
		}
		lab, err := metaimage.ReadFile(labels[i])
		if err != nil {
			return err
		}
		if !lab.SameShape(img.Grid) {
			return fmt.Errorf("baseline: %s label shape %v differs from image %v", id, lab.Shape, img.Shape)
		}
		cases[i] = trainCase{g: img.Grid, z: zscore(img), truth: lab.LabelMask(1)}
		return nil
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(log, "loaded %d training image/label pairs from %s\n", len(cases), filepath.Join(publicDir, "train"))
	if m, d, vd, nVal, err := medseg.HoldOut(cases, fit, meanDice); err != nil {
		return err
	} else if nVal > 0 {
		fmt.Fprintf(log, "fitted on %d cases: z-score band (%.2f, %.2f) + largest component (train Dice %.4f); held-out Dice on %d cases: %.4f\n", len(cases)-nVal, m.Lo, m.Hi, d, nVal, vd)
	}
	model, d, err := fit(cases)
	if err != nil {
		return err
	}
	fmt.Fprintf(log, "refitted on all %d cases: z-score band (%.2f, %.2f) (train Dice %.4f)\n", len(cases), model.Lo, model.Hi, d)
	if err := writeMasks(ctx, publicDir, outDir, func(img *volume.Volume) ([]bool, error) {
		return model.predict(zscore(img), img.Grid)
	}); err != nil {
		return err
	}
	fmt.Fprintf(log, "predicted tumour masks for the test images into %s\n", outDir)
	return nil
}
