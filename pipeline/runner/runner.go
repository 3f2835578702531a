// Package runner launches agents on prepared challenges: one process group
// per run, isolated where the kernel or a container engine allows it, a time
// budget enforced with SIGTERM then SIGKILL, GPU telemetry sampled as it
// goes, and a run folder results/runs/<group>/<challenge>/<agent>/seed-<n>/
// with workspace/, submission/, logs/, telemetry.jsonl and run.json. The
// agent is given the public data folder only; the private answers are never
// passed, linked or copied, and a sandboxed agent cannot even see them.
//
// Executors: "local" runs the agent on this host in a bubblewrap sandbox
// (package sandbox: a fresh root with read-only system folders, the public
// data read-only, the run's workspace, submission, logs and home
// read-write, uid 1000 without capabilities, its own PID namespace so that
// every descendant dies with the run, no network but loopback). A sandbox
// that cannot start fails the run with the reason; sandbox = "none" is the
// only way to run without isolation. An agent with an egress list reaches
// exactly those host:port endpoints through a proxy (package egress); the
// validation endpoint is reachable over HTTP on loopback
// ($REXMLE_VALIDATE_URL). "docker" and "apptainer" build the engines'
// command lines (see buildDocker, buildApptainer): they need the engine
// installed and, for GPUs, the NVIDIA container toolkit; this package only
// constructs and starts the command.
//
// When the run ends (done, failed, timed out or interrupted) and every
// process of it is gone, the submission folder is sealed: replaced by a
// copy of its regular files within size caps (see sealSubmission), so that
// nothing written afterwards is graded and no FIFO or giant file reaches
// the graders; run.json records what was dropped. The run's other folders
// are handed back to the pipeline's user (special files removed, setuid
// and group/world write stripped: see handBack), and every file read back
// from the run goes through fsutil.OpenIn (no link followed, no FIFO
// opened, size caps); what was skipped is listed in run.json.
//
// Resource limits (package runlimits): processes, memory, file size and
// disk, per agent, enforced with rlimits inside the bwrap sandbox
// (`rexmle-agent limits`), the container engine's flags, and a watchdog
// that stops a run whose memory (PSS) or disk use passes its limit.
//
// Working time: an agent may report the time it spent working (as opposed
// to waiting, e.g. on an API) either by writing logs/working_time.json as
// {"working_seconds": 1234.5} or by printing a line
// "REXMLE_WORKING_SECONDS=1234.5" on stdout or stderr (the last one counts;
// the file wins over the line). It is recorded in run.json as
// working_seconds; without it the field is absent.
package runner

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/rexmle/rexmle/pipeline/config"
	"github.com/rexmle/rexmle/pipeline/fsutil"
	"github.com/rexmle/rexmle/pipeline/gpu"
	"github.com/rexmle/rexmle/pipeline/runlimits"
	"github.com/rexmle/rexmle/pipeline/runner/egress"
	"github.com/rexmle/rexmle/pipeline/runstatus"
	"github.com/rexmle/rexmle/pipeline/settings"
)

// Run statuses in run.json: the words of pipeline/runstatus.
const (
	StatusRunning     = string(runstatus.Running)
	StatusDone        = string(runstatus.Done)
	StatusFailed      = string(runstatus.Failed)
	StatusTimedOut    = string(runstatus.TimedOut)
	StatusInterrupted = string(runstatus.Interrupted)
)

