package runstage

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/rexmle/rexmle/pipeline/fsutil"
	"github.com/rexmle/rexmle/pipeline/runner"
	"github.com/rexmle/rexmle/pipeline/runner/record"
	"github.com/rexmle/rexmle/pipeline/runner/slurm"
)

// runSlurm submits the jobs as one Slurm job array (one array per GPU
// count, since --gres is per array), waits for it with squeue/sacct and
// ingests the run folders into the store. A stopped stage cancels the
// arrays it submitted (scancel), waits for their tasks to stop and records
// the runs that did not end as interrupted. Runs refuse names a reason for,
// and those of an array sbatch refuses, are recorded failed, not submitted,
// and make the stage exit non-zero; the other arrays go on.
func runSlurm(ctx context.Context, e *env, rec *record.Recorder, jobs []*runner.Job, kept int, refuse func(*runner.Job) string) error {
	root := filepath.Join(e.b.Path(e.b.Paths.Runs), e.opt.Profile, "slurm")
	activeFile := filepath.Join(root, "active.json")
	var late []*runner.Job
	var refused []string
	if !e.opt.DryRun {
		if err := waitEarlierArrays(ctx, e, activeFile); err != nil {
			return err
		}
		var err error
		if jobs, late, refused, err = triageSlurmJobs(ctx, e, rec, jobs, refuse); err != nil {
			return err
		}
	}
	notDone := 0
	for _, j := range late {
		in, err := rec.Ingest(ctx, j, "ran in an earlier Slurm array")
		if err != nil {
			return fmt.Errorf("run: ingest %s: %w", j.ID(), err)
		}
		if in.Status != runner.StatusDone {
			notDone++
		}
	}
	stamp := time.Now().UTC().Format("20060102T150405")
	arrays, refused, err := submitArrays(ctx, e, rec, jobs, filepath.Join(root, stamp), activeFile, refused)
	if err != nil {
		return err
	}
	for _, r := range refused {
		fmt.Println("  " + r)
	}
	if e.opt.DryRun {
		return nil
	}
	start := time.Now()
	for i, a := range arrays {
		var states []slurm.TaskState
		err := ctx.Err()
		if err == nil {
			states, err = slurm.Wait(ctx, a.id, e.profile.Slurm.PollEvery.Duration, arrayProgress(a.id, start))
		}
		if err != nil && ctx.Err() != nil {
			return stopArrays(ctx, e, rec, arrays[i:], activeFile)
		}
		if err != nil {
			e.log.Warn("cannot follow the Slurm array; ingesting what its tasks wrote", "job", a.id, "err", err)
		}
		_, n, err := ingestArray(ctx, e, rec, a, states, false)
		if err != nil {
			return err
		}
		notDone += n
	}
	if ctx.Err() != nil { // stopped while submitting
		return stopArrays(ctx, e, rec, arrays, activeFile)
	}
	os.Remove(activeFile)
	fmt.Printf("run: %d run(s) on Slurm in %s, %d not done, %d could not start, %d already finished\n", len(jobs)+len(late), time.Since(start).Round(time.Millisecond), notDone, len(refused), kept)
	if len(refused) > 0 {
		return fmt.Errorf("run: %d run(s) could not start (recorded failed; fix the problems above, then rerun them with REXMLE_RETRY_FAILED=1): %s",
			len(refused), strings.Join(firstIDs(refused, 5), ", "))
	}
	return nil
}

