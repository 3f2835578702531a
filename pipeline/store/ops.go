package store

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"time"

	"github.com/rexmle/rexmle/metrics/num"
	"github.com/rexmle/rexmle/pipeline/config"
	"github.com/rexmle/rexmle/pipeline/rank"
)

// syncChallenges writes the challenges, their ranked metrics and
// leaderboards, replacing what was there for them (runs are kept).
func syncChallenges(ctx context.Context, tx *sql.Tx, cs []*config.Challenge) error {
	for i, c := range cs {
		_, err := tx.ExecContext(ctx, `INSERT INTO challenges(id, ord, name, short_name, category, modality, task_type, primary_metric, n_leaderboard)
VALUES (?,?,?,?,?,?,?,?,?)
ON CONFLICT(id) DO UPDATE SET ord=excluded.ord, name=excluded.name, short_name=excluded.short_name, category=excluded.category,
 modality=excluded.modality, task_type=excluded.task_type, primary_metric=excluded.primary_metric, n_leaderboard=excluded.n_leaderboard`,
			c.ID, i, c.Name, c.ShortName, c.Category, c.Modality, c.TaskType, c.PrimaryMetric, len(c.Leaderboard))
		if err != nil {
			return fmt.Errorf("store challenge %s: %w", c.ID, err)
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM metrics WHERE challenge_id=? AND ranked=1`, c.ID); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM leaderboard WHERE challenge_id=?`, c.ID); err != nil {
			return err
		}
		for j, m := range c.Metrics {
			if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO metrics(challenge_id, name, label, direction, ranked, ord) VALUES (?,?,?,?,1,?)`,
				c.ID, m.Name, m.Label, m.Direction, j); err != nil {
				return fmt.Errorf("store metric %s/%s: %w", c.ID, m.Name, err)
			}
		}
		for _, e := range c.Leaderboard {
			if _, err := tx.ExecContext(ctx, `INSERT INTO leaderboard(challenge_id, rank, team, mean_position) VALUES (?,?,?,?)`,
				c.ID, e.Rank, e.Team, e.MeanPosition); err != nil {
				return fmt.Errorf("store leaderboard %s row %d: %w", c.ID, e.Rank, err)
			}
			for _, m := range c.Metrics {
				if _, err := tx.ExecContext(ctx, `INSERT INTO leaderboard_values(challenge_id, rank, metric, value) VALUES (?,?,?,?)`,
					c.ID, e.Rank, m.Name, e.Values[m.Name]); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// Run is one row of the runs table.
type Run struct {
	ID            string
	Source        string
	Setting       string
	Backend       string
	Challenge     string
	Agent         string
	Seed          int
	Status        RunStatus
	Detail        string
	SubmissionDir string
	StartedAt     string
	EndedAt       string
}

// putRun inserts or replaces a run row (dependent rows are kept).
func putRun(ctx context.Context, tx *sql.Tx, r Run) error {
	if r.Seed == 0 {
		r.Seed = 1
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO runs(id, source, setting, backend, challenge_id, agent, seed, status, detail, submission_dir, started_at, ended_at)
VALUES (?,?,?,?,?,?,?,?,?,?,?,?)
ON CONFLICT(id) DO UPDATE SET source=excluded.source, setting=excluded.setting, backend=excluded.backend, challenge_id=excluded.challenge_id,
 agent=excluded.agent, seed=excluded.seed, status=excluded.status, detail=excluded.detail, submission_dir=excluded.submission_dir,
 started_at=excluded.started_at, ended_at=excluded.ended_at`,
		r.ID, r.Source, r.Setting, r.Backend, r.Challenge, r.Agent, r.Seed, r.Status, r.Detail, r.SubmissionDir, r.StartedAt, r.EndedAt)
	if err != nil {
		return fmt.Errorf("store run %s: %w", r.ID, err)
	}
	return nil
}

// deleteSource removes every run of a source (and, by cascade, its values,
// grades and ranks): how a stage replaces its own rows.
func deleteSource(ctx context.Context, tx *sql.Tx, source string) error {
	_, err := tx.ExecContext(ctx, `DELETE FROM runs WHERE source=?`, source)
	return err
}

// nullable stores NaN as NULL (SQLite turns NaN into NULL anyway); ±Inf is
// a valid REAL and is kept.
func nullable(v float64) any {
	if math.IsNaN(v) {
		return nil
	}
	return v
}

// putMetricValues replaces a run's metric values; the rounded column holds
// the value rounded to 5 decimals.
func putMetricValues(ctx context.Context, tx *sql.Tx, runID string, values map[string]float64) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM metric_values WHERE run_id=?`, runID); err != nil {
		return err
	}
	for k, v := range values {
		if _, err := tx.ExecContext(ctx, `INSERT INTO metric_values(run_id, metric, value, rounded) VALUES (?,?,?,?)`,
			runID, k, nullable(v), nullable(num.Round5(v))); err != nil {
			return fmt.Errorf("store value %s/%s: %w", runID, k, err)
		}
	}
	return nil
}

// metricValues returns a run's unrounded values; a NULL (NaN) value is NaN.
func metricValues(ctx context.Context, q interface {
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
}, runID string) (map[string]float64, error) {
	rows, err := q.QueryContext(ctx, `SELECT metric, value FROM metric_values WHERE run_id=?`, runID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]float64{}
	for rows.Next() {
		var k string
		var v sql.NullFloat64
		if err := rows.Scan(&k, &v); err != nil {
			return nil, err
		}
		if v.Valid {
			out[k] = v.Float64
		} else {
			out[k] = math.NaN()
		}
	}
	return out, rows.Err()
}

// putRank replaces a run's positions and rank.
func putRank(ctx context.Context, tx *sql.Tx, runID string, r rank.Result) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM positions WHERE run_id=?`, runID); err != nil {
		return err
	}
	for m, p := range r.Positions {
		if _, err := tx.ExecContext(ctx, `INSERT INTO positions(run_id, metric, position) VALUES (?,?,?)`, runID, m, p); err != nil {
			return err
		}
	}
	b := func(x bool) int {
		if x {
			return 1
		}
		return 0
	}
	_, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO ranks(run_id, status, reason, pos_sum, n_metrics, n_leaderboard, mean_rank, percentile, gold, silver, bronze, above_median)
VALUES (?,?,?,?,?,?,?,?,?,?,?,?)`, runID, r.Status, r.Reason, r.PosSum, r.K, r.N, nullable(r.MeanRank), r.Percentile,
		b(r.Medal.Gold), b(r.Medal.Silver), b(r.Medal.Bronze), b(r.Medal.AboveMedian))
	return err
}

// putPrinted records what the paper printed for a run.
func putPrinted(ctx context.Context, tx *sql.Tx, runID, table, key, text string) error {
	_, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO printed(run_id, tbl, key, text) VALUES (?,?,?,?)`, runID, table, key, text)
	return err
}

// Now is the timestamp format stored in the database.
func Now() string { return time.Now().UTC().Format(time.RFC3339Nano) }
