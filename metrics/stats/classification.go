package stats

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/rexmle/rexmle/metrics/num"
)

// Accuracy is scikit-learn's accuracy_score: the fraction of positions where
// yPred equals yTrue. Empty input is an error (sklearn divides 0/0 → NaN with
// a warning; we refuse instead), as are unequal lengths.
func Accuracy[T comparable](yTrue, yPred []T) (float64, error) {
	if err := checkLabels(len(yTrue), len(yPred)); err != nil {
		return 0, err
	}
	hit := 0
	for i := range yTrue {
		if yTrue[i] == yPred[i] {
			hit++
		}
	}
	return float64(hit) / float64(len(yTrue)), nil
}

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

// F1PerClass is scikit-learn's f1_score(average=None, labels=labels):
// per label 2·TP / (2·TP + FP + FN), and 0 when that denominator is 0
// (sklearn's zero_division default). With labels nil the sorted union of
// yTrue and yPred is used; the labels are returned with the scores.
func F1PerClass[T cmp.Ordered](yTrue, yPred []T, labels []T) ([]T, []float64, error) {
	if err := checkLabels(len(yTrue), len(yPred)); err != nil {
		return nil, nil, err
	}
	if labels == nil {
		labels = Labels(yTrue, yPred)
	}
	c := counts(yTrue, yPred, labels)
	f1 := make([]float64, len(labels))
	for i, cc := range c {
		den := 2*cc.TP + cc.FP + cc.FN
		if den > 0 {
			f1[i] = 2 * float64(cc.TP) / float64(den)
		}
	}
	return labels, f1, nil
}

// MacroF1 is scikit-learn's f1_score(average='macro'): the unweighted mean
// of F1PerClass over the sorted union of labels in yTrue and yPred (numpy
// mean, see Mean).
func MacroF1[T cmp.Ordered](yTrue, yPred []T) (float64, error) {
	_, f1, err := F1PerClass(yTrue, yPred, nil)
	if err != nil {
		return 0, err
	}
	return num.Mean(f1), nil
}
