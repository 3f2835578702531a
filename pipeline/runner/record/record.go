// Package record writes agent runs into the store as they go: the runs row
// (status running, then how it ended), run_events, GPU samples in batched
// transactions, and the per-run gpu_summaries row. The local run stage
// records live; the Slurm ingest step records finished run folders.
package record

import (
	"context"
	"log/slog"
	"math"
	"sync"
	"time"

	"github.com/rexmle/rexmle/pipeline/gpu"
	"github.com/rexmle/rexmle/pipeline/runner"
	"github.com/rexmle/rexmle/pipeline/store"
)

// Recorder records runs into one store. Its methods are safe for
// concurrent use; samples are buffered and written every FlushEvery (or
// when 500 are waiting) in one transaction.
type Recorder struct {
	st  *store.Store
	log *slog.Logger

	mu      sync.Mutex
	pending map[string][]gpu.Sample
	n       int
	stop    chan struct{}
	done    chan struct{}
}

// FlushEvery is how often buffered samples are written.
const FlushEvery = 2 * time.Second

// New starts a recorder; Close flushes and stops it.
func New(st *store.Store, log *slog.Logger) *Recorder {
	if log == nil {
		log = slog.Default()
	}
	r := &Recorder{st: st, log: log, pending: map[string][]gpu.Sample{}, stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(r.done)
		t := time.NewTicker(FlushEvery)
		defer t.Stop()
		for {
			select {
			case <-r.stop:
				r.Flush(context.Background())
				return
			case <-t.C:
				r.Flush(context.Background())
			}
		}
	}()
	return r
}

func runRow(j *runner.Job, in *runner.Info) store.Run {
	r := store.Run{ID: j.ID(), Source: j.Group, Setting: j.Setting, Backend: j.Agent.Backend, Challenge: j.Challenge,
		Agent: j.Agent.ID, Seed: j.Seed, Status: store.RunRunning, SubmissionDir: j.RunDir + "/submission"}
	if in != nil {
		r.Status, r.Detail, r.StartedAt, r.EndedAt = store.RunStatus(in.Status), in.Error, in.StartedAt, in.EndedAt
	}
	return r
}

// Start records that the job is starting (the row gpu_samples point at)
// and drops the samples of an earlier attempt of the same run.
func (r *Recorder) Start(ctx context.Context, j *runner.Job) error {
	return r.st.Update(ctx, func(tx *store.Tx) error {
		row := runRow(j, nil)
		row.StartedAt = store.Now()
		if err := tx.PutRun(ctx, row); err != nil {
			return err
		}
		// A restarted run replaces the samples of its earlier attempt.
		if err := tx.DeleteGPUSamples(ctx, j.ID()); err != nil {
			return err
		}
		return tx.AddRunEvent(ctx, j.ID(), "start", j.Agent.Executor)
	})
}

// Samples buffers one tick's samples of the job's run.
func (r *Recorder) Samples(j *runner.Job, batch []gpu.Sample) {
	r.mu.Lock()
	r.pending[j.ID()] = append(r.pending[j.ID()], batch...)
	r.n += len(batch)
	full := r.n >= 500
	r.mu.Unlock()
	if full {
		r.Flush(context.Background())
	}
}

// Flush writes the buffered samples in one transaction.
func (r *Recorder) Flush(ctx context.Context) {
	r.mu.Lock()
	p := r.pending
	r.pending, r.n = map[string][]gpu.Sample{}, 0
	r.mu.Unlock()
	if len(p) == 0 {
		return
	}
	err := r.st.Update(ctx, func(tx *store.Tx) error {
		for id, xs := range p {
			if err := tx.InsertGPUSamples(ctx, id, xs); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		r.log.Warn("GPU samples not stored", "err", err)
	}
}

// End records how the run ended: the runs row, an event and its telemetry
// summary (unavailable telemetry is recorded as such, with no numbers).
func (r *Recorder) End(ctx context.Context, j *runner.Job, in *runner.Info) error {
	r.Flush(ctx)
	if in == nil {
		return nil
	}
	return r.st.Update(ctx, func(tx *store.Tx) error {
		if err := tx.PutRun(ctx, runRow(j, in)); err != nil {
			return err
		}
		if err := tx.AddRunEvent(ctx, j.ID(), in.Status, in.Error); err != nil {
			return err
		}
		return tx.PutGPUSummary(ctx, Telemetry(j.ID(), in))
	})
}

// Telemetry is run.json's telemetry in gpu_summaries' form.
func Telemetry(runID string, in *runner.Info) store.GPUSummary {
	t := store.GPUSummary{RunID: runID, Telemetry: in.Telemetry, WallSeconds: in.WallSeconds, WorkingSeconds: math.NaN()}
	if in.WorkingSeconds != nil {
		t.WorkingSeconds = *in.WorkingSeconds
	}
	if in.GPUSummary != nil {
		t.Summary = *in.GPUSummary
	} else {
		t.Summary = gpu.Summarize(nil, len(in.GPUs), time.Duration(in.WallSeconds*float64(time.Second)))
	}
	return t
}

// Close flushes the buffered samples and stops the recorder.
func (r *Recorder) Close() {
	close(r.stop)
	<-r.done
}

// Ingest records a run a Slurm task (or any other process) left in its
// folder: the runs row, the samples of telemetry.jsonl and the summary.
// Without run.json the run is recorded as failed with why; a run.json still
// saying running (the task was killed) is recorded as interrupted.
func (r *Recorder) Ingest(ctx context.Context, j *runner.Job, why string) (*runner.Info, error) {
	in, err := runner.ReadInfo(j.RunDir)
	if err != nil {
		in = &runner.Info{Group: j.Group, Challenge: j.Challenge, Agent: j.Agent.ID, Backend: j.Agent.Backend, Setting: j.Setting,
			Seed: j.Seed, Status: runner.StatusFailed, Error: "no run.json: " + why, GPUs: []int{}, Telemetry: "unavailable: the task left no run.json"}
	} else if in.Status == runner.StatusRunning {
		in.Status, in.Error = runner.StatusInterrupted, "the task ended before the run did: "+why
	}
	if err := r.Start(ctx, j); err != nil {
		return in, err
	}
	samples, err := runner.ReadTelemetry(j.RunDir)
	if err != nil {
		r.log.Warn("telemetry.jsonl unreadable", "run", j.ID(), "err", err)
	}
	if len(samples) > 0 {
		if err := r.st.Update(ctx, func(tx *store.Tx) error { return tx.InsertGPUSamples(ctx, j.ID(), samples) }); err != nil {
			return in, err
		}
	}
	return in, r.End(ctx, j, in)
}

// Recorded reports whether the store already holds the run as run.json
// describes it (same status and end time).
func (r *Recorder) Recorded(ctx context.Context, j *runner.Job, in *runner.Info) bool {
	status, ended, ok, err := r.st.RunState(ctx, j.ID())
	return err == nil && ok && in != nil && string(status) == in.Status && ended == in.EndedAt
}

// CatchUp ingests every finished run folder of jobs the store does not
// hold yet (a stage killed between a run's end and its recording, or Slurm
// tasks that ended after their stage was killed) and returns how many.
func (r *Recorder) CatchUp(ctx context.Context, jobs []*runner.Job) (int, error) {
	n := 0
	for _, j := range jobs {
		in, done := runner.Finished(j.RunDir)
		if !done || r.Recorded(ctx, j, in) {
			continue
		}
		if _, err := r.Ingest(ctx, j, "recorded late"); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}