// Job is one (challenge, agent, seed) run.
type Job struct {
	Group     string // the run group, e.g. the profile name
	Challenge string
	Agent     config.Agent
	Seed      int
	PublicDir string
	RunDir    string
	Setting   string
	TimeLimit time.Duration
	Grace     time.Duration
	AgentBin  string // the rexmle-agent binary: built-in agents and the sandbox wrapper
	// Host is the environment the settings captured: the variables the
	// agent may see by name (its env list: API keys, endpoints) are taken
	// from it. The zero value passes none.
	Host settings.Environ
	// EngineSetting is the REXMLE_ENGINE setting: the container engine of
	// an agent that sets none ("": docker).
	EngineSetting string
	// BridgeBin is a static (cgo-free) rexmle-bridge binary: mounted into
	// containers, it forwards loopback ports to the egress proxy and the
	// validation endpoint (the image's libc need not match the host's).
	BridgeBin string
	BenchHash string
	// Hide lists the pipeline's own roots (the data root, the results
	// root). The bwrap sandbox shows nothing it does not bind in, so these
	// are hidden by construction; when the pipeline runs as root, folders
	// inside them on the way to the public data and the run folder are
	// made searchable (o+x) for the sandbox's host user (nobody).
	Hide []string
	// ReadOnly lists extra host paths a sandboxed agent sees read-only at
	// the same path (e.g. an agent installed outside the system folders).
	ReadOnly []string
	// SnapshotMaxFile and SnapshotMaxTotal cap the sealed submission (0:
	// DefaultSnapshotMaxFile, DefaultSnapshotMaxTotal).
	SnapshotMaxFile, SnapshotMaxTotal int64
	// GPUs are the NVML indices the run holds (CUDA_VISIBLE_DEVICES); set
	// by the scheduler.
	GPUs []int
	// limits are the run's resource limits, resolved by Execute from the
	// agent's settings (package runlimits).
	limits runlimits.Limits

	// Sampler reads the run's GPUs; nil records telemetry as unavailable
	// with TelemetryNote as the reason.
	Sampler       gpu.Sampler
	TelemetryNote string
	SampleEvery   time.Duration // default 5s
	// OnSamples receives each tick's samples (the stage stores them in
	// SQLite in batches); they also go to telemetry.jsonl in the run folder.
	OnSamples func([]gpu.Sample)
	// Validate checks a submission folder's format against the private
	// answers; nil: no validation endpoint for this run.
	Validate func(ctx context.Context, submissionDir string) error

	Log *slog.Logger
}

// ID is the run's id: <group>/<challenge>/<agent>/seed-<n>, as the grade stage names it.
func (j *Job) ID() string {
	return fmt.Sprintf("%s/%s/%s/seed-%d", j.Group, j.Challenge, j.Agent.ID, j.Seed)
}

// Info is run.json.
type Info struct {
	Group          string       `json:"group"`
	Challenge      string       `json:"challenge"`
	Agent          string       `json:"agent"`
	Backend        string       `json:"backend"`
	Setting        string       `json:"setting"`
	Seed           int          `json:"seed"`
	Status         string       `json:"status"` // running, done, failed, timed_out, interrupted
	ExitCode       int          `json:"exit_code"`
	TimedOut       bool         `json:"timed_out"`
	Error          string       `json:"error,omitempty"`
	StartedAt      string       `json:"started_at"`
	EndedAt        string       `json:"ended_at,omitempty"`
	WallSeconds    float64      `json:"wall_seconds"`
	WorkingSeconds *float64     `json:"working_seconds,omitempty"`
	TimeLimit      float64      `json:"time_limit_seconds"`
	Host           string       `json:"host"`
	Executor       string       `json:"executor"`
	Isolation      string       `json:"isolation"` // bwrap: ..., container: ..., none: <why>
	Command        []string     `json:"command"`
	GPUs           []int        `json:"gpus"`
	Telemetry      string       `json:"telemetry"` // nvml or "unavailable: <why>"
	GPUSummary     *gpu.Summary `json:"gpu_summary,omitempty"`
	Validation     string       `json:"validation_socket,omitempty"`
	ValidationURL  string       `json:"validation_url,omitempty"` // inside the sandbox
	Egress         []string     `json:"egress,omitempty"`         // endpoints the proxy allowed
	EgressRefused  int          `json:"egress_refused,omitempty"` // requests it refused
	Snapshot       *Snapshot    `json:"snapshot,omitempty"`
	// Limits are the run's resource limits and where each came from.
	Limits *runlimits.Limits `json:"limits,omitempty"`
	// LogProblems says which files the run left that the pipeline did not
	// read, and why (a FIFO as console.log, a link, a file over its cap).
	LogProblems []string `json:"log_problems,omitempty"`
	// CopyOut says what handing the run's folders back removed or stripped.
	CopyOut   *CopyOut `json:"copy_out,omitempty"`
	BenchHash string   `json:"benchmark_sha256"`
}

