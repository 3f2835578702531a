package panthercommon

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"sort"

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

// Tolerance is the surface-Dice tolerance in mm.
const Tolerance = 5.0

// CaseValues are the per-case values the reference computes.
type CaseValues struct {
	DSC, MSD, HD95, MASD float64
	Burden               float64 // |(|P|−|G|)|·v, mm³
}

// numpyDiagonal is sqrt((n0·s0)² + (n1·s1)² + (n2·s2)²) over numpy axes
// (storage axes 2, 1, 0), summed in that order.
func numpyDiagonal(g volume.Grid) float64 {
	var s float64
	for a := 2; a >= 0; a-- {
		d := float64(g.Shape[a]) * g.Spacing[a]
		s += d * d
	}
	return math.Sqrt(s)
}

// numpyVoxelVolume is s0·s1·s2 over numpy axes (storage axes 2, 1, 0).
func numpyVoxelVolume(g volume.Grid) float64 {
	return g.Spacing[2] * g.Spacing[1] * g.Spacing[0]
}

// Score computes the PANTHER case metrics of boolean masks on grid g, whose
// Spacing is the spacing the grader pairs with each storage axis.
//
// A prediction with no voxel or every voxel set gets the penalty dsc 0,
// msd 0, hd95 = masd = the physical diagonal of the grid, burden |G|·v (even
// when the GT is empty too). Otherwise: dsc = 2|G∩P|/(|G|+|P|); DeepMind
// surface distances between G and P give msd (surface Dice at 5 mm), hd95
// (max of the two area-weighted 95th percentiles; +Inf when one side has no
// surface) and masd (mean of the two area-weighted mean distances; NaN when
// a side is empty); burden = |(|P|·v − |G|·v)|.
func Score(pred, truth []bool, g volume.Grid) (CaseValues, error) {
	counts, err := overlap.Confusion(pred, truth)
	if err != nil {
		return CaseValues{}, err
	}
	return score(counts, len(pred), g, func() (distance.SurfaceDistances, error) {
		return distance.DeepMindSurfaceDistances(truth, pred, g)
	})
}

// score is Score given the confusion counts of masks of total voxels and
// their surface distances (computed only when the case needs them).
func score(counts overlap.Counts, total int, g volume.Grid, distances func() (distance.SurfaceDistances, error)) (CaseValues, error) {
	v := numpyVoxelVolume(g)
	np, ng := counts.Pred(), counts.Truth()
	if np == 0 || np == total {
		d := numpyDiagonal(g)
		return CaseValues{DSC: 0, MSD: 0, HD95: d, MASD: d, Burden: float64(ng) * v}, nil
	}
	sd, err := distances()
	if err != nil {
		return CaseValues{}, err
	}
	diff := float64(np)*v - float64(ng)*v
	return CaseValues{
		DSC:    counts.Dice(math.NaN()),
		MSD:    sd.SurfaceDice(Tolerance),
		HD95:   sd.RobustHausdorff(95),
		MASD:   sd.MeanAverageSurfaceDistance(),
		Burden: math.Sqrt(diff * diff),
	}, nil
}

// PredictionMask applies the reference's value rules to a prediction's
// samples: values {0}, {0,1} or {1} → non-zero is tumour; 1 and 2 both
// present → value 1 is tumour; exactly two values one of which is 0 → > 0
// is tumour; anything else is an error naming the values found. NaN is one
// value (numpy.unique) that is never tumour: {0, NaN} → all background,
// {0, 1, NaN} or {1, NaN} → an error, {0, 1, 2, NaN} → value 1.
func PredictionMask(data []float64) ([]bool, error) { return predictionMask(data) }

