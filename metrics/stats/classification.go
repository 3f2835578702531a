package stats

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/rexmle/rexmle/metrics/num"
)

func checkLabels(nt, np int) error {
	if nt != np {
		return fmt.Errorf("stats: %d true labels, %d predicted labels", nt, np)
	}
	if nt == 0 {
		return fmt.Errorf("stats: no labels")
	}
	return nil
}

// Labels returns the sorted union of the labels in yTrue and yPred
// (scikit-learn's unique_labels).
func Labels[T cmp.Ordered](yTrue, yPred []T) []T {
	set := map[T]struct{}{}
	for _, v := range yTrue {
		set[v] = struct{}{}
	}
	for _, v := range yPred {
		set[v] = struct{}{}
	}
	out := make([]T, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// ClassCounts holds the confusion counts of one class (one-vs-rest).
type ClassCounts struct {
	TP, FP, FN int
}

func counts[T cmp.Ordered](yTrue, yPred []T, labels []T) []ClassCounts {
	pos := make(map[T]int, len(labels))
	for i, l := range labels {
		pos[l] = i
	}
	c := make([]ClassCounts, len(labels))
	for i := range yTrue {
		t, tok := pos[yTrue[i]]
		p, pok := pos[yPred[i]]
		if tok && pok && t == p {
			c[t].TP++
			continue
		}
		if tok {
			c[t].FN++
		}
		if pok {
			c[p].FP++
		}
	}
	return c
}

// BalancedAccuracy is scikit-learn's balanced_accuracy_score (adjusted=False):
// the mean over the classes present in yTrue of the per-class recall
// TP/(TP+FN). Classes that occur only in yPred are ignored (sklearn drops
// their NaN recall with a warning). The mean is numpy's (num.Mean) over
// the recalls in sorted label order; no class in yTrue gives NaN.
func BalancedAccuracy[T cmp.Ordered](yTrue, yPred []T) (float64, error) {
	if err := checkLabels(len(yTrue), len(yPred)); err != nil {
		return 0, err
	}
	labels := Labels(yTrue, yPred)
	c := counts(yTrue, yPred, labels)
	recalls := make([]float64, 0, len(c))
	for _, cc := range c {
		if cc.TP+cc.FN == 0 {
			continue
		}
		recalls = append(recalls, float64(cc.TP)/float64(cc.TP+cc.FN))
	}
	// np.mean of the recalls in sorted label order: pairwise from 8 classes on.
	return num.Mean(recalls), nil
}
