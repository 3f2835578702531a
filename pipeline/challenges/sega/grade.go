package sega

import (
	"context"
	"fmt"
	"math"
	"path/filepath"

	"github.com/rexmle/rexmle/metrics/distance"
	"github.com/rexmle/rexmle/metrics/num"
	"github.com/rexmle/rexmle/metrics/overlap"
	"github.com/rexmle/rexmle/metrics/resample"
	"github.com/rexmle/rexmle/metrics/volume"
	"github.com/rexmle/rexmle/pipeline/challenge"
	"github.com/rexmle/rexmle/pipeline/challenges/medseg"
)

// Submission column names.
const (
	colID   = "image_id"
	colPath = "predicted_mask_path"
)

// diagonal is sqrt(Σ (n_a·s_a)²) summed in numpy axis order (storage axes
// 2, 1, 0); with unit spacing it is the array diagonal in voxels.
func diagonal(g volume.Grid) float64 {
	var s float64
	for a := 2; a >= 0; a-- {
		d := float64(g.Shape[a]) * g.Spacing[a]
		s += d * d
	}
	return math.Sqrt(s)
}

// Score returns the case Dice and Hausdorff distance of boolean masks on g.
//
// Dice: 1 when both are empty, else 2|P∩G|/(|P|+|G|). Hausdorff: 0 when both
// are empty or the masks are identical; the diagonal of g (in the units of
// g's spacing) when exactly one is empty; otherwise the maximum distance
// between MONAI 6-connected edge voxels. Reference mode: directed
// prediction→GT, voxel units, float32 distances (g's spacing is ignored);
// Official mode: symmetric, in g's spacing, float64.
func Score(pred, truth []bool, g volume.Grid, mode challenge.Mode) (hd, dsc float64, err error) {
	counts, err := overlap.Confusion(pred, truth)
	if err != nil {
		return 0, 0, err
	}
	dsc = counts.Dice(1)
	if mode != challenge.Official {
		g = distance.UnitSpacing(g)
	}
	np, ng := counts.Pred(), counts.Truth()
	switch {
	case np == 0 && ng == 0:
		return 0, dsc, nil
	case np == 0 || ng == 0:
		return diagonal(g), dsc, nil
	case counts.FP == 0 && counts.FN == 0:
		return 0, dsc, nil
	}
	if mode == challenge.Official {
		hd, err = distance.MONAIHausdorff(pred, truth, g, 100, distance.Symmetric, distance.MONAIOptions{})
	} else {
		hd, err = distance.MONAIHausdorff(pred, truth, g, 100, distance.PredToTruth, distance.MONAIOptions{VoxelUnits: true, Float32: true})
	}
	return hd, dsc, err
}

// Grade implements challenge.Challenge.
func (Challenge) Grade(ctx context.Context, submissionDir, privateDir string, mode challenge.Mode) (*challenge.Result, error) {
	ids, labelPaths, err := medseg.Answers(privateDir, colID, "label_path")
	if err != nil {
		return nil, err
	}
	rows, err := medseg.ReadSubmission(submissionDir, colID, colPath, ids, medseg.IDKeys)
	if err != nil {
		return nil, err
	}
	if err := medseg.CheckOfficialIDs(rows, colID, ids, medseg.IDKeys, mode); err != nil {
		return nil, err
	}
	keys := medseg.IDKeys(ids)
	gtPath := map[string]string{}
	for i, k := range keys {
		gtPath[k] = filepath.Join(privateDir, filepath.FromSlash(labelPaths[i]))
	}
	hds := make([]float64, len(rows))
	dscs := make([]float64, len(rows))
	notes := make([]string, len(rows))
	err = challenge.ForEach(ctx, len(rows), func(i int) error {
		var err error
		hds[i], dscs[i], notes[i], err = gradeRow(submissionDir, gtPath[rows[i].Key], rows[i], mode)
		return err
	})
	if err != nil {
		return nil, err
	}
	res := &challenge.Result{Mode: mode}
	caseIDs := medseg.CaseIDs(rows)
	for i := range rows {
		res.Cases = append(res.Cases, challenge.Case{ID: caseIDs[i], Values: map[string]float64{CaseHD: hds[i], CaseDSC: dscs[i]}})
		if notes[i] != "" {
			res.Notes = append(res.Notes, notes[i])
		}
	}
	res.Set(MetricHD50, num.Median(hds))
	res.Set(MetricDSC50, num.Median(dscs))
	return res, nil
}

func gradeRow(submissionDir, gtFile string, row medseg.Row, mode challenge.Mode) (hd, dsc float64, note string, err error) {
	// 8-bit MetaImage and NRRD masks (the usual kind) keep their samples
	// as bytes: no float64 copy of a 512×512×(hundreds) volume.
	gt, gtBytes, err := medseg.LoadAnswer(gtFile)
	if err != nil {
		return 0, 0, "", err
	}
	// Keep only the GT's mask and grid so its samples can be freed before
	// the prediction is decoded (CTA volumes are large).
	gtGrid := gt.Grid
	var truth []bool
	if gtBytes != nil {
		truth = medseg.MaskOf(gtBytes, func(x uint8) bool { return x > 0 })
	} else {
		truth = medseg.MaskOf(gt.Data, func(x float64) bool { return x > 0 })
	}
	gt, gtBytes = nil, nil
	official := mode == challenge.Official
	limit := max(int64(gtGrid.Len())*8*64, 256<<20)
	pred, err := medseg.Load(submissionDir, row.Path, colPath, limit, !official)
	if err != nil {
		return 0, 0, "", err
	}
	var mask []bool
	if pred.Bytes != nil { // bytes are always finite
		mask = medseg.MaskOf(pred.Bytes, func(x uint8) bool { return x > 0 })
	} else {
		// Reference mode thresholds as the reference does, (mask > 0):
		// NaN and −Inf are background, +Inf is foreground.
		for i, x := range pred.Data {
			if official && (math.IsNaN(x) || math.IsInf(x, 0)) {
				return 0, 0, "", challenge.Invalidf(row.Path, colPath, "row %d (%s): voxel %d is %v; masks must be finite", row.Line, row.ID, i, x)
			}
		}
		mask = medseg.MaskOf(pred.Data, func(x float64) bool { return x > 0 })
	}
	predGrid := pred.Grid
	pred = nil
	if !predGrid.SameShape(gtGrid) {
		if official {
			return 0, 0, "", challenge.Invalidf(row.Path, colPath, "row %d (%s): mask shape %v (x, y, z) differs from the image's %v", row.Line, row.ID, predGrid.Shape, gtGrid.Shape)
		}
		mask, err = resample.Zoom(mask, predGrid.Shape, gtGrid.Shape)
		if err != nil {
			return 0, 0, "", challenge.Invalidf(row.Path, colPath, "row %d (%s): cannot resize shape %v to %v: %v", row.Line, row.ID, predGrid.Shape, gtGrid.Shape, err)
		}
		note = fmt.Sprintf("%s: prediction shape %v resized to the GT shape %v by nearest-neighbour zoom (order 0)", row.ID, predGrid.Shape, gtGrid.Shape)
	}
	hd, dsc, err = Score(mask, truth, gtGrid, mode)
	if err != nil {
		return 0, 0, "", fmt.Errorf("score %s: %w", row.ID, err)
	}
	return hd, dsc, note, nil
}