func predictionMask[T medseg.Sample](data []T) ([]bool, error) {
	// Only membership of 0, 1, 2 and whether there are 1, 2 or more distinct
	// values matter, so at most three distinct values are remembered. A
	// value equal to the one before it changes none of that (masks are long
	// runs of one value), so only the first of a run is looked at.
	var distinct []float64
	var has0, has1, has2 bool
	medseg.EachRunStart(data, func(x T) {
		switch x {
		case 0:
			has0 = true
		case 1:
			has1 = true
		case 2:
			has2 = true
		}
		if len(distinct) < 3 && !containsNaNEqual(distinct, float64(x)) {
			distinct = append(distinct, float64(x))
		}
	})
	r, err := predictionRule(distinct, has0, has1, has2)
	if err != nil {
		return nil, err
	}
	return maskByRule(data, r), nil
}

// valueRule says which mask values are tumour.
type valueRule uint8

const (
	nonZero  valueRule = iota // x != 0
	onlyOne                   // x == 1
	positive                  // x > 0
)

func (r valueRule) tumour(x float64) bool {
	switch r {
	case nonZero:
		return x != 0
	case onlyOne:
		return x == 1
	}
	return x > 0
}

// maskByRule is r.tumour of every sample, the comparison written out for
// each rule (no call per voxel on float samples).
func maskByRule[T medseg.Sample](data []T, r valueRule) []bool {
	switch r {
	case nonZero:
		return medseg.MaskOf(data, func(x T) bool { return x != 0 })
	case onlyOne:
		return medseg.MaskOf(data, func(x T) bool { return x == 1 })
	}
	return medseg.MaskOf(data, func(x T) bool { return x > 0 })
}

// predictionRule is the reference's value rule (PredictionMask) given the
// first three distinct values of a prediction in order of appearance
// (fewer when it has fewer) and whether it holds 0, 1 and 2: which values
// are tumour, or the error naming the values found.
func predictionRule(distinct []float64, has0, has1, has2 bool) (valueRule, error) {
	onlyBinary := len(distinct) <= 2
	for _, x := range distinct {
		onlyBinary = onlyBinary && (x == 0 || x == 1)
	}
	switch {
	case onlyBinary:
		return nonZero, nil
	case has1 && has2:
		return onlyOne, nil
	case len(distinct) == 2 && has0:
		return positive, nil
	}
	distinct = slices.Clone(distinct)
	sort.Float64s(distinct)
	more := ""
	if len(distinct) == 3 {
		more = " (and possibly more)"
	}
	return 0, fmt.Errorf("mask values %v%s: want {0, 1} (or two values one of which is 0, or labels including 1 = tumour and 2)", distinct, more)
}

// containsNaNEqual is slices.Contains with every NaN equal to every other
// (numpy.unique's equal_nan, the default since numpy 1.21).
func containsNaNEqual(s []float64, x float64) bool {
	if math.IsNaN(x) {
		return slices.ContainsFunc(s, math.IsNaN)
	}
	return slices.Contains(s, x)
}

// OfficialPredictionMask applies the organisers' rule (PANTHER evaluation
// script): values {0}, {1} or {0, 1} are the mask as is; exactly two values
// one of which is 0 → positive values are tumour; anything else ({0, 1, 2}, {1, 2},
// {2}, …) is not a binary mask and is refused.
func OfficialPredictionMask(data []float64) ([]bool, error) { return officialPredictionMask(data) }

func officialPredictionMask[T medseg.Sample](data []T) ([]bool, error) {
	var distinct []float64
	medseg.EachRunStart(data, func(x T) { // a run of one value: only its first matters
		if len(distinct) < 3 && !slices.Contains(distinct, float64(x)) {
			distinct = append(distinct, float64(x))
		}
	})
	r, err := officialRule(distinct)
	if err != nil {
		return nil, err
	}
	return maskByRule(data, r), nil
}

// officialRule is the organisers' rule (OfficialPredictionMask) given the
// first three distinct values of a prediction (fewer when it has fewer):
// which values are tumour, or the error naming the values found.
func officialRule(distinct []float64) (valueRule, error) {
	distinct = slices.Clone(distinct)
	sort.Float64s(distinct)
	ok := false
	switch len(distinct) {
	case 0:
		ok = true
	case 1:
		ok = distinct[0] == 0 || distinct[0] == 1
	case 2:
		ok = slices.Contains(distinct, 0) // {0, 1} or {0, v}: v > 0 is tumour
	}
	if !ok {
		more := ""
		if len(distinct) == 3 {
			more = " (and possibly more)"
		}
		return 0, fmt.Errorf("mask values %v%s: the official evaluation wants a binary mask ({0, 1}, or two values one of which is 0)", distinct, more)
	}
	// (mask > 0) for two values; {0}, {1}, {0, 1} cast to bool: the same.
	return positive, nil
}