// submitArrays writes and submits one Slurm array per GPU count under
// base (printing the scripts instead under DryRun), recording active
// arrays in activeFile after each submission. An array Slurm refuses has
// its runs recorded failed and appended to refused; submission stops early
// when ctx is done.
func submitArrays(ctx context.Context, e *env, rec *record.Recorder, jobs []*runner.Job, base, activeFile string, refused []string) ([]slurmArray, []string, error) {
	byGPUs := map[int][]*runner.Job{}
	var counts []int
	for _, j := range jobs {
		if byGPUs[j.Agent.GPUs] == nil {
			counts = append(counts, j.Agent.GPUs)
		}
		byGPUs[j.Agent.GPUs] = append(byGPUs[j.Agent.GPUs], j)
	}
	sort.Ints(counts)
	var arrays []slurmArray
	for _, g := range counts {
		js := byGPUs[g]
		path, script, err := writeArrayScript(e, filepath.Join(base, fmt.Sprintf("gpus-%d", g)), g, js)
		if err != nil {
			return arrays, refused, err
		}
		if e.opt.DryRun {
			fmt.Printf("would submit %s (%d tasks):\n%s\n", e.rel(path), len(js), script)
			continue
		}
		id, err := slurm.Submit(ctx, path)
		if err != nil {
			if ctx.Err() != nil {
				break
			}
			// Slurm refused this array (e.g. a GPU request the cluster has
			// no nodes for): its runs are recorded failed, the rest go on.
			for _, j := range js {
				in, err2 := runner.NotStarted(j, err.Error())
				if err2 != nil {
					return arrays, refused, err2
				}
				if err2 := rec.End(ctx, j, in); err2 != nil {
					return arrays, refused, fmt.Errorf("run: record %s: %w", j.ID(), err2)
				}
				refused = append(refused, fmt.Sprintf("%s: %s", j.ID(), in.Error))
			}
			continue
		}
		fmt.Printf("run: submitted Slurm array %s: %d run(s), %d GPU(s) each (script %s)\n", id, len(js), g, e.rel(path))
		arrays = append(arrays, slurmArray{id, js})
		// Written after each submission: a stage killed now leaves the
		// next one the arrays to wait for.
		if err := writeActive(activeFile, arrays); err != nil {
			e.log.Warn("active arrays not written", "file", activeFile, "err", err)
		}
	}
	return arrays, refused, nil
}

// writeActive records the ids of the submitted arrays.
func writeActive(path string, arrays []slurmArray) error {
	ids := make([]string, len(arrays))
	for i, a := range arrays {
		ids[i] = a.id
	}
	b, err := json.Marshal(ids)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return fsutil.WriteFile(path, b, 0o644)
}

// stopArrays handles a stopped stage: it stops every array still going
// (slurm.Stop: tasks not started are cancelled, each running task stops
// its run within the agent's grace period and records it interrupted),
// waits for them to leave the queue, cancelling outright one still there
// after the grace period, and records each run: those that ended keep
// their status, the others (stopped or never started) are interrupted and
// restarted by the next stage. active.json is removed once every array has
// ended; while one has not, the next stage waits for it.
func stopArrays(ctx context.Context, e *env, rec *record.Recorder, arrays []slurmArray, activeFile string) error {
	if len(arrays) == 0 {
		fmt.Println("run: stopped before an array was submitted. Run `go run mage.go run` again to resume.")
		return ctx.Err()
	}
	bg := context.WithoutCancel(ctx)
	var grace time.Duration
	var ids []string
	for _, a := range arrays {
		ids = append(ids, a.id)
		if err := slurm.Stop(a.id); err != nil {
			e.log.Info("scancel", "job", a.id, "err", err) // e.g. no task left running
		}
		for _, j := range a.jobs {
			grace = max(grace, j.Grace)
		}
	}
	wait := grace + slurmKillWait
	fmt.Printf("run: stopping; Slurm array(s) %s stopped, waiting up to %s for their runs to end\n", strings.Join(ids, ", "), wait.Round(time.Second))
	wctx, cancel := context.WithTimeout(bg, wait)
	defer cancel()
	poll := min(e.profile.Slurm.PollEvery.Duration, time.Second)
	if poll <= 0 {
		poll = time.Second
	}
	ended := true
	var done, stopped int
	for _, a := range arrays {
		states, err := slurm.Wait(wctx, a.id, poll, nil)
		if err != nil {
			// Still going after the grace period: cancel it outright.
			if cerr := slurm.Cancel(a.id); cerr != nil {
				e.log.Warn("array not cancelled", "job", a.id, "err", cerr)
			}
			hctx, hcancel := context.WithTimeout(bg, slurmKillWait+5*time.Second)
			states, err = slurm.Wait(hctx, a.id, poll, nil)
			hcancel()
		}
		if err != nil {
			ended = false
			e.log.Warn("Slurm array still stopping; the next run stage waits for it", "job", a.id, "err", err)
		}
		d, n, err := ingestArray(bg, e, rec, a, states, true)
		if err != nil {
			return err
		}
		done, stopped = done+d, stopped+n
	}
	if ended {
		os.Remove(activeFile)
	}
	fmt.Printf("run: stopped: %d run(s) ended done and kept, %d stopped or not started (restarted next time). Run `go run mage.go run` again to resume.\n", done, stopped)
	return ctx.Err()
}

