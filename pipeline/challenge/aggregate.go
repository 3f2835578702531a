package challenge

import "errors"

// CaseAggregator is implemented by challenges of which some metric is not
// the mean of a per-case value (correlations over pooled cases, F1 over
// pooled detections, COCO AP): the rank stage's case-level bootstrap asks it
// how to recompute such a metric from a resample of the graded cases.
//
// CaseStatistic receives the metric name and the run's graded cases (as
// stored: Case.Values holds what Grade put there, extra sufficient
// statistics included) and returns one of:
//   - stat != nil: stat(idx) recomputes the metric over the multiset of
//     cases idx (indices into cases, with repetition) exactly as Grade
//     aggregates it. Per-case work is done once, before returning, so each
//     call only re-accumulates; stat must not retain or modify idx.
//   - stat == nil, err == nil: the metric is the mean over cases of
//     cases[i].Values[metric] (the default aggregation).
//   - err != nil: the metric cannot be recomputed from what is stored; the
//     error says why (wrap ErrNotAMean when that is the reason).
type CaseAggregator interface {
	CaseStatistic(metric string, cases []Case) (stat func(idx []int) float64, err error)
}

// RunAggregator is CaseAggregator for a challenge whose metrics share
// their per-resample work (DENTEX's 16 COCO metrics all come from one
// re-accumulation of the drawn images). CaseStatistics returns, for each
// metric named, what CaseStatistic would (nil: the mean of the per-case
// values), built from one state shared by the returned statistics, or one
// error for them all. The rank stage asks for every metric of a resample
// in turn with the same idx, so the statistics may share the last
// resample's work. The rank stage prefers it to CaseAggregator.
type RunAggregator interface {
	CaseStatistics(metrics []string, cases []Case) ([]func(idx []int) float64, error)
}

// StatisticTraits say what kind of statistic a challenge's recomputation
// of a metric is, where the rank stage's choice of interval depends on it.
// The zero value is a smooth statistic that costs about one pass over the
// drawn cases (an RMSE, a correlation, an F1 over pooled detections).
type StatisticTraits struct {
	// Quantile: a quantile of per-case values (a median), not smooth in the
	// drawn cases, so its jackknife standard error is inconsistent.
	Quantile bool
	// Costly: one recomputation costs far more than a pass over the cases
	// (COCO's accumulation), so n recomputations per resample — the inner
	// jackknife of a studentized interval — are out of reach.
	Costly bool
	// Biased: a statistic with a small-sample bias of its own (COCO AP,
	// whose precision envelope raises it in small samples), which the rank
	// stage's interval corrects for (BCa's bias correction).
	Biased bool
	// RootOfMean: the square root of a mean over the cases (an RMSE); the
	// rank stage studentizes the mean (its square), whose bootstrap-t
	// covers better than the root's at small n.
	RootOfMean bool
}

// TraitsAggregator is an optional extension of CaseAggregator and
// RunAggregator: the traits of metric's statistic (the zero value for a
// metric it does not know).
type TraitsAggregator interface {
	StatisticTraits(metric string) StatisticTraits
}

// ErrNotAMean marks a metric whose interval is unavailable because it is not
// a mean over cases and the per-case values stored do not suffice to
// recompute it.
var ErrNotAMean = errors.New("interval unavailable: not a mean over cases")
