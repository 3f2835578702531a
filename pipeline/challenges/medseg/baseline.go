package medseg

import (
	"math"
	"sort"

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

// BandSearch picks an intensity band from quantiles of the foreground
// intensities fg: every pair (quantile lq, quantile hq + pad) of loQs × hiQs
// is scored and the best kept (the first on ties). Quantiles are the sorted
// values at index ⌊q·(n−1)⌋. ok is false when fg is empty.
func BandSearch(fg, loQs, hiQs []float64, pad float64, score func(lo, hi float64) (float64, error)) (lo, hi, best float64, ok bool, err error) {
	if len(fg) == 0 {
		return 0, 0, 0, false, nil
	}
	v := append([]float64(nil), fg...)
	sort.Float64s(v)
	q := func(p float64) float64 { return v[int(p*float64(len(v)-1))] }
	best = math.Inf(-1)
	for _, lq := range loQs {
		for _, hq := range hiQs {
			l, h := q(lq), q(hq)+pad
			d, err := score(l, h)
			if err != nil {
				return 0, 0, 0, true, err
			}
			if d > best {
				lo, hi, best = l, h, d
			}
		}
	}
	return lo, hi, best, true, nil
}

// HoldOut fits a model on all but the first fifth of cases and scores it on
// that fifth, the check the baselines report before refitting on every
// case. nVal is 0 (and nothing is fitted) when there are fewer than 5 cases.
func HoldOut[C, M any](cases []C, fit func([]C) (M, float64, error), score func([]C, M) (float64, error)) (m M, trainScore, heldScore float64, nVal int, err error) {
	nVal = len(cases) / 5
	if nVal == 0 {
		return m, 0, 0, 0, nil
	}
	if m, trainScore, err = fit(cases[nVal:]); err != nil {
		return m, 0, 0, nVal, err
	}
	heldScore, err = score(cases[:nVal], m)
	return m, trainScore, heldScore, nVal, err
}
