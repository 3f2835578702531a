package rankstage

import (
	"context"

	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/rexmle/rexmle/metrics/num"
	"github.com/rexmle/rexmle/pipeline/challenge"
	"github.com/rexmle/rexmle/pipeline/config"
	"github.com/rexmle/rexmle/pipeline/paper"
	"github.com/rexmle/rexmle/pipeline/rank"
	"github.com/rexmle/rexmle/pipeline/store"
)

// The bootstrap (issues 18 and 33): one resampling design for every
// interval and comparison.
//   - Cases: per resample, the test cases of each case universe (challenges
//     sharing a raw folder and case ids, caseUniverses) are drawn once with
//     replacement (stream "cases/"+universe), and the same draw is applied
//     to every configuration and seed: comparisons are paired, and tasks
//     that grade the same cases move together.
//   - Metrics: each ranked metric is recomputed per resample the way the
//     challenge aggregates it — numpy's mean of the per-case values (nanmean
//     where that reproduces the graded value) or the challenge's
//     challenge.CaseAggregator — only if the full sample reproduces the
//     graded value (relative 1e-9); otherwise the note says why there is no
//     interval. A resample in which a metric is undefined (NaN) ranks it
//     last and fails the run there.
//   - Seeds: per resample, each configuration's seeds are drawn with
//     replacement (stream "seeds/"+configuration: the outer level of a
//     hierarchical bootstrap), so the challenge and overall intervals carry
//     seed and case variation; identical seeds add no information and do not
//     narrow them. The seed mean ± SE is reported beside them.
//   - Intervals: per aggregation the method of the coverage study
//     (methodFor), read from the resampled values; position, mean-rank and
//     percentile intervals are their monotone images; an interval over
//     fewer than rank.SmallN cases is flagged. The human leaderboard is held
//     fixed. Paper rows have no per-case values and no intervals.
//   - Tests: per challenge, a one-sided Wilcoxon signed-rank test on the
//     paired per-case values of its primary metric for every ordered pair
//     of configurations, Holm-adjusted within the challenge (significance).

// Options are the rank stage's settings.
type Options struct {
	Boot       int     // bootstrap resamples B; 0 turns the case-level bootstrap off
	BootSeed   uint64  // recorded with every interval
	Confidence float64 // coverage of the percentile intervals
}

// DefaultOptions: B = 1000, seed rank.DefaultBootSeed, 95 % intervals.
func DefaultOptions() Options {
	return Options{Boot: rank.DefaultBoot, BootSeed: rank.DefaultBootSeed, Confidence: rank.DefaultConfidence}
}

// Interval is a percentile interval; NaN bounds when unavailable.
type Interval struct{ Lo, Hi float64 }

var noInterval = Interval{math.NaN(), math.NaN()}

// Aggregations of a metric over cases (MetricBoot.Aggregation).
const (
	AggMean      = "mean"      // numpy mean of the per-case values
	AggNaNMean   = "nanmean"   // numpy nanmean: NaN cases left out
	AggChallenge = "challenge" // the challenge's own recomputation (challenge.CaseAggregator)
)

// MetricBoot is the bootstrap of one ranked metric of a run.
type MetricBoot struct {
	Aggregation string // Agg*; empty when unavailable
	Method      string // interval method (rank.Method*); empty when unavailable
	Note        string // why no interval
	Value       Interval
	Position    Interval
}

// RunBoot is the case-level bootstrap of one run.
type RunBoot struct {
	NBoot     int // 0 when not bootstrapped
	BootSeed  uint64
	NCases    int
	Note      string // why the run's mean rank / percentile have no interval
	Metrics   map[string]*MetricBoot
	MeanRank  Interval
	Pct       Interval
	Undefined int       // resamples in which some ranked metric was NaN (the run fails there: percentile 0)
	Method    string    // interval method of the mean rank and percentile
	SmallN    bool      // fewer than rank.SmallN cases: the interval covers less than it says
	samples   []float64 // percentile per resample; nil without an interval
}

// Reasons recorded where there is no interval.
const (
	NotePaper = "the paper records no per-case values for its runs, so there is nothing to resample"
	NoteOff   = "bootstrap off (REXMLE_BOOT=0)"
	NoteNoCas = "no per-case values stored for this run"
)

// sameValue is the check that an aggregation reproduces the grader's value.
func sameValue(a, b float64) bool {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.IsNaN(a) && math.IsNaN(b)
	}
	if math.IsInf(a, 0) || math.IsInf(b, 0) {
		return a == b
	}
	// Relative: a value near 0 (a Dice of 1e-10) must be reproduced to its
	// own precision, not to an absolute 1e-9.
	return a == b || math.Abs(a-b) <= 1e-9*math.Max(math.Abs(a), math.Abs(b))
}

func meanOf(col []float64) func([]int) float64 {
	buf := make([]float64, 0, len(col))
	return func(idx []int) float64 {
		buf = buf[:0]
		for _, i := range idx {
			buf = append(buf, col[i])
		}
		return num.Sum(buf) / float64(len(buf))
	}
}

// nanMeanOf is numpy's nanmean of the resampled values (num.NaNMean).
func nanMeanOf(col []float64) func([]int) float64 {
	buf := make([]float64, 0, len(col))
	return func(idx []int) float64 {
		buf = buf[:0]
		for _, i := range idx {
			buf = append(buf, col[i])
		}
		return num.NaNMean(buf)
	}
}

