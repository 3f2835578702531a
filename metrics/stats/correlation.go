// Package stats holds classification and correlation statistics with the
// semantics of the Python libraries the reference graders call: scikit-learn
// for balanced accuracy; scipy.stats for Pearson, Spearman and Kendall's
// tau-b (including NaN for constant input).
//
// All functions are pure, take float64 slices (or comparable labels) and
// never panic: mismatched lengths return an error.
package stats

import (
	"fmt"
	"math"
	"sort"

	"github.com/rexmle/rexmle/metrics/num"
)

func checkPair(x, y []float64) error {
	if len(x) != len(y) {
		return fmt.Errorf("stats: x has %d values, y has %d", len(x), len(y))
	}
	if len(x) < 2 {
		return fmt.Errorf("stats: need at least 2 paired values, got %d", len(x))
	}
	return nil
}

func hasNaN(x []float64) bool {
	for _, v := range x {
		if math.IsNaN(v) {
			return true
		}
	}
	return false
}

func isConstant(x []float64) bool {
	for _, v := range x[1:] {
		if v != x[0] {
			return false
		}
	}
	return true
}

// Pearson is scipy.stats.pearsonr's correlation coefficient
// r = Σ(x−x̄)(y−ȳ) / sqrt(Σ(x−x̄)² Σ(y−ȳ)²), in float64, clipped to [−1, 1].
// Conventions (scipy ≥ 1.11): a NaN anywhere gives NaN (nan_policy
// 'propagate'); constant x or y gives NaN; n = 2 gives sign(Δx)·sign(Δy).
// Fewer than 2 values or unequal lengths are an error (scipy raises).
func Pearson(x, y []float64) (float64, error) {
	if err := checkPair(x, y); err != nil {
		return math.NaN(), err
	}
	if hasNaN(x) || hasNaN(y) {
		return math.NaN(), nil
	}
	if isConstant(x) || isConstant(y) {
		return math.NaN(), nil
	}
	if len(x) == 2 {
		return sign(x[1]-x[0]) * sign(y[1]-y[0]), nil
	}
	xm := centredScaled(x)
	ym := centredScaled(y)
	nx, ny := norm2(xm), norm2(ym)
	var r float64
	for i := range xm {
		r += (xm[i] / nx) * (ym[i] / ny)
	}
	return math.Max(-1, math.Min(1, r)), nil
}

func sign(v float64) float64 {
	switch {
	case v > 0:
		return 1
	case v < 0:
		return -1
	}
	return 0
}

// centredScaled returns (x − mean)/max|x − mean| as scipy does to avoid overflow.
func centredScaled(x []float64) []float64 {
	m := num.Mean(x)
	out := make([]float64, len(x))
	var mx float64
	for i, v := range x {
		out[i] = v - m
		mx = math.Max(mx, math.Abs(out[i]))
	}
	if mx > 0 {
		for i := range out {
			out[i] /= mx
		}
	}
	return out
}

// norm2 is the Euclidean norm computed with scaling (as LAPACK's nrm2).
func norm2(x []float64) float64 {
	var s float64
	for _, v := range x {
		s += v * v
	}
	return math.Sqrt(s)
}

// RankAverage returns the 1-based ranks of x with ties given the average of
// the ranks they span (scipy.stats.rankdata method='average'). NaN values
// sort last (as numpy's argsort puts them) and are ranked like numbers.
func RankAverage(x []float64) []float64 {
	n := len(x)
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	less := func(a, b float64) bool {
		if math.IsNaN(b) {
			return !math.IsNaN(a)
		}
		return a < b
	}
	sort.SliceStable(idx, func(a, b int) bool { return less(x[idx[a]], x[idx[b]]) })
	ranks := make([]float64, n)
	for i := 0; i < n; {
		j := i + 1
		for j < n && (x[idx[j]] == x[idx[i]] || (math.IsNaN(x[idx[j]]) && math.IsNaN(x[idx[i]]))) {
			j++
		}
		// positions i..j-1 (0-based) hold ranks i+1..j; their average:
		avg := float64(i+1+j) / 2
		for k := i; k < j; k++ {
			ranks[idx[k]] = avg
		}
		i = j
	}
	return ranks
}

