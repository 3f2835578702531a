package sega

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

	"github.com/rexmle/rexmle/metrics/imageio/nrrd"
	"github.com/rexmle/rexmle/metrics/volume"
	"github.com/rexmle/rexmle/pipeline/challenge"
	"github.com/rexmle/rexmle/pipeline/challenges/medseg"
)

func testRows(publicDir string) (ids, paths []string, err error) {
	cols, err := challenge.ReadColumns(filepath.Join(publicDir, "sample_submission.csv"), colID, colPath)
	if err != nil {
		return nil, nil, fmt.Errorf("read sample submission: %w", err)
	}
	return cols[0], cols[1], nil
}

func writeCSV(outDir string, ids, paths []string) error {
	return challenge.WriteColumns(filepath.Join(outDir, medseg.SubmissionFile), []string{colID, colPath}, ids, paths)
}

// writeMasks writes one uint8 .seg.nrrd per test case, built by fn from the
// test image and placed like it, and submission.csv.
func writeMasks(ctx context.Context, publicDir, outDir string, fn func(img *volume.Volume) ([]bool, error)) error {
	ids, paths, err := testRows(publicDir)
	if err != nil {
		return err
	}
	err = challenge.ForEach(ctx, len(ids), func(i int) error {
		img, err := nrrd.ReadFile(filepath.Join(publicDir, "test", "images", ids[i]+".nrrd"))
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
		return nrrd.WriteFile(dst, out, volume.Uint8, true)
	})
	if err != nil {
		return err
	}
	return writeCSV(outDir, ids, paths)
}

// SampleSubmission writes a placeholder mask per test case: a small
// ellipsoid at the centre of the volume (an uninformed guess).
func (Challenge) SampleSubmission(ctx context.Context, publicDir, outDir string) error {
	return writeMasks(ctx, publicDir, outDir, func(img *volume.Volume) ([]bool, error) {
		m := make([]bool, img.Len())
		var c, r [3]float64
		for a := 0; a < 3; a++ {
			c[a] = float64(img.Shape[a]-1) / 2
			r[a] = math.Max(1, float64(img.Shape[a])/8)
		}
		medseg.Ellipsoid(img.Grid, c, r, func(i int) { m[i] = true })
		return m, nil
	})
}

// Trivial writes all-background masks.
func (Challenge) Trivial(ctx context.Context, publicDir, outDir string) error {
	return writeMasks(ctx, publicDir, outDir, func(img *volume.Volume) ([]bool, error) {
		return make([]bool, img.Len()), nil
	})
}

// Perfect copies the private label files.
func (Challenge) Perfect(ctx context.Context, publicDir, privateDir, outDir string) error {
	ids, paths, err := testRows(publicDir)
	if err != nil {
		return err
	}
	for i, id := range ids {
		if err := fsutil.CopyFile(filepath.Join(privateDir, "test", "labels", id+".seg.nrrd"), filepath.Join(outDir, filepath.FromSlash(paths[i]))); err != nil {
			return err
		}
	}
	return writeCSV(outDir, ids, paths)
}

// hu is a Hounsfield-unit band plus largest-component model.
type hu struct{ Lo, Hi float64 }

func (m hu) predict(img *volume.Volume) ([]bool, error) {
	mask := make([]bool, img.Len())
	for i, x := range img.Data {
		mask[i] = x > m.Lo && x < m.Hi
	}
	return medseg.LargestComponent(mask, img.Grid)
}

type trainCase struct {
	img   *volume.Volume
	truth []bool
}

func meanDice(cases []trainCase, m hu) (float64, error) {
	return medseg.MeanDice(cases, func(c trainCase) ([]bool, []bool, error) {
		p, err := m.predict(c.img)
		return p, c.truth, err
	})
}

// fit picks the HU band, from quantiles of the vessel voxels' intensities,
// that maximises the mean Dice.
func fit(cases []trainCase) (hu, float64, error) {
	var v []float64
	for _, c := range cases {
		for i, t := range c.truth {
			if t {
				v = append(v, c.img.Data[i])
			}
		}
	}
	lo, hi, d, ok, err := medseg.BandSearch(v, []float64{0.01, 0.03, 0.1, 0.2}, []float64{0.9, 0.97, 0.99, 1}, 1,
		func(lo, hi float64) (float64, error) { return meanDice(cases, hu{lo, hi}) })
	if !ok {
		return hu{150, 600}, 0, nil
	}
	return hu{lo, hi}, d, err
}

// Baseline fits a contrast-enhanced HU band on the training scans, keeps the
// largest 26-connected component (the vessel tree is one structure),
// reports a held-out Dice, refits on all scans and segments the test scans.
func (Challenge) Baseline(ctx context.Context, publicDir, outDir string, log io.Writer) error {
	labels, err := filepath.Glob(filepath.Join(publicDir, "train", "labels", "*.seg.nrrd"))
	if err != nil || len(labels) == 0 {
		return fmt.Errorf("baseline: no training labels in %s", filepath.Join(publicDir, "train", "labels"))
	}
	sort.Strings(labels)
	cases := make([]trainCase, len(labels))
	err = challenge.ForEach(ctx, len(labels), func(i int) error {
		id := strings.TrimSuffix(filepath.Base(labels[i]), ".seg.nrrd")
		img, err := nrrd.ReadFile(filepath.Join(publicDir, "train", "images", id+".nrrd"))
		if err != nil {
			return err
		}
		lab, err := nrrd.ReadFile(labels[i])
		if err != nil {
			return err
		}
		if !lab.SameShape(img.Grid) {
			return fmt.Errorf("baseline: %s label shape %v differs from image %v", id, lab.Shape, img.Shape)
		}
		truth := make([]bool, lab.Len())
		for j, x := range lab.Data {
			truth[j] = x > 0
		}
		cases[i] = trainCase{img: img, truth: truth}
		return nil
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(log, "loaded %d training CTA/label pairs from %s\n", len(cases), filepath.Join(publicDir, "train"))
	if m, d, vd, nVal, err := medseg.HoldOut(cases, fit, meanDice); err != nil {
		return err
	} else if nVal > 0 {
		fmt.Fprintf(log, "fitted on %d scans: HU band (%.0f, %.0f) + largest component (train Dice %.4f); held-out Dice on %d scans: %.4f\n", len(cases)-nVal, m.Lo, m.Hi, d, nVal, vd)
	}
	model, d, err := fit(cases)
	if err != nil {
		return err
	}
	fmt.Fprintf(log, "refitted on all %d scans: HU band (%.0f, %.0f) (train Dice %.4f)\n", len(cases), model.Lo, model.Hi, d)
	if err := writeMasks(ctx, publicDir, outDir, model.predict); err != nil {
		return err
	}
	fmt.Fprintf(log, "predicted vessel-tree masks for the test scans into %s\n", outDir)
	return nil
}
