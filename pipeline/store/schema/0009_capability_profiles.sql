
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