// ReadInfo reads runDir/run.json.
func ReadInfo(runDir string) (*Info, error) {
	b, err := fsutil.ReadFileIn(runDir, "run.json", maxRunJSONBytes)
	if err != nil {
		return nil, err
	}
	var in Info
	if err := json.Unmarshal(b, &in); err != nil {
		return nil, fmt.Errorf("read %s: %w", filepath.Join(runDir, "run.json"), err)
	}
	return &in, nil
}

// Finished reports whether runDir holds a run that ended (done, failed or timed out).
func Finished(runDir string) (*Info, bool) {
	in, err := ReadInfo(runDir)
	if err != nil {
		return nil, false
	}
	return in, in.Status == StatusDone || in.Status == StatusFailed || in.Status == StatusTimedOut
}

func writeInfo(runDir string, in *Info) error {
	b, err := json.MarshalIndent(in, "", "  ")
	if err != nil {
		return fmt.Errorf("encode run.json: %w", err)
	}
	return fsutil.WriteFile(filepath.Join(runDir, "run.json"), append(b, '\n'), 0o644)
}

func (j *Job) logger() *slog.Logger {
	if j.Log != nil {
		return j.Log
	}
	return slog.Default()
}

// Execute runs the job to completion or to its time limit and writes
// run.json. A cancelled ctx stops the agent (SIGTERM, then SIGKILL after the
// grace period) and leaves the run marked interrupted; the error is then
// ctx.Err().
func Execute(ctx context.Context, j *Job) (*Info, error) {
	dirs, err := cleanRunDir(j.RunDir)
	if err != nil {
		return nil, err
	}
	limit := j.TimeLimit
	if limit <= 0 {
		limit = 24 * time.Hour
	}
	grace := j.graceOrDefault()
	in := j.startInfo(limit)
	fail := func(err error) (*Info, error) {
		in.Status, in.Error = StatusFailed, err.Error()
		in.CopyOut = handBack(j.RunDir, []string{"workspace", "logs", "home"}) // they may have been given to the sandbox's uid
		in.EndedAt = time.Now().UTC().Format(time.RFC3339Nano)
		return in, writeInfo(j.RunDir, in)
	}
	lim, err := runlimits.Resolve(j.Agent, j.RunDir, runlimits.System())
	if err != nil {
		return fail(fmt.Errorf("agent %s: resource limits: %w", j.Agent.ID, err))
	}
	j.limits, in.Limits = lim, &lim
	local := j.Agent.Executor == "" || j.Agent.Executor == "local"
	sandboxed := local && j.Agent.Sandbox != "none"
	if sandboxed {
		if err := prepareSandboxDirs(j, dirs); err != nil {
			return fail(fmt.Errorf("prepare the sandbox folders: %w", err))
		}
	}

	var val *validationServer
	if j.Validate != nil {
		v, err := startValidation(j)
		if err != nil {
			return fail(fmt.Errorf("validation endpoint: %w", err))
		}
		val = v
		defer val.Close()
		in.Validation = val.socket
	}
	containerized := j.Agent.Executor == "docker"
	proxy, egressSock, closeEgress, err := j.startEgress(ctx, sandboxed || containerized)
	defer closeEgress()
	if err != nil {
		return fail(err)
	}
	spec, err := j.buildWith(val, egressSock)
	if err != nil {
		return fail(err)
	}
	defer spec.closeFiles()
	in.Command, in.Isolation, in.Egress, in.ValidationURL = spec.display, spec.isolation, spec.egress, spec.validate
	if err := writeInfo(j.RunDir, in); err != nil {
		return nil, err
	}
	logf, err := os.Create(filepath.Join(j.RunDir, "logs", "console.log"))
	if err != nil {
		return fail(err)
	}
	defer logf.Close()
	cmd := spec.command(logf)
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return fail(fmt.Errorf("start %s: %w", spec.argv[0], err))
	}
	spec.closeFiles()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()

	tel := startTelemetry(j, cmd.Process.Pid)
	var tracked *ProcTracker
	if spec.sandboxed {
		tracked = NewProcTracker(cmd.Process.Pid)
	}
	wd := startWatchdog(j.RunDir, lim, tracked)
	timer := time.NewTimer(limit)
	defer timer.Stop()
	interrupted, overLimit, werr := j.wait(ctx, cmd, spec, done, wd, timer, limit, grace, in)
	reapGroup(cmd.Process.Pid, spec)
	wd.finish()
	wall := time.Since(start)
	samples := tel.finish()
	j.recordEnd(in, cmd, wall, samples, proxy)
	settleStatus(in, spec, werr, interrupted, overLimit)
	snap, serr := sealSubmission(j.RunDir, j.SnapshotMaxFile, j.SnapshotMaxTotal)
	in.Snapshot = snap
	if serr != nil {
		in.Status = StatusFailed
		in.Error = strings.TrimPrefix(in.Error+"; ", "; ") + serr.Error()
	} else if snap.DroppedCount > 0 {
		j.logger().Warn("submission snapshot dropped files", "run", j.ID(), "dropped", snap.DroppedCount, "first", snap.Dropped[0])
	}
	if err := writeInfo(j.RunDir, in); err != nil {
		return in, err
	}
	if interrupted {
		return in, ctx.Err()
	}
	return in, nil
}

