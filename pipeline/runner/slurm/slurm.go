// Package slurm runs a profile's agent runs on a Slurm cluster: one job
// array per run stage (one array task per run), submitted with sbatch,
// followed with squeue and sacct. Each task runs `rexmle-agent task
// MANIFEST INDEX`, which executes its run with the local runner on the node
// and writes only files in the run folder (run.json, telemetry.jsonl,
// logs); the run stage ingests those folders into the store when the array
// ends. Tasks never open the database.
package slurm

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/rexmle/rexmle/pipeline/challenge"
	"github.com/rexmle/rexmle/pipeline/config"
	"github.com/rexmle/rexmle/pipeline/fsutil"
	"github.com/rexmle/rexmle/pipeline/gpu"
	"github.com/rexmle/rexmle/pipeline/runner"
	"github.com/rexmle/rexmle/pipeline/runner/validate"
	"github.com/rexmle/rexmle/pipeline/settings"
)

// Task is one array task: everything `rexmle-agent task` needs to run it.
type Task struct {
	Group       string        `json:"group"`
	Challenge   string        `json:"challenge"`
	Agent       config.Agent  `json:"agent"`
	Seed        int           `json:"seed"`
	PublicDir   string        `json:"public_dir"`
	PrivateDir  string        `json:"private_dir"` // for the validation endpoint, read by the task process only
	Mode        string        `json:"mode"`
	RunDir      string        `json:"run_dir"`
	Setting     string        `json:"setting"`
	TimeLimit   time.Duration `json:"time_limit"`
	Grace       time.Duration `json:"grace"`
	AgentBin    string        `json:"agent_bin"`
	Engine      string        `json:"engine,omitempty"` // the REXMLE_ENGINE setting of the submitting pipeline
	BenchHash   string        `json:"benchmark_sha256"`
	Hide        []string      `json:"hide"`
	SampleEvery time.Duration `json:"sample_every"`
}

// TaskOf is the task for a planned job.
func TaskOf(j *runner.Job, privateDir, mode string) Task {
	return Task{Group: j.Group, Challenge: j.Challenge, Agent: j.Agent, Seed: j.Seed, PublicDir: j.PublicDir, PrivateDir: privateDir,
		Mode: mode, RunDir: j.RunDir, Setting: j.Setting, TimeLimit: j.TimeLimit, Grace: j.Grace, AgentBin: j.AgentBin, Engine: j.EngineSetting,
		BenchHash: j.BenchHash, Hide: j.Hide, SampleEvery: j.SampleEvery}
}

// Job is the runner job of a task.
func (t Task) Job() *runner.Job {
	return &runner.Job{Group: t.Group, Challenge: t.Challenge, Agent: t.Agent, Seed: t.Seed, PublicDir: t.PublicDir, RunDir: t.RunDir,
		Setting: t.Setting, TimeLimit: t.TimeLimit, Grace: t.Grace, AgentBin: t.AgentBin, EngineSetting: t.Engine, BenchHash: t.BenchHash, Hide: t.Hide,
		SampleEvery: t.SampleEvery}
}

// WriteManifest writes the tasks, in array-index order, as JSON.
func WriteManifest(path string, tasks []Task) error {
	b, err := json.MarshalIndent(tasks, "", " ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return fsutil.WriteFile(path, b, 0o644)
}

// ReadManifest reads what WriteManifest wrote.
func ReadManifest(path string) ([]Task, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var ts []Task
	if err := json.Unmarshal(b, &ts); err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return ts, nil
}

// RunTask runs task index of the manifest on this node (the body of
// `rexmle-agent task`) with host, the task's environment as Slurm set it:
// GPUs from its CUDA_VISIBLE_DEVICES, the agent's passed variables,
// NVML telemetry when the driver is there, the validation endpoint, and
// SIGTERM from Slurm (scancel, the job's time) stopping the run as
// interrupted.
func RunTask(ctx context.Context, manifest string, index int, host settings.Environ) (*runner.Info, error) {
	ts, err := ReadManifest(manifest)
	if err != nil {
		return nil, err
	}
	if index < 0 || index >= len(ts) {
		return nil, fmt.Errorf("task %d: the manifest has %d tasks", index, len(ts))
	}
	t := ts[index]
	j := t.Job()
	j.Host = host
	if v := host.Get("CUDA_VISIBLE_DEVICES"); v != "" && t.Agent.GPUs > 0 {
		for _, f := range strings.Split(v, ",") {
			if i, err := strconv.Atoi(strings.TrimSpace(f)); err == nil {
				j.GPUs = append(j.GPUs, i)
			}
		}
	}
	if len(j.GPUs) > 0 {
		if s, err := gpu.OpenNVML(j.GPUs); err != nil {
			j.TelemetryNote = err.Error()
		} else {
			j.Sampler = s
			defer s.Close()
		}
	} else {
		j.TelemetryNote = "the run holds no GPU"
	}
	if c, ok := challenge.Lookup(t.Challenge); ok && t.PrivateDir != "" {
		mode, err := challenge.ParseMode(t.Mode)
		if err != nil {
			return nil, err
		}
		j.Validate = validate.Check(c, t.PrivateDir, mode)
	}
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGTERM, os.Interrupt)
	defer stop()
	return runner.Execute(ctx, j)
}

