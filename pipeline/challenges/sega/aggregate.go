package sega

import (
	"fmt"

	"github.com/rexmle/rexmle/metrics/num"
	"github.com/rexmle/rexmle/pipeline/challenge"
)

// StatisticTraits implements challenge.TraitsAggregator: the ranked
// metrics are medians.
func (Challenge) StatisticTraits(metric string) challenge.StatisticTraits {
	return challenge.StatisticTraits{Quantile: metric == MetricHD50 || metric == MetricDSC50}
}

// CaseStatistic recomputes the ranked metrics over a resample of the
// graded volumes: they are medians of the per-case HD and DSC (Median, as
// Grade computes them), not means.
func (Challenge) CaseStatistic(metric string, cases []challenge.Case) (func(idx []int) float64, error) {
	var key string
	switch metric {
	case MetricHD50:
		key = CaseHD
	case MetricDSC50:
		key = CaseDSC
	default:
		return nil, nil // any other metric: the mean of its per-case value
	}
	col := make([]float64, len(cases))
	for i, c := range cases {
		v, ok := c.Values[key]
		if !ok {
			return nil, fmt.Errorf("%s case %s: %w (per-case %s not stored)", ID, c.ID, challenge.ErrNotAMean, key)
		}
		col[i] = v
	}
	buf := make([]float64, 0, len(cases))
	return func(idx []int) float64 {
		buf = buf[:0]
		for _, i := range idx {
			buf = append(buf, col[i])
		}
		return num.Median(buf)
	}, nil
}
