package topology

import (
	"context"
	"fmt"

	"github.com/rexmle/rexmle/metrics/skeleton"
)

// ClScore is |S ∩ V| / |S|: the fraction of skeleton voxels S lying inside
// the mask V. It is 0 when the skeleton is empty (the clDice convention of
// the TopCoW/TopBrain graders). The slices must have equal length.
func ClScore(skel, mask []bool) float64 {
	n, in := 0, 0
	for i, s := range skel {
		if s {
			n++
			if mask[i] {
				in++
			}
		}
	}
	if n == 0 {
		return 0
	}
	return float64(in) / float64(n)
}

// ClDiceFromSkeletons combines the two centreline scores:
// Tprec = ClScore(S_P, V_L), Tsens = ClScore(S_L, V_P),
// clDice = 2·Tprec·Tsens / (Tprec + Tsens), 0 when Tprec + Tsens = 0.
// Voxel counts only, no spacing.
func ClDiceFromSkeletons(predSkel, pred, truthSkel, truth []bool) float64 {
	tprec := ClScore(predSkel, truth)
	tsens := ClScore(truthSkel, pred)
	if tprec+tsens == 0 {
		return 0
	}
	return 2 * tprec * tsens / (tprec + tsens)
}

// ClDice is the centreline Dice of two 3-D binary masks of the given storage
// shape, with Lee skeletons computed in the given axis order (TopCoW's
// reference passes skeleton.ZYX, TopBrain's skeleton.XYZ; the result depends
// on it). Empty skeletons score 0, so a "fat" object predicted perfectly can
// score 0.
func ClDice(ctx context.Context, pred, truth []bool, shape [3]int, order skeleton.Order) (float64, error) {
	if len(pred) != len(truth) {
		return 0, fmt.Errorf("cldice: prediction has %d voxels, truth %d", len(pred), len(truth))
	}
	sp, err := skeleton.Lee3D(ctx, pred, shape, order)
	if err != nil {
		return 0, fmt.Errorf("cldice: prediction skeleton: %w", err)
	}
	st, err := skeleton.Lee3D(ctx, truth, shape, order)
	if err != nil {
		return 0, fmt.Errorf("cldice: truth skeleton: %w", err)
	}
	return ClDiceFromSkeletons(sp, pred, st, truth), nil
}

// DetectionCounts accumulates per-label detection outcomes over cases.
type DetectionCounts struct {
	TP, FP, FN, TN int
}

// Detection tallies one case for one label: present in the truth → TP when
// iou ≥ threshold (inclusive) else FN; absent from the truth → FP when
// present in the prediction, else TN.
func (d *DetectionCounts) Add(inTruth, inPred bool, iou, threshold float64) {
	switch {
	case inTruth && iou >= threshold:
		d.TP++
	case inTruth:
		d.FN++
	case inPred:
		d.FP++
	default:
		d.TN++
	}
}

// F1 is 2TP / (2TP + FP + FN), and 0 when TP + FP + FN = 0 (a label never
// seen on either side scores 0, as in the TopCoW/TopBrain evaluations).
func (d DetectionCounts) F1() float64 {
	den := 2*d.TP + d.FP + d.FN
	if den == 0 {
		return 0
	}
	return float64(2*d.TP) / float64(den)
}

// MeanF1 is the plain mean of F1 over the given per-label counts, in order;
// 0 for an empty list.
func MeanF1(counts []DetectionCounts) float64 {
	if len(counts) == 0 {
		return 0
	}
	s := 0.0
	for _, c := range counts {
		s += c.F1()
	}
	return s / float64(len(counts))
}
