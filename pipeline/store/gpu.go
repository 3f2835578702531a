package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/rexmle/rexmle/pipeline/gpu"
)

// GPUSummary is a run's row of gpu_summaries: its telemetry as
// gpu.Summarize computed it when the run ended, the one place the site and
// every other reader take GPU-hours and energy from.
type GPUSummary struct {
	RunID          string
	Telemetry      string  // "nvml" or "unavailable: <why>"
	WallSeconds    float64 // the run's wall time
	WorkingSeconds float64 // as the agent reported it; NaN when it did not
	Summary        gpu.Summary
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

func nf(v sql.NullFloat64) float64 {
	if !v.Valid {
		return math.NaN()
	}
	return v.Float64
}

func ni(v sql.NullInt64) int64 {
	if !v.Valid {
		return -1
	}
	return v.Int64
}

// InsertGPUSamples adds samples of a run to gpu_samples (unknown readings as
// NULL), with elapsed_s, the seconds since the run started.
func (t *Tx) InsertGPUSamples(ctx context.Context, runID string, samples []gpu.Sample) error {
	for _, x := range samples {
		var device any
		if x.Device != "" {
			device = x.Device
		}
		_, err := t.tx.ExecContext(ctx, `INSERT INTO gpu_samples(run_id, at, gpu, sm_util, mem_used_bytes, mem_total_bytes, power_w, energy_mj, temp_c, proc_mem_bytes, elapsed_s, device) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)`,
			runID, x.At.UTC().Format(time.RFC3339Nano), x.GPU, nullF(x.SMUtil), nullI(x.MemUsedBytes), nullI(x.MemTotalBytes),
			nullF(x.PowerW), nullI(x.EnergyMJ), nullF(x.TempC), nullI(x.ProcMemBytes), nullF(x.ElapsedS), device)
		if err != nil {
			return fmt.Errorf("store GPU sample of %s: %w", runID, err)
		}
	}
	return nil
}

// DeleteGPUSamples drops a run's samples (a restarted run replaces those of
// its earlier attempt).
func (t *Tx) DeleteGPUSamples(ctx context.Context, runID string) error {
	if _, err := t.tx.ExecContext(ctx, `DELETE FROM gpu_samples WHERE run_id=?`, runID); err != nil {
		return fmt.Errorf("drop GPU samples of %s: %w", runID, err)
	}
	return nil
}

// PutGPUSummary inserts or replaces the run's row in gpu_summaries.
func (t *Tx) PutGPUSummary(ctx context.Context, g GPUSummary) error {
	s := g.Summary
	_, err := t.tx.ExecContext(ctx, `INSERT OR REPLACE INTO gpu_summaries(run_id, telemetry, gpus, samples, wall_seconds, working_seconds, gpu_hours, energy_kwh, sm_util_median, sm_util_p95, peak_mem_fraction, peak_proc_mem_fraction) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)`,
		g.RunID, g.Telemetry, s.GPUs, s.Samples, g.WallSeconds, nullF(g.WorkingSeconds), s.GPUHours, nullF(s.EnergyKWh),
		nullF(s.SMUtilMedian), nullF(s.SMUtilP95), nullF(s.PeakMemFraction), nullF(s.PeakProcMemFrac))
	if err != nil {
		return fmt.Errorf("store GPU summary of %s: %w", g.RunID, err)
	}
	return nil
}

// GPUSummaries returns every run's gpu_summaries row, by run id.
func (s *Store) GPUSummaries(ctx context.Context) (map[string]GPUSummary, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT run_id, telemetry, gpus, samples, wall_seconds, working_seconds, gpu_hours, energy_kwh,
		sm_util_median, sm_util_p95, peak_mem_fraction, peak_proc_mem_fraction FROM gpu_summaries ORDER BY run_id`)
	if err != nil {
		return nil, fmt.Errorf("read GPU summaries: %w", err)
	}
	defer rows.Close()
	out := map[string]GPUSummary{}
	for rows.Next() {
		var g GPUSummary
		var work, energy, med, p95, peak, peakProc sql.NullFloat64
		if err := rows.Scan(&g.RunID, &g.Telemetry, &g.Summary.GPUs, &g.Summary.Samples, &g.WallSeconds, &work, &g.Summary.GPUHours,
			&energy, &med, &p95, &peak, &peakProc); err != nil {
			return nil, fmt.Errorf("read GPU summaries: %w", err)
		}
		g.WorkingSeconds = nf(work)
		g.Summary.EnergyKWh, g.Summary.SMUtilMedian, g.Summary.SMUtilP95 = nf(energy), nf(med), nf(p95)
		g.Summary.PeakMemFraction, g.Summary.PeakProcMemFrac = nf(peak), nf(peakProc)
		out[g.RunID] = g
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read GPU summaries: %w", err)
	}
	return out, nil
}

// GPUSamples returns every stored sample, by run id, ordered by GPU and
// time (unknown readings NaN or -1, as gpu.Sample has them); a sample whose
// time does not parse is left out.
func (s *Store) GPUSamples(ctx context.Context) (map[string][]gpu.Sample, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT run_id, at, gpu, sm_util, mem_used_bytes, mem_total_bytes, power_w, energy_mj, temp_c, proc_mem_bytes, elapsed_s, device
		FROM gpu_samples ORDER BY run_id, gpu, at`)
	if err != nil {
		return nil, fmt.Errorf("read GPU samples: %w", err)
	}
	defer rows.Close()
	out := map[string][]gpu.Sample{}
	for rows.Next() {
		var id, at string
		var x gpu.Sample
		var sm, pw, temp, el sql.NullFloat64
		var used, total, energy, proc sql.NullInt64
		var device sql.NullString
		if err := rows.Scan(&id, &at, &x.GPU, &sm, &used, &total, &pw, &energy, &temp, &proc, &el, &device); err != nil {
			return nil, fmt.Errorf("read GPU samples: %w", err)
		}
		t, err := time.Parse(time.RFC3339Nano, at)
		if err != nil {
			continue // not a time this package wrote: the sample cannot be placed on a chart
		}
		x.At, x.Device = t, device.String
		x.SMUtil, x.PowerW, x.TempC, x.ElapsedS = nf(sm), nf(pw), nf(temp), nf(el)
		x.MemUsedBytes, x.MemTotalBytes, x.EnergyMJ, x.ProcMemBytes = ni(used), ni(total), ni(energy), ni(proc)
		out[id] = append(out[id], x)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read GPU samples: %w", err)
	}
	return out, nil
}

// AddRunEvent appends one event of a run (start, or how it ended).
func (t *Tx) AddRunEvent(ctx context.Context, runID, kind, detail string) error {
	if _, err := t.tx.ExecContext(ctx, `INSERT INTO run_events(run_id, at, kind, detail) VALUES (?,?,?,?)`, runID, Now(), kind, detail); err != nil {
		return fmt.Errorf("store event %s of %s: %w", kind, runID, err)
	}
	return nil
}

// RunState returns a run's status and end time; ok is false when the store
// has no such run.
func (s *Store) RunState(ctx context.Context, runID string) (status RunStatus, endedAt string, ok bool, err error) {
	err = s.db.QueryRowContext(ctx, `SELECT status, ended_at FROM runs WHERE id=?`, runID).Scan(&status, &endedAt)
	if errors.Is(err, sql.ErrNoRows) {
		return "", "", false, nil
	}
	if err != nil {
		return "", "", false, fmt.Errorf("read run %s: %w", runID, err)
	}
	return status, endedAt, true, nil
}
