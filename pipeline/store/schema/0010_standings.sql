
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
