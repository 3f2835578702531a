package runner

import (
	"crypto/sha256"
	"encoding/hex"
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

func containerName(j *Job) string {
	h := sha256.Sum256([]byte(j.RunDir))
	return "rexmle-" + hex.EncodeToString(h[:6])
}

func (j *Job) containerPaths(socket string) agentPaths {
	p := agentPaths{data: ContainerData, submission: ContainerSubmission, logs: ContainerLogs, workspace: ContainerWorkspace}
	if socket != "" {
		p.socket = ContainerSocket
	}
	return p
}

// gpusInContainer: the engine renumbers the run's devices from 0.
func (j *Job) gpusInContainer() string {
	s := make([]string, len(j.GPUs))
	for i := range j.GPUs {
		s[i] = strconv.Itoa(i)
	}
	return strings.Join(s, ",")
}

// buildDocker makes the `docker run` command line: the image, the public
// data read-only at /data, submission, logs and workspace read-write, the
// validation socket, nothing else of the host; --network none unless the
// agent may use the network; the run's GPUs; every variable passed by name
// (-e NAME, the value comes from the docker client's environment).
func (j *Job) buildDocker(socket string) (*launch, error) {
	if j.Agent.Image == "" {
		return nil, fmt.Errorf("agent %s: executor docker needs an image", j.Agent.ID)
	}
	cp := j.containerPaths(socket)
	inner, err := j.command(cp, j.gpusInContainer())
	if err != nil {
		return nil, err
	}
	h := j.hostPaths(socket)
	name := containerName(j)
	argv := []string{"docker", "run", "--rm", "--init", "--name", name,
		"--user", fmt.Sprintf("%d:%d", os.Getuid(), os.Getgid()), "--security-opt", "no-new-privileges", "--cap-drop", "ALL"}
	if !j.Agent.Network {
		argv = append(argv, "--network", "none")
	}
	if len(j.GPUs) > 0 {
		argv = append(argv, "--gpus", `"device=`+j.gpuList()+`"`)
	}
	argv = append(argv, "-v", h.data+":"+cp.data+":ro", "-v", h.submission+":"+cp.submission,
		"-v", h.logs+":"+cp.logs, "-v", h.workspace+":"+cp.workspace)
	if socket != "" {
		argv = append(argv, "-v", socket+":"+cp.socket)
	}
	argv = append(argv, "-w", cp.workspace)
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")}
	if v, ok := os.LookupEnv("DOCKER_HOST"); ok {
		env = append(env, "DOCKER_HOST="+v)
	}
	for _, kv := range j.rexmleEnv(cp, j.gpusInContainer()) {
		name := kv[:strings.IndexByte(kv, '=')]
		if name == "CUDA_VISIBLE_DEVICES" {
			continue // --gpus chooses the devices
		}
		argv = append(argv, "-e", name)
		env = append(env, kv)
	}
	for _, kv := range j.passedEnv() {
		argv = append(argv, "-e", kv[:strings.IndexByte(kv, '=')])
		env = append(env, kv)
	}
	argv = append(argv, j.Agent.Image)
	argv = append(argv, inner...)
	return &launch{argv: argv, display: argv, env: env, dir: h.workspace, attr: &syscall.SysProcAttr{Setpgid: true},
		isolation: "container: docker", stopArgv: []string{"docker", "stop", "--time", strconv.Itoa(int(j.graceOrDefault().Seconds())), name}}, nil
}

// buildApptainer makes the `apptainer exec` command line: --containall and
// --cleanenv (no host home, /tmp or environment), the same binds as docker,
// --nv for GPUs, no network unless allowed, variables passed by name as
// APPTAINERENV_NAME in apptainer's own environment.
func (j *Job) buildApptainer(socket string) (*launch, error) {
	if j.Agent.Image == "" {
		return nil, fmt.Errorf("agent %s: executor apptainer needs an image", j.Agent.ID)
	}
	cp := j.containerPaths(socket)
	inner, err := j.command(cp, j.gpusInContainer())
	if err != nil {
		return nil, err
	}
	h := j.hostPaths(socket)
	argv := []string{"apptainer", "exec", "--containall", "--cleanenv", "--no-home", "--writable-tmpfs"}
	if len(j.GPUs) > 0 {
		argv = append(argv, "--nv")
	}
	if !j.Agent.Network {
		argv = append(argv, "--net", "--network", "none")
	}
	binds := []string{h.data + ":" + cp.data + ":ro", h.submission + ":" + cp.submission, h.logs + ":" + cp.logs, h.workspace + ":" + cp.workspace}
	if socket != "" {
		binds = append(binds, socket+":"+cp.socket)
	}
	argv = append(argv, "--bind", strings.Join(binds, ","), "--pwd", cp.workspace, j.Agent.Image)
	argv = append(argv, inner...)
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")}
	for _, kv := range j.rexmleEnv(cp, j.gpuList()) {
		env = append(env, "APPTAINERENV_"+kv)
	}
	for _, kv := range j.passedEnv() {
		env = append(env, "APPTAINERENV_"+kv)
	}
	return &launch{argv: argv, display: argv, env: env, dir: h.workspace, attr: &syscall.SysProcAttr{Setpgid: true}, isolation: "container: apptainer"}, nil
}

// defaultGrace is the time between SIGTERM and SIGKILL when the agent sets none.
const defaultGrace = 10 * time.Second

func (j *Job) graceOrDefault() time.Duration {
	if j.Grace > 0 {
		return j.Grace
	}
	return defaultGrace
}
