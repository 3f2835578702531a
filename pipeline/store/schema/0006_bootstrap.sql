
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
