package topcowcommon

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/rexmle/rexmle/metrics/stats"
	"github.com/rexmle/rexmle/metrics/topology"
	"github.com/rexmle/rexmle/pipeline/challenge"
)

// GraderVersion versions what the TopCoW/TopBrain graders store beyond the
// metric cards: 2 adds the per-case details (caseDetail) and stores a
// repeated id's rows as distinct cases (challenge.DistinctCaseIDs).
func (Challenge) GraderVersion() string { return "2" }

// caseDetail is what a graded case stores (challenge.Case.Detail, JSON) so
// that the rank stage's bootstrap can recompute the pooled metrics over a
// resample of cases.
type caseDetail struct {
	// Det is the case's detection outcome for each label of the pooled
	// detection F1 (f1_grp2: group2Labels; f1_side_road: sideRoadLabels),
	// in label order: "TP", "FN", "FP" or "TN" (topology.DetectionCounts.Add).
	// Absent for a TopBrain case with no label on either side, which the
	// graders leave out of the detection counts.
	Det []string `json:"det,omitempty"`
	// Acc holds, per balanced-accuracy metric, the case's true class and
	// whether the class the grader compared it with equals it.
	Acc map[string]classOutcome `json:"acc,omitempty"`
}

// classOutcome is one case's entry in a balanced accuracy. Only the true
// class and whether the compared class equals it are kept: the recall of a
// class depends on nothing else, and classes that occur only among the
// compared classes are dropped by the balanced accuracy (see
// balancedAccuracyStat).
type classOutcome struct {
	True string `json:"true"`
	Hit  bool   `json:"hit"`
}

// Detection outcomes as stored in caseDetail.Det.
const (
	outTP = "TP"
	outFN = "FN"
	outFP = "FP"
	outTN = "TN"
)

// detectionOutcome is the outcome topology.DetectionCounts.Add tallies for
// one case and one label.
func detectionOutcome(inGT, inPred bool, iou float64) string {
	var d topology.DetectionCounts
	d.Add(inGT, inPred, iou, detectionIoU)
	switch {
	case d.TP == 1:
		return outTP
	case d.FN == 1:
		return outFN
	case d.FP == 1:
		return outFP
	}
	return outTN
}

// encodeDetail renders a case detail (never fails for these types).
func encodeDetail(d caseDetail) []byte {
	b, err := json.Marshal(d)
	if err != nil {
		panic(fmt.Sprintf("encode case detail: %v", err))
	}
	return b
}

// f1Metric is the challenge's pooled detection F1 and its label count
// ("" for the tasks without one).
func (c Challenge) f1Metric() (string, int) {
	switch {
	case c.Task == Box || c.Task == Edges:
		return "", 0
	case c.Family == TopBrain:
		return "f1_side_road", len(sideRoadLabels(c.Modality))
	}
	return "f1_grp2", len(group2Labels)
}

// accMetrics are the challenge's balanced accuracies.
func (c Challenge) accMetrics() []string {
	switch {
	case c.Task == Edges:
		return []string{"anterior_acc", "posterior_acc"}
	case c.Task == Box || c.Family == TopBrain:
		return nil
	}
	return []string{"anterior_graph_acc", "posterior_graph_acc", "anterior_topology", "posterior_topology"}
}