// Spearman is scipy.stats.spearmanr's rho: the Pearson correlation of the
// average ranks of x and y (ties share the mean of their ranks). A NaN
// anywhere or a constant input gives NaN; fewer than 2 values or unequal
// lengths are an error.
func Spearman(x, y []float64) (float64, error) {
	if err := checkPair(x, y); err != nil {
		return math.NaN(), err
	}
	if hasNaN(x) || hasNaN(y) {
		return math.NaN(), nil
	}
	return Pearson(RankAverage(x), RankAverage(y))
}

// KendallTauB is scipy.stats.kendalltau's default statistic, tau-b:
// (n_c − n_d) / sqrt((n_0 − n_x)(n_0 − n_y)), n_0 = n(n−1)/2, n_x and n_y the
// pairs tied in x and in y (pairs tied in both count in each), computed as
// scipy does: (n_0 − n_x − n_y + n_xy − 2 n_d) / sqrt(n_0 − n_x) / sqrt(n_0 − n_y),
// clipped to [−1, 1]. O(n log n). A NaN anywhere or an all-tied x or y gives
// NaN; fewer than 2 values or unequal lengths are an error.
func KendallTauB(x, y []float64) (float64, error) {
	if err := checkPair(x, y); err != nil {
		return math.NaN(), err
	}
	if hasNaN(x) || hasNaN(y) {
		return math.NaN(), nil
	}
	n := len(x)
	// Sort pairs by (x, y).
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool {
		ia, ib := idx[a], idx[b]
		if x[ia] != x[ib] {
			return x[ia] < x[ib]
		}
		return y[ia] < y[ib]
	})
	xs := make([]float64, n)
	ys := make([]float64, n)
	for i, k := range idx {
		xs[i], ys[i] = x[k], y[k]
	}
	tot := int64(n) * int64(n-1) / 2
	xtie := tieRuns(n, func(i int) bool { return xs[i] == xs[i-1] })
	xytie := tieRuns(n, func(i int) bool { return xs[i] == xs[i-1] && ys[i] == ys[i-1] })
	// Discordant pairs: inversions of y in the (x, y)-sorted order, where
	// pairs tied in x are never counted (they are sorted by y within a run).
	dis := countInversions(ys)
	ysorted := append([]float64(nil), ys...)
	sort.Float64s(ysorted)
	ytie := tieRuns(n, func(i int) bool { return ysorted[i] == ysorted[i-1] })
	if xtie == tot || ytie == tot {
		return math.NaN(), nil
	}
	num := float64(tot - xtie - ytie + xytie - 2*dis)
	tau := num / math.Sqrt(float64(tot-xtie)) / math.Sqrt(float64(tot-ytie))
	return math.Max(-1, math.Min(1, tau)), nil
}

// tieRuns sums k(k−1)/2 over maximal runs of consecutive positions for which
// same(i) (element i equals element i−1) holds.
func tieRuns(n int, same func(i int) bool) int64 {
	var total, run int64 = 0, 1
	for i := 1; i < n; i++ {
		if same(i) {
			run++
			continue
		}
		total += run * (run - 1) / 2
		run = 1
	}
	return total + run*(run-1)/2
}

// countInversions counts pairs i < j with a[i] > a[j] (strictly), by merge sort.
func countInversions(a []float64) int64 {
	buf := append([]float64(nil), a...)
	tmp := make([]float64, len(a))
	var rec func(lo, hi int) int64
	rec = func(lo, hi int) int64 {
		if hi-lo < 2 {
			return 0
		}
		mid := (lo + hi) / 2
		inv := rec(lo, mid) + rec(mid, hi)
		i, j, k := lo, mid, lo
		for i < mid && j < hi {
			if buf[j] < buf[i] {
				tmp[k] = buf[j]
				inv += int64(mid - i)
				j++
			} else {
				tmp[k] = buf[i]
				i++
			}
			k++
		}
		for ; i < mid; i++ {
			tmp[k] = buf[i]
			k++
		}
		for ; j < hi; j++ {
			tmp[k] = buf[j]
			k++
		}
		copy(buf[lo:hi], tmp[lo:hi])
		return inv
	}
	return rec(0, len(buf))
}
