// Package rank places a run's metric values among a challenge's human
// leaderboard entries and turns the positions into the ReX-MLE scores:
// per-metric position, mean rank, percentile, and the ReX-MLE rank over
// challenges. Everything here is a pure function of its inputs.
//
// The rules (shared spec ranking.md, reproducing the paper):
//   - position = 1 + the number of leaderboard rows strictly better in the
//     metric's direction (pandas rank(method="min") of the run appended to
//     the leaderboard); ties share the better position; the worst is N+1;
//   - mean rank = the plain mean of the positions over the ranked metrics;
//   - percentile = 1 − (mean rank − 1)/N, N = number of leaderboard rows;
//   - a run missing any ranked metric fails the challenge (percentile 0 in
//     the overall mean);
//   - ReX-MLE rank = mean percentile over all challenges, failures as 0.
package rank

import (
	"fmt"
	"math"
	"math/big"
	"sort"
)

// Metric is a ranked leaderboard column.
type Metric struct {
	Name         string
	HigherBetter bool
}

// Leaderboard is a challenge's human leaderboard: the ranked metrics and,
// per row (in rank order), one value per metric, plus the stored mean
// positions used for medal thresholds.
type Leaderboard struct {
	Metrics       []Metric
	Rows          [][]float64 // Rows[i][m] is row i's value of Metrics[m]
	MeanPositions []float64   // as stored, rows in rank order
}

// N is the number of leaderboard rows.
func (lb *Leaderboard) N() int { return len(lb.Rows) }

// Validate checks the shape and that every value is finite.
func (lb *Leaderboard) Validate() error {
	if len(lb.Metrics) == 0 || len(lb.Rows) == 0 {
		return fmt.Errorf("leaderboard needs at least one metric and one row")
	}
	for i, r := range lb.Rows {
		if len(r) != len(lb.Metrics) {
			return fmt.Errorf("leaderboard row %d has %d values for %d metrics", i+1, len(r), len(lb.Metrics))
		}
		for m, v := range r {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("leaderboard row %d: %s is %v", i+1, lb.Metrics[m].Name, v)
			}
		}
	}
	return nil
}

// Position returns 1 + the number of values in column strictly better than
// v. NaN is rejected: a grader that produced one has failed (pandas leaves
// it unranked, which makes the mean rank NaN). ±Inf is ranked by order, as
// pandas ranks it: a PSNR of +Inf (identical images) is the best value.
func Position(v float64, column []float64, higherBetter bool) (int, error) {
	if math.IsNaN(v) {
		return 0, fmt.Errorf("value %v cannot be ranked", v)
	}
	p := 1
	for _, c := range column {
		if (higherBetter && c > v) || (!higherBetter && c < v) {
			p++
		}
	}
	return p, nil
}

// Status of a ranked run.
const (
	OK   = "ok"
	Fail = "fail"
)

// Result is a run's standing on one challenge.
type Result struct {
	Status     string         // OK or Fail
	Reason     string         // why it failed
	Positions  map[string]int // per ranked metric
	PosSum     int            // sum of positions
	K          int            // number of ranked metrics
	N          int            // leaderboard rows
	MeanRank   float64        // PosSum / K
	Percentile float64        // 1 − (MeanRank − 1)/N, in [0, 1]; 0 on failure
	Medal      Medals
}

// Rank places values (metric name → value) on the leaderboard. A ranked
// metric that is absent or NaN fails the run; the positions of the
// metrics that could be ranked are still returned.
func Rank(lb *Leaderboard, values map[string]float64) Result {
	r := Result{Positions: map[string]int{}, K: len(lb.Metrics), N: lb.N()}
	var bad []string
	for m, met := range lb.Metrics {
		v, ok := values[met.Name]
		if !ok {
			bad = append(bad, met.Name+" missing")
			continue
		}
		col := make([]float64, len(lb.Rows))
		for i, row := range lb.Rows {
			col[i] = row[m]
		}
		p, err := Position(v, col, met.HigherBetter)
		if err != nil {
			bad = append(bad, met.Name+" is "+fmt.Sprint(v))
			continue
		}
		r.Positions[met.Name] = p
		r.PosSum += p
	}
	if len(bad) > 0 {
		r.Status = Fail
		r.Reason = fmt.Sprintf("cannot rank: %v", bad)
		r.PosSum = 0
		r.MeanRank = math.NaN()
		return r
	}
	r.Status = OK
	r.MeanRank = float64(r.PosSum) / float64(r.K)
	r.Percentile = Percentile(r.MeanRank, r.N)
	r.Medal = lb.Medals(r.MeanRank)
	return r
}

