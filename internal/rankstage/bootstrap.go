package rankstage

import (
	"context"

	"fmt"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/rexmle/rexmle/internal/challenge"
	"github.com/rexmle/rexmle/internal/config"
	"github.com/rexmle/rexmle/internal/paper"
	"github.com/rexmle/rexmle/internal/rank"
	"github.com/rexmle/rexmle/internal/store"
	"github.com/rexmle/rexmle/metrics/num"
)

// The case-level bootstrap (issue 18). For every new run with per-case
// values, B resamples of its cases are drawn with replacement (indices from
// rank.StreamRNG(boot seed, run id): independent of the order runs are
// visited, byte-reproducible). Each ranked metric is recomputed per
// resample the way the challenge aggregates it — numpy's mean of the
// per-case values by default (nanmean where that is what reproduces the
// graded value), or the challenge's challenge.CaseAggregator — and only if
// the full sample reproduces the graded value (relative 1e-9): otherwise
// the interval is unavailable and the note says why. Each resample is
// ranked against the fixed human leaderboard (rank.Position), giving a
// mean rank and a percentile per resample; the 95 % percentile intervals use
// numpy's linear interpolation. The ReX-MLE rank of a configuration is
// resampled by averaging, per resample index, the percentile of each
// challenge (its seeds averaged; a failed run is 0 in every resample; a
// successful run without an interval is held at its percentile and
// counted in n_boot_fixed). Paper rows have no per-case values and no
// intervals.

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

// OptionsFromEnv reads REXMLE_BOOT (B, 0 = off) and REXMLE_BOOT_SEED over
// the defaults.
func OptionsFromEnv() (Options, error) {
	o := DefaultOptions()
	if s := strings.TrimSpace(os.Getenv("REXMLE_BOOT")); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 || n > 1_000_000 {
			return o, fmt.Errorf("REXMLE_BOOT=%q: want a number of resamples between 0 and 1000000", s)
		}
		o.Boot = n
	}
	if s := strings.TrimSpace(os.Getenv("REXMLE_BOOT_SEED")); s != "" {
		n, err := strconv.ParseUint(s, 10, 63)
		if err != nil {
			return o, fmt.Errorf("REXMLE_BOOT_SEED=%q: want an integer between 0 and 2^63−1", s)
		}
		o.BootSeed = n
	}
	return o, nil
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
	samples   []float64 // percentile per resample; nil without an interval
}

