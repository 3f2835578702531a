package runner

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/rexmle/rexmle/pipeline/config"
	"github.com/rexmle/rexmle/pipeline/runner/egress"
	"github.com/rexmle/rexmle/pipeline/runner/sandbox"
)

// Paths inside docker and apptainer containers.
const (
	ContainerData       = "/data"
	ContainerSubmission = "/submission"
	ContainerLogs       = "/logs"
	ContainerWorkspace  = "/workspace"
	ContainerSocket     = "/run/rexmle/validate.sock"
)

// Paths inside the local (bwrap) sandbox besides the container ones.
const (
	SandboxAgentBin     = "/run/rexmle/bin/rexmle-agent"
	SandboxEgressSock   = "/run/rexmle/egress.sock"
	SandboxHome         = sandbox.Home
	SandboxProxyAddr    = "127.0.0.1:3128" // the egress proxy through the bridge
	SandboxValidateAddr = "127.0.0.1:5000" // the validation endpoint through the bridge
)

// launch is how one run's process is started.
type launch struct {
	argv      []string // what is executed
	display   []string // what run.json records (no secret values: env is passed by name)
	env       []string
	dir       string
	attr      *syscall.SysProcAttr
	files     []*os.File // extra fds for the child (bwrap's bind fds), closed once it started
	isolation string
	stopArgv  []string // a container engine's stop command, run at the time limit
	sandboxed bool     // bwrap: the run's processes live in a PID namespace of their own
	egress    []string // the endpoints the egress proxy allows
	validate  string   // the validation URL the agent was given
}

// wrapperFailed reports whether a sandboxed run's exit code is the one
// bwrap or the bridge use when they cannot set up the sandbox (1 for bwrap
// errors is ambiguous, so only 126 is named).
func (l *launch) wrapperFailed(exitCode int) bool { return l.sandboxed && exitCode == 126 }

func (l *launch) closeFiles() {
	for _, f := range l.files {
		f.Close()
	}
	l.files = nil
}

// paths the agent uses, on the host or inside its container.
type agentPaths struct{ data, submission, logs, workspace, socket, bin, code string }

func (j *Job) hostPaths(socket string) agentPaths {
	return agentPaths{data: j.PublicDir, submission: filepath.Join(j.RunDir, "submission"), logs: filepath.Join(j.RunDir, "logs"),
		workspace: filepath.Join(j.RunDir, "workspace"), socket: socket, code: j.Agent.Code}
}

// Placeholders are the names an agent's command template may use, in the
// order the README's "Bring your own agent" table lists them (a test keeps
// the two equal).
var Placeholders = []string{"{data}", "{submission}", "{logs}", "{workspace}", "{code}", "{time_limit}", "{challenge}", "{seed}", "{gpus}", "{validate_socket}"}

// Command expands the agent's command template for the agent's paths p.
// Placeholders: {data} {submission} {logs} {workspace} {time_limit}
// (seconds) {challenge} {seed} {gpus} (comma-separated indices, as the agent
// sees them) {validate_socket} {code} (the agent's code folder: /agent in
// the sandbox and containers, its host path with sandbox = "none").
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
		bin := p.bin
		if bin == "" {
			bin = j.AgentBin
		}
		return []string{bin, j.Agent.Builtin, "-challenge", j.Challenge, "-data", p.data,
			"-submission", p.submission, "-logs", p.logs}, nil
	}
	if len(j.Agent.Command) == 0 {
		return nil, fmt.Errorf("agent %s: no command", j.Agent.ID)
	}
	values := map[string]string{"{data}": p.data, "{submission}": p.submission, "{logs}": p.logs, "{workspace}": p.workspace,
		"{time_limit}": strconv.Itoa(int(j.TimeLimit.Seconds())), "{challenge}": j.Challenge, "{gpus}": gpus,
		"{seed}": strconv.Itoa(j.Seed), "{validate_socket}": p.socket, "{code}": p.code}
	var pairs []string
	for _, name := range Placeholders {
		pairs = append(pairs, name, values[name])
	}
	r := strings.NewReplacer(pairs...)
	out := make([]string, len(j.Agent.Command))
	for i, a := range j.Agent.Command {
		out[i] = r.Replace(a)
	}
	return out, nil
}