// OfficialTruth is the tumour mask of a ground truth under PANTHER's label
// convention: label 1 is tumour and label 2 pancreas (Task 1 training
// labels carry both; the organisers' nnU-Net dataset lists tumour = 1), so a
// mask whose values lie in {0, 1, 2} keeps label 1 only. Any other mask is
// binarised as every non-zero voxel, as the organisers' evaluation script
// does with its (tumour-only) test labels.
func OfficialTruth(v *volume.Volume) []bool {
	nc := v.NumChannels()
	conventional := true
	for i := 0; i < v.Len(); i++ {
		if x := v.Data[i*nc]; x != 0 && x != 1 && x != 2 {
			conventional = false
			break
		}
	}
	if conventional {
		return v.LabelMask(1)
	}
	return v.Mask()
}

// officialTruthBytes is OfficialTruth of an 8-bit mask's samples.
func officialTruthBytes(b []uint8) []bool {
	conventional := true
	medseg.EachRunStart(b, func(x uint8) { conventional = conventional && x <= 2 })
	return medseg.MaskOf(b, func(x uint8) bool { return x == 1 || (!conventional && x != 0) })
}

// Grade implements challenge.Challenge.
func (c Challenge) Grade(ctx context.Context, submissionDir, privateDir string, mode challenge.Mode) (*challenge.Result, error) {
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
	vals := make([]CaseValues, len(rows))
	notes := make([]string, len(rows))
	err = challenge.ForEach(ctx, len(rows), func(i int) error {
		v, note, err := gradeRow(submissionDir, gtPath[rows[i].Key], rows[i], mode)
		vals[i], notes[i] = v, note
		return err
	})
	if err != nil {
		return nil, err
	}
	res := &challenge.Result{Mode: mode}
	// np.mean of each metric's case values (numpy's pairwise sum).
	var dsc, msd, hd95, masd, sq []float64
	caseIDs := medseg.CaseIDs(rows)
	for i, v := range vals {
		dsc, msd, hd95, masd = append(dsc, v.DSC), append(msd, v.MSD), append(hd95, v.HD95), append(masd, v.MASD)
		sq = append(sq, v.Burden*v.Burden)
		res.Cases = append(res.Cases, challenge.Case{ID: caseIDs[i], Values: map[string]float64{
			MetricDSC: v.DSC, MetricMSD: v.MSD, MetricHD95: v.HD95, MetricMASD: v.MASD, CaseBurden: v.Burden,
		}})
		if notes[i] != "" {
			res.Notes = append(res.Notes, notes[i])
		}
	}
	res.Set(MetricDSC, num.Mean(dsc))
	res.Set(MetricMSD, num.Mean(msd))
	res.Set(MetricHD95, num.Mean(hd95))
	res.Set(MetricMASD, num.Mean(masd))
	res.Set(MetricRMSE, math.Sqrt(num.Mean(sq)))
	return res, nil
}

func gradeRow(submissionDir, gtFile string, row medseg.Row, mode challenge.Mode) (CaseValues, string, error) {
	bufs := buffers.Get().(*caseBuffers)
	defer buffers.Put(bufs)
	return gradeCase(submissionDir, gtFile, row, mode, bufs)
}

