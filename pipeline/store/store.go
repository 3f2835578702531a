// Package store keeps the pipeline's state in one SQLite file: challenges,
// metrics and leaderboards, runs, metric values, positions and ranks, grades
// and per-case values, run events, GPU samples and summaries, the judge's
// cache, sections and capability scores, and the paper's capability scores.
// The schema is versioned
// and migrated in code; every stage writes in one transaction, so an
// interrupted stage leaves the database as it was.
package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	_ "github.com/mattn/go-sqlite3" // the SQLite driver
)

// Store is an open database. Every SQL statement of the pipeline lives in
// this package, behind typed methods (one file per area).
type Store struct {
	db   *sql.DB
	Path string
}

// migrations[i] brings the schema from version i to i+1.
var migrations = []string{
	`
CREATE TABLE challenges (
  id TEXT PRIMARY KEY,
  ord INTEGER NOT NULL,
  name TEXT NOT NULL,
  short_name TEXT NOT NULL,
  category TEXT NOT NULL,
  modality TEXT NOT NULL,
  task_type TEXT NOT NULL,
  primary_metric TEXT NOT NULL,
  n_leaderboard INTEGER NOT NULL
);
CREATE TABLE metrics (
  challenge_id TEXT NOT NULL REFERENCES challenges(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  label TEXT NOT NULL,
  direction TEXT NOT NULL CHECK (direction IN ('higher_better','lower_better')),
  ranked INTEGER NOT NULL,
  ord INTEGER NOT NULL,
  PRIMARY KEY (challenge_id, name)
);
CREATE TABLE leaderboard (
  challenge_id TEXT NOT NULL REFERENCES challenges(id) ON DELETE CASCADE,
  rank INTEGER NOT NULL,
  team TEXT NOT NULL,
  mean_position REAL NOT NULL,
  PRIMARY KEY (challenge_id, rank)
);
CREATE TABLE leaderboard_values (
  challenge_id TEXT NOT NULL,
  rank INTEGER NOT NULL,
  metric TEXT NOT NULL,
  value REAL NOT NULL,
  PRIMARY KEY (challenge_id, rank, metric),
  FOREIGN KEY (challenge_id, rank) REFERENCES leaderboard(challenge_id, rank) ON DELETE CASCADE
);
CREATE TABLE runs (
  id TEXT PRIMARY KEY,
  source TEXT NOT NULL,          -- 'paper-printed' for the paper's recorded results, otherwise the run group (profile)
  setting TEXT NOT NULL,         -- '24h', '72h', 'demo', ...
  backend TEXT NOT NULL,         -- the LLM behind the agent
  challenge_id TEXT NOT NULL REFERENCES challenges(id) ON DELETE CASCADE,
  agent TEXT NOT NULL,
  seed INTEGER NOT NULL DEFAULT 1,
  status TEXT NOT NULL,          -- pending, running, done, failed, timed_out, interrupted, recorded
  detail TEXT NOT NULL DEFAULT '',
  submission_dir TEXT NOT NULL DEFAULT '',
  started_at TEXT NOT NULL DEFAULT '',
  ended_at TEXT NOT NULL DEFAULT '',
  UNIQUE (source, setting, backend, challenge_id, agent, seed)
);
CREATE TABLE metric_values (
  run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  metric TEXT NOT NULL,
  value REAL,                    -- unrounded (NULL for NaN)
  rounded REAL,                  -- to 5 decimals, as the reference reports
  PRIMARY KEY (run_id, metric)
);
CREATE TABLE grades (
  run_id TEXT PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
  mode TEXT NOT NULL,
  valid INTEGER NOT NULL,
  error TEXT NOT NULL DEFAULT '',
  submission_hash TEXT NOT NULL DEFAULT '',
  grader_ms REAL NOT NULL DEFAULT 0,
  graded_at TEXT NOT NULL,
  notes TEXT NOT NULL DEFAULT ''
);
CREATE TABLE case_values (
  run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  case_id TEXT NOT NULL,
  metric TEXT NOT NULL,
  value REAL,
  PRIMARY KEY (run_id, case_id, metric)
);
CREATE TABLE mode_values (       -- the other grading mode's values, where it differs
  run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  mode TEXT NOT NULL,
  metric TEXT NOT NULL,
  value REAL,
  PRIMARY KEY (run_id, mode, metric)
);
CREATE TABLE positions (
  run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  metric TEXT NOT NULL,
  position INTEGER NOT NULL,
  PRIMARY KEY (run_id, metric)
);
CREATE TABLE ranks (
  run_id TEXT PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
  status TEXT NOT NULL CHECK (status IN ('ok','fail','partial')),
  reason TEXT NOT NULL DEFAULT '',
  pos_sum INTEGER NOT NULL,
  n_metrics INTEGER NOT NULL,
  n_leaderboard INTEGER NOT NULL,
  mean_rank REAL,
  percentile REAL NOT NULL,
  percentile_lo REAL,            -- partial runs: the range the unknown positions allow
  percentile_hi REAL,
  gold INTEGER NOT NULL DEFAULT 0,
  silver INTEGER NOT NULL DEFAULT 0,
  bronze INTEGER NOT NULL DEFAULT 0,
  above_median INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE printed (           -- what the paper printed, for the reproduction check
  run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  tbl TEXT NOT NULL,             -- 'S1'..'S20', '3', '4', '5'
  key TEXT NOT NULL,             -- metric name, 'position:<metric>', 'mean_rank', 'percentile', 'primary'
  text TEXT NOT NULL,
  PRIMARY KEY (run_id, tbl, key)
);
CREATE TABLE printed_overall (
  tbl TEXT NOT NULL,
  setting TEXT NOT NULL,
  backend TEXT NOT NULL,
  agent TEXT NOT NULL,
  text TEXT NOT NULL,
  PRIMARY KEY (tbl, setting, backend, agent)
);
CREATE TABLE run_events (
  run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  at TEXT NOT NULL,
  kind TEXT NOT NULL,
  detail TEXT NOT NULL DEFAULT ''
);
CREATE INDEX run_events_run ON run_events(run_id);
CREATE TABLE gpu_samples (
  run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  at TEXT NOT NULL,
  gpu INTEGER NOT NULL,
  sm_util REAL,
  mem_used_bytes INTEGER,
  mem_total_bytes INTEGER,
  power_w REAL,
  energy_mj INTEGER,
  temp_c REAL,
  proc_mem_bytes INTEGER
);
CREATE INDEX gpu_samples_run ON gpu_samples(run_id);
`,
	`
CREATE TABLE gpu_summaries (     -- one per run that held GPUs (or tried to): see pipeline/gpu.Summary
  run_id TEXT PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
  telemetry TEXT NOT NULL,       -- 'nvml' or 'unavailable: <why>'
  gpus INTEGER NOT NULL,
  samples INTEGER NOT NULL,
  wall_seconds REAL NOT NULL,
  working_seconds REAL,          -- as the agent reported it; NULL when it did not
  gpu_hours REAL NOT NULL,
  energy_kwh REAL,
  sm_util_median REAL,
  sm_util_p95 REAL,
  peak_mem_fraction REAL,
  peak_proc_mem_fraction REAL
);
`,
	`
CREATE TABLE reproduction (      -- every number the paper printed, compared with the computation (rank stage)
  seq INTEGER PRIMARY KEY,
  run_id TEXT NOT NULL DEFAULT '', -- the recorded run; '' for overall means
  tbl TEXT NOT NULL,               -- 'S1'..'S20', '3', '4', '5'
  challenge_id TEXT NOT NULL DEFAULT '',
  agent TEXT NOT NULL,
  setting TEXT NOT NULL,
  backend TEXT NOT NULL,
  what TEXT NOT NULL,              -- position:<metric>, mean_rank, percentile, primary_value, overall
  place TEXT NOT NULL,             -- human-readable place
  computed TEXT NOT NULL,
  printed TEXT NOT NULL,
  class TEXT NOT NULL CHECK (class IN ('match','rounding','inconsistency','undetermined')),
  why TEXT NOT NULL DEFAULT ''
);
`,
	`
ALTER TABLE gpu_samples ADD COLUMN elapsed_s REAL; -- seconds since the run started: the charts' x-axis
ALTER TABLE gpu_samples ADD COLUMN device TEXT;    -- GPU or MIG instance UUID
`,
	`
-- A grade is reused only while the submission, the private answers and the
-- grader are all unchanged (grade stage).
ALTER TABLE grades ADD COLUMN answers_hash TEXT NOT NULL DEFAULT '';
ALTER TABLE grades ADD COLUMN grader_version TEXT NOT NULL DEFAULT '';
`,
	`
CREATE TABLE boot_runs (         -- case-level bootstrap of one run (rank stage; see pipeline/rankstage/bootstrap.go)
  run_id TEXT PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
  n_boot INTEGER NOT NULL,       -- resamples B; 0 when not bootstrapped (note says why)
  boot_seed INTEGER NOT NULL,    -- with the run id, fixes every resample
  n_cases INTEGER NOT NULL,
  mean_rank_lo REAL, mean_rank_hi REAL,   -- 95 % percentile intervals; NULL when unavailable
  percentile_lo REAL, percentile_hi REAL,
  n_undefined INTEGER NOT NULL DEFAULT 0, -- resamples where a ranked metric was NaN (percentile 0 there)
  note TEXT NOT NULL DEFAULT ''
);
CREATE TABLE boot_metrics (      -- per ranked metric of a bootstrapped run
  run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  metric TEXT NOT NULL,
  aggregation TEXT NOT NULL DEFAULT '',   -- mean, nanmean, challenge; '' when unavailable
  value_lo REAL, value_hi REAL,
  position_lo REAL, position_hi REAL,
  note TEXT NOT NULL DEFAULT '',
  PRIMARY KEY (run_id, metric)
);
CREATE TABLE boot_overall (      -- per agent configuration: ReX-MLE rank interval and seeds
  source TEXT NOT NULL, setting TEXT NOT NULL, backend TEXT NOT NULL, agent TEXT NOT NULL,
  rexmle_rank REAL,
  rexmle_rank_lo REAL, rexmle_rank_hi REAL,
  n_boot INTEGER NOT NULL,
  boot_seed INTEGER NOT NULL,
  n_fixed INTEGER NOT NULL,      -- successful runs without an interval, held fixed
  n_seeds INTEGER NOT NULL,
  seed_mean REAL, seed_se REAL,
  n_failed_seeds INTEGER NOT NULL, -- runs (challenge × seed) failed or missing, counted 0
  seed_values TEXT NOT NULL DEFAULT '', -- "seed:rank;…"
  note TEXT NOT NULL DEFAULT '',
  PRIMARY KEY (source, setting, backend, agent)
);
CREATE TABLE boot_challenges (   -- per configuration and challenge: the percentile averaged over seeds, its interval
  source TEXT NOT NULL, setting TEXT NOT NULL, backend TEXT NOT NULL, agent TEXT NOT NULL,
  challenge_id TEXT NOT NULL,
  percentile REAL,
  percentile_lo REAL, percentile_hi REAL,
  n_seeds INTEGER NOT NULL,
  n_fixed INTEGER NOT NULL,
  n_boot INTEGER NOT NULL,
  boot_seed INTEGER NOT NULL,
  note TEXT NOT NULL DEFAULT '',
  PRIMARY KEY (source, setting, backend, agent, challenge_id)
);
CREATE TABLE boot_pairwise (     -- bootstrap probability that configuration a ranks above b (ties ½)
  config_a TEXT NOT NULL,        -- source/setting/backend/agent
  config_b TEXT NOT NULL,
  p_above REAL,
  n_boot INTEGER NOT NULL,
  boot_seed INTEGER NOT NULL,
  PRIMARY KEY (config_a, config_b)
);
CREATE TABLE boot_rank_counts (  -- overall rank of each configuration across resamples (podium / blob plot)
  config TEXT NOT NULL,
  rank INTEGER NOT NULL,
  count INTEGER NOT NULL,
  n_boot INTEGER NOT NULL,
  PRIMARY KEY (config, rank)
);
`,
	// The judge's tables (see judge.go). IF NOT EXISTS: stores made before
	// this migration already hold them, created by the judge itself.
	`
-- judge_calls: the cache, one row per (judge, rubric hash, section hash)
-- with a complete answer. Re-running finds it and makes no call.
CREATE TABLE IF NOT EXISTS judge_calls (
  judge_name        TEXT NOT NULL,
  judge_kind        TEXT NOT NULL,
  rubric_hash       TEXT NOT NULL,
  section_hash      TEXT NOT NULL,
  scores_json       TEXT NOT NULL,
  raw_response      TEXT NOT NULL DEFAULT '',
  attempts          INTEGER NOT NULL DEFAULT 0,
  prompt_tokens     INTEGER NOT NULL DEFAULT 0,
  completion_tokens INTEGER NOT NULL DEFAULT 0,
  total_tokens      INTEGER NOT NULL DEFAULT 0,
  cost_usd          REAL NOT NULL DEFAULT 0,
  created_at        TEXT NOT NULL,
  PRIMARY KEY (judge_name, rubric_hash, section_hash)
);
-- judge_sections: one row per judged section of a run (latest judging), with
-- its status, coverage, whether it came from the cache, and the requests,
-- tokens and cost this judging spent (0 for a cache hit).
CREATE TABLE IF NOT EXISTS judge_sections (
  run_key       TEXT NOT NULL,
  run_id        TEXT NOT NULL,
  challenge     TEXT NOT NULL,
  agent         TEXT NOT NULL,
  backend       TEXT NOT NULL,
  seed          INTEGER NOT NULL,
  section       TEXT NOT NULL,
  source        TEXT NOT NULL,
  format        TEXT NOT NULL,
  judge_name    TEXT NOT NULL,
  judge_kind    TEXT NOT NULL,
  rubric_hash   TEXT NOT NULL,
  section_hash  TEXT NOT NULL,
  orig_chars    INTEGER NOT NULL,
  sent_chars    INTEGER NOT NULL,
  truncated     INTEGER NOT NULL,
  status        TEXT NOT NULL,
  n_missing     INTEGER NOT NULL,
  error         TEXT NOT NULL DEFAULT '',
  cache_hit     INTEGER NOT NULL,
  attempts      INTEGER NOT NULL,
  prompt_tokens     INTEGER NOT NULL DEFAULT 0,
  completion_tokens INTEGER NOT NULL DEFAULT 0,
  cost_usd          REAL NOT NULL DEFAULT 0,
  judged_at     TEXT NOT NULL,
  PRIMARY KEY (run_key, section, judge_name, rubric_hash)
);
-- capability_scores: one row per run x section x strategy; score is NULL
-- when the judge left the strategy undecided (missing coverage), never 0.
CREATE TABLE IF NOT EXISTS capability_scores (
  run_key      TEXT NOT NULL,
  run_id       TEXT NOT NULL,
  challenge    TEXT NOT NULL,
  agent        TEXT NOT NULL,
  backend      TEXT NOT NULL,
  seed         INTEGER NOT NULL,
  section      TEXT NOT NULL,
  judge_name   TEXT NOT NULL,
  judge_kind   TEXT NOT NULL,
  rubric_hash  TEXT NOT NULL,
  strategy_id  INTEGER NOT NULL,
  strategy     TEXT NOT NULL,
  score        INTEGER CHECK (score IS NULL OR score IN (0, 1)),
  evidence     TEXT NOT NULL DEFAULT '',
  PRIMARY KEY (run_key, section, judge_name, rubric_hash, strategy_id)
);
CREATE INDEX IF NOT EXISTS capability_scores_judge ON capability_scores (judge_name, rubric_hash);
`,
	// The paper's stated capability scores (Figure 3), imported with the
	// paper's results by the rank stage; IF NOT EXISTS as for the judge's.
	`
CREATE TABLE IF NOT EXISTS paper_capabilities (
  setting TEXT NOT NULL, backend TEXT NOT NULL, agent TEXT NOT NULL, judge TEXT NOT NULL,
  strategy_id INTEGER NOT NULL, strategy TEXT NOT NULL, printed TEXT NOT NULL, value REAL NOT NULL,
  PRIMARY KEY (setting, backend, agent, strategy_id)
);
`,
	`
-- The judge's capability profiles (judge.Aggregate), one row per run group
-- (profile) x judge x rubric x agent and backend x strategy: computed once
-- by the judge stage over that group's judged runs, read by the site.
CREATE TABLE capability_profiles (
  source      TEXT NOT NULL,    -- the run group (profile) whose runs were judged
  judge_name  TEXT NOT NULL,
  judge_kind  TEXT NOT NULL,
  rubric_hash TEXT NOT NULL,
  agent       TEXT NOT NULL,
  backend     TEXT NOT NULL,
  strategy_id INTEGER NOT NULL,
  strategy    TEXT NOT NULL,
  mean        REAL,             -- sections scored 1 / decided sections; NULL when none decided
  n_sections  INTEGER NOT NULL, -- decided sections
  n_missing   INTEGER NOT NULL, -- undecided sections
  n_runs      INTEGER NOT NULL, -- judged runs pooled
  n_failed    INTEGER NOT NULL, -- runs left out (failed, interrupted, unfinished)
  evidence    TEXT NOT NULL DEFAULT '[]', -- JSON array of evidence texts
  PRIMARY KEY (source, judge_name, rubric_hash, agent, backend, strategy_id)
);
`,
	// The rank stage's standings: the one computation of each agent
	// configuration's ReX-MLE rank (and its reachable range where some
	// challenges are known by their primary metric only), read by the site.
	`
CREATE TABLE standings (
  source TEXT NOT NULL, setting TEXT NOT NULL, backend TEXT NOT NULL, agent TEXT NOT NULL,
  n_challenges INTEGER NOT NULL,
  n_partial INTEGER NOT NULL,      -- challenges known by their primary metric only
  overall REAL,                    -- NULL when some challenge is partial
  overall_lo REAL NOT NULL, overall_hi REAL NOT NULL,
  PRIMARY KEY (source, setting, backend, agent)
);
CREATE TABLE standing_challenges (
  source TEXT NOT NULL, setting TEXT NOT NULL, backend TEXT NOT NULL, agent TEXT NOT NULL,
  challenge_id TEXT NOT NULL,
  percentile REAL,                 -- mean over seeds (fail = 0); NULL when partial
  lo REAL NOT NULL, hi REAL NOT NULL,  -- the reachable range (lo = hi = percentile when known)
  partial INTEGER NOT NULL,
  PRIMARY KEY (source, setting, backend, agent, challenge_id)
);
`,
	// Grader-defined details of a graded case (challenge.Case.Detail): what
	// the case-level bootstrap needs to recompute a pooled metric.
	`
CREATE TABLE case_details (
  run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  case_id TEXT NOT NULL,
  detail BLOB NOT NULL,
  PRIMARY KEY (run_id, case_id)
);
`,
	// Issue 33: the interval method per metric, the case count of a
	// challenge interval, the significance tests, the per-challenge rank
	// stability and the case universes of the resampling design.
	`
ALTER TABLE boot_metrics ADD COLUMN method TEXT NOT NULL DEFAULT '';
ALTER TABLE boot_challenges ADD COLUMN n_cases INTEGER NOT NULL DEFAULT 0;
CREATE TABLE boot_significance (  -- one-sided Wilcoxon signed-rank test, A better than B, Holm-adjusted per challenge
  challenge_id TEXT NOT NULL,
  metric TEXT NOT NULL,
  config_a TEXT NOT NULL,         -- '' (with config_b '') when the challenge has no test: note says why
  config_b TEXT NOT NULL,
  n_pairs INTEGER NOT NULL,
  n_zero INTEGER NOT NULL,
  statistic REAL,
  p_value REAL,
  p_holm REAL,
  significant INTEGER NOT NULL,
  method TEXT NOT NULL,
  note TEXT NOT NULL DEFAULT '',
  PRIMARY KEY (challenge_id, config_a, config_b)
);
CREATE TABLE boot_task_stability ( -- Kendall's tau between the point ranking and the resampled rankings of a challenge
  challenge_id TEXT PRIMARY KEY,
  n_configs INTEGER NOT NULL,
  tau_mean REAL, tau_median REAL, tau_lo REAL, tau_hi REAL,
  n_undefined INTEGER NOT NULL,
  n_boot INTEGER NOT NULL,
  note TEXT NOT NULL DEFAULT ''
);
CREATE TABLE boot_universes (     -- case universes: challenges resampled with one draw of their shared cases
  universe TEXT PRIMARY KEY,
  challenges TEXT NOT NULL,
  n_cases INTEGER NOT NULL
);
`,
	// The paper's recorded runs move from source 'paper' (the name of a
	// profile, whose new runs the rank stage's import then deleted) to
	// 'paper-printed' (config.PrintedSource); the rank stage imports them
	// again under the new source.
	`
DELETE FROM runs WHERE source = 'paper' AND status = 'recorded';
`,
}