// Options are the sbatch settings of one array.
type Options struct {
	Name        string
	Tasks       int
	Manifest    string // absolute path of the tasks' manifest
	AgentBin    string // absolute path of rexmle-agent on the shared file system
	LogDir      string // where Slurm writes each task's output
	TimeLimit   time.Duration
	GPUsPerTask int
	config.Slurm
}

// FormatTime writes d as Slurm's --time "D-HH:MM:SS", rounded up to the
// second; d ≤ 0 gives "0-00:01:00".
func FormatTime(d time.Duration) string {
	if d <= 0 {
		return "0-00:01:00"
	}
	s := int64((d + time.Second - 1) / time.Second)
	return fmt.Sprintf("%d-%02d:%02d:%02d", s/86400, s%86400/3600, s%3600/60, s%60)
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// Script is the sbatch script of the array. --time is the longest run's
// limit plus the margin (default 15 min) for start-up and the grace period.
func Script(o Options) (string, error) {
	if o.Tasks <= 0 {
		return "", errors.New("slurm script: no tasks")
	}
	if o.Manifest == "" || o.AgentBin == "" || o.LogDir == "" {
		return "", errors.New("slurm script: manifest, agent binary and log folder are required")
	}
	margin := o.TimeMargin.Duration
	if margin <= 0 {
		margin = 15 * time.Minute
	}
	var b strings.Builder
	b.WriteString("#!/bin/bash\n")
	opt := func(format string, args ...any) { fmt.Fprintf(&b, "#SBATCH "+format+"\n", args...) }
	name := o.Name
	if name == "" {
		name = "rexmle"
	}
	opt("--job-name=%s", name)
	arr := fmt.Sprintf("0-%d", o.Tasks-1)
	if o.MaxParallel > 0 {
		arr += fmt.Sprintf("%%%d", o.MaxParallel)
	}
	opt("--array=%s", arr)
	opt("--time=%s", FormatTime(o.TimeLimit+margin))
	opt("--ntasks=1")
	if o.Partition != "" {
		opt("--partition=%s", o.Partition)
	}
	if o.Account != "" {
		opt("--account=%s", o.Account)
	}
	if o.GPUsPerTask > 0 {
		opt("--gres=gpu:%d", o.GPUsPerTask)
	}
	if o.CPUsPerTask > 0 {
		opt("--cpus-per-task=%d", o.CPUsPerTask)
	}
	if o.MemPerTask != "" {
		opt("--mem=%s", o.MemPerTask)
	}
	opt("--output=%s", filepath.Join(o.LogDir, "%A_%a.out"))
	for _, x := range o.ExtraOptions {
		opt("%s", x)
	}
	b.WriteString("set -eu\n")
	fmt.Fprintf(&b, "exec %s task %s \"$SLURM_ARRAY_TASK_ID\"\n", shellQuote(o.AgentBin), shellQuote(o.Manifest))
	return b.String(), nil
}

// Submit submits the script with `sbatch --parsable` and returns the job id.
func Submit(ctx context.Context, script string) (string, error) {
	out, err := exec.CommandContext(ctx, "sbatch", "--parsable", script).CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("sbatch %s: %v: %s", script, err, strings.TrimSpace(string(out)))
	}
	id := strings.TrimSpace(string(out))
	if i := strings.IndexByte(id, ';'); i >= 0 { // "id;cluster"
		id = id[:i]
	}
	if _, err := strconv.Atoi(id); err != nil {
		return "", fmt.Errorf("sbatch %s: unexpected answer %q", script, out)
	}
	return id, nil
}

// TaskState is one array task as squeue or sacct reports it.
type TaskState struct {
	Index    int
	State    string // PENDING, RUNNING, COMPLETED, FAILED, CANCELLED, TIMEOUT, ...
	ExitCode int    // sacct and scontrol only; -1 when unknown
	Reason   string // squeue's and scontrol's reason (squeue: the node list once running), sacct's elapsed time
	Signal   int    // the signal that ended it (sacct and scontrol only; 0: none)
}

// Final reports whether the state is one a task ends in.
func (t TaskState) Final() bool {
	switch t.State {
	case "PENDING", "RUNNING", "CONFIGURING", "COMPLETING", "REQUEUED", "RESIZING", "SUSPENDED", "REQUEUE_HOLD", "REQUEUE_FED", "SIGNALING", "STAGE_OUT":
		return false
	}
	return true
}

