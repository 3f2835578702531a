package ldctiqa

import (
	"fmt"
	"math"

	"github.com/rexmle/rexmle/metrics/stats"
	"github.com/rexmle/rexmle/pipeline/challenge"
)

// StatisticTraits implements challenge.TraitsAggregator: the rank
// correlations sort the drawn slices at every recomputation, so the n-fold
// inner jackknife of a studentized interval would cost n sorts per resample
// (and the percentile-type interval already covers, TestIntervalCoverage).
func (Challenge) StatisticTraits(string) challenge.StatisticTraits {
	return challenge.StatisticTraits{Costly: true}
}

// CaseStatistic recomputes the correlations over a resample of the graded
// slices from the per-case prediction and truth Grade stores: the metrics
// are correlations of the pooled slices, not means over slices. A resample
// with constant predictions or truths gives NaN, as Grade does.
func (Challenge) CaseStatistic(metric string, cases []challenge.Case) (func(idx []int) float64, error) {
	switch metric {
	case "score", "plcc", "srocc", "krocc":
	default:
		return nil, fmt.Errorf("%s: %w (no recomputation for metric %q)", ID, challenge.ErrNotAMean, metric)
	}
	p := make([]float64, len(cases))
	g := make([]float64, len(cases))
	for i, c := range cases {
		pv, ok1 := c.Values["prediction"]
		gv, ok2 := c.Values["truth"]
		if !ok1 || !ok2 {
			return nil, fmt.Errorf("%s case %s: %w (per-case prediction/truth not stored)", ID, c.ID, challenge.ErrNotAMean)
		}
		p[i], g[i] = pv, gv
	}
	return func(idx []int) float64 {
		if len(idx) < 2 {
			return math.NaN()
		}
		x := make([]float64, len(idx))
		y := make([]float64, len(idx))
		for k, i := range idx {
			x[k], y[k] = p[i], g[i]
		}
		var plcc, srocc, krocc float64
		if metric == "score" || metric == "plcc" {
			plcc, _ = stats.Pearson(x, y)
		}
		switch metric {
		case "score":
			srocc, krocc, _ = stats.RankCorrelations(x, y)
		case "srocc":
			srocc, _ = stats.Spearman(x, y)
		case "krocc":
			krocc, _ = stats.KendallTauB(x, y)
		}
		plcc, srocc, krocc = math.Abs(plcc), math.Abs(srocc), math.Abs(krocc)
		return plcc + srocc + krocc
	}, nil
}
