package store

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Typed reads of the rank stage's bootstrap tables (boot_*) and of the
// per-run GPU summaries, for the results site. NULL intervals read as NaN.

// BootRun is one boot_runs row: the case-level bootstrap of a run.
type BootRun struct {
	RunID                  string
	NBoot                  int // 0 when not bootstrapped (Note says why)
	BootSeed               int64
	NCases                 int
	MeanRankLo, MeanRankHi float64
	PctLo, PctHi           float64 // percentile interval, 0–1
	NUndefined             int
	Note                   string
}

// BootMetric is one boot_metrics row: a ranked metric's value and position intervals.
type BootMetric struct {
	RunID, Metric, Aggregation string
	Method                     string // interval method
	ValueLo, ValueHi           float64
	PositionLo, PositionHi     float64
	Note                       string
}

// SeedValue is one seed's ReX-MLE rank (0–1) in boot_overall.seed_values.
type SeedValue struct {
	Seed  int
	Value float64
}

// BootOverall is one boot_overall row: a configuration's ReX-MLE rank
// interval and seed summary.
type BootOverall struct {
	Source, Setting, Backend, Agent string
	Rank, Lo, Hi                    float64 // 0–1
	NBoot                           int
	BootSeed                        int64
	NFixed, NSeeds                  int
	SeedMean, SeedSE                float64
	NFailed                         int // runs (challenge × seed) failed or missing
	Seeds                           []SeedValue
	Note                            string
}

// Label is the configuration's name in boot_pairwise and boot_rank_counts.
func (o BootOverall) Label() string {
	return o.Source + "/" + o.Setting + "/" + o.Backend + "/" + o.Agent
}

// BootChallenge is one boot_challenges row: a configuration's percentile on
// one challenge (seeds averaged) and its interval.
type BootChallenge struct {
	Source, Setting, Backend, Agent, Challenge string
	Pct, PctLo, PctHi                          float64 // 0–1
	NSeeds, NFixed, NBoot                      int
	NCases                                     int // the fewest cases of its bootstrapped runs
	BootSeed                                   int64
	Note                                       string
}

// BootTest is one boot_significance row (A and B empty: the challenge has
// no test, Note says why).
type BootTest struct {
	Challenge, Metric, A, B string
	N, NZero                int
	Statistic, P, PHolm     float64
	Significant             bool
	Method, Note            string
}

// BootTaskStability is one boot_task_stability row.
type BootTaskStability struct {
	Challenge                        string
	NConfigs, NUndefined, NBoot      int
	TauMean, TauMedian, TauLo, TauHi float64
	Note                             string
}

// BootUniverse is one boot_universes row.
type BootUniverse struct {
	Key        string
	Challenges []string
	NCases     int
}

// BootTests returns the significance tests, by challenge and pair.
func (s *Store) BootTests(ctx context.Context) ([]BootTest, error) {
	var out []BootTest
	err := s.bootQuery(ctx, "boot_significance", `SELECT challenge_id, metric, config_a, config_b, n_pairs, n_zero, statistic, p_value, p_holm, significant, method, note
FROM boot_significance ORDER BY challenge_id, config_a, config_b`, func(r *sql.Rows) error {
		var b BootTest
		var st, p, ph sql.NullFloat64
		if err := r.Scan(&b.Challenge, &b.Metric, &b.A, &b.B, &b.N, &b.NZero, &st, &p, &ph, &b.Significant, &b.Method, &b.Note); err != nil {
			return err
		}
		b.Statistic, b.P, b.PHolm = nullNaN(st), nullNaN(p), nullNaN(ph)
		out = append(out, b)
		return nil
	})
	return out, err
}

// BootTaskStabilities returns every challenge's rank stability.
func (s *Store) BootTaskStabilities(ctx context.Context) ([]BootTaskStability, error) {
	var out []BootTaskStability
	err := s.bootQuery(ctx, "boot_task_stability", `SELECT challenge_id, n_configs, tau_mean, tau_median, tau_lo, tau_hi, n_undefined, n_boot, note
FROM boot_task_stability ORDER BY challenge_id`, func(r *sql.Rows) error {
		var b BootTaskStability
		var m, md, lo, hi sql.NullFloat64
		if err := r.Scan(&b.Challenge, &b.NConfigs, &m, &md, &lo, &hi, &b.NUndefined, &b.NBoot, &b.Note); err != nil {
			return err
		}
		b.TauMean, b.TauMedian, b.TauLo, b.TauHi = nullNaN(m), nullNaN(md), nullNaN(lo), nullNaN(hi)
		out = append(out, b)
		return nil
	})
	return out, err
}