// slurmKillWait is how long a stopped task may take beyond its run's grace
// period, and Slurm's KillWait by default: how long an outright cancelled
// one may take before Slurm's SIGKILL.
const slurmKillWait = 30 * time.Second

// writeArrayScript writes, in dir, the task manifest and the sbatch script
// of one array: the runs js, each on g GPUs, under the longest time limit
// of them plus the grace period. It creates the runs' folders.
func writeArrayScript(e *env, dir string, g int, js []*runner.Job) (path, script string, err error) {
	tasks := make([]slurm.Task, len(js))
	var longest time.Duration
	for i, j := range js {
		tasks[i] = slurm.TaskOf(j, filepath.Join(filepath.Dir(j.PublicDir), "private"), string(e.opt.Mode))
		if j.TimeLimit > longest {
			longest = j.TimeLimit
		}
		if err := os.MkdirAll(j.RunDir, 0o755); err != nil {
			return "", "", err
		}
	}
	manifest := filepath.Join(dir, "tasks.json")
	if err := slurm.WriteManifest(manifest, tasks); err != nil {
		return "", "", fmt.Errorf("run: slurm manifest: %w", err)
	}
	script, err = slurm.Script(slurm.Options{Name: "rexmle-" + e.opt.Profile, Tasks: len(js), Manifest: manifest, AgentBin: js[0].AgentBin,
		LogDir: dir, TimeLimit: longest + js[0].Grace, GPUsPerTask: g, Slurm: e.profile.Slurm})
	if err != nil {
		return "", "", err
	}
	path = filepath.Join(dir, "array.sbatch")
	if err := fsutil.WriteFile(path, []byte(script), 0o755); err != nil {
		return "", "", err
	}
	return path, script, nil
}

// slurmArray is one submitted job array and the runs of its tasks, in task
// order.
type slurmArray struct {
	id   string
	jobs []*runner.Job
}

// waitEarlierArrays waits for the arrays an earlier stage submitted and did
// not see end (it was killed): they may still be running, and their runs
// must not start twice.
func waitEarlierArrays(ctx context.Context, e *env, activeFile string) error {
	var earlier []string
	if b, err := os.ReadFile(activeFile); err == nil {
		json.Unmarshal(b, &earlier)
	}
	for _, id := range earlier {
		a := slurm.SqueueArgs(id)
		out, err := exec.CommandContext(ctx, a[0], a[1:]...).Output()
		if err != nil {
			continue
		}
		if ts, _ := slurm.ParseSqueue(id, string(out)); len(ts) > 0 {
			fmt.Printf("run: Slurm array %s from an earlier run stage is still going (%d task(s)); waiting for it\n", id, len(ts))
			if _, err := slurm.Wait(ctx, id, e.profile.Slurm.PollEvery.Duration, nil); err != nil && ctx.Err() != nil {
				return ctx.Err()
			}
		}
	}
	return nil
}

