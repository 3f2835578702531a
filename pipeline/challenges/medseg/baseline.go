package medseg

import (
	"github.com/rexmle/rexmle/metrics/components"
	"github.com/rexmle/rexmle/metrics/overlap"
	"github.com/rexmle/rexmle/metrics/volume"
)

// LargestComponent keeps only the largest 26-connected component of mask
// (the first of equal sizes, in scan order), in place, and returns it. A mask
// with at most one component is returned unchanged.
func LargestComponent(mask []bool, g volume.Grid) ([]bool, error) {
	labels, n, err := components.Label(mask, g, 26)
	if err != nil || n <= 1 {
		return mask, err
	}
	sizes := components.Sizes(labels, n)
	best := 0
	for i, s := range sizes {
		if s > sizes[best] {
			best = i
		}
	}
	for i, l := range labels {
		mask[i] = l == int32(best+1)
	}
	return mask, nil
}

// MeanDice is the mean over cases of the Dice of the mask predict returns
// against the case's truth, both-empty counting 1: how the built-in
// baselines score a model on training cases. No cases give 0.
func MeanDice[C any](cases []C, predict func(C) (pred, truth []bool, err error)) (float64, error) {
	if len(cases) == 0 {
		return 0, nil
	}
	var sum float64
	for _, c := range cases {
		p, t, err := predict(c)
		if err != nil {
			return 0, err
		}
		d, err := overlap.Dice(p, t, 1)
		if err != nil {
			return 0, err
		}
		sum += d
	}
	return sum / float64(len(cases)), nil
}