// proposals asks the challenge how it recomputes each metric from a
// resample: once for all metrics (challenge.RunAggregator) or metric by
// metric (challenge.CaseAggregator). A nil statistic and nil error: the
// challenge leaves the metric to the default (a mean over cases).
func proposals(impl challenge.Challenge, metrics []string, cases []challenge.Case) ([]func([]int) float64, []error) {
	fs := make([]func([]int) float64, len(metrics))
	errs := make([]error, len(metrics))
	switch ag := impl.(type) {
	case challenge.RunAggregator:
		got, err := ag.CaseStatistics(metrics, cases)
		switch {
		case err != nil:
			for j := range errs {
				errs[j] = err
			}
		case len(got) != len(metrics):
			for j := range errs {
				errs[j] = fmt.Errorf("interval unavailable: the challenge returned %d statistics for %d metrics", len(got), len(metrics))
			}
		default:
			copy(fs, got)
		}
	case challenge.CaseAggregator:
		for j, m := range metrics {
			fs[j], errs[j] = ag.CaseStatistic(m, cases)
		}
	}
	return fs, errs
}

// statistic picks how metric m of the run is recomputed from a resample:
// the challenge's own statistic f (proposed, with its error, by proposals)
// if it reproduces the graded value on the full sample, else the mean of
// the per-case values where that reproduces it.
func statistic(m string, f func([]int) float64, ferr error, cases []challenge.Case, value float64) (func([]int) float64, string, error) {
	all := make([]int, len(cases))
	for i := range all {
		all[i] = i
	}
	if ferr != nil {
		return nil, "", ferr
	}
	if f != nil {
		if got := f(all); !sameValue(got, value) {
			return nil, "", fmt.Errorf("interval unavailable: recomputing %s from the stored cases gives %v, the grader reported %v", m, got, value)
		}
		return f, AggChallenge, nil
	}
	col := make([]float64, len(cases))
	hasNaN := false
	for i, c := range cases {
		v, ok := c.Values[m]
		if !ok {
			return nil, "", fmt.Errorf("%w (the grader stores no per-case %s to recompute it from; first case without it: %s)", challenge.ErrNotAMean, m, c.ID)
		}
		col[i] = v
		hasNaN = hasNaN || math.IsNaN(v)
	}
	mean := meanOf(col)
	if got := mean(all); sameValue(got, value) {
		return mean, AggMean, nil
	}
	if hasNaN {
		nm := nanMeanOf(col)
		if sameValue(nm(all), value) {
			return nm, AggNaNMean, nil
		}
	}
	return nil, "", fmt.Errorf("%w (the mean of the %d stored per-case %s is %v, the grader reported %v: the grader aggregates otherwise, or graded cases the store keeps once, e.g. repeated case ids)", challenge.ErrNotAMean, len(cases), m, mean(all), value)
}

// A case universe is a set of test cases that several challenges grade:
// the tasks of one competition that share a raw folder and whose graded
// case ids overlap (the four PUMA tasks grade the same ROIs; TopCoW's tasks
// the same images of one modality). It is found from the stored data:
// challenges are joined when they share a raw folder and a case id.
type caseUniverse struct {
	Key        string   // its challenges' ids joined by "+"
	Challenges []string // sorted
	IDs        []string // the sorted union of the case ids graded in it
	draws      [][]int  // per resample, len(IDs) indices into IDs
}

// caseUniverses groups the challenges of the runs with cases into case
// universes and draws each universe's resamples once, from the stream
// "cases/"+Key (independent of the order of runs and of other universes).
func caseUniverses(b *config.Benchmark, opt Options, runs []*Ranked) map[string]*caseUniverse {
	ids := map[string]map[string]bool{}
	for _, r := range runs {
		for _, c := range r.cases {
			if ids[r.Run.Challenge] == nil {
				ids[r.Run.Challenge] = map[string]bool{}
			}
			ids[r.Run.Challenge][c.ID] = true
		}
	}
	chs := make([]string, 0, len(ids))
	for ch := range ids {
		chs = append(chs, ch)
	}
	sort.Strings(chs)
	parent := map[string]string{}
	var find func(string) string
	find = func(x string) string {
		if parent[x] == "" || parent[x] == x {
			parent[x] = x
			return x
		}
		parent[x] = find(parent[x])
		return parent[x]
	}
	folder := func(id string) string {
		if c, ok := b.Challenge(id); ok {
			return c.RawFolder()
		}
		return id
	}
	for i, a := range chs {
		for _, c := range chs[i+1:] {
			if folder(a) != folder(c) || find(a) == find(c) {
				continue
			}
			for id := range ids[a] {
				if ids[c][id] {
					parent[find(c)] = find(a)
					break
				}
			}
		}
	}
	byRoot := map[string]*caseUniverse{}
	for _, ch := range chs {
		root := find(ch)
		u := byRoot[root]
		if u == nil {
			u = &caseUniverse{}
			byRoot[root] = u
		}
		u.Challenges = append(u.Challenges, ch)
	}
	out := map[string]*caseUniverse{}
	for _, u := range byRoot {
		set := map[string]bool{}
		for _, ch := range u.Challenges {
			for id := range ids[ch] {
				set[id] = true
			}
			out[ch] = u
		}
		for id := range set {
			u.IDs = append(u.IDs, id)
		}
		sort.Strings(u.IDs)
		u.Key = strings.Join(u.Challenges, "+")
		if opt.Boot > 0 {
			u.draws = rank.Resample(rank.StreamRNG(opt.BootSeed, "cases/"+u.Key), len(u.IDs), opt.Boot)
		}
	}
	return out
}

