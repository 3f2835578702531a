package rank

import (
	"hash/fnv"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/rexmle/rexmle/metrics/num"
)

// DefaultBoot is the default number of bootstrap resamples B.
const DefaultBoot = 1000

// DefaultBootSeed is the default bootstrap seed recorded with every interval.
const DefaultBootSeed = 20251218

// DefaultConfidence is the coverage of the percentile intervals (95 %).
const DefaultConfidence = 0.95

// StreamRNG returns the random source of one resampled object (a run): a PCG
// generator seeded with (bootSeed, FNV-1a 64 of stream). The stream name (the
// run id) makes each run's resamples independent of the others and of the
// order in which runs are visited, so the output is byte-reproducible.
func StreamRNG(bootSeed uint64, stream string) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(stream))
	return rand.New(rand.NewPCG(bootSeed, h.Sum64()))
}

// Resample draws b resamples of n cases with replacement from rng: out[k] is
// the k-th resample, n indices in [0, n), drawn in order with rng.IntN(n).
// n = 0 or b ≤ 0 gives no resamples.
func Resample(rng *rand.Rand, n, b int) [][]int {
	if n <= 0 || b <= 0 {
		return nil
	}
	flat := make([]int, n*b)
	for i := range flat {
		flat[i] = rng.IntN(n)
	}
	out := make([][]int, b)
	for k := range out {
		out[k] = flat[k*n : (k+1)*n : (k+1)*n]
	}
	return out
}

// quantileSorted is numpy's linear quantile (num.QuantileSorted) of sorted
// NaN-free values, except that two equal neighbours — two equal infinities
// included — give that value, not numpy's NaN from Inf − Inf: a bootstrap
// distribution of a metric that is +Inf in most resamples (an identical
// image's PSNR) has the interval end +Inf. q outside [0, 1] gives NaN.
func quantileSorted(s []float64, q float64) float64 {
	if len(s) == 0 || !(q >= 0 && q <= 1) {
		return math.NaN()
	}
	h := float64(len(s)-1) * q
	i := int(math.Floor(h))
	if i >= len(s)-1 {
		return s[len(s)-1]
	}
	if s[i] == s[i+1] {
		return s[i]
	}
	return num.QuantileSorted(s, q)
}

// PercentileInterval is the bootstrap percentile interval of coverage
// confidence (e.g. 0.95): the (1−c)/2 and (1+c)/2 quantiles of the bootstrap
// distribution x (see quantileSorted: numpy's linear interpolation; a NaN
// makes both NaN). It is what scipy.stats.bootstrap(method="percentile") returns
// for the same resampled statistics.
func PercentileInterval(x []float64, confidence float64) (lo, hi float64) {
	alpha := (1 - confidence) / 2
	// scipy passes the levels to np.percentile in percent, which divides by
	// 100 again: the same round trip gives the same last bits.
	qlo, qhi := alpha*100/100, (1-alpha)*100/100
	for _, v := range x {
		if math.IsNaN(v) {
			return math.NaN(), math.NaN()
		}
	}
	if len(x) == 0 {
		return math.NaN(), math.NaN()
	}
	s := slices.Clone(x)
	slices.Sort(s)
	return quantileSorted(s, qlo), quantileSorted(s, qhi)
}

// ProbAbove is the bootstrap probability that configuration A ranks above
// configuration B: over paired resamples k (a[k] and b[k] come from the same
// resample index k), the fraction with a[k] > b[k], ties counting ½ (higher
// values are better, as the ReX-MLE rank is). Pairs where either value is NaN
// are left out; with none left the result is NaN. a and b must have the same
// length; extra values of the longer are ignored.
func ProbAbove(a, b []float64) float64 {
	n := min(len(a), len(b))
	var wins float64
	m := 0
	for k := 0; k < n; k++ {
		x, y := a[k], b[k]
		if math.IsNaN(x) || math.IsNaN(y) {
			continue
		}
		m++
		switch {
		case x > y:
			wins++
		case x == y:
			wins += 0.5
		}
	}
	if m == 0 {
		return math.NaN()
	}
	return wins / float64(m)
}

// RankCounts is the distribution of overall ranks across bootstrap resamples
// (the data of a challengeR blob plot / podium): samples[c][k] is
// configuration c's score (higher is better) in resample k. In every
// resample the configurations are ranked 1 = best with ties sharing the
// better rank (1 + the number strictly better, as Position); NaN scores rank
// last (1 + the number of non-NaN scores). counts[c][r−1] is the number of
// resamples in which c had rank r, r = 1..len(samples). Resamples beyond the
// shortest series are ignored.
func RankCounts(samples [][]float64) [][]int {
	nc := len(samples)
	counts := make([][]int, nc)
	for c := range counts {
		counts[c] = make([]int, nc)
	}
	if nc == 0 {
		return counts
	}
	nb := len(samples[0])
	for _, s := range samples {
		nb = min(nb, len(s))
	}
	for k := 0; k < nb; k++ {
		for c := 0; c < nc; c++ {
			v := samples[c][k]
			r := 1
			for d := 0; d < nc; d++ {
				w := samples[d][k]
				if d == c || math.IsNaN(w) {
					continue
				}
				if math.IsNaN(v) || w > v {
					r++
				}
			}
			counts[c][r-1]++
		}
	}
	return counts
}

// SeedSummary summarises one configuration over seeds.
type SeedSummary struct {
	N      int     // seeds
	Failed int     // seeds that failed (counted as 0 in Mean)
	Mean   float64 // arithmetic mean over the N values
	SE     float64 // standard error: sample standard deviation (ddof = 1) / √N; NaN when N < 2
}

// Seeds summarises per-seed values: values[i] is seed i's value, failed[i]
// whether it failed (a failed seed counts 0, as a failed run counts 0 in the
// paper, whatever values[i] holds). The mean is numpy-exact (pairwise sum /
// N); SE = √(Σ(x−mean)²/(N−1))/√N as scipy.stats.sem. N = 0 gives NaN mean
// and SE. failed may be nil (no failures) or as long as values.
func Seeds(values []float64, failed []bool) SeedSummary {
	n := len(values)
	s := SeedSummary{N: n, Mean: math.NaN(), SE: math.NaN()}
	if n == 0 {
		return s
	}
	x := make([]float64, n)
	for i, v := range values {
		if i < len(failed) && failed[i] {
			s.Failed++
			v = 0
		}
		x[i] = v
	}
	s.Mean = num.Sum(x) / float64(n)
	if n >= 2 {
		d := make([]float64, n)
		for i, v := range x {
			d[i] = (v - s.Mean) * (v - s.Mean)
		}
		s.SE = math.Sqrt(num.Sum(d)/float64(n-1)) / math.Sqrt(float64(n))
	}
	return s
}