// triageSlurmJobs splits the pending runs into those to submit, those an
// earlier array finished (late: only ingested), and those refuse names a
// reason for (recorded failed, not submitted; one summary line each).
func triageSlurmJobs(ctx context.Context, e *env, rec *record.Recorder, jobs []*runner.Job, refuse func(*runner.Job) string) (todo, late []*runner.Job, refused []string, err error) {
	for _, j := range jobs {
		if in, done := runner.Finished(j.RunDir); done && !(e.o.RetryFailed && in.Status == runner.StatusFailed) {
			late = append(late, j) // finished by an earlier array: only ingested
			continue
		}
		if refuse != nil {
			if why := refuse(j); why != "" {
				in, err := runner.NotStarted(j, why)
				if err != nil {
					return nil, nil, nil, err
				}
				if err := rec.End(ctx, j, in); err != nil {
					return nil, nil, nil, fmt.Errorf("run: record %s: %w", j.ID(), err)
				}
				refused = append(refused, fmt.Sprintf("%s: %s", j.ID(), in.Error))
				continue
			}
		}
		todo = append(todo, j)
	}
	return todo, late, refused, nil
}

// arrayProgress prints an array's task states as Slurm reports them, when
// they change.
func arrayProgress(id string, start time.Time) func([]slurm.TaskState) {
	last := ""
	return func(ts []slurm.TaskState) {
		n := map[string]int{}
		for _, t := range ts {
			n[t.State]++
		}
		var parts []string
		for k, v := range n {
			parts = append(parts, fmt.Sprintf("%d %s", v, strings.ToLower(k)))
		}
		sort.Strings(parts)
		line := strings.Join(parts, ", ")
		if line == "" || line == last {
			return
		}
		last = line
		fmt.Fprintf(os.Stderr, "run: array %s: %s, elapsed %s\n", id, line, time.Since(start).Round(time.Second))
	}
}

// taskEnd says how Slurm says a task ended.
func taskEnd(id string, s slurm.TaskState) string {
	w := fmt.Sprintf("Slurm task %s_%d ended %s (exit %d", id, s.Index, s.State, s.ExitCode)
	if s.Signal != 0 {
		w += fmt.Sprintf(", signal %d", s.Signal)
	}
	if s.Reason != "" && s.Reason != "None" {
		w += ", " + s.Reason
	}
	return w + ")"
}

// ingestArray records the runs of an ended array and returns how many
// ended done and how many did not. A run that could not say how it ended
// (no run.json, or one still saying running: killed with its node, for its
// memory, cancelled before it started) is recorded with the reason Slurm
// gives: interrupted when it was cancelled (stopping: by this stage),
// failed when Slurm ended it otherwise; its run.json says so, so that a
// failed one is kept (REXMLE_RETRY_FAILED=1 reruns it) and an interrupted
// one restarted.
func ingestArray(ctx context.Context, e *env, rec *record.Recorder, a slurmArray, states []slurm.TaskState, stopping bool) (done, notDone int, err error) {
	byIndex := map[int]slurm.TaskState{}
	for _, s := range states {
		byIndex[s.Index] = s
	}
	for i, j := range a.jobs {
		s, known := byIndex[i]
		w := fmt.Sprintf("Slurm task %s_%d: no record of how it ended", a.id, i)
		if known {
			w = taskEnd(a.id, s)
		}
		if in, err := runner.ReadInfo(j.RunDir); err != nil || in.Status == runner.StatusRunning {
			var err error
			switch {
			case stopping:
				_, err = runner.EndedUnseen(j, runner.StatusInterrupted, "the run stage was stopped and cancelled it: "+w)
			case known && (s.State == "CANCELLED" || s.State == "PREEMPTED"):
				_, err = runner.EndedUnseen(j, runner.StatusInterrupted, "cancelled outside the run stage: "+w)
			case known && s.Final():
				_, err = runner.EndedUnseen(j, runner.StatusFailed, w)
			}
			if err != nil {
				return done, notDone, fmt.Errorf("run: %w", err)
			}
		}
		in, err := rec.Ingest(ctx, j, w)
		if err != nil {
			return done, notDone, fmt.Errorf("run: ingest %s: %w", j.ID(), err)
		}
		if in.Status == runner.StatusDone {
			done++
			continue
		}
		notDone++
		if !stopping {
			fmt.Printf("  %s: %s %s (log: %s)\n", j.ID(), in.Status, in.Error, e.rel(filepath.Join(j.RunDir, "logs", "console.log")))
		}
	}
	return done, notDone, nil
}
