// Package panthercommon implements the two PANTHER pancreatic-tumour
// segmentation challenges (panther-task1, diagnostic MRI; panther-task2,
// MR-Linac MRI), which share one reference grader: volumetric Dice, surface
// Dice at 5 mm, HD95 and MASD on DeepMind surface distances, and the RMSE of
// the tumour-burden error, with the voxel spacing read from the prediction
// file. The package registers the two tasks from its table, Variants.
package panthercommon

import (
	"github.com/rexmle/rexmle/pipeline/challenge"
)

// Task describes what differs between the two PANTHER tasks.
type Task struct {
	ID          string
	Title       string
	ArchiveName string // fallback archive in raw/, e.g. PANTHER_Task1.zip
	// Unpacked matches the task's own images once its archive is unpacked
	// in the folder both tasks share (see challenge.Download.Holds).
	Unpacked string
	// ImageSuffix selects the labelled images in raw/ImagesTr
	// ("_0001_0000.mha" for task 1, "_0000.mha" for task 2).
	ImageSuffix string
	// IDFields is how many "_"-separated fields of the image stem make the
	// image id (2 for task 1: 10000_0001; 1 for task 2: 10303).
	IDFields int
	// Unlabeled copies raw/ImagesTr_unlabeled into public/train_unlabeled/images.
	Unlabeled bool
	// Description is the agent-facing description.md.
	Description string
	// Synth tunes the synthetic data.
	Synth SynthConfig
}

// SynthConfig tunes Synthesize.
type SynthConfig struct {
	Cases      int        // labelled cases
	RealCases  int        // labelled cases of the real download
	FirstPID   int        // first patient number
	Unlabeled  int        // unlabeled images (task 1)
	Shape      [3]int     // x, y, z
	Spacing    [3]float64 // x, y, z in mm
	TumourGain float64    // tumour intensity relative to pancreas
	// The real download's image size (SynthSize.RealImages) and unlabeled
	// pool (task 1, scaled with the labelled count).
	RealShape     [3]int
	RealSpacing   [3]float64
	RealUnlabeled int
}

// Challenge is one PANTHER task; it implements challenge.Challenge.
type Challenge struct{ Task Task }

// ID returns the task id.
func (c Challenge) ID() string { return c.Task.ID }

// Metric names (leaderboard columns).
const (
	MetricDSC  = "dsc"
	MetricMSD  = "msd"
	MetricHD95 = "hd95"
	MetricMASD = "masd"
	MetricRMSE = "rmse"
	// CaseBurden is the per-case tumour-burden error |(|P|−|G|)|·v in mm³
	// (only in Result.Cases; rmse aggregates it).
	CaseBurden = "tumour_burden_error_mm3"
)

// Metrics lists the five ranked metrics in leaderboard column order.
func (Challenge) Metrics() []challenge.MetricCard {
	return []challenge.MetricCard{
		{Name: MetricDSC, Direction: challenge.HigherBetter, Ranked: true,
			Card: "Mean volumetric Dice of the tumour (GT label 1; quirk gt-label-one); an all-0 or all-1 prediction scores 0 (quirk uniform-penalty). Reference mode takes prediction values as the reference does: {0}, {0, 1}, {1} a mask; 1 and 2 both present → value 1; exactly two values one of them 0 → > 0; NaN counts once among the values (numpy.unique) and is never tumour, so {0, NaN} is empty and {0, 1, NaN} invalid; official mode refuses NaN and ±Inf."},
		{Name: MetricMSD, Direction: challenge.HigherBetter, Ranked: true,
			Card: "Mean surface Dice at 5 mm tolerance (DeepMind surfels, area-weighted, inclusive); uniform prediction 0; spacing from the prediction with x/y swapped (quirk prediction-spacing)."},
		{Name: MetricHD95, Direction: challenge.LowerBetter, Ranked: true,
			Card: "Mean robust Hausdorff distance (mm): max over both directions of the area-weighted 95th percentile surfel distance; uniform prediction = volume diagonal; +Inf propagates (quirk prediction-spacing)."},
		{Name: MetricMASD, Direction: challenge.LowerBetter, Ranked: true,
			Card: "Mean of the per-case mean average surface distance (mm): average of the two area-weighted directed means; uniform prediction = volume diagonal; NaN for an empty GT propagates."},
		{Name: MetricRMSE, Direction: challenge.LowerBetter, Ranked: true,
			Card: "Root mean square over cases of the tumour-burden error |(|P|−|G|)|·voxel volume in mm³ (voxel volume from the spacing in use); uniform prediction: |G|·v."},
	}
}

// Quirk ids.
const (
	QuirkSpacing = "prediction-spacing"
	QuirkLabel   = "gt-label-one"
	QuirkResize  = "resize-mismatched-prediction"
	QuirkBinary  = "non-binary-prediction"
)

// Quirks lists where the reference grader departs from the official PANTHER evaluation.
func (Challenge) quirks() []challenge.Quirk {
	return []challenge.Quirk{
		{ID: QuirkSpacing, Metrics: []string{MetricMSD, MetricHD95, MetricMASD, MetricRMSE},
			Reference: "voxel spacing is read from the prediction file and paired (sz, sx, sy) with the (z, y, x) array: the in-plane spacings are swapped when they differ",
			Official:  "voxel spacing is read from the ground-truth image in SimpleITK (sx, sy, sz) order and paired with the (z, y, x) array (the organisers' script)"},
		{ID: QuirkLabel, Metrics: []string{MetricDSC, MetricMSD, MetricHD95, MetricMASD, MetricRMSE},
			Reference: "the ground truth is the voxels labelled exactly 1 (tumour); other labels are background",
			Official:  "PANTHER's label convention: label 1 is tumour, label 2 pancreas (Task 1 training labels carry both; the organisers' baseline dataset lists background 0, tumor 1, and its Task 2 model is pre-trained on Task 1 labels as a tumour-and-pancreas model — DIAGNijmegen/PANTHER_baseline README and dataset.json), so a GT with values in {0, 1, 2} scores label 1 only; a GT with other values is binarised as every non-zero voxel, as the organisers' evaluation script (Evaluation/evaluate_local.py) does with its tumour-only test labels. Same as the reference on real masks"},
		{ID: QuirkBinary, Metrics: []string{MetricDSC, MetricMSD, MetricHD95, MetricMASD, MetricRMSE},
			Reference: "a prediction holding labels 1 and 2 (e.g. {0, 1, 2}) is graded with label 1 as tumour",
			Official:  "a prediction must be binary: {0}, {1}, {0, 1}, or two values one of which is 0 (values > 0 are tumour); {0, 1, 2} and other multi-valued masks are refused, as the organisers' evaluation script does"},
		{ID: QuirkResize, Metrics: []string{MetricDSC, MetricMSD, MetricHD95, MetricMASD, MetricRMSE},
			Reference: "a wrong-shaped prediction is resized to the GT shape by nearest-neighbour zoom (scipy order 0; an output index the rounded zoom factor puts past the last input sample reads background, cval 0) and a differing spacing is ignored",
			Official:  "a prediction whose shape or spacing differs from the GT's is an error (invalid submission)"},
	}
}

// Quirks lists where the reference grader departs from the official
// evaluation, the id rule included.
func (c Challenge) Quirks() []challenge.Quirk {
	return append(c.quirks(), challenge.IDRuleQuirk("every row is graded, so a repeated id is scored (and averaged) again; ids that are not test cases and missing test cases make the submission invalid", challenge.RankedNames(c.Metrics())))
}
