// Package runner launches agents on prepared challenges: one process group
// per run, a time budget enforced with SIGTERM then SIGKILL, a run folder
// results/runs/<group>/<challenge>/<agent>/seed-<n>/ with workspace/,
// submission/, logs/ and run.json. The agent is given the public data
// folder only; the private answers are never passed, linked or copied.
package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/rexmle/rexmle/pipeline/challenge"
	"github.com/rexmle/rexmle/pipeline/config"
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
	AgentBin  string // the built-in agents' binary
	BenchHash string
}

// Info is run.json.
type Info struct {
	Group       string   `json:"group"`
	Challenge   string   `json:"challenge"`
	Agent       string   `json:"agent"`
	Backend     string   `json:"backend"`
	Setting     string   `json:"setting"`
	Seed        int      `json:"seed"`
	Status      string   `json:"status"` // running, done, failed, timed_out
	ExitCode    int      `json:"exit_code"`
	TimedOut    bool     `json:"timed_out"`
	Error       string   `json:"error,omitempty"`
	StartedAt   string   `json:"started_at"`
	EndedAt     string   `json:"ended_at,omitempty"`
	WallSeconds float64  `json:"wall_seconds"`
	Host        string   `json:"host"`
	Executor    string   `json:"executor"`
	Command     []string `json:"command"`
	GPUs        []int    `json:"gpus"`
	Telemetry   string   `json:"telemetry"`
	BenchHash   string   `json:"benchmark_sha256"`
}

// Finished reports whether runDir holds a run that ended (done, failed or timed out).
func Finished(runDir string) (*Info, bool) {
	b, err := os.ReadFile(filepath.Join(runDir, "run.json"))
	if err != nil {
		return nil, false
	}
	var in Info
	if json.Unmarshal(b, &in) != nil {
		return nil, false
	}
	return &in, in.Status == "done" || in.Status == "failed" || in.Status == "timed_out"
}

func writeInfo(runDir string, in *Info) error {
	b, err := json.MarshalIndent(in, "", "  ")
	if err != nil {
		return err
	}
	return challenge.WriteFileAtomic(filepath.Join(runDir, "run.json"), append(b, '\n'))
}

// Command expands the agent's command template.
func (j *Job) Command() ([]string, error) {
	if j.Agent.Builtin != "" {
		return []string{j.AgentBin, j.Agent.Builtin, "-challenge", j.Challenge, "-data", j.PublicDir,
			"-submission", filepath.Join(j.RunDir, "submission"), "-logs", filepath.Join(j.RunDir, "logs")}, nil
	}
	if j.Agent.Executor != "local" {
		return nil, fmt.Errorf("agent %s: executor %q is not supported by this runner yet (local only)", j.Agent.ID, j.Agent.Executor)
	}
	r := strings.NewReplacer("{data}", j.PublicDir, "{submission}", filepath.Join(j.RunDir, "submission"),
		"{logs}", filepath.Join(j.RunDir, "logs"), "{workspace}", filepath.Join(j.RunDir, "workspace"),
		"{time_limit}", fmt.Sprint(int(j.TimeLimit.Seconds())), "{challenge}", j.Challenge, "{gpus}", "0")
	out := make([]string, len(j.Agent.Command))
	for i, a := range j.Agent.Command {
		out[i] = r.Replace(a)
	}
	return out, nil
}

// environ passes only the variables the agent is allowed by name, plus PATH/HOME.
func (j *Job) environ() []string {
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"), "REXMLE_SEED=" + fmt.Sprint(j.Seed)}
	for _, name := range j.Agent.Env {
		if v, ok := os.LookupEnv(name); ok {
			env = append(env, name+"="+v)
		}
	}
	for k, v := range j.Agent.SetEnv {
		env = append(env, k+"="+v)
	}
	return env
}

// Execute runs the job to completion or to its time limit and writes run.json.
func Execute(ctx context.Context, j *Job) (*Info, error) {
	for _, d := range []string{"workspace", "submission", "logs"} {
		p := filepath.Join(j.RunDir, d)
		os.RemoveAll(p) // an interrupted run restarts from a clean folder
		if err := os.MkdirAll(p, 0o755); err != nil {
			return nil, err
		}
	}
	host, _ := os.Hostname()
	argv, err := j.Command()
	in := &Info{Group: j.Group, Challenge: j.Challenge, Agent: j.Agent.ID, Backend: j.Agent.Backend, Setting: j.Setting, Seed: j.Seed,
		Status: "running", StartedAt: time.Now().UTC().Format(time.RFC3339Nano), Host: host, Executor: j.Agent.Executor,
		Command: argv, GPUs: []int{}, Telemetry: "unavailable: no NVML on this host", BenchHash: j.BenchHash}
	if err != nil {
		in.Status, in.Error = "failed", err.Error()
		return in, writeInfo(j.RunDir, in)
	}
	if err := writeInfo(j.RunDir, in); err != nil {
		return nil, err
	}
	logf, err := os.Create(filepath.Join(j.RunDir, "logs", "console.log"))
	if err != nil {
		return nil, err
	}
	defer logf.Close()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = filepath.Join(j.RunDir, "workspace")
	cmd.Env = j.environ()
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		in.Status, in.Error = "failed", err.Error()
		return in, writeInfo(j.RunDir, in)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	limit := j.TimeLimit
	if limit <= 0 {
		limit = 24 * time.Hour
	}
	grace := j.Grace
	if grace <= 0 {
		grace = 10 * time.Second
	}
	timer := time.NewTimer(limit)
	defer timer.Stop()
	var werr error
	select {
	case werr = <-done:
	case <-timer.C:
		in.TimedOut = true
		werr = stop(cmd, done, grace)
	case <-ctx.Done():
		werr = stop(cmd, done, grace)
		in.Status, in.Error = "interrupted", "the runner was stopped"
		in.EndedAt = time.Now().UTC().Format(time.RFC3339Nano)
		writeInfo(j.RunDir, in)
		return in, ctx.Err()
	}
	in.WallSeconds = time.Since(start).Seconds()
	in.EndedAt = time.Now().UTC().Format(time.RFC3339Nano)
	in.ExitCode = cmd.ProcessState.ExitCode()
	switch {
	case in.TimedOut:
		in.Status = "timed_out"
	case werr != nil:
		in.Status, in.Error = "failed", werr.Error()
	default:
		in.Status = "done"
	}
	return in, writeInfo(j.RunDir, in)
}

// stop sends SIGTERM to the process group, then SIGKILL after the grace period.
func stop(cmd *exec.Cmd, done chan error, grace time.Duration) error {
	pgid := cmd.Process.Pid
	syscall.Kill(-pgid, syscall.SIGTERM)
	select {
	case err := <-done:
		return err
	case <-time.After(grace):
		syscall.Kill(-pgid, syscall.SIGKILL)
		err := <-done
		if err == nil {
			err = errors.New("killed after the grace period")
		}
		return err
	}
}
