package rankstage

import (
	"fmt"
	"math"
	"sort"

	"github.com/rexmle/rexmle/metrics/num"
	"github.com/rexmle/rexmle/metrics/stats"
	"github.com/rexmle/rexmle/pipeline/config"
	"github.com/rexmle/rexmle/pipeline/paper"
	"github.com/rexmle/rexmle/pipeline/rank"
)

// The significance map as a test (challengeR's rule): per challenge, for
// every ordered pair (A, B) of configurations with per-case values of the
// challenge's primary metric, a one-sided Wilcoxon signed-rank test that A's
// per-case values are better than B's, paired on the cases both graded
// (each configuration's value of a case is the mean over its seeds' runs),
// the p-values of the challenge Holm-adjusted together, significant at
// adjusted p ≤ 0.05. Metrics that are not per-case values (correlations,
// pooled F1, COCO AP) have no paired per-case values: no test, with the
// reason.

// PairTest is one ordered pair's test on one challenge.
type PairTest struct {
	A, B        string // Group.Label()
	N, NZero    int    // paired cases; of them with equal values
	Statistic   float64
	P, PHolm    float64 // NaN when there is no test (Note says why)
	Significant bool    // PHolm ≤ rank.SignificanceAlpha
	Method      string  // rank.WilcoxonExact or rank.WilcoxonApprox
	Note        string
}

// ChallengeTests are one challenge's tests.
type ChallengeTests struct {
	Challenge, Metric string
	Configs           []string // configurations with per-case values, in Outcome.Groups order
	Tests             []PairTest
	Note              string // why there is no test
}

// cfgCases holds one configuration's values of a challenge's primary
// metric: case id → values over seeds.
type cfgCases map[string][]float64

