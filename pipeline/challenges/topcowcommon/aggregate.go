package topcowcommon

import (
	"fmt"

	"github.com/rexmle/rexmle/pipeline/challenge"
)

// CaseStatistic tells the rank stage's bootstrap how the CoW graph
// accuracies are recomputed over a resample of the graded cases. In the
// reference mode every true class is "correct", so the balanced accuracy of
// the graph classification is the recall of "correct": the fraction of
// cases whose anterior (posterior) topology matches, the mean of the
// per-case anterior_topology (posterior_topology) indicator Grade stores.
// In the official mode the true classes are the variants themselves, which
// are not stored; there the rank stage finds that the full sample does not
// reproduce the graded value and reports the interval as unavailable.
// Detection F1 (f1_grp2, f1_side_road) pools per-label counts that are not
// stored per case, and the task-3 balanced accuracies need the per-case
// variant classes: no recomputation. Every other metric is a mean over cases.
func (c Challenge) CaseStatistic(metric string, cases []challenge.Case) (func(idx []int) float64, error) {
	var key string
	switch metric {
	case "anterior_graph_acc":
		key = "anterior_topology"
	case "posterior_graph_acc":
		key = "posterior_topology"
	case "f1_grp2", "f1_side_road":
		return nil, fmt.Errorf("%s: %w (%s pools per-label detection counts over cases; they are not stored per case)", c.Config.ID, challenge.ErrNotAMean, metric)
	case "anterior_acc", "posterior_acc":
		return nil, fmt.Errorf("%s: %w (%s is a balanced accuracy over the per-case variant classes, which are not stored)", c.Config.ID, challenge.ErrNotAMean, metric)
	default:
		return nil, nil
	}
	hit := make([]bool, len(cases))
	for i, cs := range cases {
		v, ok := cs.Values[key]
		if !ok {
			return nil, fmt.Errorf("%s case %s: %w (per-case %s not stored)", c.Config.ID, cs.ID, challenge.ErrNotAMean, key)
		}
		hit[i] = v == 1
	}
	return func(idx []int) float64 {
		n := 0
		for _, i := range idx {
			if hit[i] {
				n++
			}
		}
		return float64(n) / float64(len(idx))
	}, nil
}