// recordEnd records what the ended run used and left: its wall time, exit
// code, working time and log problems, GPU summary and refused egress, and
// hands its folders back to the pipeline.
func (j *Job) recordEnd(in *Info, cmd *exec.Cmd, wall time.Duration, samples []gpu.Sample, proxy *egress.Proxy) {
	in.WallSeconds = wall.Seconds()
	in.EndedAt = time.Now().UTC().Format(time.RFC3339Nano)
	in.ExitCode = cmd.ProcessState.ExitCode()
	ws, ok, problems := workingSeconds(j.RunDir)
	if ok {
		in.WorkingSeconds = &ws
	}
	in.LogProblems = append(in.LogProblems, problems...)
	for _, p := range problems {
		j.logger().Warn("run left a bad log file", "run", j.ID(), "problem", p)
	}
	// Every process of the run is gone: its folders become the pipeline's.
	in.CopyOut = handBack(j.RunDir, []string{"workspace", "logs", "home"})
	if j.Sampler != nil {
		s := gpu.Summarize(samples, len(j.GPUs), wall)
		in.GPUSummary = &s
	}
	if proxy != nil {
		in.EgressRefused = proxy.Refused()
	}
}

// startEgress starts the run's egress proxy on a socket in its folder when
// the agent is isolated (isolated: sandboxed or in a container), has no
// network and lists egress endpoints; otherwise it returns no proxy and an
// empty socket path. closeEgress stops it and removes the socket; call it
// (deferred) even when err is not nil.
func (j *Job) startEgress(ctx context.Context, isolated bool) (proxy *egress.Proxy, sock string, closeEgress func(), err error) {
	closeEgress = func() {}
	if !isolated || j.Agent.Network || len(j.Agent.Egress) == 0 {
		return nil, "", closeEgress, nil
	}
	sock, cleanup, err := socketPath(j.RunDir, "egress.sock")
	if err != nil {
		return nil, "", closeEgress, fmt.Errorf("egress proxy: %w", err)
	}
	proxy, err = egress.Listen(ctx, sock, j.Agent.Egress, j.logger().With("run", j.ID()))
	if err != nil {
		return nil, "", cleanup, err
	}
	return proxy, sock, func() { proxy.Close(); cleanup() }, nil
}

// command is the agent's process as the launch describes it, its output
// going to log.
func (l *launch) command(log *os.File) *exec.Cmd {
	cmd := exec.Command(l.argv[0], l.argv[1:]...)
	cmd.Dir = l.dir
	cmd.Env = l.env
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = l.attr
	cmd.ExtraFiles = l.files
	return cmd
}