// CaseStatistic tells the rank stage's bootstrap how the pooled metrics
// are recomputed over a resample of the graded cases, from the details
// Grade stores per case:
//   - the detection F1 (f1_grp2, f1_side_road): each label's TP, FP and FN
//     summed over the resampled cases (a case drawn twice counts twice, an
//     empty TopBrain case not at all), then the mean over the labels of
//     2TP/(2TP+FP+FN), 0 for a label with no TP, FP or FN — as Grade pools
//     them (topology.MeanF1);
//   - the balanced accuracies (TopCoW graph accuracies and topology in both
//     modes, task-3 anterior_acc and posterior_acc): scikit-learn's
//     balanced_accuracy_score over the resampled (true, compared) classes,
//     the mean recall over the classes present among the resampled true
//     classes. A class absent from a resample is not averaged, as sklearn
//     drops the undefined recall of a class that occurs only among the
//     predictions (with a warning) and knows nothing of a class on neither
//     side.
//
// Every other metric is a mean over cases. A run graded before details
// were stored has none: the interval is then unavailable until it is
// regraded.
func (c Challenge) CaseStatistic(metric string, cases []challenge.Case) (func(idx []int) float64, error) {
	f1, nLabels := c.f1Metric()
	isAcc := slices.Contains(c.accMetrics(), metric)
	if metric != f1 && !isAcc {
		return nil, nil
	}
	details := make([]caseDetail, len(cases))
	for i, cs := range cases {
		if cs.Detail == nil {
			return nil, fmt.Errorf("%s case %s: %w (%s needs the per-case detail, which this run's grading did not store: regrade it)", c.Config.ID, cs.ID, challenge.ErrNotAMean, metric)
		}
		if err := json.Unmarshal(cs.Detail, &details[i]); err != nil {
			return nil, fmt.Errorf("%s case %s: %w (unreadable per-case detail: %v)", c.Config.ID, cs.ID, challenge.ErrNotAMean, err)
		}
	}
	if isAcc {
		return balancedAccuracyStat(c.Config.ID, metric, cases, details)
	}
	return detectionF1Stat(c.Config.ID, metric, nLabels, cases, details)
}

// detectionF1Stat pools the stored per-case detection outcomes.
func detectionF1Stat(id, metric string, nLabels int, cases []challenge.Case, details []caseDetail) (func([]int) float64, error) {
	per := make([][]topology.DetectionCounts, len(cases))
	for i, d := range details {
		if d.Det == nil {
			continue // left out of the detection counts
		}
		if len(d.Det) != nLabels {
			return nil, fmt.Errorf("%s case %s: %w (%d detection outcomes stored, want %d)", id, cases[i].ID, challenge.ErrNotAMean, len(d.Det), nLabels)
		}
		per[i] = make([]topology.DetectionCounts, nLabels)
		for k, o := range d.Det {
			switch o {
			case outTP:
				per[i][k].TP = 1
			case outFN:
				per[i][k].FN = 1
			case outFP:
				per[i][k].FP = 1
			case outTN:
				per[i][k].TN = 1
			default:
				return nil, fmt.Errorf("%s case %s: %w (detection outcome %q)", id, cases[i].ID, challenge.ErrNotAMean, o)
			}
		}
	}
	sum := make([]topology.DetectionCounts, nLabels)
	return func(idx []int) float64 {
		clear(sum)
		for _, i := range idx {
			for k, d := range per[i] {
				sum[k].TP += d.TP
				sum[k].FN += d.FN
				sum[k].FP += d.FP
				sum[k].TN += d.TN
			}
		}
		return topology.MeanF1(sum)
	}, nil
}

// balancedAccuracyStat recomputes a balanced accuracy over resampled
// cases. The true classes are numbered in their sorted order and a case
// whose compared class differs from its true class is given the class -1,
// which is no case's true class: stats.BalancedAccuracy then sees the same
// per-class recalls in the same order as over the graded labels (a wrong
// class only adds a false positive to a class, which no recall counts).
func balancedAccuracyStat(id, metric string, cases []challenge.Case, details []caseDetail) (func([]int) float64, error) {
	outs := make([]classOutcome, len(cases))
	var names []string
	for i, d := range details {
		o, ok := d.Acc[metric]
		if !ok {
			return nil, fmt.Errorf("%s case %s: %w (no stored class for %s)", id, cases[i].ID, challenge.ErrNotAMean, metric)
		}
		outs[i] = o
		names = append(names, o.True)
	}
	sort.Strings(names)
	names = slices.Compact(names)
	truth := make([]int, len(cases))
	pred := make([]int, len(cases))
	for i, o := range outs {
		truth[i], _ = slices.BinarySearch(names, o.True)
		pred[i] = -1
		if o.Hit {
			pred[i] = truth[i]
		}
	}
	yt := make([]int, 0, len(cases))
	yp := make([]int, 0, len(cases))
	return func(idx []int) float64 {
		yt, yp = yt[:0], yp[:0]
		for _, i := range idx {
			yt = append(yt, truth[i])
			yp = append(yp, pred[i])
		}
		v, err := stats.BalancedAccuracy(yt, yp)
		if err != nil { // only for an empty resample
			return math.NaN()
		}
		return v
	}, nil
}
