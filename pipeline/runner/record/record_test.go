package record

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/rexmle/rexmle/pipeline/config"
	"github.com/rexmle/rexmle/pipeline/gpu"
	"github.com/rexmle/rexmle/pipeline/gpu/gputest"
	"github.com/rexmle/rexmle/pipeline/runner"
	"github.com/rexmle/rexmle/pipeline/store"
)

func openStore(t *testing.T) *store.Store {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "db.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	c1 := &config.Challenge{ID: "c1", Name: "c1", ShortName: "C1", Category: "segmentation", Modality: "CT", TaskType: "seg", PrimaryMetric: "dice"}
	if err := st.Update(ctx, func(tx *store.Tx) error { return tx.SyncChallenges(ctx, []*config.Challenge{c1}) }); err != nil {
		t.Fatal(err)
	}
	return st
}

func job(root string, agent string) *runner.Job {
	return &runner.Job{Group: "g", Challenge: "c1", Seed: 1, Setting: "demo", RunDir: filepath.Join(root, "g", "c1", agent, "seed-1"),
		Agent: config.Agent{ID: agent, Backend: "none", Executor: "local"}}
}

func sample(sec float64, util float64, energy int64) gpu.Sample {
	return gpu.Sample{At: time.Unix(1_700_000_000, 0).Add(time.Duration(sec * float64(time.Second))), GPU: 0, SMUtil: util,
		MemUsedBytes: 50, MemTotalBytes: 100, PowerW: 250, EnergyMJ: energy, TempC: 60, ProcMemBytes: 25}
}

func count(t *testing.T, st *store.Store, q string) int {
	var n int
	if err := st.RawQueryRow(context.Background(), q).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestLiveRecording: the stage's path — start, samples in batches, end.
func TestLiveRecording(t *testing.T) {
	st := openStore(t)
	ctx := context.Background()
	r := New(st, nil)
	j := job(t.TempDir(), "a")
	if err := r.Start(ctx, j); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		r.Samples(j, []gpu.Sample{sample(float64(i), float64(10*i), int64(i)*1000)})
	}
	// Buffered, not yet written, until a flush.
	if n := count(t, st, `SELECT count(*) FROM gpu_samples`); n != 0 {
		t.Fatalf("%d samples written before a flush", n)
	}
	r.Flush(ctx)
	if n := count(t, st, `SELECT count(*) FROM gpu_samples WHERE run_id='g/c1/a/seed-1'`); n != 3 {
		t.Fatalf("%d samples after flush", n)
	}
	ws := 4.5
	s := gpu.Summarize([]gpu.Sample{sample(0, 0, 0), sample(2, 10, 3_600_000), sample(1, 20, 1_000_000)}, 1, time.Hour)
	in := &runner.Info{Status: runner.StatusDone, StartedAt: "t0", EndedAt: "t1", WallSeconds: 3600, WorkingSeconds: &ws, GPUs: []int{0}, Telemetry: "nvml", GPUSummary: &s}
	if err := r.End(ctx, j, in); err != nil {
		t.Fatal(err)
	}
	r.Close()
	var status string
	var hours, working, median float64
	var energy float64
	if err := st.RawQueryRow(context.Background(), `SELECT r.status, s.gpu_hours, s.working_seconds, s.sm_util_median, s.energy_kwh FROM runs r JOIN gpu_summaries s ON s.run_id=r.id`).Scan(&status, &hours, &working, &median, &energy); err != nil {
		t.Fatal(err)
	}
	// energy: counter 0 → 3.6e6 mJ = 3600 J = 0.001 kWh
	if status != "done" || hours != 1 || working != 4.5 || median != 10 || math.Abs(energy-0.001) > 1e-12 {
		t.Fatalf("status %s hours %v working %v median %v energy %v", status, hours, working, median, energy)
	}
	if n := count(t, st, `SELECT count(*) FROM run_events WHERE run_id='g/c1/a/seed-1'`); n != 2 {
		t.Fatalf("%d events, want start and done", n)
	}
	// A restart drops the earlier attempt's samples.
	r2 := New(st, nil)
	defer r2.Close()
	if err := r2.Start(ctx, j); err != nil {
		t.Fatal(err)
	}
	if n := count(t, st, `SELECT count(*) FROM gpu_samples`); n != 0 {
		t.Fatalf("restart kept %d old samples", n)
	}
}