// gradeCase grades one row, its 8-bit samples decoded into bufs (see
// loadCase).
func gradeCase(submissionDir, gtFile string, row medseg.Row, mode challenge.Mode, bufs *caseBuffers) (CaseValues, string, error) {
	official := mode == challenge.Official
	c, err := loadCase(submissionDir, gtFile, row.Path, !official, bufs)
	if err != nil {
		return CaseValues{}, "", err
	}
	gt, pred := c.gt, c.pred
	// Reference mode takes NaN and ±Inf through the reference's value rules
	// (PredictionMask: NaN counts once among the distinct values, as
	// numpy.unique has it, and is never tumour). Bytes are always finite.
	for i, x := range pred.Data {
		if official && (math.IsNaN(x) || math.IsInf(x, 0)) {
			return CaseValues{}, "", challenge.Invalidf(row.Path, colPath, "row %d (%s): voxel %d is %v; masks must be finite", row.Line, row.ID, i, x)
		}
	}
	note := ""
	data := pred.Data
	g := gt.Grid
	if official {
		if !pred.SameShape(gt.Grid) {
			return CaseValues{}, "", challenge.Invalidf(row.Path, colPath, "row %d (%s): mask shape %v (x, y, z) differs from the image's %v", row.Line, row.ID, pred.Shape, gt.Shape)
		}
		for a := 0; a < 3; a++ {
			if math.Abs(pred.Spacing[a]-gt.Spacing[a]) > 1e-5*math.Max(1, gt.Spacing[a]) {
				return CaseValues{}, "", challenge.Invalidf(row.Path, colPath, "row %d (%s): mask spacing %v (x, y, z) differs from the image's %v", row.Line, row.ID, pred.Spacing, gt.Spacing)
			}
		}
		// The organisers' script pairs SimpleITK's (sx, sy, sz) with the (z, y, x) array.
		g.Spacing = [3]float64{gt.Spacing[2], gt.Spacing[1], gt.Spacing[0]}
	} else {
		if !pred.SameShape(gt.Grid) {
			if pred.Bytes != nil {
				data = make([]float64, len(pred.Bytes))
				for i, x := range pred.Bytes {
					data[i] = float64(x)
				}
			}
			data, err = resample.Zoom(data, pred.Shape, gt.Shape)
			if err != nil {
				return CaseValues{}, "", challenge.Invalidf(row.Path, colPath, "row %d (%s): cannot resize shape %v to %v: %v", row.Line, row.ID, pred.Shape, gt.Shape, err)
			}
			note = fmt.Sprintf("%s: prediction shape %v resized to the GT shape %v by nearest-neighbour zoom (order 0)", row.ID, pred.Shape, gt.Shape)
		}
		g.Spacing = pred.Spacing // the prediction's, x/y swapped by the loader
	}
	if c.gtStats != nil && c.predStats != nil && data == nil {
		// Both masks are bytes on one grid: scored from their value
		// statistics and the box that holds every tumour voxel of either.
		v, err := scoreBytes(c, g, official)
		var invalid invalidMask
		if errors.As(err, &invalid) {
			return CaseValues{}, "", challenge.Invalidf(row.Path, colPath, "row %d (%s): %v", row.Line, row.ID, invalid.error)
		}
		if err != nil {
			return CaseValues{}, "", fmt.Errorf("score %s: %w", row.ID, err)
		}
		return v, note, nil
	}
	var truth []bool
	switch {
	case c.gtBytes != nil && official:
		truth = officialTruthBytes(c.gtBytes)
	case c.gtBytes != nil:
		truth = medseg.MaskOf(c.gtBytes, func(x uint8) bool { return x == 1 })
	case official:
		truth = OfficialTruth(gt)
	default:
		truth = gt.LabelMask(1)
	}
	var pm []bool
	switch {
	case data == nil && official:
		pm, err = officialPredictionMask(pred.Bytes)
	case data == nil:
		pm, err = predictionMask(pred.Bytes)
	case official:
		pm, err = OfficialPredictionMask(data)
	default:
		pm, err = PredictionMask(data)
	}
	if err != nil {
		return CaseValues{}, "", challenge.Invalidf(row.Path, colPath, "row %d (%s): %v", row.Line, row.ID, err)
	}
	v, err := Score(pm, truth, g)
	if err != nil {
		return CaseValues{}, "", fmt.Errorf("score %s: %w", row.ID, err)
	}
	return v, note, nil
}