// runDraws maps the universe's resamples onto a run's cases: resample k is
// the run's cases drawn in universe resample k, in the order drawn and as
// often as drawn (a case of the universe the run lacks is skipped).
func (u *caseUniverse) runDraws(cases []challenge.Case) [][]int {
	loc := make([]int, len(u.IDs))
	at := make(map[string]int, len(cases))
	for i, c := range cases {
		at[c.ID] = i
	}
	for i, id := range u.IDs {
		loc[i] = -1
		if j, ok := at[id]; ok {
			loc[i] = j
		}
	}
	out := make([][]int, len(u.draws))
	for k, d := range u.draws {
		ix := make([]int, 0, len(cases))
		for _, i := range d {
			if loc[i] >= 0 {
				ix = append(ix, loc[i])
			}
		}
		out[k] = ix
	}
	return out
}

// Interval methods per aggregation, chosen by the coverage study
// (TestIntervalCoverage): a mean over cases takes the expanded BCa
// interval; a challenge's own smooth recomputation costing a pass over the
// cases (pooled F1; an RMSE through its square) the studentized
// (bootstrap-t) interval; a quantile (a median) or a costly recomputation
// (rank correlations: n of them per resample, for the inner jackknife, are
// out of reach) the expanded percentile interval; a biased one (COCO AP)
// the expanded BCa interval, whose bias correction needs one jackknife.
func methodFor(agg string, tr challenge.StatisticTraits) string {
	switch {
	case agg == AggMean || agg == AggNaNMean:
		return rank.MethodExpandedBCa
	case tr.Quantile:
		return rank.MethodExpanded
	case tr.Biased:
		return rank.MethodExpandedBCa
	case tr.Costly:
		return rank.MethodExpanded
	case tr.RootOfMean:
		return rank.MethodStudentizedSquared
	}
	return rank.MethodStudentized
}

// studentScale is the scale a studentized interval works on: the statistic
// f mapped by to (the identity, or the square for
// MethodStudentizedSquared), and from, to's inverse on the statistic's
// range, for the interval's ends.
type studentScale struct {
	f        func([]int) float64
	to, from func(float64) float64
}

func scaleFor(method string, f func([]int) float64) *studentScale {
	switch method {
	case rank.MethodStudentized:
		id := func(x float64) float64 { return x }
		return &studentScale{f, id, id}
	case rank.MethodStudentizedSquared:
		sq := func(x float64) float64 { return x * x }
		root := func(x float64) float64 { return math.Sqrt(math.Max(x, 0)) } // an interval end below 0: 0
		return &studentScale{func(ix []int) float64 { return sq(f(ix)) }, sq, root}
	}
	return nil
}

// traitsOf is what the challenge says of metric's statistic.
func traitsOf(impl challenge.Challenge, metric string) challenge.StatisticTraits {
	if t, ok := impl.(challenge.TraitsAggregator); ok {
		return t.StatisticTraits(metric)
	}
	return challenge.StatisticTraits{}
}

// resampleSE is the jackknife standard error of f over the multiset of
// cases ix: f without each drawn case in turn. A case drawn m times leaves
// the same multiset m times: its value is computed once and weighted m.
// sorted is scratch of len(ix).
func resampleSE(f func([]int) float64, ix, sorted, loo []int) float64 {
	n := len(ix)
	if n < 2 {
		return math.NaN()
	}
	copy(sorted, ix)
	slices.Sort(sorted)
	type val struct {
		v float64
		m int
	}
	vals := make([]val, 0, n)
	var sum float64
	for p := 0; p < n; {
		q := p
		for q < n && sorted[q] == sorted[p] {
			q++
		}
		loo = append(append(loo[:0], sorted[:p]...), sorted[p+1:]...)
		v := f(loo)
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return math.NaN()
		}
		vals = append(vals, val{v, q - p})
		sum += v * float64(q-p)
		p = q
	}
	mean := sum / float64(n)
	var ss float64
	for _, x := range vals {
		ss += float64(x.m) * (x.v - mean) * (x.v - mean)
	}
	return math.Sqrt(float64(n-1) / float64(n) * ss)
}

// worst is the value a resample in which a metric is undefined (NaN) takes
// in the interval: the worst value in the metric's direction, which ranks
// last (position N+1), as a failed metric does.
func worst(higherBetter bool) float64 {
	if higherBetter {
		return math.Inf(-1)
	}
	return math.Inf(1)
}

// jackknife is the statistic over the n leave-one-out samples of n cases.
func jackknife(f func([]int) float64, n int) []float64 {
	out := make([]float64, n)
	ix := make([]int, 0, n)
	for i := range out {
		ix = ix[:0]
		for j := 0; j < n; j++ {
			if j != i {
				ix = append(ix, j)
			}
		}
		out[i] = f(ix)
	}
	return out
}

// intervalOf reads the interval of method from the bootstrap values x
// (undefined resamples already mapped to a value) around estimate, with
// jackknife values jack for the BCa methods.
func intervalOf(method string, confidence float64, n int, x []float64, estimate float64, jack []float64) Interval {
	var bp rank.BCaParams
	if method == rank.MethodBCa || method == rank.MethodExpandedBCa {
		bp = rank.BCaFrom(x, estimate, jack)
	}
	l, err := rank.MethodLevels(method, confidence, n, bp)
	if err != nil {
		return noInterval
	}
	lo, hi := rank.QuantilesAt(x, l)
	return Interval{lo, hi}
}

