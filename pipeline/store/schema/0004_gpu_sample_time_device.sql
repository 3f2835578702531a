
ALTER TABLE gpu_samples ADD COLUMN elapsed_s REAL; -- seconds since the run started: the charts' x-axis
ALTER TABLE gpu_samples ADD COLUMN device TEXT;    -- GPU or MIG instance UUID
