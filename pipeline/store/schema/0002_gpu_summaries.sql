
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
