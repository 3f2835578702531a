package runner

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"time"

	"github.com/rexmle/rexmle/pipeline/fsutil"
)

// Pending splits jobs into those still to run and how many finished runs
// were kept. With resume "mark", a run that a stopped stage left running or
// interrupted is recorded as interrupted (its run.json rewritten) and kept,
// not rerun; with "restart" (the default) it runs again from a clean folder.
// retryFailed reruns the runs that ended failed (those that could not
// start included) and keeps every other finished run; force reruns
// everything.
func Pending(jobs []*Job, resume string, force, retryFailed bool) (todo []*Job, kept int, err error) {
	for _, j := range jobs {
		if force {
			todo = append(todo, j)
			continue
		}
		in, done := Finished(j.RunDir)
		switch {
		case done && retryFailed && in.Status == StatusFailed:
			todo = append(todo, j)
		case done:
			kept++
		case in != nil && resume == "mark" && (in.Status == StatusRunning || in.Status == StatusInterrupted):
			if in.Status == StatusRunning {
				in.Status, in.Error = StatusInterrupted, "the run stage stopped before this run ended"
				if err := writeInfo(j.RunDir, in); err != nil {
					return nil, 0, err
				}
			}
			kept++
		default:
			todo = append(todo, j)
		}
	}
	return todo, kept, nil
}

// Pool is what runs can be given at once: GPU runs take Agent.GPUs indices
// from GPUs each; runs that need no GPU share CPUSlots.
type Pool struct {
	GPUs     []int  // GPU slots (the stage maps them to devices in Hooks.Prepare)
	CPUSlots int    // 0: one per core
	NoGPU    string // why GPUs is short or empty, for the reason of runs that need more
	// Single marks slots that can only be a run's one GPU: MIG instances,
	// since a CUDA process uses one MIG instance at most. Runs that need
	// several GPUs get slots outside it.
	Single map[int]bool
}

// take picks need slots from free for one run: any free slot for a run
// that needs one, else need slots that are not Single, in pool order.
// ok is false when free has too few.
func (p Pool) take(free []int, need int) (chosen, rest []int, ok bool) {
	for _, s := range free {
		if len(chosen) < need && (need == 1 || !p.Single[s]) {
			chosen = append(chosen, s)
		} else {
			rest = append(rest, s)
		}
	}
	if len(chosen) < need {
		return nil, free, false
	}
	return chosen, rest, true
}

// multi counts the slots a multi-GPU run may use.
func (p Pool) multi() int {
	n := 0
	for _, s := range p.GPUs {
		if !p.Single[s] {
			n++
		}
	}
	return n
}

// Progress is the scheduler's state, passed to the progress callback after
// every change.
type Progress struct {
	Total, Done, Failed, Running int
	Elapsed, ETA                 time.Duration // ETA: 0 until the first run ends
	Last                         string        // the run that just changed
}

// Outcome is one finished job.
type Outcome struct {
	Job  *Job
	Info *Info
	Err  error
}

// OK reports whether the run ended done.
func (o Outcome) OK() bool { return o.Err == nil && o.Info != nil && o.Info.Status == StatusDone }

// Hooks are the scheduler's callbacks, each optional.
type Hooks struct {
	// Refuse is called before a run waits for its slot; a non-empty answer
	// is why the run cannot start (a missing engine, image, key or GPU):
	// the run is recorded failed with that reason (see NotStarted) and
	// never started.
	Refuse func(*Job) string
	// Prepare is called before a run starts (after its GPUs are assigned);
	// an error refuses the run, which is recorded failed with it.
	Prepare func(*Job) error
	// Done is called when a run ends, before its slot is freed.
	Done func(Outcome)
	// Progress is called after each start and end, one call at a time.
	Progress func(Progress)
}

