// Package sega is the SEG.A. 2023 challenge: 3-D segmentation of the aortic
// vessel tree in CT angiography (the AVT dataset), graded by the medians of
// the per-case Dice and Hausdorff distance as the ReX-MLE reference does.
package sega

import (
	_ "embed"

	"github.com/rexmle/rexmle/pipeline/challenge"
)

// ID is the challenge id.
const ID = "seg_a"

// Challenge implements challenge.Challenge for SEG.A. 2023.
type Challenge struct{}

func init() { challenge.Register(Challenge{}) }

// ID returns "seg_a".
func (Challenge) ID() string { return ID }

// Metric names (leaderboard columns) and per-case keys.
const (
	MetricHD50  = "hd_50pc"
	MetricDSC50 = "dsc_50pc"
	CaseHD      = "hd"
	CaseDSC     = "dsc"
)

// Metrics lists the two ranked metrics in leaderboard column order.
func (Challenge) Metrics() []challenge.MetricCard {
	return []challenge.MetricCard{
		{Name: MetricHD50, Direction: challenge.LowerBetter, Ranked: true,
			Card: "Median over cases of the Hausdorff distance between MONAI-style 6-connected edge voxels; reference: directed prediction→GT, voxel units, float32 (quirks hd-directed, hd-voxel-units); both empty 0, one empty = array diagonal."},
		{Name: MetricDSC50, Direction: challenge.HigherBetter, Ranked: true,
			Card: "Median over cases of the Dice 2|P∩G|/(|P|+|G|) of foreground (value > 0) voxels; both empty 1, one empty 0. Reference mode thresholds as the reference (> 0): NaN and −Inf voxels are background, +Inf foreground; official mode refuses non-finite voxels."},
	}
}

// Quirk ids.
const (
	QuirkDirected = "hd-directed"
	QuirkVoxels   = "hd-voxel-units"
	QuirkResize   = "resize-mismatched-prediction"
)

// Quirks lists where the reference grader departs from the official SEG.A. evaluation.
func (Challenge) quirks() []challenge.Quirk {
	return []challenge.Quirk{
		{ID: QuirkDirected, Metrics: []string{MetricHD50},
			Reference: "the Hausdorff distance is directed, prediction edges → GT edges only (a prediction inside the GT surface scores 0)",
			Official:  "the Hausdorff distance is symmetric: the larger of the two directed maxima"},
		{ID: QuirkVoxels, Metrics: []string{MetricHD50},
			Reference: "spacing is never found by the grader, so distances are in voxel index units and rounded to float32 (current MONAI); one empty mask scores the array diagonal in voxels",
			Official:  "distances in millimetres with the GT image spacing, float64; one empty mask scores the physical diagonal"},
		{ID: QuirkResize, Metrics: []string{MetricHD50, MetricDSC50},
			Reference: "a wrong-shaped prediction is resized to the GT shape by nearest-neighbour zoom (scipy order 0; an output index the rounded zoom factor puts past the last input sample reads background, cval 0)",
			Official:  "a prediction whose shape differs from the GT's is rejected"},
	}
}

//go:embed description.md
var description string

// Quirks lists where the reference grader departs from the official
// evaluation, the id rule included.
func (c Challenge) Quirks() []challenge.Quirk {
	return append(c.quirks(), challenge.IDRuleQuirk("every row is graded, so a repeated id is scored (and averaged) again; ids that are not test cases and missing test cases make the submission invalid", challenge.RankedNames(c.Metrics())))
}
