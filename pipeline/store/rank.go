package store

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"sort"

	"github.com/rexmle/rexmle/pipeline/challenge"
)

// The rank stage's reads and writes: the runs to rank, their per-case
// values, the partial ranks of the paper's primary-metric-only rows, the
// case-level bootstrap (boot_* tables) and the reproduction check.

// Runs lists every run, ordered by id.
func (t *Tx) Runs(ctx context.Context) ([]Run, error) {
	rows, err := t.tx.QueryContext(ctx, `SELECT id, source, setting, backend, challenge_id, agent, seed, status, detail FROM runs ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("list runs: %w", err)
	}
	defer rows.Close()
	var out []Run
	for rows.Next() {
		var r Run
		if err := rows.Scan(&r.ID, &r.Source, &r.Setting, &r.Backend, &r.Challenge, &r.Agent, &r.Seed, &r.Status, &r.Detail); err != nil {
			return nil, fmt.Errorf("list runs: %w", err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list runs: %w", err)
	}
	return out, nil
}

// MetricValues returns a run's unrounded metric values; a NULL value is NaN.
func (t *Tx) MetricValues(ctx context.Context, runID string) (map[string]float64, error) {
	vals, err := metricValues(ctx, t.tx, runID)
	if err != nil {
		return nil, fmt.Errorf("read metric values of %s: %w", runID, err)
	}
	return vals, nil
}

// CaseValues returns a run's per-case values, cases ordered by id; a NULL
// value is NaN.
func (t *Tx) CaseValues(ctx context.Context, runID string) ([]challenge.Case, error) {
	rows, err := t.tx.QueryContext(ctx, `SELECT case_id, metric, value FROM case_values WHERE run_id=? ORDER BY case_id, metric`, runID)
	if err != nil {
		return nil, fmt.Errorf("read per-case values of %s: %w", runID, err)
	}
	defer rows.Close()
	var out []challenge.Case
	for rows.Next() {
		var id, m string
		var v sql.NullFloat64
		if err := rows.Scan(&id, &m, &v); err != nil {
			return nil, fmt.Errorf("read per-case values of %s: %w", runID, err)
		}
		if len(out) == 0 || out[len(out)-1].ID != id {
			out = append(out, challenge.Case{ID: id, Values: map[string]float64{}})
		}
		x := math.NaN()
		if v.Valid {
			x = v.Float64
		}
		out[len(out)-1].Values[m] = x
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read per-case values of %s: %w", runID, err)
	}
	rows.Close()
	return t.attachDetails(ctx, runID, out)
}

// attachDetails adds a run's stored case details to its cases (a case known
// only by its detail is added with no values), keeping the cases ordered by
// id as SQLite orders them (byte-wise).
func (t *Tx) attachDetails(ctx context.Context, runID string, cases []challenge.Case) ([]challenge.Case, error) {
	rows, err := t.tx.QueryContext(ctx, `SELECT case_id, detail FROM case_details WHERE run_id=? ORDER BY case_id`, runID)
	if err != nil {
		return nil, fmt.Errorf("read case details of %s: %w", runID, err)
	}
	defer rows.Close()
	at := make(map[string]int, len(cases))
	for i, c := range cases {
		at[c.ID] = i
	}
	added := false
	for rows.Next() {
		var id string
		var d []byte
		if err := rows.Scan(&id, &d); err != nil {
			return nil, fmt.Errorf("read case details of %s: %w", runID, err)
		}
		if d == nil {
			d = []byte{}
		}
		if i, ok := at[id]; ok {
			cases[i].Detail = d
			continue
		}
		cases = append(cases, challenge.Case{ID: id, Values: map[string]float64{}, Detail: d})
		added = true
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read case details of %s: %w", runID, err)
	}
	if added {
		sort.Slice(cases, func(i, j int) bool { return cases[i].ID < cases[j].ID })
	}
	return cases, nil
}

// MarkRankPartial marks a stored rank as partial, with the percentile
// range its unknown positions allow (call after PutRank).
func (t *Tx) MarkRankPartial(ctx context.Context, runID string, pctLo, pctHi float64) error {
	res, err := t.tx.ExecContext(ctx, `UPDATE ranks SET status=?, percentile_lo=?, percentile_hi=? WHERE run_id=?`, rankPartial, pctLo, pctHi, runID)
	if err != nil {
		return fmt.Errorf("mark rank of %s partial: %w", runID, err)
	}
	if n, err := res.RowsAffected(); err == nil && n == 0 {
		return fmt.Errorf("mark rank of %s partial: the run has no stored rank", runID)
	}
	return nil
}

// ReplaceReproduction replaces the reproduction check with cs, in order.
func (t *Tx) ReplaceReproduction(ctx context.Context, cs []Reproduced) error {
	if _, err := t.tx.ExecContext(ctx, `DELETE FROM reproduction`); err != nil {
		return fmt.Errorf("clear reproduction: %w", err)
	}
	for _, c := range cs {
		if _, err := t.tx.ExecContext(ctx, `INSERT INTO reproduction(run_id, tbl, challenge_id, agent, setting, backend, what, place, computed, printed, class, why)
VALUES (?,?,?,?,?,?,?,?,?,?,?,?)`, c.RunID, c.Table, c.Challenge, c.Agent, c.Setting, c.Backend, c.What, c.Where, c.Computed, c.Printed, c.Class, c.Why); err != nil {
			return fmt.Errorf("store reproduction of %s/%s: %w", c.RunID, c.What, err)
		}
	}
	return nil
}

// Reproduced is one comparison the rank stage writes to the reproduction
// table (Check, as read back, plus where in the table the number stands).
type Reproduced struct {
	Check
	Where string
}

// RunBootRecord is a run's case-level bootstrap (table boot_runs); NaN
// bounds are stored as NULL.
type RunBootRecord struct {
	NBoot, NCases, Undefined int
	BootSeed                 int64
	MeanRankLo, MeanRankHi   float64
	PctLo, PctHi             float64
	Note                     string
}

// MetricBootRecord is one metric of a run's bootstrap (table boot_metrics).
type MetricBootRecord struct {
	Metric, Aggregation    string
	Method                 string // the interval method
	ValueLo, ValueHi       float64
	PositionLo, PositionHi float64
	Note                   string
}

// PutRunBoot replaces a run's bootstrap and its per-metric intervals
// (written in the order given).
func (t *Tx) PutRunBoot(ctx context.Context, runID string, rb RunBootRecord, ms []MetricBootRecord) error {
	if _, err := t.tx.ExecContext(ctx, `DELETE FROM boot_runs WHERE run_id=?`, runID); err != nil {
		return fmt.Errorf("clear bootstrap of %s: %w", runID, err)
	}
	if _, err := t.tx.ExecContext(ctx, `DELETE FROM boot_metrics WHERE run_id=?`, runID); err != nil {
		return fmt.Errorf("clear bootstrap of %s: %w", runID, err)
	}
	if _, err := t.tx.ExecContext(ctx, `INSERT INTO boot_runs(run_id, n_boot, boot_seed, n_cases, mean_rank_lo, mean_rank_hi, percentile_lo, percentile_hi, n_undefined, note)
VALUES (?,?,?,?,?,?,?,?,?,?)`, runID, rb.NBoot, rb.BootSeed, rb.NCases, nullable(rb.MeanRankLo), nullable(rb.MeanRankHi), nullable(rb.PctLo), nullable(rb.PctHi), rb.Undefined, rb.Note); err != nil {
		return fmt.Errorf("store bootstrap of %s: %w", runID, err)
	}
	for _, m := range ms {
		if _, err := t.tx.ExecContext(ctx, `INSERT INTO boot_metrics(run_id, metric, aggregation, method, value_lo, value_hi, position_lo, position_hi, note) VALUES (?,?,?,?,?,?,?,?,?)`,
			runID, m.Metric, m.Aggregation, m.Method, nullable(m.ValueLo), nullable(m.ValueHi), nullable(m.PositionLo), nullable(m.PositionHi), m.Note); err != nil {
			return fmt.Errorf("store bootstrap of %s/%s: %w", runID, m.Metric, err)
		}
	}
	return nil
}

// OverallBootRecord is one configuration's overall bootstrap (table
// boot_overall) with its per-challenge rows (table boot_challenges).
type OverallBootRecord struct {
	Source, Setting, Backend, Agent string
	Rank, RankLo, RankHi            float64
	NBoot, NFixed                   int
	BootSeed                        int64
	NSeeds, NFailedSeeds            int
	SeedMean, SeedSE                float64
	SeedValues, Note                string
	Challenges                      []ChallengeBootRecord
}

// ChallengeBootRecord is one challenge of a configuration's bootstrap.
type ChallengeBootRecord struct {
	Challenge                string
	Percentile, PctLo, PctHi float64
	NSeeds, NFixed           int
	NCases                   int // the fewest cases of its bootstrapped runs
	Note                     string
}

// PairwiseRecord is the probability that configuration A ranks above B
// (table boot_pairwise).
type PairwiseRecord struct {
	A, B   string
	PAbove float64
}

// RankCountRecord is how many resamples put a configuration at a rank
// (table boot_rank_counts).
type RankCountRecord struct {
	Config      string
	Rank, Count int
}

// StabilityRecord is what ReplaceStability writes: every configuration's
// overall bootstrap and the comparisons between configurations.
type StabilityRecord struct {
	Overall  []OverallBootRecord
	Pairs    []PairwiseRecord
	Counts   []RankCountRecord
	NBoot    int
	BootSeed int64
	// Tests: per challenge, the Wilcoxon–Holm tests (a row without
	// configurations says why a challenge has none).
	Tests []SignificanceRecord
	// Tasks: per challenge, Kendall's τ between the point ranking and the
	// resampled rankings.
	Tasks []TaskStabilityRecord
	// Universes: the case universes of the resampling design.
	Universes []UniverseRecord
}

// SignificanceRecord is one boot_significance row.
type SignificanceRecord struct {
	Challenge, Metric, A, B string
	N, NZero                int
	Statistic, P, PHolm     float64
	Significant             bool
	Method, Note            string
}

// TaskStabilityRecord is one boot_task_stability row.
type TaskStabilityRecord struct {
	Challenge                        string
	NConfigs, NUndefined             int
	TauMean, TauMedian, TauLo, TauHi float64
	Note                             string
}

// UniverseRecord is one boot_universes row.
type UniverseRecord struct {
	Key, Challenges string
	NCases          int
}

// ReplaceStability replaces the boot_overall, boot_challenges,
// boot_pairwise and boot_rank_counts tables (rows written in the order
// given).
func (t *Tx) ReplaceStability(ctx context.Context, s StabilityRecord) error {
	for _, tbl := range []string{"boot_overall", "boot_challenges", "boot_pairwise", "boot_rank_counts", "boot_significance", "boot_task_stability", "boot_universes"} {
		if _, err := t.tx.ExecContext(ctx, `DELETE FROM `+tbl); err != nil {
			return fmt.Errorf("clear %s: %w", tbl, err)
		}
	}
	for _, g := range s.Overall {
		label := g.Source + "/" + g.Setting + "/" + g.Backend + "/" + g.Agent
		if _, err := t.tx.ExecContext(ctx, `INSERT INTO boot_overall(source, setting, backend, agent, rexmle_rank, rexmle_rank_lo, rexmle_rank_hi, n_boot, boot_seed, n_fixed,
 n_seeds, seed_mean, seed_se, n_failed_seeds, seed_values, note) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`,
			g.Source, g.Setting, g.Backend, g.Agent, nullable(g.Rank), nullable(g.RankLo), nullable(g.RankHi), g.NBoot, g.BootSeed, g.NFixed,
			g.NSeeds, nullable(g.SeedMean), nullable(g.SeedSE), g.NFailedSeeds, g.SeedValues, g.Note); err != nil {
			return fmt.Errorf("store overall bootstrap of %s: %w", label, err)
		}
		for _, c := range g.Challenges {
			if _, err := t.tx.ExecContext(ctx, `INSERT INTO boot_challenges(source, setting, backend, agent, challenge_id, percentile, percentile_lo, percentile_hi,
 n_seeds, n_fixed, n_boot, boot_seed, note, n_cases) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)`, g.Source, g.Setting, g.Backend, g.Agent, c.Challenge, nullable(c.Percentile),
				nullable(c.PctLo), nullable(c.PctHi), c.NSeeds, c.NFixed, g.NBoot, g.BootSeed, c.Note, c.NCases); err != nil {
				return fmt.Errorf("store challenge bootstrap of %s/%s: %w", label, c.Challenge, err)
			}
		}
	}
	for _, p := range s.Pairs {
		if _, err := t.tx.ExecContext(ctx, `INSERT INTO boot_pairwise(config_a, config_b, p_above, n_boot, boot_seed) VALUES (?,?,?,?,?)`,
			p.A, p.B, nullable(p.PAbove), s.NBoot, s.BootSeed); err != nil {
			return fmt.Errorf("store pairwise %s/%s: %w", p.A, p.B, err)
		}
	}
	for _, c := range s.Counts {
		if _, err := t.tx.ExecContext(ctx, `INSERT INTO boot_rank_counts(config, rank, count, n_boot) VALUES (?,?,?,?)`, c.Config, c.Rank, c.Count, s.NBoot); err != nil {
			return fmt.Errorf("store rank counts of %s: %w", c.Config, err)
		}
	}
	for _, x := range s.Tests {
		sig := 0
		if x.Significant {
			sig = 1
		}
		if _, err := t.tx.ExecContext(ctx, `INSERT INTO boot_significance(challenge_id, metric, config_a, config_b, n_pairs, n_zero, statistic, p_value, p_holm, significant, method, note)
VALUES (?,?,?,?,?,?,?,?,?,?,?,?)`, x.Challenge, x.Metric, x.A, x.B, x.N, x.NZero, nullable(x.Statistic), nullable(x.P), nullable(x.PHolm), sig, x.Method, x.Note); err != nil {
			return fmt.Errorf("store significance %s %s/%s: %w", x.Challenge, x.A, x.B, err)
		}
	}
	for _, x := range s.Tasks {
		if _, err := t.tx.ExecContext(ctx, `INSERT INTO boot_task_stability(challenge_id, n_configs, tau_mean, tau_median, tau_lo, tau_hi, n_undefined, n_boot, note)
VALUES (?,?,?,?,?,?,?,?,?)`, x.Challenge, x.NConfigs, nullable(x.TauMean), nullable(x.TauMedian), nullable(x.TauLo), nullable(x.TauHi), x.NUndefined, s.NBoot, x.Note); err != nil {
			return fmt.Errorf("store rank stability of %s: %w", x.Challenge, err)
		}
	}
	for _, u := range s.Universes {
		if _, err := t.tx.ExecContext(ctx, `INSERT INTO boot_universes(universe, challenges, n_cases) VALUES (?,?,?)`, u.Key, u.Challenges, u.NCases); err != nil {
			return fmt.Errorf("store case universe %s: %w", u.Key, err)
		}
	}
	return nil
}
