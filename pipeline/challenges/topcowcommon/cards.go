package topcowcommon

import (
	"fmt"

	"github.com/rexmle/rexmle/pipeline/challenge"
)

const (
	up   = challenge.HigherBetter
	down = challenge.LowerBetter
)

// Metrics lists the leaderboard metrics in leaderboard column order.
func (c Challenge) Metrics() []challenge.MetricCard {
	card := func(name string, d challenge.Direction, text string) challenge.MetricCard {
		return challenge.MetricCard{Name: name, Direction: d, Ranked: true, Card: text}
	}
	// extra is an unranked output of the organisers' evaluation: official
	// mode only (mean over rows), NaN in reference mode.
	extra := func(name string, d challenge.Direction, text string) challenge.MetricCard {
		return challenge.MetricCard{Name: name, Direction: d, Card: "UNRANKED, OFFICIAL MODE ONLY (NaN in reference mode, which does not compute it): mean over rows of the " + text + "; computed as the organisers' evaluation does"}
	}
	switch {
	case c.Task == Box:
		return []challenge.MetricCard{
			card("boundary_iou", up, "mean over rows of the IoU of the GT and predicted boxes grown outward by ceil(0.2·size) voxels per side (quirk grown-boxes; official: IoU of 0.2 inner shells); 0 when both grown boxes are empty"),
			card("iou", up, "mean over rows of the IoU of the boxes grown outward by ceil(0.5·size) per side (quirk grown-boxes; official: plain box IoU)"),
		}
	case c.Task == Edges:
		return []challenge.MetricCard{
			card("anterior_acc", up, "balanced accuracy of the anterior CoW variant class Var_Ant_<L-A1>_<Acom>_<3rd-A2>_<R-A1> over GT classes; values rendered as parsed (quirk edge-values-as-parsed)"),
			card("posterior_acc", up, "balanced accuracy of the posterior variant class Var_Pos_<L-Pcom>_<L-P1>_<R-P1>_<R-Pcom> over GT classes; values rendered as parsed (quirk edge-values-as-parsed)"),
			extra("anterior_edge_distance", down, "Euclidean distance between the predicted and true anterior 4-edge vectors (values as integers)"),
			extra("posterior_edge_distance", down, "Euclidean distance between the predicted and true posterior 4-edge vectors (values as integers)"),
		}
	case c.Family == TopBrain:
		return []challenge.MetricCard{
			card("dice", up, "mean over rows of the mean over GT∪prediction labels of Dice (0 when either side lacks the label; voxel counts); an empty case scores 0"),
			card("cldice", up, "mean over rows of the per-label clDice over GT∪prediction labels, Lee skeletons of the (x,y,z) array, 0 when either side lacks the label or a skeleton is empty"),
			card("b0_error", down, "mean over rows of the mean over GT∪prediction labels of |B0(pred)−B0(GT)| (26-connected components)"),
			card("hd95", down, "mean over rows of the mean per-label HD95 in mm, 290 when either side lacks the label (quirk hd95-directed: reference prediction→GT only)"),
			card("neighbor_error", down, "mean over rows of the mean number of labels touching a predicted label (26-adjacency) that the TopBrain valid-neighbour table forbids (quirk neighbour-label-set: averaged over GT∪prediction labels)"),
			card("f1_side_road", up, fmt.Sprintf("mean F1 over the %d side-road labels, TP when the GT has the label and IoU ≥ 0.25, counts summed over rows; 0 for a label never present", len(sideRoadLabels(c.Modality)))),
		}
	}
	return []challenge.MetricCard{
		card("dice", up, "mean over rows of the class-averaged Dice over GT labels, 2|G∩P|/(|G|+|P|+1e−7) (quirks gt-labels-only, dice-epsilon); a case without GT labels scores 1"),
		card("cldice", up, "mean over rows of clDice of the merged binary masks, Lee skeletons of the (z,y,x) array (quirk cldice-axis-order); 0 when a skeleton is empty"),
		card("b0_error", down, "mean over rows of the class-averaged |B0(pred)−B0(GT)| over GT labels, 26-connectivity (quirk gt-labels-only)"),
		card("hd95", down, "mean over rows of the class-averaged HD95 in mm over GT labels, 90 when the prediction lacks a label (quirks gt-labels-only, hd95-directed)"),
		card("f1_grp2", up, "mean F1 of detecting labels 8, 9, 10, 15 (R/L-Pcom, Acom, 3rd-A2): TP when the GT has the label and IoU ≥ 0.25, counts summed over rows; 0 for a label never present"),
		card("anterior_graph_acc", up, "anterior CoW graph accuracy (quirk simplified-topology: reference equals anterior_topology; official balanced accuracy of edge-list variants)"),
		card("posterior_graph_acc", up, "posterior CoW graph accuracy (quirk simplified-topology)"),
		card("anterior_topology", up, "fraction of rows whose labels 10, 11, 12, 15 are detected (IoU ≥ 0.25) or correctly absent (quirk simplified-topology)"),
		card("posterior_topology", up, "fraction of rows whose labels 2, 3, 8, 9 are detected (IoU ≥ 0.25) or correctly absent (quirk simplified-topology)"),
		extra("hd", down, "class-averaged symmetric Hausdorff distance (HD100) in mm over GT ∪ prediction labels, 90 when either side lacks a label"),
		extra("dice_merged", up, "Dice of the merged binary masks (every CoW label as one foreground), 0 when either side is empty"),
		extra("b0_error_merged", down, "|B0(pred) − B0(GT)| of the merged binary masks, 26-connectivity"),
		extra("hd95_merged", down, "symmetric HD95 in mm of the merged binary masks, 90 when either side is empty"),
		extra("hd_merged", down, "symmetric HD100 in mm of the merged binary masks, 90 when either side is empty"),
	}
}