// studentizedInterval is the bootstrap-t interval from the studentized
// resamples t, the estimate and the sample's jackknife values; NaN ends
// when the sample's standard error is 0 or undefined.
func studentizedInterval(confidence float64, t []float64, estimate float64, jack []float64) Interval {
	se := rank.JackknifeSE(jack)
	if !(se > 0) {
		return noInterval
	}
	lo, hi := rank.StudentizedInterval(t, estimate, se, confidence)
	return Interval{lo, hi}
}

// bootRun resamples a run's cases with its universe's draws, recomputes
// every ranked metric, ranks each resample against the fixed leaderboard
// and takes the intervals of the aggregation's method. A resample in which
// a metric is undefined ranks that metric last and fails the run there
// (mean rank N+1, percentile 0), in every interval alike.
func bootRun(ctx context.Context, opt Options, c *config.Challenge, rk *Ranked, u *caseUniverse) (*RunBoot, error) {
	rb := &RunBoot{BootSeed: opt.BootSeed, Metrics: map[string]*MetricBoot{}, MeanRank: noInterval, Pct: noInterval}
	if rb.Note = notBootstrapped(opt, rk); rb.Note != "" {
		return rb, nil
	}
	cases := rk.cases
	rb.NCases = len(cases)
	if len(cases) == 0 || u == nil {
		rb.Note = NoteNoCas
		return rb, nil
	}
	impl, _ := challenge.Lookup(c.ID)
	lb := c.Board()
	b := &runBootstrap{opt: opt, rk: rk, lb: lb, nCases: len(cases)}
	missing := b.statistics(rb, impl, cases)
	idx := u.runDraws(cases)
	rb.NBoot = opt.Boot
	rb.SmallN = len(cases) < rank.SmallN
	b.cols = boardColumns(lb)
	// Studentized resamples (t*) of the metrics with a studentized method,
	// on their scale.
	b.scales = make([]*studentScale, len(lb.Metrics))
	for j, m := range lb.Metrics {
		if b.stats[j] != nil {
			b.scales[j] = scaleFor(rb.Metrics[m.Name].Method, b.stats[j])
		}
	}
	b.full = len(missing) == 0
	if err := b.resample(ctx, rb, idx); err != nil {
		return nil, err
	}
	jackVals := b.metricIntervals(rb)
	if !b.full {
		rb.Note = "no interval for the mean rank and percentile: " + strings.Join(missing, ", ") + " cannot be recomputed per resample"
		return rb, nil
	}
	b.meanRankInterval(rb, jackVals)
	return rb, nil
}

// runBootstrap is one run's bootstrap while bootRun computes it: the fixed
// leaderboard, the statistic and scale of each ranked metric, and what the
// resamples gave.
type runBootstrap struct {
	opt      Options
	rk       *Ranked
	lb       *rank.Leaderboard
	cols     [][]float64 // the leaderboard's column per metric
	nCases   int
	stats    []func([]int) float64 // per metric; nil where it cannot be recomputed
	scales   []*studentScale       // per metric; nil unless studentized
	allMeans bool                  // every ranked metric is a mean (BCa for the mean rank)
	full     bool                  // every ranked metric is recomputed per resample

	vals      [][]float64 // per metric, its value per resample
	tvals     [][]float64 // per studentized metric, its t* per resample
	undefined []int       // per metric, the resamples where it is NaN
	mr, pct   []float64   // mean rank and percentile per resample (full only)
}

// statistics finds each ranked metric's per-resample statistic, its
// aggregation and interval method, and returns the metrics that cannot be
// recomputed.
func (b *runBootstrap) statistics(rb *RunBoot, impl challenge.Challenge, cases []challenge.Case) (missing []string) {
	K := len(b.lb.Metrics)
	b.stats = make([]func([]int) float64, K)
	names := make([]string, K)
	for j, m := range b.lb.Metrics {
		names[j] = m.Name
	}
	proposed, proposedErr := proposals(impl, names, cases)
	b.allMeans = true
	for j, m := range b.lb.Metrics {
		mb := &MetricBoot{Value: noInterval, Position: noInterval}
		rb.Metrics[m.Name] = mb
		f, agg, err := statistic(m.Name, proposed[j], proposedErr[j], cases, b.rk.Values[m.Name])
		if err != nil {
			mb.Note = err.Error()
			missing = append(missing, m.Name)
			continue
		}
		mb.Aggregation, mb.Method = agg, methodFor(agg, traitsOf(impl, m.Name))
		b.allMeans = b.allMeans && (agg == AggMean || agg == AggNaNMean)
		b.stats[j] = f
	}
	return missing
}