// Reasons recorded where there is no interval.
const (
	NotePaper = "paper row: no per-case values recorded"
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

// bootRun resamples a run's cases, recomputes every ranked metric, ranks
// each resample against the fixed leaderboard and takes percentile intervals.
func bootRun(ctx context.Context, tx *store.Tx, opt Options, c *config.Challenge, rk *Ranked) (*RunBoot, error) {
	rb := &RunBoot{BootSeed: opt.BootSeed, Metrics: map[string]*MetricBoot{}, MeanRank: noInterval, Pct: noInterval}
	switch {
	case rk.Run.Source == paper.Source:
		rb.Note = NotePaper
		return rb, nil
	case opt.Boot <= 0:
		rb.Note = NoteOff
		return rb, nil
	case rk.Result.Status != rank.OK:
		rb.Note = "the run failed: it counts 0 in every resample"
		return rb, nil
	}
	cases, err := tx.CaseValues(ctx, rk.Run.ID)
	if err != nil {
		return nil, err
	}
	rb.NCases = len(cases)
	if len(cases) == 0 {
		rb.Note = NoteNoCas
		return rb, nil
	}
	impl, _ := challenge.Lookup(c.ID)
	lb := c.Board()
	stats := make([]func([]int) float64, len(lb.Metrics))
	names := make([]string, len(lb.Metrics))
	for j, m := range lb.Metrics {
		names[j] = m.Name
	}
	proposed, proposedErr := proposals(impl, names, cases)
	var missing []string
	for j, m := range lb.Metrics {
		mb := &MetricBoot{Value: noInterval, Position: noInterval}
		rb.Metrics[m.Name] = mb
		f, agg, err := statistic(m.Name, proposed[j], proposedErr[j], cases, rk.Values[m.Name])
		if err != nil {
			mb.Note = err.Error()
			missing = append(missing, m.Name)
			continue
		}
		mb.Aggregation = agg
		stats[j] = f
	}
	idx := rank.Resample(rank.StreamRNG(opt.BootSeed, rk.Run.ID), len(cases), opt.Boot)
	rb.NBoot = opt.Boot
	cols := make([][]float64, len(lb.Metrics))
	for j := range lb.Metrics {
		cols[j] = make([]float64, len(lb.Rows))
		for i, row := range lb.Rows {
			cols[j][i] = row[j]
		}
	}
	vals := make([][]float64, len(lb.Metrics))
	poss := make([][]float64, len(lb.Metrics))
	var pct, mr []float64
	full := len(missing) == 0
	if full {
		pct = make([]float64, 0, opt.Boot)
	}
	for k, ix := range idx {
		if k%64 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		sum, bad := 0, false
		for j, m := range lb.Metrics {
			if stats[j] == nil {
				continue
			}
			v := stats[j](ix)
			vals[j] = append(vals[j], v)
			p, err := rank.Position(v, cols[j], m.HigherBetter)
			if err != nil {
				bad = true
				continue
			}
			poss[j] = append(poss[j], float64(p))
			sum += p
		}
		if !full {
			continue
		}
		if bad {
			rb.Undefined++
			pct = append(pct, 0)
			continue
		}
		m := float64(sum) / float64(len(lb.Metrics))
		mr = append(mr, m)
		pct = append(pct, rank.Percentile(m, len(lb.Rows)))
	}
	for j, m := range lb.Metrics {
		if stats[j] == nil {
			continue
		}
		mb := rb.Metrics[m.Name]
		mb.Value.Lo, mb.Value.Hi = rank.PercentileInterval(vals[j], opt.Confidence)
		mb.Position.Lo, mb.Position.Hi = rank.PercentileInterval(poss[j], opt.Confidence)
		if n := opt.Boot - len(poss[j]); n > 0 {
			mb.Note = fmt.Sprintf("%s is undefined (NaN) in %d of %d resamples: the value interval is NaN, the position interval leaves them out", m.Name, n, opt.Boot)
		}
	}
	if !full {
		rb.Note = "no interval for the mean rank and percentile: " + strings.Join(missing, ", ") + " cannot be recomputed per resample"
		return rb, nil
	}
	rb.samples = pct
	rb.Pct.Lo, rb.Pct.Hi = rank.PercentileInterval(pct, opt.Confidence)
	rb.MeanRank.Lo, rb.MeanRank.Hi = rank.PercentileInterval(mr, opt.Confidence)
	if rb.Undefined > 0 {
		rb.Note = fmt.Sprintf("a ranked metric is undefined in %d of %d resamples: the run fails there (percentile 0; left out of the mean-rank interval)", rb.Undefined, opt.Boot)
	}
	return rb, nil
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
	Note       string
}

// Label is the configuration's name in exports: source/setting/backend/agent.
func (g *Group) Label() string {
	return g.Source + "/" + g.Setting + "/" + g.Backend + "/" + g.Agent
}

// bootGroups computes the overall intervals and seed summaries of every group.
func bootGroups(opt Options, runs []*Ranked, groups []*Group) {
	type key struct{ s, set, b, a string }
	byGroup := map[key]map[string][]*Ranked{}
	for _, r := range runs {
		k := key{r.Run.Source, r.Run.Setting, r.Run.Backend, r.Run.Agent}
		if byGroup[k] == nil {
			byGroup[k] = map[string][]*Ranked{}
		}
		byGroup[k][r.Run.Challenge] = append(byGroup[k][r.Run.Challenge], r)
	}
	for _, g := range groups {
		gb := &GroupBoot{BootSeed: opt.BootSeed, Overall: noInterval}
		gb.SeedSummary = rank.SeedSummary{Mean: math.NaN(), SE: math.NaN()}
		g.Boot = gb
		per := byGroup[key{g.Source, g.Setting, g.Backend, g.Agent}]
		chs := make([]string, 0, len(per))
		for ch, rs := range per {
			sort.Slice(rs, func(i, j int) bool { return rs[i].Run.Seed < rs[j].Run.Seed })
			chs = append(chs, ch)
		}
		sort.Strings(chs)
		if g.NPartial > 0 {
			gb.Note = "some challenges have only the primary metric recorded: no overall interval or seed summary"
			continue
		}
		// Seeds.
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
			sum := 0.0
			for _, ch := range chs {
				var got *Ranked
				for _, r := range per[ch] {
					if r.Run.Seed == s {
						got = r
					}
				}
				if got == nil || got.Result.Status != rank.OK {
					gb.FailedRuns++
					continue
				}
				sum += got.Result.Percentile
			}
			gb.SeedValues = append(gb.SeedValues, sum/float64(len(chs)))
		}
		gb.SeedSummary = rank.Seeds(gb.SeedValues, nil)
		// Overall bootstrap: each challenge resampled independently (its own
		// stream), seeds averaged per challenge, challenges averaged.
		switch {
		case g.Source == paper.Source:
			gb.Note = NotePaper
			continue
		case opt.Boot <= 0:
			gb.Note = NoteOff
			continue
		}
		gb.NBoot = opt.Boot
		tot := make([]float64, opt.Boot)
		for _, ch := range chs {
			rs := per[ch]
			chSum := make([]float64, opt.Boot)
			for _, r := range rs {
				if r.Boot != nil && r.Boot.samples != nil {
					for k, v := range r.Boot.samples {
						chSum[k] += v
					}
					continue
				}
				if r.Result.Status == rank.OK {
					gb.NFixed++
					for k := range chSum {
						chSum[k] += r.Result.Percentile
					}
				}
			}
			for k := range tot {
				tot[k] += chSum[k] / float64(len(rs))
			}
			cb := ChallengeBoot{Challenge: ch, Pct: noInterval, NSeeds: len(rs)}
			sampled := 0
			for _, r := range rs {
				if r.Result.Status == rank.OK {
					cb.Percentile += r.Result.Percentile
				}
				switch {
				case r.Boot != nil && r.Boot.samples != nil:
					sampled++
				case r.Result.Status == rank.OK:
					cb.NFixed++
				}
			}
			cb.Percentile /= float64(len(rs))
			if sampled == 0 {
				cb.Note = "no run of this challenge has an interval"
				if r := rs[0]; r.Boot != nil && r.Boot.Note != "" && len(rs) == 1 {
					cb.Note = r.Boot.Note
				}
			} else {
				for k := range chSum {
					chSum[k] /= float64(len(rs))
				}
				cb.Pct.Lo, cb.Pct.Hi = rank.PercentileInterval(chSum, opt.Confidence)
				if cb.NFixed > 0 {
					cb.Note = fmt.Sprintf("%d of %d seed run(s) have no interval and are held at their percentile", cb.NFixed, len(rs))
				}
			}
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
	}
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
	return st
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
		ms[i] = store.MetricBootRecord{Metric: m, Aggregation: mb.Aggregation, ValueLo: mb.Value.Lo, ValueHi: mb.Value.Hi,
			PositionLo: mb.Position.Lo, PositionHi: mb.Position.Hi, Note: mb.Note}
	}
	return tx.PutRunBoot(ctx, runID, store.RunBootRecord{NBoot: rb.NBoot, BootSeed: int64(rb.BootSeed), NCases: rb.NCases,
		MeanRankLo: rb.MeanRank.Lo, MeanRankHi: rb.MeanRank.Hi, PctLo: rb.Pct.Lo, PctHi: rb.Pct.Hi, Undefined: rb.Undefined, Note: rb.Note}, ms)
}

