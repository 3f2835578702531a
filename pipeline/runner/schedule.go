package runner

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"time"
)

// Pending splits jobs into those still to run and how many finished runs
// were kept. With resume "mark", a run that a stopped stage left running or
// interrupted is recorded as interrupted (its run.json rewritten) and kept,
// not rerun; with "restart" (the default) it runs again from a clean folder.
// force reruns everything.
func Pending(jobs []*Job, resume string, force bool) (todo []*Job, kept int, err error) {
	for _, j := range jobs {
		if force {
			todo = append(todo, j)
			continue
		}
		in, done := Finished(j.RunDir)
		switch {
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
	GPUs     []int
	CPUSlots int // 0: one per core
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
	// Prepare is called before a run starts (after its GPUs are assigned);
	// an error refuses the run.
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
	prepare, progress := h.Prepare, h.Progress
	slots := pool.CPUSlots
	if slots <= 0 {
		slots = runtime.GOMAXPROCS(0)
	}
	var (
		mu       sync.Mutex
		cond     = sync.NewCond(&mu)
		freeGPUs = append([]int(nil), pool.GPUs...)
		freeCPU  = slots
		st       = Progress{Total: len(jobs)}
		start    = time.Now()
		outs     []Outcome
		wg       sync.WaitGroup
	)
	report := func(last string) { // mu held
		st.Elapsed, st.Last = time.Since(start), last
		if st.Done > 0 && st.Done < st.Total {
			st.ETA = time.Duration(float64(st.Elapsed) / float64(st.Done) * float64(st.Total-st.Done))
		} else {
			st.ETA = 0
		}
		if progress != nil {
			progress(st)
		}
	}
	stopWaiting := context.AfterFunc(ctx, func() { mu.Lock(); cond.Broadcast(); mu.Unlock() })
	defer stopWaiting()
	finish := func(o Outcome) { // mu held
		outs = append(outs, o)
		st.Done++
		if !o.OK() {
			st.Failed++
		}
		report(o.Job.ID())
	}
	for _, j := range jobs {
		need := j.Agent.GPUs
		mu.Lock()
		if need > len(pool.GPUs) {
			finish(Outcome{Job: j, Err: fmt.Errorf("%s needs %d GPU(s); this host has %d", j.ID(), need, len(pool.GPUs))})
			mu.Unlock()
			continue
		}
		for ctx.Err() == nil && ((need > 0 && len(freeGPUs) < need) || (need == 0 && freeCPU == 0)) {
			cond.Wait()
		}
		if ctx.Err() != nil {
			mu.Unlock()
			break
		}
		if need > 0 {
			j.GPUs = append([]int(nil), freeGPUs[:need]...)
			freeGPUs = freeGPUs[need:]
		} else {
			freeCPU--
		}
		st.Running++
		report(j.ID())
		mu.Unlock()
		wg.Add(1)
		go func(j *Job) {
			defer wg.Done()
			var o Outcome
			o.Job = j
			if prepare != nil {
				o.Err = prepare(j)
			}
			if o.Err == nil {
				o.Info, o.Err = Execute(ctx, j)
			}
			if h.Done != nil {
				h.Done(o)
			}
			mu.Lock()
			if need > 0 {
				freeGPUs = append(freeGPUs, j.GPUs...)
			} else {
				freeCPU++
			}
			st.Running--
			finish(o)
			cond.Broadcast()
			mu.Unlock()
		}(j)
	}
	wg.Wait()
	return outs, ctx.Err()
}
