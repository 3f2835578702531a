
CREATE TABLE case_details (
  run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  case_id TEXT NOT NULL,
  detail BLOB NOT NULL,
  PRIMARY KEY (run_id, case_id)
);
