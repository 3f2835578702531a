
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
