package store

import (
	"context"
	"database/sql"
	"fmt"
)

// The reads of the results site: every table as typed rows, each in a
// stable order.

// list runs q and scans every row with scan.
func list[T any](ctx context.Context, db *sql.DB, what, q string, scan func(*sql.Rows) (T, error)) ([]T, error) {
	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", what, err)
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		x, err := scan(rows)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", what, err)
		}
		out = append(out, x)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read %s: %w", what, err)
	}
	return out, nil
}

// RankedRun is a run with its ranks row, if any.
type RankedRun struct {
	Run
	Ranked       bool // a ranks row exists
	RankStatus   string
	Reason       string
	PosSum, K, N int
	MeanRank     float64 // NaN when absent
	Percentile   float64 // 0..1
	PctLo, PctHi float64 // NaN unless partial
}

// RankedRuns returns every run with its rank, the paper's runs first, then
// by setting, backend (descending), agent, challenge, seed and id.
func (s *Store) RankedRuns(ctx context.Context) ([]RankedRun, error) {
	return list(ctx, s.db, "runs", `SELECT r.id, r.source, r.setting, r.backend, r.challenge_id, r.agent, r.seed, r.status, r.detail,
		r.submission_dir, r.started_at, r.ended_at, k.status, k.reason, k.pos_sum, k.n_metrics, k.n_leaderboard, k.mean_rank, k.percentile, k.percentile_lo, k.percentile_hi
		FROM runs r LEFT JOIN ranks k ON k.run_id = r.id ORDER BY r.source DESC, r.setting, r.backend DESC, r.agent, r.challenge_id, r.seed, r.id`,
		func(rows *sql.Rows) (RankedRun, error) {
			var r RankedRun
			var kst, reason sql.NullString
			var ps, nm, nl sql.NullInt64
			var mr, pct, lo, hi sql.NullFloat64
			err := rows.Scan(&r.ID, &r.Source, &r.Setting, &r.Backend, &r.Challenge, &r.Agent, &r.Seed, &r.Status, &r.Detail,
				&r.SubmissionDir, &r.StartedAt, &r.EndedAt, &kst, &reason, &ps, &nm, &nl, &mr, &pct, &lo, &hi)
			r.Ranked = kst.Valid
			r.RankStatus, r.Reason = kst.String, reason.String
			r.PosSum, r.K, r.N = int(ps.Int64), int(nm.Int64), int(nl.Int64)
			r.MeanRank, r.Percentile, r.PctLo, r.PctHi = nf(mr), pct.Float64, nf(lo), nf(hi)
			return r, err
		})
}

// MetricValue is one run's unrounded value of one metric (NaN for NULL).
type MetricValue struct {
	RunID, Metric string
	Value         float64
}

// AllMetricValues returns every run's metric values.
func (s *Store) AllMetricValues(ctx context.Context) ([]MetricValue, error) {
	return list(ctx, s.db, "metric values", `SELECT run_id, metric, value FROM metric_values ORDER BY run_id, metric`,
		func(rows *sql.Rows) (MetricValue, error) {
			var m MetricValue
			var v sql.NullFloat64
			err := rows.Scan(&m.RunID, &m.Metric, &v)
			m.Value = nf(v)
			return m, err
		})
}

// Position is a run's position on one metric's leaderboard.
type Position struct {
	RunID, Metric string
	Position      int
}

// AllPositions returns every run's positions.
func (s *Store) AllPositions(ctx context.Context) ([]Position, error) {
	return list(ctx, s.db, "positions", `SELECT run_id, metric, position FROM positions ORDER BY run_id, metric`,
		func(rows *sql.Rows) (Position, error) {
			var p Position
			return p, rows.Scan(&p.RunID, &p.Metric, &p.Position)
		})
}

// Printed is one number the paper printed for a run.
type Printed struct{ RunID, Table, Key, Text string }

// AllPrinted returns every printed number of every run.
func (s *Store) AllPrinted(ctx context.Context) ([]Printed, error) {
	return list(ctx, s.db, "printed", `SELECT run_id, tbl, key, text FROM printed ORDER BY run_id, tbl, key`,
		func(rows *sql.Rows) (Printed, error) {
			var p Printed
			return p, rows.Scan(&p.RunID, &p.Table, &p.Key, &p.Text)
		})
}

// ModeValue is a run's value in its other grading mode.
type ModeValue struct {
	RunID, Mode, Metric string
	Value               float64 // NaN for NULL
}

// AllModeValues returns every other-mode value.
func (s *Store) AllModeValues(ctx context.Context) ([]ModeValue, error) {
	return list(ctx, s.db, "mode values", `SELECT run_id, mode, metric, value FROM mode_values ORDER BY run_id, mode, metric`,
		func(rows *sql.Rows) (ModeValue, error) {
			var m ModeValue
			var v sql.NullFloat64
			err := rows.Scan(&m.RunID, &m.Mode, &m.Metric, &v)
			m.Value = nf(v)
			return m, err
		})
}

// AllPrintedOverall returns the printed overall means, by table, setting,
// backend and agent.
func (s *Store) AllPrintedOverall(ctx context.Context) ([]PrintedOverall, error) {
	return list(ctx, s.db, "printed overall", `SELECT tbl, setting, backend, agent, text FROM printed_overall ORDER BY tbl, setting, backend, agent`,
		func(rows *sql.Rows) (PrintedOverall, error) {
			var o PrintedOverall
			return o, rows.Scan(&o.Table, &o.Setting, &o.Backend, &o.Agent, &o.Text)
		})
}

