package runstage

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
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
// arrays it submitted (scancel), which stops the runs as interrupted.
// Runs refuse names a reason for are recorded failed, not submitted, and
// make the stage exit non-zero.
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
	for _, r := range refused {
		fmt.Println("  " + r)
	}
	stamp := time.Now().UTC().Format("20060102T150405")
	base := filepath.Join(root, stamp)
	byGPUs := map[int][]*runner.Job{}
	for _, j := range jobs {
		byGPUs[j.Agent.GPUs] = append(byGPUs[j.Agent.GPUs], j)
	}
	var arrays []slurmArray
	for g, js := range byGPUs {
		path, script, err := writeArrayScript(e, filepath.Join(base, fmt.Sprintf("gpus-%d", g)), g, js)
		if err != nil {
			return err
		}
		if e.opt.DryRun {
			fmt.Printf("would submit %s (%d tasks):\n%s\n", e.rel(path), len(js), script)
			continue
		}
		id, err := slurm.Submit(ctx, path)
		if err != nil {
			return err
		}
		fmt.Printf("run: submitted Slurm array %s: %d run(s), %d GPU(s) each (script %s)\n", id, len(js), g, e.rel(path))
		arrays = append(arrays, slurmArray{id, js})
	}
	if e.opt.DryRun {
		return nil
	}
	ids := make([]string, len(arrays))
	for i, a := range arrays {
		ids[i] = a.id
	}
	if b, err := json.Marshal(ids); err == nil {
		fsutil.WriteFile(activeFile, b, 0o644)
	}
	start := time.Now()
	notDone := 0
	for _, a := range arrays {
		states, err := slurm.Wait(ctx, a.id, e.profile.Slurm.PollEvery.Duration, arrayProgress(a.id, start))
		if err != nil {
			if ctx.Err() != nil {
				if cerr := slurm.Cancel(a.id); cerr != nil {
					e.log.Warn("array not cancelled", "job", a.id, "err", cerr)
				}
				fmt.Printf("run: stopped; Slurm array %s cancelled. Run `go run mage.go run` again to resume.\n", a.id)
				return ctx.Err()
			}
			e.log.Warn("cannot follow the Slurm array; ingesting what its tasks wrote", "job", a.id, "err", err)
		}
		n, err := ingestArray(ctx, e, rec, a, states)
		if err != nil {
			return err
		}
		notDone += n
	}
	for _, j := range late {
		in, err := rec.Ingest(ctx, j, "ran in an earlier Slurm array")
		if err != nil {
			return fmt.Errorf("run: ingest %s: %w", j.ID(), err)
		}
		if in.Status != runner.StatusDone {
			notDone++
		}
	}
	os.Remove(activeFile)
	fmt.Printf("run: %d run(s) on Slurm in %s, %d not done, %d could not start, %d already finished\n", len(jobs), time.Since(start).Round(time.Millisecond), notDone, len(refused), kept)
	if len(refused) > 0 {
		return fmt.Errorf("run: %d run(s) could not start (recorded failed; fix the problems above, then rerun them with REXMLE_RETRY_FAILED=1): %s",
			len(refused), strings.Join(firstIDs(refused, 5), ", "))
	}
	return nil
}

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

// arrayProgress prints an array's task states as Slurm reports them.
func arrayProgress(id string, start time.Time) func([]slurm.TaskState) {
	return func(ts []slurm.TaskState) {
		n := map[string]int{}
		for _, t := range ts {
			n[t.State]++
		}
		var parts []string
		for k, v := range n {
			parts = append(parts, fmt.Sprintf("%d %s", v, strings.ToLower(k)))
		}
		fmt.Fprintf(os.Stderr, "run: array %s: %s, elapsed %s\n", id, strings.Join(parts, ", "), time.Since(start).Round(time.Second))
	}
}

// ingestArray records the runs of an ended array, with the reason Slurm's
// accounting gives for a task that did not end done, and returns how many
// did not.
func ingestArray(ctx context.Context, e *env, rec *record.Recorder, a slurmArray, states []slurm.TaskState) (notDone int, err error) {
	why := map[int]string{}
	for _, s := range states {
		why[s.Index] = fmt.Sprintf("Slurm task %s_%d ended %s (exit %d)", a.id, s.Index, s.State, s.ExitCode)
	}
	for i, j := range a.jobs {
		w := why[i]
		if w == "" {
			w = fmt.Sprintf("Slurm task %s_%d: no accounting record", a.id, i)
		}
		in, err := rec.Ingest(ctx, j, w)
		if err != nil {
			return notDone, fmt.Errorf("run: ingest %s: %w", j.ID(), err)
		}
		if in.Status != runner.StatusDone {
			notDone++
			fmt.Printf("  %s: %s %s (log: %s)\n", j.ID(), in.Status, in.Error, e.rel(filepath.Join(j.RunDir, "logs", "console.log")))
		}
	}
	return notDone, nil
}