// resample recomputes every metric on each draw and ranks the draw against
// the fixed leaderboard; a draw where a metric is undefined ranks it last
// and fails the run there.
func (b *runBootstrap) resample(ctx context.Context, rb *RunBoot, idx [][]int) error {
	lb, stats, scales, cols, rk := b.lb, b.stats, b.scales, b.cols, b.rk
	K, N := len(lb.Metrics), len(lb.Rows)
	vals := make([][]float64, K)
	tvals := make([][]float64, K)
	var sorted, loo []int
	undefined := make([]int, K)
	full := b.full
	var mr, pct []float64
	if full {
		mr = make([]float64, 0, b.opt.Boot)
		pct = make([]float64, 0, b.opt.Boot)
	}
	for k, ix := range idx {
		if k%64 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		sum, bad := 0, false
		for j, m := range lb.Metrics {
			if stats[j] == nil {
				continue
			}
			v := math.NaN()
			if len(ix) > 0 {
				v = stats[j](ix)
			}
			if sc := scales[j]; sc != nil {
				if len(sorted) < len(ix) {
					// A universe's draw may hold more cases than the run's.
					sorted, loo = make([]int, len(ix)), make([]int, 0, len(ix))
				}
				tv, se := sc.to(v), math.NaN()
				if !math.IsNaN(tv) && !math.IsInf(tv, 0) {
					se = resampleSE(sc.f, ix, sorted[:len(ix)], loo)
				}
				tvals[j] = append(tvals[j], rank.Studentized(tv, sc.to(rk.Values[m.Name]), se))
			}
			if math.IsNaN(v) {
				undefined[j]++
				bad = true
				v = worst(m.HigherBetter)
			}
			vals[j] = append(vals[j], v)
			p, _ := rank.Position(v, cols[j], m.HigherBetter)
			sum += p
		}
		if !full {
			continue
		}
		if bad {
			rb.Undefined++
			mr = append(mr, float64(N+1))
			pct = append(pct, 0)
			continue
		}
		m := float64(sum) / float64(K)
		mr = append(mr, m)
		pct = append(pct, rank.Percentile(m, N))
	}
	b.vals, b.tvals, b.undefined, b.mr, b.pct = vals, tvals, undefined, mr, pct
	return nil
}

// metricIntervals sets each recomputed metric's value and position
// intervals and returns the jackknife values (one leave-one-out per case)
// the BCa accelerations need.
func (b *runBootstrap) metricIntervals(rb *RunBoot) [][]float64 {
	opt, lb, rk := b.opt, b.lb, b.rk
	N := len(lb.Rows)
	jackVals := make([][]float64, len(lb.Metrics))
	for j, m := range lb.Metrics {
		if b.stats[j] == nil {
			continue
		}
		mb := rb.Metrics[m.Name]
		if mb.Method == rank.MethodBCa || mb.Method == rank.MethodExpandedBCa || (b.full && b.allMeans) {
			jackVals[j] = jackknife(b.stats[j], b.nCases)
		}
		if sc := b.scales[j]; sc != nil {
			iv := studentizedInterval(opt.Confidence, b.tvals[j], sc.to(rk.Values[m.Name]), jackknife(sc.f, b.nCases))
			mb.Value = Interval{sc.from(iv.Lo), sc.from(iv.Hi)}
			if math.IsNaN(mb.Value.Lo) || math.IsNaN(mb.Value.Hi) || b.undefined[j] > 0 {
				// No standard error (a sample of identical cases), or
				// resamples where the metric is
				// undefined, which have no studentized value: the expanded
				// percentile interval.
				mb.Method = rank.MethodExpanded
				b.scales[j] = nil
			}
		}
		if b.scales[j] == nil {
			mb.Value = intervalOf(mb.Method, opt.Confidence, b.nCases, b.vals[j], rk.Values[m.Name], jackVals[j])
		}
		// Positions are a step function of the value: the bounds are the
		// positions of the value interval's ends (integers, N+1 at worst).
		best, wst := mb.Value.Hi, mb.Value.Lo
		if !m.HigherBetter {
			best, wst = mb.Value.Lo, mb.Value.Hi
		}
		pLo, _ := rank.Position(best, b.cols[j], m.HigherBetter)
		pHi, _ := rank.Position(wst, b.cols[j], m.HigherBetter)
		mb.Position = Interval{float64(pLo), float64(pHi)}
		if b.undefined[j] > 0 {
			mb.Note = fmt.Sprintf("%s is undefined (NaN) in %d of %d resamples: they count as its worst value (position %d)", m.Name, b.undefined[j], opt.Boot, N+1)
		}
	}
	return jackVals
}

// meanRankInterval sets the run's mean-rank and percentile intervals (BCa
// when every ranked metric is a mean).
func (b *runBootstrap) meanRankInterval(rb *RunBoot, jackVals [][]float64) {
	N := len(b.lb.Rows)
	rb.Method = rank.MethodExpanded
	var jackMR []float64
	if b.allMeans {
		rb.Method = rank.MethodExpandedBCa
		jackMR = jackknifeMeanRank(b.lb, b.cols, jackVals, b.nCases)
	}
	rb.samples = b.pct
	rb.MeanRank = intervalOf(rb.Method, b.opt.Confidence, b.nCases, b.mr, b.rk.Result.MeanRank, jackMR)
	// The percentile falls as the mean rank rises: its interval is the
	// image of the mean-rank interval.
	rb.Pct = Interval{rank.Percentile(rb.MeanRank.Hi, N), rank.Percentile(rb.MeanRank.Lo, N)}
	if rb.Undefined > 0 {
		rb.Note = fmt.Sprintf("a ranked metric is undefined in %d of %d resamples: the run fails there (mean rank %d, percentile 0)", rb.Undefined, b.opt.Boot, N+1)
	}
}

// notBootstrapped says why a run gets no bootstrap (a paper record, the
// bootstrap off, a failed run), or "" when it does.
func notBootstrapped(opt Options, rk *Ranked) string {
	switch {
	case rk.Run.Source == paper.Source:
		return NotePaper
	case opt.Boot <= 0:
		return NoteOff
	case rk.Result.Status != rank.OK:
		return "the run failed: it counts 0 in every resample"
	}
	return ""
}

// boardColumns returns the leaderboard's values column by column (one
// column per metric).
func boardColumns(lb *rank.Leaderboard) [][]float64 {
	cols := make([][]float64, len(lb.Metrics))
	for j := range lb.Metrics {
		cols[j] = make([]float64, len(lb.Rows))
		for i, row := range lb.Rows {
			cols[j][i] = row[j]
		}
	}
	return cols
}