// BootUniverses returns the case universes of the resampling design.
func (s *Store) BootUniverses(ctx context.Context) ([]BootUniverse, error) {
	var out []BootUniverse
	err := s.bootQuery(ctx, "boot_universes", `SELECT universe, challenges, n_cases FROM boot_universes ORDER BY universe`, func(r *sql.Rows) error {
		var b BootUniverse
		var chs string
		if err := r.Scan(&b.Key, &chs, &b.NCases); err != nil {
			return err
		}
		b.Challenges = strings.Split(chs, ",")
		out = append(out, b)
		return nil
	})
	return out, err
}

// BootPair is one boot_pairwise row: P(A ranks above B), ties ½.
type BootPair struct {
	A, B     string
	PAbove   float64
	NBoot    int
	BootSeed int64
}

// BootRankCount is one boot_rank_counts row.
type BootRankCount struct {
	Config      string
	Rank, Count int
	NBoot       int
}

func nullNaN(v sql.NullFloat64) float64 {
	if !v.Valid {
		return math.NaN()
	}
	return v.Float64
}

// bootQuery runs q and calls scan for every row.
func (s *Store) bootQuery(ctx context.Context, what, q string, scan func(*sql.Rows) error) error {
	rows, err := s.db.QueryContext(ctx, q)
	if err != nil {
		return fmt.Errorf("read %s: %w", what, err)
	}
	defer rows.Close()
	for rows.Next() {
		if err := scan(rows); err != nil {
			return fmt.Errorf("read %s: %w", what, err)
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read %s: %w", what, err)
	}
	return nil
}

// BootRuns returns every run's bootstrap, by run id.
func (s *Store) BootRuns(ctx context.Context) ([]BootRun, error) {
	var out []BootRun
	err := s.bootQuery(ctx, "boot_runs", `SELECT run_id, n_boot, boot_seed, n_cases, mean_rank_lo, mean_rank_hi, percentile_lo, percentile_hi, n_undefined, note
FROM boot_runs ORDER BY run_id`, func(r *sql.Rows) error {
		var b BootRun
		var mlo, mhi, plo, phi sql.NullFloat64
		if err := r.Scan(&b.RunID, &b.NBoot, &b.BootSeed, &b.NCases, &mlo, &mhi, &plo, &phi, &b.NUndefined, &b.Note); err != nil {
			return err
		}
		b.MeanRankLo, b.MeanRankHi, b.PctLo, b.PctHi = nullNaN(mlo), nullNaN(mhi), nullNaN(plo), nullNaN(phi)
		out = append(out, b)
		return nil
	})
	return out, err
}

// BootMetrics returns every run's per-metric intervals, by run and metric.
func (s *Store) BootMetrics(ctx context.Context) ([]BootMetric, error) {
	var out []BootMetric
	err := s.bootQuery(ctx, "boot_metrics", `SELECT run_id, metric, aggregation, method, value_lo, value_hi, position_lo, position_hi, note
FROM boot_metrics ORDER BY run_id, metric`, func(r *sql.Rows) error {
		var b BootMetric
		var vlo, vhi, plo, phi sql.NullFloat64
		if err := r.Scan(&b.RunID, &b.Metric, &b.Aggregation, &b.Method, &vlo, &vhi, &plo, &phi, &b.Note); err != nil {
			return err
		}
		b.ValueLo, b.ValueHi, b.PositionLo, b.PositionHi = nullNaN(vlo), nullNaN(vhi), nullNaN(plo), nullNaN(phi)
		out = append(out, b)
		return nil
	})
	return out, err
}

// BootOverall returns every configuration's overall interval and seed summary.
func (s *Store) BootOverall(ctx context.Context) ([]BootOverall, error) {
	var out []BootOverall
	err := s.bootQuery(ctx, "boot_overall", `SELECT source, setting, backend, agent, rexmle_rank, rexmle_rank_lo, rexmle_rank_hi, n_boot, boot_seed,
 n_fixed, n_seeds, seed_mean, seed_se, n_failed_seeds, seed_values, note FROM boot_overall ORDER BY source, setting, backend, agent`, func(r *sql.Rows) error {
		var b BootOverall
		var rk, lo, hi, mean, se sql.NullFloat64
		var sv string
		if err := r.Scan(&b.Source, &b.Setting, &b.Backend, &b.Agent, &rk, &lo, &hi, &b.NBoot, &b.BootSeed, &b.NFixed, &b.NSeeds,
			&mean, &se, &b.NFailed, &sv, &b.Note); err != nil {
			return err
		}
		b.Rank, b.Lo, b.Hi, b.SeedMean, b.SeedSE = nullNaN(rk), nullNaN(lo), nullNaN(hi), nullNaN(mean), nullNaN(se)
		seeds, err := parseSeedValues(sv)
		if err != nil {
			return fmt.Errorf("%s: seed_values: %w", b.Label(), err)
		}
		b.Seeds = seeds
		out = append(out, b)
		return nil
	})
	return out, err
}

// parseSeedValues reads "seed:value;…".
func parseSeedValues(s string) ([]SeedValue, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	var out []SeedValue
	for _, part := range strings.Split(s, ";") {
		k, v, ok := strings.Cut(part, ":")
		if !ok {
			return nil, fmt.Errorf("%q: want seed:value", part)
		}
		seed, err := strconv.Atoi(k)
		if err != nil {
			return nil, fmt.Errorf("%q: seed: %w", part, err)
		}
		x, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return nil, fmt.Errorf("%q: value: %w", part, err)
		}
		out = append(out, SeedValue{Seed: seed, Value: x})
	}
	return out, nil
}