// taskIndices reads an array job id "123_4" or "123_[5-9%2]" / "123_[1,3-4]".
func taskIndices(jobID, id string) ([]int, bool) {
	if !strings.HasPrefix(id, jobID+"_") {
		return nil, false
	}
	s := strings.TrimPrefix(id, jobID+"_")
	if !strings.HasPrefix(s, "[") {
		i, err := strconv.Atoi(s)
		return []int{i}, err == nil
	}
	s = strings.TrimSuffix(strings.TrimPrefix(s, "["), "]")
	if i := strings.IndexByte(s, '%'); i >= 0 {
		s = s[:i]
	}
	var out []int
	for _, part := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		if err != nil {
			return nil, false
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(hi); err != nil || b < a {
				return nil, false
			}
		}
		for i := a; i <= b; i++ {
			out = append(out, i)
		}
	}
	return out, true
}

// SqueueArgs is the squeue command line ParseSqueue reads.
func SqueueArgs(jobID string) []string {
	return []string{"squeue", "--noheader", "--array", "--jobs", jobID, "--format=%i|%T|%R"}
}

// ParseSqueue reads `squeue --noheader --array --format=%i|%T|%R` output
// for the array jobID: one line per task (or per pending range).
func ParseSqueue(jobID, out string) ([]TaskState, error) {
	var ts []TaskState
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		f := strings.SplitN(line, "|", 3)
		if len(f) < 2 {
			return nil, fmt.Errorf("squeue: cannot read line %q", line)
		}
		idx, ok := taskIndices(jobID, f[0])
		if !ok {
			continue // another job, or the array's parent line
		}
		reason := ""
		if len(f) == 3 {
			reason = f[2]
		}
		for _, i := range idx {
			ts = append(ts, TaskState{Index: i, State: f[1], ExitCode: -1, Reason: reason})
		}
	}
	return ts, sc.Err()
}

// SacctArgs is the sacct command line ParseSacct reads.
func SacctArgs(jobID string) []string {
	return []string{"sacct", "--noheader", "--parsable2", "--allocations", "--jobs", jobID, "--format=JobID,State,ExitCode,Elapsed"}
}

// ParseSacct reads `sacct --noheader --parsable2 --allocations
// --format=JobID,State,ExitCode,Elapsed` output for the array jobID. States
// such as "CANCELLED by 0" keep their first word; ExitCode "2:0" is 2.
func ParseSacct(jobID, out string) ([]TaskState, error) {
	var ts []TaskState
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		f := strings.Split(line, "|")
		if len(f) < 3 {
			return nil, fmt.Errorf("sacct: cannot read line %q", line)
		}
		idx, ok := taskIndices(jobID, f[0])
		if !ok {
			continue
		}
		state := f[1]
		if i := strings.IndexByte(state, ' '); i >= 0 {
			state = state[:i]
		}
		code, sig := exitCode(f[2])
		elapsed := ""
		if len(f) > 3 {
			elapsed = f[3]
		}
		for _, i := range idx {
			ts = append(ts, TaskState{Index: i, State: state, ExitCode: code, Signal: sig, Reason: elapsed})
		}
	}
	return ts, sc.Err()
}

// exitCode reads Slurm's "EXIT:SIGNAL" (e.g. "2:0", "0:9"); -1, 0 when it
// cannot.
func exitCode(s string) (code, signal int) {
	c, g, ok := strings.Cut(s, ":")
	if !ok {
		return -1, 0
	}
	n, err := strconv.Atoi(c)
	if err != nil {
		return -1, 0
	}
	sig, _ := strconv.Atoi(g)
	return n, sig
}

// ScontrolArgs is the scontrol command line ParseScontrol reads.
func ScontrolArgs(jobID string) []string {
	return []string{"scontrol", "--oneliner", "show", "job", jobID}
}

// ParseScontrol reads `scontrol --oneliner show job JOBID` output for the
// array jobID: one line per task, or per range of tasks that never started
// ("ArrayTaskId=1-3%1"), with JobState, Reason and ExitCode "EXIT:SIGNAL".
// It is what tells how tasks ended on a cluster without accounting (no
// slurmdbd, so no sacct), while the controller still holds the job
// (MinJobAge, 300 s by default).
func ParseScontrol(jobID, out string) ([]TaskState, error) {
	var ts []TaskState
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		kv := map[string]string{}
		for _, f := range strings.Fields(line) {
			if k, v, ok := strings.Cut(f, "="); ok {
				if _, seen := kv[k]; !seen {
					kv[k] = v
				}
			}
		}
		if kv["JobId"] == "" || kv["JobState"] == "" {
			return nil, fmt.Errorf("scontrol: cannot read line %q", line)
		}
		if kv["ArrayJobId"] != jobID {
			continue // another job
		}
		idx, ok := taskIndices(jobID, jobID+"_["+kv["ArrayTaskId"]+"]")
		if !ok {
			return nil, fmt.Errorf("scontrol: cannot read ArrayTaskId=%s", kv["ArrayTaskId"])
		}
		code, sig := exitCode(kv["ExitCode"])
		for _, i := range idx {
			ts = append(ts, TaskState{Index: i, State: kv["JobState"], ExitCode: code, Signal: sig, Reason: kv["Reason"]})
		}
	}
	return ts, sc.Err()
}