// Schedule runs the jobs with as many at once as the pool allows. A failing
// run never stops the others. On cancellation the running runs are stopped
// and marked interrupted, the waiting ones are not started, and the
// outcomes so far are returned with ctx.Err().
func Schedule(ctx context.Context, jobs []*Job, pool Pool, h Hooks) ([]Outcome, error) {
	slots := pool.CPUSlots
	if slots <= 0 {
		slots = runtime.GOMAXPROCS(0)
	}
	s := &scheduler{pool: pool, h: h, freeGPUs: append([]int(nil), pool.GPUs...), freeCPU: slots,
		st: Progress{Total: len(jobs)}, start: time.Now()}
	s.cond = sync.NewCond(&s.mu)
	stopWaiting := context.AfterFunc(ctx, func() { s.mu.Lock(); s.cond.Broadcast(); s.mu.Unlock() })
	defer stopWaiting()
	var wg sync.WaitGroup
	for _, j := range jobs {
		if why := pool.cannotStart(j, h.Refuse); why != "" {
			o := s.refuse(j, why)
			s.mu.Lock()
			s.finish(o)
			s.mu.Unlock()
			continue
		}
		need := j.Agent.GPUs
		held, ok := s.acquire(ctx, j, need)
		if !ok {
			break
		}
		wg.Add(1)
		go func(j *Job, held []int) {
			defer wg.Done()
			s.run(ctx, j, need, held)
		}(j, held)
	}
	wg.Wait()
	return s.outs, ctx.Err()
}

// scheduler is Schedule's state: the free slots, the progress and the
// outcomes so far, all under mu.
type scheduler struct {
	pool     Pool
	h        Hooks
	mu       sync.Mutex
	cond     *sync.Cond // signalled when a slot frees or ctx ends
	freeGPUs []int
	freeCPU  int
	st       Progress
	start    time.Time
	outs     []Outcome
}

// report updates the timing and calls the progress hook; mu held.
func (s *scheduler) report(last string) {
	st := &s.st
	st.Elapsed, st.Last = time.Since(s.start), last
	if st.Done > 0 && st.Done < st.Total {
		st.ETA = time.Duration(float64(st.Elapsed) / float64(st.Done) * float64(st.Total-st.Done))
	} else {
		st.ETA = 0
	}
	if s.h.Progress != nil {
		s.h.Progress(*st)
	}
}

// finish records an outcome; mu held.
func (s *scheduler) finish(o Outcome) {
	s.outs = append(s.outs, o)
	s.st.Done++
	if !o.OK() {
		s.st.Failed++
	}
	s.report(o.Job.ID())
}

// refuse records a run that is not started, and why; mu not held.
func (s *scheduler) refuse(j *Job, why string) Outcome {
	in, err := NotStarted(j, why)
	o := Outcome{Job: j, Info: in, Err: err}
	if s.h.Done != nil {
		s.h.Done(o)
	}
	return o
}

// acquire waits until the run's need GPUs (or a CPU slot when it needs
// none) are free and takes them (the GPUs assigned to j); ok is false when
// ctx ends first.
func (s *scheduler) acquire(ctx context.Context, j *Job, need int) (held []int, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	fits := func() bool {
		if need == 0 {
			return s.freeCPU > 0
		}
		_, _, ok := s.pool.take(s.freeGPUs, need)
		return ok
	}
	for ctx.Err() == nil && !fits() {
		s.cond.Wait()
	}
	if ctx.Err() != nil {
		return nil, false
	}
	if need > 0 {
		held, s.freeGPUs, _ = s.pool.take(s.freeGPUs, need)
		j.GPUs = append([]int(nil), held...)
	} else {
		s.freeCPU--
	}
	s.st.Running++
	s.report(j.ID())
	return held, true
}

// run prepares and executes one run, records its outcome and frees its
// slot (the GPUs held, or a CPU slot when it needs none).
func (s *scheduler) run(ctx context.Context, j *Job, need int, held []int) {
	var o Outcome
	o.Job = j
	var perr error
	if s.h.Prepare != nil {
		perr = s.h.Prepare(j)
	}
	if perr != nil {
		o = s.refuse(j, perr.Error())
	} else {
		o.Info, o.Err = Execute(ctx, j)
		if s.h.Done != nil {
			s.h.Done(o)
		}
	}
	s.mu.Lock()
	if need > 0 {
		s.freeGPUs = append(s.freeGPUs, held...)
	} else {
		s.freeCPU++
	}
	s.st.Running--
	s.finish(o)
	s.cond.Broadcast()
	s.mu.Unlock()
}