// jackknifeMeanRank is the mean rank of each leave-one-out sample of the
// nCases cases (N+1 where a metric is undefined), from every metric's
// jackknife values.
func jackknifeMeanRank(lb *rank.Leaderboard, cols, jackVals [][]float64, nCases int) []float64 {
	K, N := len(lb.Metrics), len(lb.Rows)
	jackMR := make([]float64, nCases)
	for i := range jackMR {
		sum, bad := 0, false
		for j, m := range lb.Metrics {
			v := jackVals[j][i]
			if math.IsNaN(v) {
				bad = true
				break
			}
			p, _ := rank.Position(v, cols[j], m.HigherBetter)
			sum += p
		}
		jackMR[i] = float64(sum) / float64(K)
		if bad {
			jackMR[i] = float64(N + 1)
		}
	}
	return jackMR
}

// GroupBoot is a configuration's overall bootstrap and its spread over seeds.
type GroupBoot struct {
	NBoot    int
	BootSeed uint64
	Overall  Interval // the ReX-MLE rank's percentile interval
	NFixed   int      // successful runs without an interval, held at their percentile in every resample
	Note     string
	samples  []float64
	// Seeds: the ReX-MLE rank of each seed (mean over the configuration's
	// challenges of that seed's percentile, a failed or missing run counting 0).
	Seeds       []int
	SeedValues  []float64
	SeedSummary rank.SeedSummary
	FailedRuns  int // runs (challenge × seed) that failed or are missing, counted 0
	FailedSeeds int // seeds with at least one failed or missing run
	// Challenges: per challenge, the percentile averaged over seeds and its
	// interval (error bars of the per-challenge and Figure 1 charts).
	Challenges []ChallengeBoot
}

// ChallengeBoot is one configuration's standing on one challenge, seeds averaged.
type ChallengeBoot struct {
	Challenge  string
	Percentile float64 // mean over the seeds' runs, a failed run counting 0
	Pct        Interval
	NSeeds     int // runs (seeds) averaged
	NFixed     int // of them, successful runs without an interval, held fixed
	NCases     int // the fewest cases of a bootstrapped run (0: none)
	SmallN     bool
	Note       string
	samples    []float64
}

// Label is the configuration's name in exports: source/setting/backend/agent.
func (g *Group) Label() string {
	return g.Source + "/" + g.Setting + "/" + g.Backend + "/" + g.Agent
}

// bootGroups computes the overall intervals and seed summaries of every
// group: the hierarchical bootstrap. Per resample k a configuration's seeds
// are drawn with replacement (stream "seeds/"+label: the same positions in
// every challenge whose runs have the same seeds), each drawn run
// contributes its percentile in case resample k (the same case draw for
// every configuration and seed: paired), the drawn runs are averaged per
// challenge and the challenges averaged.
func bootGroups(opt Options, runs []*Ranked, groups []*Group) {
	byGroup := runsByGroup(runs)
	for _, g := range groups {
		g.Boot = bootGroup(opt, g, byGroup[groupRunsKey{g.Source, g.Setting, g.Backend, g.Agent}])
	}
}

// groupRunsKey identifies a group's runs: source, setting, backend, agent.
type groupRunsKey struct{ s, set, b, a string }

// runsByGroup sorts the runs into their groups, by challenge.
func runsByGroup(runs []*Ranked) map[groupRunsKey]map[string][]*Ranked {
	byGroup := map[groupRunsKey]map[string][]*Ranked{}
	for _, r := range runs {
		k := groupRunsKey{r.Run.Source, r.Run.Setting, r.Run.Backend, r.Run.Agent}
		if byGroup[k] == nil {
			byGroup[k] = map[string][]*Ranked{}
		}
		byGroup[k][r.Run.Challenge] = append(byGroup[k][r.Run.Challenge], r)
	}
	return byGroup
}

// bootGroup is one group's seed summary and, where its runs were
// bootstrapped, its hierarchical bootstrap; per holds its runs by challenge.
func bootGroup(opt Options, g *Group, per map[string][]*Ranked) *GroupBoot {
	gb := &GroupBoot{BootSeed: opt.BootSeed, Overall: noInterval}
	gb.SeedSummary = rank.SeedSummary{Mean: math.NaN(), SE: math.NaN()}
	chs := make([]string, 0, len(per))
	for ch, rs := range per {
		sort.Slice(rs, func(i, j int) bool { return rs[i].Run.Seed < rs[j].Run.Seed })
		chs = append(chs, ch)
	}
	sort.Strings(chs)
	if g.NPartial > 0 {
		gb.Note = "some challenges have only the primary metric recorded: no overall interval or seed summary"
		return gb
	}
	seedRanks(gb, chs, per)
	switch {
	case g.Source == paper.Source:
		gb.Note = NotePaper
		return gb
	case opt.Boot <= 0:
		gb.Note = NoteOff
		return gb
	}
	gb.NBoot = opt.Boot
	us := seedDraws(opt, g, chs, per)
	tot := make([]float64, opt.Boot)
	for _, ch := range chs {
		cb := bootChallenge(opt, ch, per[ch], us)
		for k, v := range cb.samples {
			tot[k] += v
		}
		gb.NFixed += cb.NFixed
		gb.Challenges = append(gb.Challenges, cb)
	}
	for k := range tot {
		tot[k] /= float64(len(chs))
	}
	gb.samples = tot
	gb.Overall.Lo, gb.Overall.Hi = rank.PercentileInterval(tot, opt.Confidence)
	if gb.NFixed > 0 {
		gb.Note = fmt.Sprintf("%d successful run(s) have no interval and are held at their percentile in every resample", gb.NFixed)
	}
	return gb
}