// controllerStates asks the controller how the array's tasks ended
// (scontrol); nil when it no longer holds the job or cannot be asked.
func controllerStates(ctx context.Context, jobID string) []TaskState {
	a := ScontrolArgs(jobID)
	out, err := exec.CommandContext(ctx, a[0], a[1:]...).Output()
	if err != nil {
		return nil
	}
	ts, err := ParseScontrol(jobID, string(out))
	if err != nil {
		return nil
	}
	return ts
}

// Wait polls squeue every poll until no task of the array is queued or
// running, calling progress with the live states, then returns sacct's
// final states (tasks sacct does not know are absent; without accounting,
// scontrol's, while the controller holds the job). A cancelled ctx
// returns ctx.Err() and leaves the array to the caller.
func Wait(ctx context.Context, jobID string, poll time.Duration, progress func([]TaskState)) ([]TaskState, error) {
	if poll <= 0 {
		poll = 30 * time.Second
	}
	fails := 0
	for {
		a := SqueueArgs(jobID)
		out, err := exec.CommandContext(ctx, a[0], a[1:]...).CombinedOutput()
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if err != nil {
			// squeue errors for a job that has left the queue on some versions.
			if strings.Contains(string(out), "Invalid job id") {
				break
			}
			if fails++; fails > 5 {
				return nil, fmt.Errorf("squeue: %v: %s", err, strings.TrimSpace(string(out)))
			}
		} else {
			fails = 0
			ts, err := ParseSqueue(jobID, string(out))
			if err != nil {
				return nil, err
			}
			if progress != nil {
				progress(ts)
			}
			if len(ts) == 0 {
				break
			}
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(poll):
		}
	}
	a := SacctArgs(jobID)
	var last error
	for try := 0; try < 5; try++ { // accounting may lag the queue by a moment
		out, err := exec.CommandContext(ctx, a[0], a[1:]...).CombinedOutput()
		if err != nil && strings.Contains(string(out), "accounting storage is disabled") {
			// A cluster without slurmdbd: the controller tells while it
			// holds the job, and the run folders tell the rest.
			return controllerStates(ctx, jobID), nil
		}
		if err != nil {
			last = fmt.Errorf("sacct: %v: %s", err, strings.TrimSpace(string(out)))
		} else {
			ts, err := ParseSacct(jobID, string(out))
			if err != nil {
				return nil, err
			}
			final := true
			for _, t := range ts {
				final = final && t.Final()
			}
			if len(ts) > 0 && final {
				return ts, nil
			}
			last = nil
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(time.Second):
		}
	}
	if last != nil {
		return nil, last
	}
	return controllerStates(ctx, jobID), nil // no accounting record yet: the controller's, or the run folders tell
}

// Stop stops the array as a stopped run stage must: tasks not started yet
// are cancelled, and in each running task the batch step alone
// (rexmle-agent task) gets SIGTERM, so that it stops its run within the
// agent's grace period and records it interrupted. A plain scancel (Cancel)
// signals every process of the job, the agent's included, which then dies
// before the run can record that it was stopped (it was recorded failed,
// "signal: terminated"), and Slurm's SIGKILL follows after its KillWait
// (30 s by default) whatever the grace period. Pending tasks are cancelled
// again after the signal, for one that started in between.
func Stop(jobID string) error {
	var errs []error
	for _, args := range [][]string{{"--state=PENDING", jobID}, {"--batch", "--signal=TERM", "--state=RUNNING", jobID}, {"--state=PENDING", jobID}} {
		if out, err := exec.Command("scancel", args...).CombinedOutput(); err != nil {
			errs = append(errs, fmt.Errorf("scancel %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(string(out))))
		}
	}
	return errors.Join(errs...)
}

// Cancel cancels the array outright (scancel): every process of its tasks
// gets SIGTERM, then SIGKILL after Slurm's KillWait.
func Cancel(jobID string) error {
	out, err := exec.Command("scancel", jobID).CombinedOutput()
	if err != nil {
		return fmt.Errorf("scancel %s: %v: %s", jobID, err, strings.TrimSpace(string(out)))
	}
	return nil
}
