package rank

import (
	"fmt"
	"math"
	"sort"

	"github.com/rexmle/rexmle/metrics/num"
	"github.com/rexmle/rexmle/metrics/stats"
)

// The significance test of the rank stage (challengeR's significance map):
// a one-sided Wilcoxon signed-rank test on paired per-case values, the
// p-values of one challenge Holm-adjusted, significant at α = 0.05.
//
// WilcoxonGreater is scipy.stats.wilcoxon(x, y, alternative="greater") with
// every other argument at its default as Debian 12's scipy 1.10.1 has them
// (zero_method="wilcox", correction=False, method="auto"):
//   - method "auto" is the exact null distribution when there are at most
//     50 differences (zeros counted) and none is zero, else the normal
//     approximation;
//   - zero differences are dropped (Wilcoxon's rule) before ranking in the
//     approximation;
//   - the approximation's variance has the tie correction
//     n(n+1)(2n+1)/24 − Σ t(t²−1)/48 over groups of t equal |differences|,
//     and no continuity correction (scipy's default correction=False);
//   - the exact p-value of tied differences (whose r+ can be a half-integer)
//     sums the distribution from ⌊r+⌋, as scipy does.

// SignificanceAlpha is challengeR's level for the Holm-adjusted tests.
const SignificanceAlpha = 0.05

// wilcoxonExactMax is the largest number of differences scipy's method
// "auto" computes exactly.
const wilcoxonExactMax = 50

// Wilcoxon methods (WilcoxonResult.Method).
const (
	WilcoxonExact  = "exact"
	WilcoxonApprox = "approx"
)

// WilcoxonResult is one one-sided signed-rank test.
type WilcoxonResult struct {
	N         int     // pairs tested (zero differences included)
	NZero     int     // pairs with x = y
	Statistic float64 // r+: the sum of the ranks of the positive differences
	P         float64 // P(R+ ≥ r+) under the null
	Method    string  // WilcoxonExact or WilcoxonApprox
}

// WilcoxonGreater tests whether x tends to exceed y (paired: x[i] with
// y[i]), as scipy.stats.wilcoxon(x, y, alternative="greater") does by
// default (see the package comment above). NaN or infinite values and
// unequal lengths are errors; so is an empty sample, and every difference
// being zero (scipy raises then too).
func WilcoxonGreater(x, y []float64) (WilcoxonResult, error) {
	if len(x) != len(y) {
		return WilcoxonResult{}, fmt.Errorf("wilcoxon: %d values against %d: the samples must be paired", len(x), len(y))
	}
	if len(x) == 0 {
		return WilcoxonResult{}, fmt.Errorf("wilcoxon: no pairs")
	}
	d := make([]float64, 0, len(x))
	nz := 0
	for i := range x {
		v := x[i] - y[i]
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return WilcoxonResult{}, fmt.Errorf("wilcoxon: pair %d (%v, %v) has no finite difference", i, x[i], y[i])
		}
		if v == 0 {
			nz++
		}
		d = append(d, v)
	}
	res := WilcoxonResult{N: len(d), NZero: nz, Method: WilcoxonApprox}
	if len(d) <= wilcoxonExactMax && nz == 0 {
		res.Method = WilcoxonExact
	}
	if res.Method == WilcoxonApprox {
		if nz == len(d) {
			return WilcoxonResult{}, fmt.Errorf("wilcoxon: every one of the %d differences is zero", len(d))
		}
		kept := d[:0]
		for _, v := range d {
			if v != 0 {
				kept = append(kept, v)
			}
		}
		d = kept
	}
	abs := make([]float64, len(d))
	for i, v := range d {
		abs[i] = math.Abs(v)
	}
	r := stats.RankAverage(abs)
	plus := make([]float64, 0, len(d))
	for i, v := range d {
		if v > 0 {
			plus = append(plus, r[i])
		}
	}
	res.Statistic = num.Sum(plus)
	n := float64(len(d))
	if res.Method == WilcoxonExact {
		pmf := wilcoxonPMF(len(d))
		res.P = min(1, max(0, num.Sum(pmf[int(res.Statistic):])))
		return res, nil
	}
	mn := n * (n + 1) * 0.25
	se := n * (n + 1) * (2*n + 1)
	for _, t := range tieCounts(r) {
		se -= 0.5 * t * (t*t - 1)
	}
	se = math.Sqrt(se / 24)
	z := (res.Statistic - mn) / se
	res.P = 0.5 * math.Erfc(z/math.Sqrt2) // the normal survival function at z
	return res, nil
}

// wilcoxonPMF is the null distribution of R+ for n differences without
// ties: pmf[s] = P(R+ = s), s = 0 … n(n+1)/2, built by halving as scipy's
// _get_wilcoxon_distr builds it (identical floating-point values).
func wilcoxonPMF(n int) []float64 {
	c := []float64{1}
	for k := 1; k <= n; k++ {
		prev := c
		c = make([]float64, k*(k+1)/2+1)
		m := len(prev)
		for i, v := range prev {
			c[i] = v * 0.5
		}
		for i, v := range prev {
			c[len(c)-m+i] += v * 0.5
		}
	}
	return c
}

// tieCounts is, for every value occurring more than once in r, how many
// times it occurs (scipy's find_repeats counts), in ascending value order.
func tieCounts(r []float64) []float64 {
	s := append([]float64(nil), r...)
	sort.Float64s(s)
	var out []float64
	for i := 0; i < len(s); {
		j := i + 1
		for j < len(s) && s[j] == s[i] {
			j++
		}
		if j-i > 1 {
			out = append(out, float64(j-i))
		}
		i = j
	}
	return out
}

// Holm adjusts p-values for multiple testing by Holm's step-down method, as
// statsmodels' multipletests(p, method="holm") and R's p.adjust(p, "holm")
// do: sorted ascending, the i-th smallest (0-based) is multiplied by m − i,
// the running maximum taken, and values above 1 set to 1. NaN p-values are
// left NaN and not counted in m. The result is in the order of p.
func Holm(p []float64) []float64 {
	out := make([]float64, len(p))
	var idx []int
	for i, v := range p {
		out[i] = math.NaN()
		if !math.IsNaN(v) {
			idx = append(idx, i)
		}
	}
	sort.SliceStable(idx, func(a, b int) bool { return p[idx[a]] < p[idx[b]] })
	m := len(idx)
	run := 0.0
	for k, i := range idx {
		run = max(run, float64(m-k)*p[i])
		out[i] = min(run, 1)
	}
	return out
}