// Open opens (creating if needed) the database at path, with WAL, foreign
// keys and a busy timeout, and migrates the schema to the current version.
func Open(ctx context.Context, path string) (*Store, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("open store: %w", err)
	}
	if err := checkWritable(path); err != nil {
		return nil, err
	}
	dsn := "file:" + path + "?_journal_mode=WAL&_foreign_keys=on&_busy_timeout=10000&_synchronous=NORMAL"
	db, err := sql.Open("sqlite3", dsn)
	if err != nil {
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	db.SetMaxOpenConns(1) // one writer; SQLite serialises anyway
	s := &Store{db: db, Path: path}
	if err := s.migrate(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	return s, nil
}

// checkWritable says plainly when the store cannot be written: SQLite itself
// reports a read-only folder as "unable to open database file: no such file
// or directory". The folder must take new files (SQLite's journal and WAL
// files live beside the database) and the database file, if there, must open
// for writing.
func checkWritable(path string) error {
	dir := filepath.Dir(path)
	st, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("open store %s: %w", path, err)
	}
	if !st.IsDir() {
		return fmt.Errorf("open store %s: %s is not a folder", path, dir)
	}
	f, err := os.CreateTemp(dir, ".rexmle-write-check-*")
	if err != nil {
		return fmt.Errorf("open store %s: the folder %s is not writable (the store keeps its journal beside the database; make the folder writable or set paths.database elsewhere): %w", path, dir, err)
	}
	f.Close()
	os.Remove(f.Name())
	if db, err := os.OpenFile(path, os.O_RDWR, 0); err == nil {
		db.Close()
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("open store %s: the database file cannot be opened for writing: %w", path, err)
	}
	return nil
}

// Close closes the database.
func (s *Store) Close() error { return s.db.Close() }

// Version returns the schema version.
func (s *Store) Version(ctx context.Context) (int, error) {
	var v int
	err := s.db.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&v)
	return v, err
}

func (s *Store) migrate(ctx context.Context) error {
	v, err := s.Version(ctx)
	if err != nil {
		return err
	}
	if v > len(migrations) {
		return fmt.Errorf("database schema version %d is newer than this program knows (%d)", v, len(migrations))
	}
	for ; v < len(migrations); v++ {
		err := s.rawTx(ctx, func(tx *sql.Tx) error {
			if _, err := tx.ExecContext(ctx, migrations[v]); err != nil {
				return fmt.Errorf("migration %d: %w", v+1, err)
			}
			_, err := tx.ExecContext(ctx, fmt.Sprintf(`PRAGMA user_version = %d`, v+1))
			return err
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// rawTx runs fn in a raw transaction, committing if it returns nil and
// rolling back otherwise (Update gives the typed methods of Tx).
func (s *Store) rawTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}