// cleanRunDir empties the run's folders (an interrupted run restarts from a
// clean folder) and returns their paths: workspace, submission, logs, home.
func cleanRunDir(runDir string) ([]string, error) {
	os.RemoveAll(filepath.Join(runDir, ".submission.agent"))
	dirs := []string{"workspace", "submission", "logs", "home"}
	for i, d := range dirs {
		p := filepath.Join(runDir, d)
		dirs[i] = p
		if err := os.RemoveAll(p); err != nil { // an interrupted run restarts from a clean folder
			return nil, fmt.Errorf("clean %s: %w", p, err)
		}
		if err := os.MkdirAll(p, 0o755); err != nil {
			return nil, fmt.Errorf("create %s: %w", p, err)
		}
	}
	os.Remove(filepath.Join(runDir, "telemetry.jsonl"))
	return dirs, nil
}

// startInfo is the run's record as it starts, under the time limit.
func (j *Job) startInfo(limit time.Duration) *Info {
	host, _ := os.Hostname()
	in := &Info{Group: j.Group, Challenge: j.Challenge, Agent: j.Agent.ID, Backend: j.Agent.Backend, Setting: j.Setting, Seed: j.Seed,
		Status: StatusRunning, StartedAt: time.Now().UTC().Format(time.RFC3339Nano), Host: host, Executor: j.Agent.Executor,
		GPUs: append([]int{}, j.GPUs...), TimeLimit: limit.Seconds(), BenchHash: j.BenchHash}
	if j.Sampler != nil {
		in.Telemetry = "nvml"
	} else {
		note := j.TelemetryNote
		if note == "" {
			note = "no GPU sampler"
		}
		in.Telemetry = "unavailable: " + note
	}
	return in
}

// wait waits for the started agent to end on its own, or stops it when it
// goes over a resource limit (overLimit says which), reaches its time limit
// (in.TimedOut) or the stage is stopped (interrupted; recorded at once).
func (j *Job) wait(ctx context.Context, cmd *exec.Cmd, spec *launch, done chan error, wd *watchdog, timer *time.Timer, limit, grace time.Duration, in *Info) (interrupted bool, overLimit string, werr error) {
	select {
	case werr = <-done:
	case overLimit = <-wd.over:
		j.logger().Warn("run exceeded a resource limit; stopping it", "run", j.ID(), "why", overLimit)
		werr = stop(cmd, spec, done, grace)
	case <-timer.C:
		in.TimedOut = true
		j.logger().Warn("run reached its time limit; stopping it", "run", j.ID(), "limit", limit)
		werr = stop(cmd, spec, done, grace)
	case <-ctx.Done():
		interrupted = true
		j.logger().Warn("run stage stopped; stopping the run", "run", j.ID(), "grace", grace)
		// Record the interruption before the grace period: the process
		// driving the stage may not outlive it (mage exits 5 s after
		// Ctrl-C), and run.json must never be left saying "running" for a
		// run that is being stopped. The final record Execute writes replaces it.
		early := *in
		early.Status, early.Error = StatusInterrupted, "the run stage was stopped (stopping the agent: SIGTERM, then SIGKILL after the grace period)"
		early.EndedAt = time.Now().UTC().Format(time.RFC3339Nano)
		if err := writeInfo(j.RunDir, &early); err != nil {
			j.logger().Error("record the interruption", "run", j.ID(), "err", err)
		}
		werr = stop(cmd, spec, done, grace)
	}
	return interrupted, overLimit, werr
}

// settleStatus sets the ended run's status and error from how it ended.
func settleStatus(in *Info, spec *launch, werr error, interrupted bool, overLimit string) {
	switch {
	case interrupted:
		in.Status, in.Error = StatusInterrupted, "the run stage was stopped"
	case overLimit != "":
		in.Status, in.Error = StatusFailed, overLimit+" (the run was stopped)"
	case in.TimedOut:
		in.Status = StatusTimedOut
	case werr != nil:
		in.Status, in.Error = StatusFailed, werr.Error()
		if spec.wrapperFailed(in.ExitCode) {
			in.Error += " (the sandbox or the agent exited 126: see logs/console.log)"
		}
	default:
		in.Status = StatusDone
	}
}

