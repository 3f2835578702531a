package runner

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Paths inside docker and apptainer containers.
const (
	ContainerData       = "/data"
	ContainerSubmission = "/submission"
	ContainerLogs       = "/logs"
	ContainerWorkspace  = "/workspace"
	ContainerSocket     = "/run/rexmle/validate.sock"
)

// launch is how one run's process is started.
type launch struct {
	argv      []string // what is executed
	display   []string // what run.json records (no secret values: env is passed by name)
	env       []string
	dir       string
	attr      *syscall.SysProcAttr
	isolation string
	stopArgv  []string // a container engine's stop command, run at the time limit
	sandboxed bool
}

// wrapperFailed reports whether a sandboxed run's exit code is the one the
// wrapper uses when it cannot set up the sandbox (126).
func (l *launch) wrapperFailed(exitCode int) bool { return l.sandboxed && exitCode == 126 }

// paths the agent uses, on the host or inside its container.
type agentPaths struct{ data, submission, logs, workspace, socket string }

func (j *Job) hostPaths(socket string) agentPaths {
	return agentPaths{data: j.PublicDir, submission: filepath.Join(j.RunDir, "submission"), logs: filepath.Join(j.RunDir, "logs"),
		workspace: filepath.Join(j.RunDir, "workspace"), socket: socket}
}

// Command expands the agent's command template for the agent's paths p.
// Placeholders: {data} {submission} {logs} {workspace} {time_limit}
// (seconds) {challenge} {seed} {gpus} (comma-separated indices, as the agent
// sees them) {validate_socket}.
func (j *Job) Command() ([]string, error) {
	return j.command(j.hostPaths(""), j.gpuList())
}

func (j *Job) gpuList() string {
	s := make([]string, len(j.GPUs))
	for i, g := range j.GPUs {
		s[i] = strconv.Itoa(g)
	}
	return strings.Join(s, ",")
}

func (j *Job) command(p agentPaths, gpus string) ([]string, error) {
	if j.Agent.Builtin != "" {
		if j.AgentBin == "" {
			return nil, fmt.Errorf("agent %s: built-in agent without the rexmle-agent binary", j.Agent.ID)
		}
		return []string{j.AgentBin, j.Agent.Builtin, "-challenge", j.Challenge, "-data", p.data,
			"-submission", p.submission, "-logs", p.logs}, nil
	}
	if len(j.Agent.Command) == 0 {
		return nil, fmt.Errorf("agent %s: no command", j.Agent.ID)
	}
	r := strings.NewReplacer("{data}", p.data, "{submission}", p.submission, "{logs}", p.logs, "{workspace}", p.workspace,
		"{time_limit}", strconv.Itoa(int(j.TimeLimit.Seconds())), "{challenge}", j.Challenge, "{gpus}", gpus,
		"{seed}", strconv.Itoa(j.Seed), "{validate_socket}", p.socket)
	out := make([]string, len(j.Agent.Command))
	for i, a := range j.Agent.Command {
		out[i] = r.Replace(a)
	}
	return out, nil
}

// passedEnv returns NAME=value for each variable the agent is allowed by
// name that is set, plus the agent's fixed set_env values.
func (j *Job) passedEnv() []string {
	var env []string
	for _, name := range j.Agent.Env {
		if v, ok := os.LookupEnv(name); ok {
			env = append(env, name+"="+v)
		}
	}
	keys := make([]string, 0, len(j.Agent.SetEnv))
	for k := range j.Agent.SetEnv {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		env = append(env, k+"="+j.Agent.SetEnv[k])
	}
	return env
}

func (j *Job) rexmleEnv(p agentPaths, gpus string) []string {
	env := []string{"REXMLE_SEED=" + strconv.Itoa(j.Seed), "REXMLE_CHALLENGE=" + j.Challenge,
		"REXMLE_TIME_LIMIT=" + strconv.Itoa(int(j.TimeLimit.Seconds()))}
	if p.socket != "" {
		env = append(env, "REXMLE_VALIDATE_SOCKET="+p.socket)
	}
	if gpus != "" || len(j.GPUs) > 0 || j.Agent.GPUs > 0 {
		env = append(env, "CUDA_VISIBLE_DEVICES="+gpus)
	}
	return env
}

// build decides how to start the run.
func (j *Job) build(val *validationServer) (*launch, error) {
	socket := ""
	if val != nil {
		socket = val.socket
	}
	switch j.Agent.Executor {
	case "", "local":
		return j.buildLocal(socket)
	case "docker":
		return j.buildDocker(socket)
	case "apptainer":
		return j.buildApptainer(socket)
	}
	return nil, fmt.Errorf("agent %s: unknown executor %q", j.Agent.ID, j.Agent.Executor)
}

func (j *Job) buildLocal(socket string) (*launch, error) {
	p := j.hostPaths(socket)
	gpus := j.gpuList()
	inner, err := j.command(p, gpus)
	if err != nil {
		return nil, err
	}
	env := append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")}, j.rexmleEnv(p, gpus)...)
	env = append(env, j.passedEnv()...)
	l := &launch{argv: inner, display: inner, env: env, dir: p.workspace, attr: &syscall.SysProcAttr{Setpgid: true}}
	mode := j.Agent.Sandbox
	if mode == "" {
		mode = "auto"
	}
	if mode == "none" {
		l.isolation = "none: sandbox = \"none\""
		return l, nil
	}
	why := SandboxUnavailable(j.AgentBin)
	if why != "" {
		if mode == "namespaces" {
			return nil, fmt.Errorf("agent %s: sandbox = \"namespaces\" but %s", j.Agent.ID, why)
		}
		j.logger().Warn("running the agent without namespace isolation", "run", j.ID(), "why", why)
		l.isolation = "none: " + why
		return l, nil
	}
	l.argv = append(j.sandboxArgs(p), inner...)
	l.attr = SandboxAttr(!j.Agent.Network)
	l.isolation = "namespaces: user, mount"
	if !j.Agent.Network {
		l.isolation += ", net"
	}
	l.sandboxed = true
	return l, nil
}

// sandboxArgs is the wrapper's command line up to and including "--".
func (j *Job) sandboxArgs(p agentPaths) []string {
	args := []string{j.AgentBin, "sandbox", "-cwd", p.workspace}
	for _, h := range j.Hide {
		args = append(args, "-hide", h)
	}
	args = append(args, "-ro", p.data)
	if j.AgentBin != "" {
		args = append(args, "-ro", j.AgentBin)
	}
	args = append(args, "-rw", j.RunDir)
	if p.socket != "" && !strings.HasPrefix(p.socket, j.RunDir+"/") {
		args = append(args, "-rw", filepath.Dir(p.socket))
	}
	return append(args, "--")
}

// SandboxAttr is the process attributes of the sandbox wrapper: new user
// and mount namespaces (and a new network namespace when net is true) in
// which the caller's uid and gid are mapped to root, in a new process group.
func SandboxAttr(net bool) *syscall.SysProcAttr {
	flags := uintptr(syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS)
	if net {
		flags |= syscall.CLONE_NEWNET
	}
	return &syscall.SysProcAttr{
		Setpgid:     true,
		Cloneflags:  flags,
		UidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getuid(), Size: 1}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getgid(), Size: 1}},
	}
}

// defaultGrace is the time between SIGTERM and SIGKILL when the agent sets none.
const defaultGrace = 10 * time.Second

func (j *Job) graceOrDefault() time.Duration {
	if j.Grace > 0 {
		return j.Grace
	}
	return defaultGrace
}
