package panthercommon

import (
	"fmt"
	"math"

	"github.com/rexmle/rexmle/metrics/num"
	"github.com/rexmle/rexmle/pipeline/challenge"
)

// StatisticTraits implements challenge.TraitsAggregator: the RMSE is the
// root of a mean.
func (c Challenge) StatisticTraits(metric string) challenge.StatisticTraits {
	return challenge.StatisticTraits{RootOfMean: metric == MetricRMSE}
}

// CaseStatistic recomputes the tumour-burden RMSE over a resample of the
// graded volumes from the per-case burden error Grade stores:
// √(numpy mean of burden²), summed in resample order as Grade sums in case
// order.
// The other metrics are means of their per-case values.
func (c Challenge) CaseStatistic(metric string, cases []challenge.Case) (func(idx []int) float64, error) {
	if metric != MetricRMSE {
		return nil, nil
	}
	col := make([]float64, len(cases))
	for i, cs := range cases {
		v, ok := cs.Values[CaseBurden]
		if !ok {
			return nil, fmt.Errorf("%s case %s: %w (per-case %s not stored)", c.ID(), cs.ID, challenge.ErrNotAMean, CaseBurden)
		}
		col[i] = v
	}
	return func(idx []int) float64 {
		sq := make([]float64, len(idx))
		for k, i := range idx {
			sq[k] = col[i] * col[i]
		}
		return math.Sqrt(num.Mean(sq))
	}, nil
}