// CaseValue is one per-case value of a run.
type CaseValue struct {
	RunID, Challenge, Case, Metric string
	Value                          float64
}

// KnownCaseValues returns every non-NULL per-case value, by challenge,
// metric, case and run.
func (s *Store) KnownCaseValues(ctx context.Context) ([]CaseValue, error) {
	return list(ctx, s.db, "case values", `SELECT c.run_id, r.challenge_id, c.case_id, c.metric, c.value FROM case_values c JOIN runs r ON r.id = c.run_id
		WHERE c.value IS NOT NULL ORDER BY r.challenge_id, c.metric, c.case_id, c.run_id`,
		func(rows *sql.Rows) (CaseValue, error) {
			var c CaseValue
			return c, rows.Scan(&c.RunID, &c.Challenge, &c.Case, &c.Metric, &c.Value)
		})
}

// LeaderboardRow is one stored human leaderboard row with its values.
type LeaderboardRow struct {
	Challenge string
	Rank      int
	Team      string
	Mean      float64 // mean position
	Values    map[string]float64
}

// Leaderboards returns every stored leaderboard row, by challenge and rank.
func (s *Store) Leaderboards(ctx context.Context) ([]LeaderboardRow, error) {
	lb, err := list(ctx, s.db, "leaderboard", `SELECT challenge_id, rank, team, mean_position FROM leaderboard ORDER BY challenge_id, rank`,
		func(rows *sql.Rows) (LeaderboardRow, error) {
			h := LeaderboardRow{Values: map[string]float64{}}
			return h, rows.Scan(&h.Challenge, &h.Rank, &h.Team, &h.Mean)
		})
	if err != nil {
		return nil, err
	}
	type key struct {
		ch   string
		rank int
	}
	idx := map[key]*LeaderboardRow{}
	for i := range lb {
		idx[key{lb[i].Challenge, lb[i].Rank}] = &lb[i]
	}
	type value struct {
		key
		metric string
		v      float64
	}
	vals, err := list(ctx, s.db, "leaderboard values", `SELECT challenge_id, rank, metric, value FROM leaderboard_values`,
		func(rows *sql.Rows) (value, error) {
			var v value
			return v, rows.Scan(&v.ch, &v.rank, &v.metric, &v.v)
		})
	if err != nil {
		return nil, err
	}
	for _, v := range vals {
		if h := idx[v.key]; h != nil {
			h.Values[v.metric] = v.v
		}
	}
	return lb, nil
}

// AllCapabilityScores returns every capability score of every judge, by
// agent, backend, judge, strategy, challenge, seed, section and run.
func (s *Store) AllCapabilityScores(ctx context.Context) ([]CapabilityScore, error) {
	return s.capabilityScores(ctx, `ORDER BY agent, backend, judge_name, strategy_id, challenge, seed, section, run_key`)
}

// AllJudgeSections returns every judged section, by judge, rubric, run and
// section.
func (s *Store) AllJudgeSections(ctx context.Context) ([]JudgeSection, error) {
	return list(ctx, s.db, "judge sections", `SELECT run_key, run_id, challenge, agent, backend, seed, section, source, format, judge_name,
		judge_kind, rubric_hash, section_hash, orig_chars, sent_chars, truncated, status, n_missing, error, cache_hit, attempts,
		prompt_tokens, completion_tokens, cost_usd, judged_at
		FROM judge_sections ORDER BY judge_name, rubric_hash, run_key, section`,
		func(rows *sql.Rows) (JudgeSection, error) {
			var x JudgeSection
			err := rows.Scan(&x.RunKey, &x.RunID, &x.Challenge, &x.Agent, &x.Backend, &x.Seed, &x.Section, &x.Source, &x.Format, &x.Judge,
				&x.Kind, &x.RubricHash, &x.SectionHash, &x.OrigChars, &x.SentChars, &x.Truncated, &x.Status, &x.NMissing, &x.Error,
				&x.CacheHit, &x.Attempts, &x.PromptTokens, &x.CompletionTokens, &x.CostUSD, &x.JudgedAt)
			return x, err
		})
}

// PaperCapabilities returns the paper's stated capability scores, by agent
// and strategy.
func (s *Store) PaperCapabilities(ctx context.Context) ([]PaperCapability, error) {
	return list(ctx, s.db, "the paper's capability scores", `SELECT setting, backend, agent, judge, strategy_id, strategy, printed, value FROM paper_capabilities ORDER BY agent, strategy_id`,
		func(rows *sql.Rows) (PaperCapability, error) {
			var c PaperCapability
			return c, rows.Scan(&c.Setting, &c.Backend, &c.Agent, &c.Judge, &c.StrategyID, &c.Strategy, &c.Printed, &c.Value)
		})
}

// Check is one row of the reproduction table: a number the paper printed
// compared with the computation (written by the rank stage).
type Check struct {
	RunID, Table, Challenge, Agent, Setting, Backend string
	What, Computed, Printed, Class, Why              string
}

// Reproduction returns the rank stage's reproduction check, in its order.
func (s *Store) Reproduction(ctx context.Context) ([]Check, error) {
	return list(ctx, s.db, "the reproduction check (run the rank stage)", `SELECT run_id, tbl, challenge_id, agent, setting, backend, what, computed, printed, class, why
		FROM reproduction ORDER BY seq`,
		func(rows *sql.Rows) (Check, error) {
			var c Check
			return c, rows.Scan(&c.RunID, &c.Table, &c.Challenge, &c.Agent, &c.Setting, &c.Backend, &c.What, &c.Computed, &c.Printed, &c.Class, &c.Why)
		})
}
