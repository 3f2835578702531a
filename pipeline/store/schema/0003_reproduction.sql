
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