// Percentile is 1 − (meanRank − 1)/n.
func Percentile(meanRank float64, n int) float64 {
	return 1 - (meanRank-1)/float64(n)
}

// ExactPercent returns the percentile × 100 as an exact rational, from the
// integer position sum: 100·(N·K − S + K)/(N·K). Printing rules (half-up)
// need the exact value: 56.25 must print 56.3.
func (r Result) ExactPercent() *big.Rat {
	if r.Status != OK {
		return new(big.Rat)
	}
	nk := int64(r.N * r.K)
	return new(big.Rat).SetFrac64(100*(nk-int64(r.PosSum)+int64(r.K)), nk)
}

// RoundHalfUp rounds an exact non-negative rational to digits decimals, ties away from zero.
func RoundHalfUp(x *big.Rat, digits int) *big.Rat {
	scale := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(digits)), nil)
	y := new(big.Rat).Mul(x, new(big.Rat).SetInt(scale))
	y.Add(y, big.NewRat(1, 2))
	q := new(big.Int).Quo(y.Num(), y.Denom()) // floor for non-negative
	return new(big.Rat).SetFrac(q, scale)
}

// FormatPercent prints an exact percentage half-up with digits decimals, as
// the paper prints percentiles (one decimal in S-tables, none in Table 3).
func FormatPercent(x *big.Rat, digits int) string {
	return RoundHalfUp(x, digits).FloatString(digits) + "%"
}

// Medals are the reference's mean-position medal flags.
type Medals struct {
	Gold, Silver, Bronze, AboveMedian bool
}

// Thresholds returns the medal thresholds: the stored mean positions of
// leaderboard rows 1, 2, 3 and of row ⌊N/2⌋+1 (NaN where the row is absent).
func (lb *Leaderboard) Thresholds() (gold, silver, bronze, median float64) {
	mp := lb.MeanPositions
	at := func(i int) float64 {
		if i < len(mp) {
			return mp[i]
		}
		return math.NaN()
	}
	return at(0), at(1), at(2), at(len(mp) / 2)
}

// Medals applies the thresholds to a mean rank rounded to 5 decimals, as
// the reference compares its rounded output: gold ≤ row 1, silver ≤ row 2,
// bronze ≤ row 3 (exclusive of better medals), above median ≤ the median row.
func (lb *Leaderboard) Medals(meanRank float64) Medals {
	g, s, b, med := lb.Thresholds()
	v := math.Round(meanRank*1e5) / 1e5
	var m Medals
	m.Gold = v <= g
	m.Silver = !m.Gold && v <= s
	m.Bronze = !m.Gold && !m.Silver && v <= b
	m.AboveMedian = v <= med
	return m
}

// Overall is the ReX-MLE rank: the mean of the percentiles over nChallenges,
// a challenge without a successful run counting 0. percentiles maps
// challenge id → percentile of the runs that succeeded.
func Overall(percentiles map[string]float64, nChallenges int) float64 {
	if nChallenges == 0 {
		return math.NaN()
	}
	keys := make([]string, 0, len(percentiles))
	for k := range percentiles {
		keys = append(keys, k)
	}
	sort.Strings(keys) // fixed summation order: identical output every run
	s := 0.0
	for _, k := range keys {
		s += percentiles[k]
	}
	return s / float64(nChallenges)
}

// PercentileRange bounds the percentile of a run of which only some
// positions are known: every unknown position lies in [1, N+1].
func PercentileRange(known []int, k, n int) (lo, hi float64) {
	sum := 0
	for _, p := range known {
		sum += p
	}
	unknown := k - len(known)
	best := float64(sum+unknown) / float64(k)
	worst := float64(sum+unknown*(n+1)) / float64(k)
	return Percentile(worst, n), Percentile(best, n)
}