// putStability replaces the overall intervals, seed summaries, pairwise
// probabilities and rank counts.
func putStability(ctx context.Context, tx *store.Tx, groups []*Group, s *Stability) error {
	rec := store.StabilityRecord{NBoot: s.NBoot, BootSeed: int64(s.BootSeed)}
	for _, g := range groups {
		gb := g.Boot
		o := store.OverallBootRecord{Source: g.Source, Setting: g.Setting, Backend: g.Backend, Agent: g.Agent,
			Rank: g.Overall, RankLo: gb.Overall.Lo, RankHi: gb.Overall.Hi, NBoot: gb.NBoot, BootSeed: int64(gb.BootSeed), NFixed: gb.NFixed,
			NSeeds: len(gb.Seeds), SeedMean: gb.SeedSummary.Mean, SeedSE: gb.SeedSummary.SE, NFailedSeeds: gb.FailedRuns,
			SeedValues: seedValues(gb), Note: gb.Note}
		for _, cb := range gb.Challenges {
			o.Challenges = append(o.Challenges, store.ChallengeBootRecord{Challenge: cb.Challenge, Percentile: cb.Percentile,
				PctLo: cb.Pct.Lo, PctHi: cb.Pct.Hi, NSeeds: cb.NSeeds, NFixed: cb.NFixed, Note: cb.Note})
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
