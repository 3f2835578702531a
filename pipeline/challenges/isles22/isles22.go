// Package isles22 is the ISLES'22 challenge: 3-D segmentation of acute and
// sub-acute ischemic stroke lesions on multi-sequence MRI (DWI, ADC, FLAIR),
// graded with Dice, lesion-wise F1, lesion count difference and absolute
// volume difference as the ReX-MLE reference does.
package isles22

import (
	_ "embed"

	"github.com/rexmle/rexmle/pipeline/challenge"
)

// ID is the challenge id.
const ID = "isles22"

// Challenge implements challenge.Challenge for ISLES'22.
type Challenge struct{}

func init() { challenge.Register(Challenge{}) }

// ID returns "isles22".
func (Challenge) ID() string { return ID }

// Metric names (leaderboard columns).
const (
	MetricDice      = "dice"
	MetricLesionF1  = "lesion_f1"
	MetricCountDiff = "lesion_count_diff"
	MetricVolDiff   = "abs_volume_diff"
)

// Metrics lists the four ranked leaderboard metrics.
func (Challenge) Metrics() []challenge.MetricCard {
	return []challenge.MetricCard{
		{Name: MetricDice, Direction: challenge.HigherBetter, Ranked: true,
			Card: "Mean voxel Dice 2|G∩P|/(|G|+|P|) over submission rows; a case with both masks empty scores 1. Reference mode resizes wrong-shaped predictions (quirk resize-mismatched-prediction)."},
		{Name: MetricLesionF1, Direction: challenge.HigherBetter, Ranked: true,
			Card: "Mean lesion-wise F1 TP/(TP+(FP+FN)/2) with 26-connected components: a GT lesion is found if any of its voxels is predicted, a predicted component is false if it touches no GT voxel; both masks empty scores 1."},
		{Name: MetricCountDiff, Direction: challenge.LowerBetter, Ranked: true,
			Card: "Mean absolute difference between the numbers of 26-connected components of the GT and the prediction."},
		{Name: MetricVolDiff, Direction: challenge.LowerBetter, Ranked: true,
			Card: "Mean absolute lesion volume difference in millilitres, voxel volume = product of the GT header's zooms (nibabel get_zooms()[:3] after its header fixes: a zero voxel size reads as 1, a negative one as its absolute value; float32 for NIfTI-1, float64 for NIfTI-2) / 1000; a case whose volume difference is NaN (a NaN voxel size) is left out of the mean, as pandas' mean skips it."},
	}
}

// QuirkResize is the id of the resize quirk.
const QuirkResize = "resize-mismatched-prediction"

// Quirks lists where the reference grader departs from the official ISLES'22 evaluation.
func (Challenge) quirks() []challenge.Quirk {
	return []challenge.Quirk{{
		ID:        QuirkResize,
		Metrics:   []string{MetricDice, MetricLesionF1, MetricCountDiff, MetricVolDiff},
		Reference: "a prediction whose array shape differs from the GT's is resized to the GT shape by corner-aligned nearest-neighbour zoom (scipy.ndimage.zoom order 0; an output index the rounded zoom factor puts past the last input sample reads background, cval 0) and then scored",
		Official:  "the official ISLES'22 evaluation compares arrays of the GT's shape only: a wrong-shaped prediction is rejected",
	}}
}

//go:embed description.md
var description string

// Quirks lists where the reference grader departs from the official
// evaluation, the id rule included.
func (c Challenge) Quirks() []challenge.Quirk {
	return append(c.quirks(), challenge.IDRuleQuirk("every row is graded, so a repeated id is scored (and averaged) again; ids that are not test cases and missing test cases make the submission invalid", challenge.RankedNames(c.Metrics())))
}
