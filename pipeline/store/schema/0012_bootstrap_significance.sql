
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
