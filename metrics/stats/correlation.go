package stats

import (
	"cmp"
	"fmt"
	"math"
	"slices"

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
	// The order among equal values does not matter: they share one rank.
	sorted := make([]valueAt, len(x))
	for i, v := range x {
		sorted[i] = valueAt{v, i}
	}
	slices.SortFunc(sorted, func(a, b valueAt) int { return compareNaNLast(a.v, b.v) })
	ranks := make([]float64, len(x))
	averageRanks(sorted, ranks)
	return ranks
}

// valueAt is a value and its position in the input.
type valueAt struct {
	v float64
	i int
}

// averageRanks writes into ranks, at each value's input position, the mean
// of the 1-based positions its run of equal values (NaNs equal each other)
// spans in sorted, which is in ascending order with NaN last.
func averageRanks(sorted []valueAt, ranks []float64) {
	for i := 0; i < len(sorted); {
		j := i + 1
		for j < len(sorted) && compareNaNLast(sorted[j].v, sorted[i].v) == 0 {
			j++
		}
		// positions i..j-1 (0-based) hold ranks i+1..j; their average:
		avg := float64(i+1+j) / 2
		for _, s := range sorted[i:j] {
			ranks[s.i] = avg
		}
		i = j
	}
}

// compareNaNLast orders numbers as usual and NaN after every number; NaNs
// are equal to each other, and −0 equals +0.
func compareNaNLast(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	an, bn := math.IsNaN(a), math.IsNaN(b)
	switch {
	case an == bn:
		return 0
	case an:
		return 1
	}
	return -1
}

// Spearman is scipy.stats.spearmanr's rho: the correlation of the average
// ranks of x and y (ties share the mean of their ranks), with numpy's
// corrcoef arithmetic, which spearmanr uses (see corrcoef; it differs from
// Pearson's, e.g. 0.7999999999999999 for ranks (1 2 3 4 5) and (2 1 4 3 5),
// and ±0.9999999999999999 for two values). A NaN anywhere or a constant
// input gives NaN; fewer than 2 values or unequal lengths are an error.
func Spearman(x, y []float64) (float64, error) {
	rho, _, err := RankCorrelations(x, y)
	return rho, err
}

// KendallTauB is scipy.stats.kendalltau's default statistic, tau-b:
// (n_c − n_d) / sqrt((n_0 − n_x)(n_0 − n_y)), n_0 = n(n−1)/2, n_x and n_y the
// pairs tied in x and in y (pairs tied in both count in each), computed as
// scipy does: (n_0 − n_x − n_y + n_xy − 2 n_d) / sqrt(n_0 − n_x) / sqrt(n_0 − n_y),
// clipped to [−1, 1]. O(n log n). A NaN anywhere or an all-tied x or y gives
// NaN; fewer than 2 values or unequal lengths are an error.
func KendallTauB(x, y []float64) (float64, error) {
	_, tau, err := RankCorrelations(x, y)
	return tau, err
}

// RankCorrelations is Spearman's rho and Kendall's tau-b of x and y at
// once, from one sort of the pairs by (x, y) and one merge sort of y: the
// first gives x's ranks and ties, the second y's ranks, ties and the
// discordant pairs.
func RankCorrelations(x, y []float64) (rho, tau float64, err error) {
	if err := checkPair(x, y); err != nil {
		return math.NaN(), math.NaN(), err
	}
	if hasNaN(x) || hasNaN(y) {
		return math.NaN(), math.NaN(), nil
	}
	n := len(x)
	type obs struct {
		x, y float64
		i    int
	}
	pairs := make([]obs, n)
	for i := range pairs {
		pairs[i] = obs{x[i], y[i], i}
	}
	slices.SortFunc(pairs, func(a, b obs) int {
		if c := cmp.Compare(a.x, b.x); c != 0 {
			return c
		}
		return cmp.Compare(a.y, b.y)
	})
	byX := make([]valueAt, n)
	byY := make([]valueAt, n)
	for k, p := range pairs {
		byX[k] = valueAt{p.x, p.i}
		byY[k] = valueAt{p.y, p.i}
	}
	tot := int64(n) * int64(n-1) / 2
	xtie := tieRuns(n, func(k int) bool { return pairs[k].x == pairs[k-1].x })
	xytie := tieRuns(n, func(k int) bool { return pairs[k].x == pairs[k-1].x && pairs[k].y == pairs[k-1].y })
	// Discordant pairs: inversions of y in the (x, y)-sorted order, where
	// pairs tied in x are never counted (they are sorted by y within a run).
	// Counting them sorts byY by y.
	dis := countInversions(byY)
	ytie := tieRuns(n, func(k int) bool { return byY[k].v == byY[k-1].v })

	rx, ry := make([]float64, n), make([]float64, n)
	averageRanks(byX, rx)
	averageRanks(byY, ry)
	rho = corrcoef(rx, ry)
	tau = math.NaN()
	if xtie != tot && ytie != tot {
		num := float64(tot - xtie - ytie + xytie - 2*dis)
		tau = num / math.Sqrt(float64(tot-xtie)) / math.Sqrt(float64(tot-ytie))
		tau = math.Max(-1, math.Min(1, tau))
	}
	return rho, tau, nil
}

// corrcoef is numpy's corrcoef(x, y)[1, 0] for two equally long samples
// of at least 2 values, as scipy's spearmanr takes it: cov centres each
// sample on its (pairwise-summed) mean, forms the dot products and
// multiplies them by float64(1/(n−1)); corrcoef then divides the
// covariance by y's standard deviation and then by x's (row, then column)
// and clips to [−1, 1]. A constant sample gives NaN (0/0), as numpy does.
// For ranks (multiples of 1/2 below 2^26) every centred value, product and
// sum is exact while n(n²−1)/12 < 2^53 (n below about 10^5), so BLAS's
// summation order cannot matter there; beyond that the sums are taken in
// index order.
func corrcoef(x, y []float64) float64 {
	mx, my := num.Mean(x), num.Mean(y)
	var sxx, syy, sxy float64
	for i := range x {
		dx, dy := x[i]-mx, y[i]-my
		sxx += float64(dx * dx) // the conversions forbid fused multiply-adds
		syy += float64(dy * dy)
		sxy += float64(dy * dx)
	}
	f := 1 / float64(len(x)-1)
	r := sxy * f / math.Sqrt(syy*f) / math.Sqrt(sxx*f)
	if math.IsNaN(r) {
		return r
	}
	return math.Max(-1, math.Min(1, r))
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

// countInversions counts pairs i < j with a[i].v > a[j].v (strictly) by a
// bottom-up merge sort, which leaves a sorted by v (stably).
func countInversions(a []valueAt) int64 {
	var inv int64
	tmp := make([]valueAt, len(a))
	src, dst := a, tmp
	for width := 1; width < len(a); width *= 2 {
		for lo := 0; lo < len(a); lo += 2 * width {
			mid, hi := min(lo+width, len(a)), min(lo+2*width, len(a))
			i, j, k := lo, mid, lo
			for i < mid && j < hi {
				if src[j].v < src[i].v {
					dst[k] = src[j]
					inv += int64(mid - i)
					j++
				} else {
					dst[k] = src[i]
					i++
				}
				k++
			}
			k += copy(dst[k:], src[i:mid])
			copy(dst[k:], src[j:hi])
		}
		src, dst = dst, src
	}
	if len(a) > 0 && &src[0] != &a[0] {
		copy(a, src)
	}
	return inv
}