// socketPath is runDir/name, or, when that is too long for a Unix socket
// address, name in a fresh temporary folder (removed by cleanup).
func socketPath(runDir, name string) (string, func(), error) {
	p := filepath.Join(runDir, name)
	if len(p) <= 100 {
		return p, func() { os.Remove(p) }, nil
	}
	tmp, err := os.MkdirTemp("", "rexmle-sock-")
	if err != nil {
		return "", nil, err
	}
	// Searchable by others: a sandbox running as another user binds it.
	if err := os.Chmod(tmp, 0o711); err != nil {
		os.RemoveAll(tmp)
		return "", nil, err
	}
	return filepath.Join(tmp, name), func() { os.RemoveAll(tmp) }, nil
}

// Caps on the files the pipeline reads back from a run folder. Every one
// is read through fsutil.OpenIn: no symbolic link is followed, a FIFO or
// device is never opened for reading, so an agent's leftovers cannot make
// the stage block or read outside the run.
const (
	maxRunJSONBytes     = 16 << 20
	maxWorkingTimeBytes = 64 << 10
	// consoleTailBytes is how much of the end of console.log is searched
	// for the working-time line (the last one counts).
	consoleTailBytes  = 64 << 20
	maxConsoleLine    = 64 << 10
	maxTelemetryBytes = 1 << 30
)

// workingSeconds reads the agent's own working time (see the package doc)
// and says what was wrong with the files it looked at (a FIFO, a link, a
// file over its cap): those are skipped, never waited on.
func workingSeconds(runDir string) (float64, bool, []string) {
	var problems []string
	note := func(rel string, err error) {
		problems = append(problems, fmt.Sprintf("%s: not read: %s", rel, whyUnread(err)))
	}
	const wt = "logs/working_time.json"
	b, err := fsutil.ReadFileIn(runDir, wt, maxWorkingTimeBytes)
	switch {
	case err == nil:
		var w struct {
			WorkingSeconds *float64 `json:"working_seconds"`
		}
		if json.Unmarshal(b, &w) == nil && w.WorkingSeconds != nil && validSeconds(*w.WorkingSeconds) {
			return *w.WorkingSeconds, true, problems
		}
		problems = append(problems, wt+`: not {"working_seconds": <seconds ≥ 0>}; ignored`)
	case !errors.Is(err, fs.ErrNotExist):
		note(wt, err)
	}
	const cl = "logs/console.log"
	f, err := fsutil.OpenIn(runDir, cl)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			note(cl, err)
		}
		return 0, false, problems
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Size() > consoleTailBytes {
		if _, err := f.Seek(st.Size()-consoleTailBytes, io.SeekStart); err != nil {
			note(cl, err)
			return 0, false, problems
		}
	}
	v, ok := lastWorkingLine(io.LimitReader(f, consoleTailBytes))
	return v, ok, problems
}

// whyUnread says in words why a run's file was not read.
func whyUnread(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return err.Error()
}

// lastWorkingLine finds the last valid "REXMLE_WORKING_SECONDS=<x>" line;
// lines longer than maxConsoleLine are skipped unread.
func lastWorkingLine(r io.Reader) (float64, bool) {
	const key = "REXMLE_WORKING_SECONDS="
	br := bufio.NewReaderSize(r, maxConsoleLine)
	v, ok, long := 0.0, false, false
	for {
		line, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			long = true
			continue
		}
		if !long {
			l := strings.TrimSpace(string(line))
			if rest, found := strings.CutPrefix(l, key); found {
				var x float64
				if _, err := fmt.Sscan(rest, &x); err == nil && validSeconds(x) {
					v, ok = x, true
				}
			}
		}
		long = false
		if err != nil {
			return v, ok
		}
	}
}

func validSeconds(x float64) bool { return x >= 0 && !math.IsInf(x, 0) && !math.IsNaN(x) }