// seedRanks sets the group's seeds, the ReX-MLE rank of each (a failed or
// missing run counting 0) and their summary.
func seedRanks(gb *GroupBoot, chs []string, per map[string][]*Ranked) {
	seedSet := map[int]bool{}
	for _, ch := range chs {
		for _, r := range per[ch] {
			seedSet[r.Run.Seed] = true
		}
	}
	for s := range seedSet {
		gb.Seeds = append(gb.Seeds, s)
	}
	sort.Ints(gb.Seeds)
	for _, s := range gb.Seeds {
		sum, failed := 0.0, false
		for _, ch := range chs {
			var got *Ranked
			for _, r := range per[ch] {
				if r.Run.Seed == s {
					got = r
				}
			}
			if got == nil || got.Result.Status != rank.OK {
				gb.FailedRuns++
				failed = true
				continue
			}
			sum += got.Result.Percentile
		}
		if failed {
			gb.FailedSeeds++
		}
		gb.SeedValues = append(gb.SeedValues, sum/float64(len(chs)))
	}
	gb.SeedSummary = rank.Seeds(gb.SeedValues, nil)
}

// seedDraws is the outer level: the seed draws, as uniform numbers shared by
// the challenges (a challenge with m runs takes ⌊u·m⌋), per resample.
func seedDraws(opt Options, g *Group, chs []string, per map[string][]*Ranked) [][]float64 {
	maxRuns := 0
	for _, ch := range chs {
		maxRuns = max(maxRuns, len(per[ch]))
	}
	rng := rank.StreamRNG(opt.BootSeed, "seeds/"+g.Label())
	us := make([][]float64, opt.Boot)
	for k := range us {
		us[k] = make([]float64, maxRuns)
		for i := range us[k] {
			us[k][i] = rng.Float64()
		}
	}
	return us
}

// bootChallenge is a group's standing on one challenge: its seed runs'
// mean percentile and, per resample k, the mean over the drawn seeds of
// each run's percentile in case resample k (in samples).
func bootChallenge(opt Options, ch string, rs []*Ranked, us [][]float64) ChallengeBoot {
	// value(r, k): the run's percentile in case resample k.
	value := make([]func(int) float64, len(rs))
	cb := ChallengeBoot{Challenge: ch, Pct: noInterval, NSeeds: len(rs)}
	sampled := 0
	for i, r := range rs {
		switch {
		case r.Boot != nil && r.Boot.samples != nil:
			s := r.Boot.samples
			value[i] = func(k int) float64 { return s[k] }
			sampled++
			if cb.NCases == 0 || r.Boot.NCases < cb.NCases {
				cb.NCases = r.Boot.NCases
			}
		case r.Result.Status == rank.OK:
			p := r.Result.Percentile
			value[i] = func(int) float64 { return p }
			cb.NFixed++
		default:
			value[i] = func(int) float64 { return 0 }
		}
		if r.Result.Status == rank.OK {
			cb.Percentile += r.Result.Percentile
		}
	}
	cb.Percentile /= float64(len(rs))
	chS := make([]float64, opt.Boot)
	m := len(rs)
	for k := range chS {
		s := 0.0
		for i := 0; i < m; i++ {
			s += value[min(int(us[k][i]*float64(m)), m-1)](k)
		}
		chS[k] = s / float64(m)
	}
	cb.samples = chS
	if sampled == 0 {
		cb.Note = "no run of this challenge has an interval"
		if r := rs[0]; r.Boot != nil && r.Boot.Note != "" && len(rs) == 1 {
			cb.Note = r.Boot.Note
		}
	} else {
		cb.Pct = intervalOf(rank.MethodExpanded, opt.Confidence, cb.NCases, chS, cb.Percentile, nil)
		cb.SmallN = cb.NCases < rank.SmallN
		if cb.NFixed > 0 {
			cb.Note = fmt.Sprintf("%d of %d seed run(s) have no interval and are held at their percentile", cb.NFixed, len(rs))
		}
	}
	return cb
}

// Pair is one ordered pair of configurations.
type Pair struct {
	A, B   string  // Group.Label()
	PAbove float64 // bootstrap probability that A's ReX-MLE rank is above B's (ties ½)
}

// Stability is the rank stability between configurations.
type Stability struct {
	NBoot    int
	BootSeed uint64
	Configs  []string // labels, in Outcome.Groups order
	Pairs    []Pair   // every ordered pair A ≠ B
	Counts   [][]int  // Counts[c][r−1]: resamples in which Configs[c] ranked r-th overall
	Tasks    []TaskStability
	// Universes: the case universes of the design, sorted by key.
	Universes []Universe
}

// Universe is one case universe of the design as exported.
type Universe struct {
	Key        string
	Challenges []string
	NCases     int
}

// stability compares the configurations that have an overall bootstrap.
func stability(opt Options, groups []*Group) *Stability {
	st := &Stability{NBoot: opt.Boot, BootSeed: opt.BootSeed}
	var samples [][]float64
	for _, g := range groups {
		if g.Boot == nil || g.Boot.samples == nil {
			continue
		}
		st.Configs = append(st.Configs, g.Label())
		samples = append(samples, g.Boot.samples)
	}
	for i := range samples {
		for j := range samples {
			if i != j {
				st.Pairs = append(st.Pairs, Pair{A: st.Configs[i], B: st.Configs[j], PAbove: rank.ProbAbove(samples[i], samples[j])})
			}
		}
	}
	st.Counts = rank.RankCounts(samples)
	st.Tasks = taskStability(opt, groups)
	return st
}

