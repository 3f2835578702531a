package gpu

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"time"
)

// Execer is what the store helpers need: a *sql.Tx or *sql.DB.
type Execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

func nullF(v float64) any {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return v
}

func nullI(v int64) any {
	if v < 0 {
		return nil
	}
	return v
}

// InsertSamples writes samples of run runID into gpu_samples (unknown
// readings as NULL), with elapsed_s, the seconds since the run started. Callers batch: one call per transaction.
func InsertSamples(ctx context.Context, db Execer, runID string, samples []Sample) error {
	for _, x := range samples {
		var device any
		if x.Device != "" {
			device = x.Device
		}
		_, err := db.ExecContext(ctx, `INSERT INTO gpu_samples(run_id, at, gpu, sm_util, mem_used_bytes, mem_total_bytes, power_w, energy_mj, temp_c, proc_mem_bytes, elapsed_s, device) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)`,
			runID, x.At.UTC().Format(time.RFC3339Nano), x.GPU, nullF(x.SMUtil), nullI(x.MemUsedBytes), nullI(x.MemTotalBytes),
			nullF(x.PowerW), nullI(x.EnergyMJ), nullF(x.TempC), nullI(x.ProcMemBytes), nullF(x.ElapsedS), device)
		if err != nil {
			return fmt.Errorf("store GPU sample of %s: %w", runID, err)
		}
	}
	return nil
}

// RunTelemetry is what gpu_summaries holds for one run.
type RunTelemetry struct {
	RunID          string
	Telemetry      string  // "nvml" or "unavailable: <why>"
	WallSeconds    float64 // the run's wall time
	WorkingSeconds float64 // as the agent reported it; NaN when it did not
	Summary        Summary
}

// PutSummary inserts or replaces the run's row in gpu_summaries.
func PutSummary(ctx context.Context, db Execer, t RunTelemetry) error {
	s := t.Summary
	_, err := db.ExecContext(ctx, `INSERT OR REPLACE INTO gpu_summaries(run_id, telemetry, gpus, samples, wall_seconds, working_seconds, gpu_hours, energy_kwh, sm_util_median, sm_util_p95, peak_mem_fraction, peak_proc_mem_fraction) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)`,
		t.RunID, t.Telemetry, s.GPUs, s.Samples, t.WallSeconds, nullF(t.WorkingSeconds), s.GPUHours, nullF(s.EnergyKWh),
		nullF(s.SMUtilMedian), nullF(s.SMUtilP95), nullF(s.PeakMemFraction), nullF(s.PeakProcMemFrac))
	if err != nil {
		return fmt.Errorf("store GPU summary of %s: %w", t.RunID, err)
	}
	return nil
}