// cannotStart says why j cannot start in the pool (refuse's reason first,
// then too few GPUs, or too few whole ones for a multi-GPU run), or "".
func (p Pool) cannotStart(j *Job, refuse func(*Job) string) string {
	need := j.Agent.GPUs
	why := ""
	if refuse != nil {
		why = refuse(j)
	}
	if why == "" && need > len(p.GPUs) {
		why = fmt.Sprintf("needs %d GPU(s); %d usable here", need, len(p.GPUs))
		if p.NoGPU != "" {
			why += " (" + p.NoGPU + ")"
		}
	}
	if why == "" && need > 1 && need > p.multi() {
		why = fmt.Sprintf("needs %d GPU(s); %d whole GPU(s) usable here (a process can use only one MIG instance)", need, p.multi())
	}
	return why
}

// NotStarted records a run that cannot start: its folder with empty
// workspace, submission and logs, logs/console.log and run.json saying
// failed with why, so the run is listed, stored and retried like any
// failed run (REXMLE_RETRY_FAILED=1).
func NotStarted(j *Job, why string) (*Info, error) {
	now := time.Now().UTC().Format(time.RFC3339Nano)
	host, _ := os.Hostname()
	in := &Info{Group: j.Group, Challenge: j.Challenge, Agent: j.Agent.ID, Backend: j.Agent.Backend, Setting: j.Setting, Seed: j.Seed,
		Status: StatusFailed, ExitCode: -1, Error: "not started: " + why, StartedAt: now, EndedAt: now, Host: host,
		Executor: j.Agent.Executor, Isolation: "none: not started", GPUs: []int{}, TimeLimit: j.TimeLimit.Seconds(),
		Telemetry: "unavailable: the run did not start", BenchHash: j.BenchHash}
	for _, d := range []string{"workspace", "submission", "logs"} {
		p := filepath.Join(j.RunDir, d)
		if err := os.RemoveAll(p); err != nil {
			return in, fmt.Errorf("record %s as not started: clean %s: %w", j.ID(), p, err)
		}
		if err := os.MkdirAll(p, 0o755); err != nil {
			return in, fmt.Errorf("record %s as not started: %w", j.ID(), err)
		}
	}
	os.Remove(filepath.Join(j.RunDir, "telemetry.jsonl"))
	msg := fmt.Sprintf("rexmle: run %s was not started: %s\n", j.ID(), why)
	if err := fsutil.WriteFile(filepath.Join(j.RunDir, "logs", "console.log"), []byte(msg), 0o644); err != nil {
		return in, fmt.Errorf("record %s as not started: %w", j.ID(), err)
	}
	if err := writeInfo(j.RunDir, in); err != nil {
		return in, fmt.Errorf("record %s as not started: %w", j.ID(), err)
	}
	return in, nil
}

// EndedUnseen records in run.json how a run ended that a scheduler ran
// and that could not say so itself (a Slurm task killed with its node or
// for its memory, cancelled before it started): status and why. What the
// run.json it left says (its start, host, sandbox) is kept; with none, the
// record is made here. The folders and logs are left as they are.
func EndedUnseen(j *Job, status, why string) (*Info, error) {
	now := time.Now().UTC().Format(time.RFC3339Nano)
	in, err := ReadInfo(j.RunDir)
	if err != nil {
		in = &Info{Group: j.Group, Challenge: j.Challenge, Agent: j.Agent.ID, Backend: j.Agent.Backend, Setting: j.Setting, Seed: j.Seed,
			ExitCode: -1, StartedAt: now, Executor: j.Agent.Executor, Isolation: "unknown: the task left no run.json", GPUs: []int{},
			TimeLimit: j.TimeLimit.Seconds(), Telemetry: "unavailable: the task left no run.json", BenchHash: j.BenchHash}
	}
	in.Status, in.Error, in.EndedAt = status, why, now
	if err := writeInfo(j.RunDir, in); err != nil {
		return in, fmt.Errorf("record how %s ended: %w", j.ID(), err)
	}
	return in, nil
}