// designUniverses lists the distinct case universes, sorted by key.
func designUniverses(us map[string]*caseUniverse) []Universe {
	seen := map[string]bool{}
	var out []Universe
	for _, u := range us {
		if !seen[u.Key] {
			seen[u.Key] = true
			out = append(out, Universe{Key: u.Key, Challenges: u.Challenges, NCases: len(u.IDs)})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out
}

// putBoot stores a run's bootstrap (replacing what was there).
func putBoot(ctx context.Context, tx *store.Tx, runID string, rb *RunBoot) error {
	names := make([]string, 0, len(rb.Metrics))
	for m := range rb.Metrics {
		names = append(names, m)
	}
	sort.Strings(names)
	ms := make([]store.MetricBootRecord, len(names))
	for i, m := range names {
		mb := rb.Metrics[m]
		ms[i] = store.MetricBootRecord{Metric: m, Aggregation: mb.Aggregation, Method: mb.Method, ValueLo: mb.Value.Lo, ValueHi: mb.Value.Hi,
			PositionLo: mb.Position.Lo, PositionHi: mb.Position.Hi, Note: mb.Note}
	}
	return tx.PutRunBoot(ctx, runID, store.RunBootRecord{NBoot: rb.NBoot, BootSeed: int64(rb.BootSeed), NCases: rb.NCases,
		MeanRankLo: rb.MeanRank.Lo, MeanRankHi: rb.MeanRank.Hi, PctLo: rb.Pct.Lo, PctHi: rb.Pct.Hi, Undefined: rb.Undefined, Note: rb.Note}, ms)
}

// putStability replaces the overall intervals, seed summaries, pairwise
// probabilities and rank counts.
func putStability(ctx context.Context, tx *store.Tx, groups []*Group, s *Stability, sig []ChallengeTests) error {
	rec := store.StabilityRecord{NBoot: s.NBoot, BootSeed: int64(s.BootSeed)}
	for _, ct := range sig {
		if len(ct.Tests) == 0 {
			rec.Tests = append(rec.Tests, store.SignificanceRecord{Challenge: ct.Challenge, Metric: ct.Metric, Statistic: math.NaN(), P: math.NaN(), PHolm: math.NaN(), Note: ct.Note})
		}
		for _, t := range ct.Tests {
			rec.Tests = append(rec.Tests, store.SignificanceRecord{Challenge: ct.Challenge, Metric: ct.Metric, A: t.A, B: t.B, N: t.N, NZero: t.NZero,
				Statistic: t.Statistic, P: t.P, PHolm: t.PHolm, Significant: t.Significant, Method: t.Method, Note: t.Note})
		}
	}
	for _, ts := range s.Tasks {
		rec.Tasks = append(rec.Tasks, store.TaskStabilityRecord{Challenge: ts.Challenge, NConfigs: len(ts.Configs), TauMean: ts.TauMean,
			TauMedian: ts.TauMedian, TauLo: ts.TauLo, TauHi: ts.TauHi, NUndefined: ts.NUndefined, Note: ts.Note})
	}
	for _, u := range s.Universes {
		rec.Universes = append(rec.Universes, store.UniverseRecord{Key: u.Key, Challenges: strings.Join(u.Challenges, ","), NCases: u.NCases})
	}
	for _, g := range groups {
		gb := g.Boot
		o := store.OverallBootRecord{Source: g.Source, Setting: g.Setting, Backend: g.Backend, Agent: g.Agent,
			Rank: g.Overall, RankLo: gb.Overall.Lo, RankHi: gb.Overall.Hi, NBoot: gb.NBoot, BootSeed: int64(gb.BootSeed), NFixed: gb.NFixed,
			NSeeds: len(gb.Seeds), SeedMean: gb.SeedSummary.Mean, SeedSE: gb.SeedSummary.SE, NFailedSeeds: gb.FailedSeeds,
			SeedValues: seedValues(gb), Note: gb.Note}
		for _, cb := range gb.Challenges {
			o.Challenges = append(o.Challenges, store.ChallengeBootRecord{Challenge: cb.Challenge, Percentile: cb.Percentile,
				PctLo: cb.Pct.Lo, PctHi: cb.Pct.Hi, NSeeds: cb.NSeeds, NFixed: cb.NFixed, NCases: cb.NCases, Note: cb.Note})
		}
		rec.Overall = append(rec.Overall, o)
	}
	for _, p := range s.Pairs {
		rec.Pairs = append(rec.Pairs, store.PairwiseRecord{A: p.A, B: p.B, PAbove: p.PAbove})
	}
	for c, row := range s.Counts {
		for r, n := range row {
			rec.Counts = append(rec.Counts, store.RankCountRecord{Config: s.Configs[c], Rank: r + 1, Count: n})
		}
	}
	return tx.ReplaceStability(ctx, rec)
}

// seedValues prints the per-seed ReX-MLE ranks as "seed:value;…".
func seedValues(gb *GroupBoot) string {
	parts := make([]string, len(gb.Seeds))
	for i, s := range gb.Seeds {
		parts[i] = strconv.Itoa(s) + ":" + strconv.FormatFloat(gb.SeedValues[i], 'g', -1, 64)
	}
	return strings.Join(parts, ";")
}