// BootChallenges returns every configuration's per-challenge percentile intervals.
func (s *Store) BootChallenges(ctx context.Context) ([]BootChallenge, error) {
	var out []BootChallenge
	err := s.bootQuery(ctx, "boot_challenges", `SELECT source, setting, backend, agent, challenge_id, percentile, percentile_lo, percentile_hi,
 n_seeds, n_fixed, n_boot, boot_seed, note, n_cases FROM boot_challenges ORDER BY source, setting, backend, agent, challenge_id`, func(r *sql.Rows) error {
		var b BootChallenge
		var p, lo, hi sql.NullFloat64
		if err := r.Scan(&b.Source, &b.Setting, &b.Backend, &b.Agent, &b.Challenge, &p, &lo, &hi, &b.NSeeds, &b.NFixed, &b.NBoot, &b.BootSeed, &b.Note, &b.NCases); err != nil {
			return err
		}
		b.Pct, b.PctLo, b.PctHi = nullNaN(p), nullNaN(lo), nullNaN(hi)
		out = append(out, b)
		return nil
	})
	return out, err
}

// BootPairwise returns the pairwise probabilities, by configuration pair.
func (s *Store) BootPairwise(ctx context.Context) ([]BootPair, error) {
	var out []BootPair
	err := s.bootQuery(ctx, "boot_pairwise", `SELECT config_a, config_b, p_above, n_boot, boot_seed FROM boot_pairwise ORDER BY config_a, config_b`, func(r *sql.Rows) error {
		var b BootPair
		var p sql.NullFloat64
		if err := r.Scan(&b.A, &b.B, &p, &b.NBoot, &b.BootSeed); err != nil {
			return err
		}
		b.PAbove = nullNaN(p)
		out = append(out, b)
		return nil
	})
	return out, err
}

// BootRankCounts returns the overall rank counts across resamples, by configuration and rank.
func (s *Store) BootRankCounts(ctx context.Context) ([]BootRankCount, error) {
	var out []BootRankCount
	err := s.bootQuery(ctx, "boot_rank_counts", `SELECT config, rank, count, n_boot FROM boot_rank_counts ORDER BY config, rank`, func(r *sql.Rows) error {
		var b BootRankCount
		if err := r.Scan(&b.Config, &b.Rank, &b.Count, &b.NBoot); err != nil {
			return err
		}
		out = append(out, b)
		return nil
	})
	return out, err
}

// BootTablesPresent reports whether the database holds the bootstrap
// tables and gpu_summaries (a database opened without migrating, e.g. an
// older file, may lack them).
func (s *Store) BootTablesPresent(ctx context.Context) (boot, gpu bool, err error) {
	has := func(name string) (bool, error) {
		var n int
		if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE type='table' AND name=?`, name).Scan(&n); err != nil {
			return false, fmt.Errorf("look up table %s: %w", name, err)
		}
		return n > 0, nil
	}
	if boot, err = has("boot_rank_counts"); err != nil {
		return false, false, err
	}
	gpu, err = has("gpu_summaries")
	return boot, gpu, err
}