// passedEnv returns NAME=value for each variable the agent is allowed by
// name that is set in j.Host, plus the agent's fixed set_env values.
func (j *Job) passedEnv() []string {
	var env []string
	for _, name := range j.Agent.Env {
		if v, ok := j.Host.Lookup(name); ok {
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

// buildWith decides how to start the run with the egress proxy's socket
// (empty: no proxy).
func (j *Job) buildWith(val *validationServer, egressSock string) (*launch, error) {
	socket := ""
	if val != nil {
		socket = val.socket
	}
	switch j.Agent.Executor {
	case "", "local":
		return j.buildLocal(socket, egressSock)
	case "docker":
		return j.buildDocker(socket, egressSock)
	case "apptainer":
		return j.buildApptainer(socket)
	}
	return nil, fmt.Errorf("agent %s: unknown executor %q", j.Agent.ID, j.Agent.Executor)
}

// buildLocal runs the agent on this host: in a bubblewrap sandbox (see
// package sandbox) unless the agent sets sandbox = "none". A sandbox that
// cannot start is an error (the run fails with the reason), never a
// silent fallback.
func (j *Job) buildLocal(socket, egressSock string) (*launch, error) {
	mode := j.Agent.Sandbox
	if mode == "none" {
		p := j.hostPaths(socket)
		gpus := j.gpuList()
		inner, err := j.command(p, gpus)
		if err != nil {
			return nil, err
		}
		env := append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")}, j.rexmleEnv(p, gpus)...)
		env = append(env, j.passedEnv()...)
		return &launch{argv: inner, display: inner, env: env, dir: p.workspace, attr: &syscall.SysProcAttr{Setpgid: true},
			isolation: "none: sandbox = \"none\" (no isolation: the agent runs as the pipeline's user and sees the whole host)"}, nil
	}
	if err := sandbox.Available(); err != nil {
		return nil, fmt.Errorf("agent %s: %w", j.Agent.ID, err)
	}
	return j.buildBwrap(socket, egressSock)
}

func (j *Job) buildBwrap(socket, egressSock string) (*launch, error) {
	p := j.sandboxPaths(socket)
	gpus := j.gpuList()
	inner, err := j.command(p, gpus)
	if err != nil {
		return nil, err
	}
	env := []string{"PATH=" + sandbox.Path, "HOME=" + SandboxHome, "TMPDIR=/tmp", "USER=agent", "LANG=C.UTF-8"}
	env = append(env, j.rexmleEnv(p, gpus)...)
	l := &launch{sandboxed: true, dir: "/"}
	var fw []egress.Forward
	proxyAddr, valAddr := SandboxProxyAddr, SandboxValidateAddr
	if j.Agent.Network {
		// The host's network namespace: loopback ports are shared, pick free ones.
		if valAddr, err = freePort(); err != nil {
			return nil, err
		}
	}
	if socket != "" {
		fw = append(fw, egress.Forward{Listen: valAddr, Socket: ContainerSocket})
		l.validate = "http://" + valAddr
		env = append(env, "REXMLE_VALIDATE_URL="+l.validate)
	}
	if egressSock != "" {
		fw = append(fw, egress.Forward{Listen: proxyAddr, Socket: SandboxEgressSock})
		env = append(env, egress.ProxyEnv(proxyAddr, j.Agent.Egress, valAddr)...)
		l.egress = append([]string{}, j.Agent.Egress...)
	} else if socket != "" {
		env = append(env, "NO_PROXY=localhost,127.0.0.1", "no_proxy=localhost,127.0.0.1")
	}
	env = append(env, j.passedEnv()...)
	argv := inner
	if len(fw) > 0 {
		if j.AgentBin == "" {
			return nil, fmt.Errorf("agent %s: the sandbox bridge needs the rexmle-agent binary", j.Agent.ID)
		}
		argv = egress.BridgeArgs(SandboxAgentBin, fw, inner)
	}
	argv = sandbox.LimitsArgs(SandboxAgentBin, sandbox.Limits{Procs: uint64(j.limits.Pids), Data: uint64(j.limits.MemoryBytes),
		FileSize: uint64(j.limits.FileSizeBytes)}, argv)
	spec := sandbox.Spec{Network: j.Agent.Network, Cwd: ContainerWorkspace, Argv: argv, Binds: j.sandboxBinds(socket, egressSock)}
	if len(j.GPUs) > 0 || j.Agent.GPUs > 0 {
		spec.Devices = nvidiaDevices()
	}
	c, err := spec.Build()
	if err != nil {
		return nil, fmt.Errorf("agent %s: %w", j.Agent.ID, err)
	}
	if j.AgentBin == "" { // the limits are set by `rexmle-agent limits`
		c.Close()
		return nil, fmt.Errorf("agent %s: the sandbox's resource limits need the rexmle-agent binary", j.Agent.ID)
	}
	l.argv, l.files, l.attr, l.env = c.Argv, c.Files, c.Attr, env
	l.display = c.Argv
	uid, _ := sandbox.HostIDs()
	l.isolation = fmt.Sprintf("bwrap: fresh root; uid %d inside (host uid %d), no capabilities, no_new_privs; user, pid, ipc, uts, cgroup, mount namespaces; binds nosuid,nodev; rlimits nproc, data, fsize", sandbox.UID, uid)
	switch {
	case j.Agent.Network:
		l.isolation += "; network: full (network = true)"
	case egressSock != "":
		l.isolation += "; network: loopback only, egress proxy to " + strings.Join(j.Agent.Egress, ", ")
	default:
		l.isolation += "; network: none (loopback only)"
	}
	return l, nil
}

// sandboxPaths are the agent's paths inside the bwrap sandbox.
func (j *Job) sandboxPaths(socket string) agentPaths {
	p := j.containerPaths(socket)
	if j.AgentBin != "" {
		p.bin = SandboxAgentBin
	}
	return p
}

// sandboxBinds are the host paths the bwrap sandbox shows besides the
// system folders: the run's folders, the agent's code at config.CodeMount,
// rexmle-agent, the sockets, ReadOnly.
func (j *Job) sandboxBinds(socket, egressSock string) []sandbox.Bind {
	h := j.hostPaths(socket)
	binds := []sandbox.Bind{
		{Host: h.data, Inside: ContainerData},
		{Host: h.workspace, Inside: ContainerWorkspace, RW: true},
		{Host: h.submission, Inside: ContainerSubmission, RW: true},
		{Host: h.logs, Inside: ContainerLogs, RW: true},
		{Host: filepath.Join(j.RunDir, "home"), Inside: SandboxHome, RW: true},
	}
	if j.AgentBin != "" {
		binds = append(binds, sandbox.Bind{Host: j.AgentBin, Inside: SandboxAgentBin})
	}
	if socket != "" {
		binds = append(binds, sandbox.Bind{Host: socket, Inside: ContainerSocket})
	}
	if egressSock != "" {
		binds = append(binds, sandbox.Bind{Host: egressSock, Inside: SandboxEgressSock})
	}
	if j.Agent.Code != "" {
		binds = append(binds, sandbox.Bind{Host: j.Agent.Code, Inside: config.CodeMount})
	}
	for _, ro := range j.ReadOnly {
		binds = append(binds, sandbox.Bind{Host: ro, Inside: ro})
	}
	return binds
}

// SandboxPlan is what the bwrap sandbox of this job runs and shows: the
// command with the sandbox's paths, and the binds besides the system
// folders (sandbox.SystemMounts), the sockets left out. The doctor
// resolves the command's program and script against it.
func (j *Job) SandboxPlan() ([]string, []sandbox.Bind, error) {
	argv, err := j.command(j.sandboxPaths(""), j.gpuList())
	return argv, j.sandboxBinds("", ""), err
}

// nvidiaDevices lists the NVIDIA device nodes a GPU run needs in its sandbox.
func nvidiaDevices() []string {
	var out []string
	for _, g := range []string{"/dev/nvidia*", "/dev/nvidia-caps/*", "/dev/dri/*"} {
		m, _ := filepath.Glob(g)
		for _, d := range m {
			if fi, err := os.Stat(d); err == nil && fi.Mode()&os.ModeDevice != 0 {
				out = append(out, d)
			}
		}
	}
	return out
}

// freePort returns a loopback address with a port that is free now.
func freePort() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("pick a loopback port: %w", err)
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

// defaultGrace is the time between SIGTERM and SIGKILL when the agent sets none.
const defaultGrace = 10 * time.Second

func (j *Job) graceOrDefault() time.Duration {
	if j.Grace > 0 {
		return j.Grace
	}
	return defaultGrace
}