// Quirks lists where the reference grader departs from the official evaluation.
func (c Challenge) quirks() []challenge.Quirk {
	switch {
	case c.Task == Box:
		return []challenge.Quirk{{
			ID: "grown-boxes", Metrics: []string{"boundary_iou", "iou"},
			Reference: "both boxes are grown outward by ceil(r·size) voxels on every side (r = 0.2 for boundary_iou, 0.5 for iou) and the filled grown boxes are compared",
			Official:  "each box is replaced by its inner shell of voxels within ceil(r·size) of a face; r = 0.5 gives the plain box IoU",
		}}
	case c.Task == Edges:
		return []challenge.Quirk{
			{ID: "edge-values-as-parsed", Metrics: []string{"anterior_acc", "posterior_acc"},
				Reference: "edge values enter the class string as parsed (JSON 1.0 → \"1.0\", true → \"True\"), so only integer 0/1 can match",
				Official:  "every edge value is converted with int() first (1.0 and true count as 1)"},
			{ID: "yaml-extension", Metrics: []string{"anterior_acc", "posterior_acc"},
				Reference: "prediction files may end in .json, .yml or .yaml",
				Official:  "only .json and .yml are accepted"},
		}
	case c.Family == TopBrain:
		return []challenge.Quirk{
			{ID: "neighbour-label-set", Metrics: []string{"neighbor_error"},
				Reference: "the invalid-neighbour count is averaged over the labels of GT ∪ prediction (GT-only labels add zeros)",
				Official:  "averaged over the labels present in the prediction only"},
			{ID: "hd95-directed", Metrics: []string{"hd95"},
				Reference: "95th percentile of prediction-edge → GT-edge distances only (MONAI, 6-connected edges, float32)",
				Official:  "symmetric: the larger of the two directed 95th percentiles (on the same 6-connected (face-neighbour) edges, float64: the organisers' SimpleITK contour is that edge, measured to agree within 6e-9)"},
		}
	}
	return []challenge.Quirk{
		{ID: "gt-labels-only", Metrics: []string{"dice", "b0_error", "hd95"},
			Reference: "class averages run over the labels present in the GT; labels only in the prediction are ignored",
			Official:  "class averages run over GT ∪ prediction labels; a prediction-only label scores Dice 0, its full B0 as error and HD95 90"},
		{ID: "prediction-shape", Metrics: []string{"dice", "cldice", "b0_error", "hd95"},
			Reference: "a prediction on a different voxel grid is resampled onto the GT grid (nearest neighbour in physical space) and graded",
			Official:  "a prediction whose voxel grid differs from the GT's is refused, as the organisers' evaluation stops on \"gt pred not matching shapes\""},
		{ID: "no-label-case", Metrics: []string{"dice"},
			Reference: "a case whose GT has no foreground label scores Dice 1",
			Official:  "a case with no foreground label in GT or prediction scores Dice 0, as the organisers' evaluation gives it"},
		{ID: "dice-epsilon", Metrics: []string{"dice"},
			Reference: "Dice denominator |G|+|P|+1e−7",
			Official:  "Dice without epsilon (0 when either side lacks the label)"},
		{ID: "hd95-directed", Metrics: []string{"hd95"},
			Reference: "95th percentile of prediction-edge → GT-edge distances only (MONAI, 6-connected edges, float32)",
			Official:  "symmetric: the larger of the two directed 95th percentiles, 90 when either side lacks the label (on the 6-connected (face-neighbour) edges, in float64: the organisers' SimpleITK contour is that edge, measured to agree within 6e-9)"},
		{ID: "cldice-axis-order", Metrics: []string{"cldice"},
			Reference: "Lee skeletons of the (z,y,x) array SimpleITK returns",
			Official:  "Lee skeletons of the (x,y,z) array"},
		{ID: "simplified-topology", Metrics: []string{"anterior_graph_acc", "posterior_graph_acc", "anterior_topology", "posterior_topology"},
			Reference: "a side matches when each of its labels is detected (IoU ≥ 0.25) or correctly absent; graph accuracy equals the match rate",
			Official:  "graph accuracy = balanced accuracy of the variant classes of edge lists derived from both segmentations; topology = variant-balanced rate of sides with every label TP/TN, the same neighbour labels and the same B0, and left/right labels not mirrored"},
		{ID: "no-roi-crop", Metrics: []string{"dice", "cldice", "b0_error", "hd95", "f1_grp2", "anterior_graph_acc", "posterior_graph_acc", "anterior_topology", "posterior_topology"},
			Reference: "every metric is computed on the whole volume",
			Official:  "GT and prediction are first cropped to the case's CoW ROI box (kept in private/test/roi by Prepare when the archive has it)"},
	}
}

// Quirks lists where the reference grader departs from the official
// evaluation, the id rule included.
func (c Challenge) Quirks() []challenge.Quirk {
	return append(c.quirks(), challenge.IDRuleQuirk("every row is graded, so a repeated id is scored (and averaged) again; ids that are not test cases and missing test cases make the submission invalid", challenge.RankedNames(c.Metrics())))
}