// TestUnavailableTelemetryRecordsNoNumbers: without NVML the summary row
// says why and holds GPU-hours only (GPUs × wall), every measured value NULL.
func TestUnavailableTelemetryRecordsNoNumbers(t *testing.T) {
	st := openStore(t)
	ctx := context.Background()
	r := New(st, nil)
	defer r.Close()
	j := job(t.TempDir(), "a")
	r.Start(ctx, j)
	in := &runner.Info{Status: runner.StatusDone, WallSeconds: 1800, GPUs: []int{0, 1}, Telemetry: "unavailable: NVML: ERROR_LIBRARY_NOT_FOUND"}
	if err := r.End(ctx, j, in); err != nil {
		t.Fatal(err)
	}
	var tel string
	var hours float64
	var samples int
	var energy, util, peak, working any
	if err := st.RawQueryRow(context.Background(), `SELECT telemetry, gpu_hours, samples, energy_kwh, sm_util_median, peak_mem_fraction, working_seconds FROM gpu_summaries`).Scan(&tel, &hours, &samples, &energy, &util, &peak, &working); err != nil {
		t.Fatal(err)
	}
	if tel != in.Telemetry || hours != 1 || samples != 0 || energy != nil || util != nil || peak != nil || working != nil {
		t.Fatalf("%q %v %d %v %v %v %v", tel, hours, samples, energy, util, peak, working)
	}
}

// TestIngest: the Slurm path — a finished folder, a killed task's folder
// (run.json still running) and a task that left nothing.
func TestIngest(t *testing.T) {
	st := openStore(t)
	ctx := context.Background()
	r := New(st, nil)
	defer r.Close()
	root := t.TempDir()

	// A finished run with telemetry, written by the runner itself.
	done := job(root, "a")
	done.Agent.Command = []string{"true"}
	done.Agent.Sandbox = "none"
	done.GPUs = []int{0}
	done.Sampler = &gputest.Fake{Batches: [][]gpu.Sample{{sample(0, 40, 0)}, {sample(1, 60, 1000)}}}
	done.SampleEvery = 20 * time.Millisecond
	done.Agent.Command = []string{"sleep", "0.2"}
	if in, err := runner.Execute(ctx, done); err != nil || in.Status != runner.StatusDone {
		t.Fatalf("%+v %v", in, err)
	}
	written, _ := runner.ReadTelemetry(done.RunDir)
	in, err := r.Ingest(ctx, done, "task 0 COMPLETED")
	if err != nil || in.Status != runner.StatusDone {
		t.Fatalf("%+v %v", in, err)
	}
	if n := count(t, st, `SELECT count(*) FROM gpu_samples WHERE run_id='g/c1/a/seed-1'`); n != len(written) || n < 2 {
		t.Fatalf("%d samples ingested, %d in the file", n, len(written))
	}

	killed := job(root, "b")
	os.MkdirAll(killed.RunDir, 0o755)
	os.WriteFile(filepath.Join(killed.RunDir, "run.json"), []byte(`{"status":"running","gpus":[],"telemetry":"nvml"}`), 0o644)
	in, err = r.Ingest(ctx, killed, "Slurm task 7_1 ended CANCELLED")
	if err != nil || in.Status != runner.StatusInterrupted {
		t.Fatalf("%+v %v", in, err)
	}

	lost := job(root, "c")
	in, err = r.Ingest(ctx, lost, "Slurm task 7_2 ended NODE_FAIL")
	if err != nil || in.Status != runner.StatusFailed || in.Error != "no run.json: Slurm task 7_2 ended NODE_FAIL" {
		t.Fatalf("%+v %v", in, err)
	}
	var statuses string
	st.RawQueryRow(context.Background(), `SELECT group_concat(agent || '=' || status, ',') FROM (SELECT agent, status FROM runs ORDER BY agent)`).Scan(&statuses)
	if statuses != "a=done,b=interrupted,c=failed" {
		t.Fatalf("runs: %s", statuses)
	}
}

// TestCatchUp records finished folders the store lacks, once.
func TestCatchUp(t *testing.T) {
	st := openStore(t)
	ctx := context.Background()
	r := New(st, nil)
	defer r.Close()
	root := t.TempDir()
	var jobs []*runner.Job
	for _, a := range []string{"a", "b", "c"} {
		j := job(root, a)
		j.Agent.Command, j.Agent.Sandbox = []string{"true"}, "none"
		jobs = append(jobs, j)
	}
	for _, j := range jobs[:2] { // c never ran
		if _, err := runner.Execute(ctx, j); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.Start(ctx, jobs[0]); err != nil { // a: recorded as running only
		t.Fatal(err)
	}
	n, err := r.CatchUp(ctx, jobs)
	if err != nil || n != 2 {
		t.Fatalf("caught up %d, err %v; want 2", n, err)
	}
	if n, _ := r.CatchUp(ctx, jobs); n != 0 {
		t.Fatalf("second catch-up recorded %d again", n)
	}
	if c := count(t, st, `SELECT count(*) FROM runs WHERE status='done'`); c != 2 {
		t.Fatalf("%d done runs", c)
	}
}
