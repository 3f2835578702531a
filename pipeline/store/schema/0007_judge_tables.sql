
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