// pairTest is the one-sided paired Wilcoxon test of configuration a above b
// on the cases both have (each case's mean over seeds, negated where lower
// is better).
func pairTest(a, b string, per map[string]cfgCases, higherBetter bool) PairTest {
	mean := func(v []float64) float64 { return num.Sum(v) / float64(len(v)) }
	t := PairTest{A: a, B: b, Statistic: math.NaN(), P: math.NaN(), PHolm: math.NaN()}
	var ids []string
	for id := range per[a] {
		if per[b][id] != nil {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	x := make([]float64, len(ids))
	y := make([]float64, len(ids))
	for i, id := range ids {
		x[i], y[i] = mean(per[a][id]), mean(per[b][id])
		if !higherBetter {
			x[i], y[i] = -x[i], -y[i]
		}
	}
	t.N = len(ids)
	if res, err := rank.WilcoxonGreater(x, y); err != nil {
		t.Note = err.Error()
		for i := range x {
			if x[i] == y[i] {
				t.NZero++
			}
		}
	} else {
		t.NZero, t.Statistic, t.P, t.Method = res.NZero, res.Statistic, res.P, res.Method
	}
	return t
}

// significance runs the tests of every challenge with new runs.
func significance(b *config.Benchmark, runs []*Ranked, groups []*Group) []ChallengeTests {
	per := map[string]map[string]cfgCases{}
	label := map[*Ranked]string{}
	for _, g := range groups {
		for _, r := range runs {
			if r.Run.Source == g.Source && r.Run.Setting == g.Setting && r.Run.Backend == g.Backend && r.Run.Agent == g.Agent {
				label[r] = g.Label()
			}
		}
	}
	chSet := map[string]bool{}
	for _, r := range runs {
		if r.Run.Source == paper.Source {
			continue
		}
		chSet[r.Run.Challenge] = true
		c, ok := b.Challenge(r.Run.Challenge)
		if !ok {
			continue
		}
		for _, cs := range r.cases {
			v, ok := cs.Values[c.PrimaryMetric]
			if !ok || math.IsNaN(v) {
				continue
			}
			if per[c.ID] == nil {
				per[c.ID] = map[string]cfgCases{}
			}
			l := label[r]
			if per[c.ID][l] == nil {
				per[c.ID][l] = cfgCases{}
			}
			per[c.ID][l][cs.ID] = append(per[c.ID][l][cs.ID], v)
		}
	}
	chs := make([]string, 0, len(chSet))
	for ch := range chSet {
		chs = append(chs, ch)
	}
	sort.Strings(chs)
	var out []ChallengeTests
	for _, ch := range chs {
		c, _ := b.Challenge(ch)
		ct := ChallengeTests{Challenge: ch, Metric: c.PrimaryMetric}
		m, _ := c.Metric(c.PrimaryMetric)
		for _, g := range groups {
			if per[ch][g.Label()] != nil {
				ct.Configs = append(ct.Configs, g.Label())
			}
		}
		switch {
		case len(ct.Configs) == 0:
			ct.Note = fmt.Sprintf("no per-case values of %s stored (it is not a mean of per-case values): no paired test", c.PrimaryMetric)
		case len(ct.Configs) == 1:
			ct.Note = "only one configuration has per-case values: nothing to compare"
		}
		if ct.Note != "" {
			out = append(out, ct)
			continue
		}
		var ps []float64
		for _, a := range ct.Configs {
			for _, bb := range ct.Configs {
				if a == bb {
					continue
				}
				t := pairTest(a, bb, per[ch], m.HigherBetter())
				ct.Tests = append(ct.Tests, t)
				ps = append(ps, t.P)
			}
		}
		for i, p := range rank.Holm(ps) {
			ct.Tests[i].PHolm = p
			ct.Tests[i].Significant = p <= rank.SignificanceAlpha
		}
		out = append(out, ct)
	}
	return out
}

// TaskStability is challengeR's rank stability of one challenge: Kendall's
// τ_b between the configurations' point ranking (their percentiles, seeds
// averaged) and their ranking in each resample, and the blob-plot counts.
type TaskStability struct {
	Challenge  string
	Configs    []string
	TauMean    float64
	TauMedian  float64
	TauLo      float64 // 2.5 % quantile of τ over resamples
	TauHi      float64 // 97.5 %
	NUndefined int     // resamples where τ is undefined (every configuration tied)
	Counts     [][]int // Counts[c][r−1]: resamples in which Configs[c] ranked r-th on the challenge
	Note       string
}

// taskStability computes the rank stability of every challenge on which at
// least two configurations have a bootstrap.
func taskStability(opt Options, groups []*Group) []TaskStability {
	type entry struct {
		label   string
		point   float64
		samples []float64
	}
	per := map[string][]entry{}
	for _, g := range groups {
		if g.Boot == nil || g.Boot.samples == nil {
			continue
		}
		for _, cb := range g.Boot.Challenges {
			if cb.samples != nil && !math.IsNaN(cb.Pct.Lo) {
				per[cb.Challenge] = append(per[cb.Challenge], entry{g.Label(), cb.Percentile, cb.samples})
			}
		}
	}
	chs := make([]string, 0, len(per))
	for ch := range per {
		chs = append(chs, ch)
	}
	sort.Strings(chs)
	var out []TaskStability
	for _, ch := range chs {
		es := per[ch]
		ts := TaskStability{Challenge: ch, TauMean: math.NaN(), TauMedian: math.NaN(), TauLo: math.NaN(), TauHi: math.NaN()}
		point := make([]float64, len(es))
		samples := make([][]float64, len(es))
		for i, e := range es {
			ts.Configs = append(ts.Configs, e.label)
			point[i] = e.point
			samples[i] = e.samples
		}
		ts.Counts = rank.RankCounts(samples)
		if len(es) < 2 {
			ts.Note = "one configuration: no ranking to compare"
			out = append(out, ts)
			continue
		}
		var taus []float64
		y := make([]float64, len(es))
		for k := 0; k < opt.Boot; k++ {
			for i := range es {
				y[i] = samples[i][k]
			}
			tau, err := stats.KendallTauB(point, y)
			if err != nil || math.IsNaN(tau) {
				ts.NUndefined++
				continue
			}
			taus = append(taus, tau)
		}
		if len(taus) > 0 {
			ts.TauMean = num.Sum(taus) / float64(len(taus))
			ts.TauMedian = num.Median(taus)
			ts.TauLo, ts.TauHi = rank.PercentileInterval(taus, 0.95)
		}
		if ts.NUndefined > 0 {
			ts.Note = fmt.Sprintf("τ undefined in %d of %d resamples (the point or the resampled ranking has every configuration tied)", ts.NUndefined, opt.Boot)
		}
		out = append(out, ts)
	}
	return out
}
