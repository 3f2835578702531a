package runner

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"github.com/rexmle/rexmle/pipeline/config"
	"github.com/rexmle/rexmle/pipeline/runner/egress"
	"github.com/rexmle/rexmle/pipeline/settings"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Container settings of the docker executor.
const (
	// ContainerAgentBin is where the rexmle-agent binary is mounted (read-only)
	// for built-in agents run in a container.
	ContainerAgentBin = "/opt/rexmle/rexmle-agent"
	// ContainerBridgeBin is where the static rexmle-bridge binary is mounted.
	ContainerBridgeBin = "/opt/rexmle/rexmle-bridge"
	// containerUID is the agent's uid and gid inside the container when the
	// pipeline runs as root: never root, whatever the image says.
	containerUID = 1000
	// containerHome is HOME inside the container: the read-only root has no
	// writable home, /tmp is a private tmpfs.
	containerHome = "/tmp"
)

// engineEnv are the variables the engine's own client needs to find its
// daemon, socket, configuration and storage; they are passed to the
// engine's process (not into the container).
var engineEnv = []string{"DOCKER_HOST", "DOCKER_CONFIG", "DOCKER_CONTEXT", "DOCKER_CERT_PATH", "DOCKER_TLS_VERIFY",
	"CONTAINER_HOST", "CONTAINER_CONNECTION", "CONTAINERS_CONF", "CONTAINERS_STORAGE_CONF", "CONTAINERS_REGISTRIES_CONF",
	"XDG_RUNTIME_DIR", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "TMPDIR"}

func containerName(j *Job) string {
	h := sha256.Sum256([]byte(j.RunDir))
	return "rexmle-" + hex.EncodeToString(h[:6])
}

func (j *Job) containerPaths(socket string) agentPaths {
	p := agentPaths{data: ContainerData, submission: ContainerSubmission, logs: ContainerLogs, workspace: ContainerWorkspace}
	if socket != "" {
		p.socket = ContainerSocket
	}
	if j.Agent.Code != "" {
		p.code = config.CodeMount
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

// Engine is the docker-compatible CLI that runs the agent's container: the
// agent's engine, else EngineSetting (REXMLE_ENGINE), else docker.
func (j *Job) Engine() (string, error) {
	return settings.ResolveEngine(j.Agent.Engine, "agent "+j.Agent.ID+": engine", j.EngineSetting)
}

// buildDocker makes the `docker run` (or `podman run`) command line: the
// image (never pulled: build or pull it first), a read-only root with a
// private tmpfs /tmp, a non-root user without capabilities or new
// privileges, the run's limits (--pids-limit, --memory and
// --memory-swap, --ulimit fsize), the public data read-only at /data,
// submission, logs and workspace read-write, the validation socket, nothing
// else of the host; --network none unless the agent may use the network;
// the run's GPUs (--gpus for docker, CDI devices for podman); shared
// memory, CPU and memory limits from the agent's config; every variable
// passed by name (-e NAME, the value comes from the engine client's
// environment, so no secret is on the command line). At the time limit or
// on cancel the container is stopped with the grace period and removed.
func (j *Job) buildDocker(socket, egressSock string) (*launch, error) {
	if j.Agent.Image == "" {
		return nil, fmt.Errorf("agent %s: executor docker needs an image", j.Agent.ID)
	}
	engine, err := j.Engine()
	if err != nil {
		return nil, err
	}
	cp := j.containerPaths(socket)
	inner, err := j.command(cp, j.gpusInContainer())
	if err != nil {
		return nil, err
	}
	h := j.hostPaths(socket)
	name := containerName(j)
	argv := []string{engine, "run", "--rm", "--init", "--name", name, "--label", "io.rexmle.run=" + j.ID(), "--pull", "never"}
	argv = append(argv, j.containerLimits(engine)...)
	argv = append(argv, j.containerMounts(engine, h, cp, socket)...)
	if j.Agent.Builtin != "" && len(inner) > 0 && inner[0] == j.AgentBin {
		// The built-in agents are rexmle-agent subcommands: mount the binary.
		// It must be able to run in the image: static, or linked against a
		// libc the image has (the pipeline builds it with cgo for NVML).
		argv = append(argv, "-v", j.AgentBin+":"+ContainerAgentBin+":ro")
		inner[0] = ContainerAgentBin
	}
	bridgeFlags, bridgeEnv, forwards, err := j.containerBridge(socket, egressSock)
	if err != nil {
		return nil, err
	}
	argv = append(argv, bridgeFlags...)
	argv = append(argv, "-w", cp.workspace)
	envFlags, env := j.containerEnv(cp, bridgeEnv)
	argv = append(argv, envFlags...)
	argv = append(argv, j.Agent.Image)
	if len(forwards) > 0 {
		inner = egress.BridgeArgs(ContainerBridgeBin, forwards, inner)
	}
	argv = append(argv, inner...)
	if err := j.prepareContainer(engine, name, env, []string{h.submission, h.logs, h.workspace, socket, egressSock}); err != nil {
		return nil, err
	}
	return &launch{argv: argv, display: argv, env: env, dir: h.workspace, attr: &syscall.SysProcAttr{Setpgid: true},
		isolation: "container: " + engine, stopArgv: containerStopArgv(engine, name, j.graceOrDefault())}, nil
}

// containerLimits are the run's user, confinement and resource flags: the
// caller's uid (or the container's in a root run; podman keeps the
// caller's id rootless), no capabilities, a read-only root, no network
// unless the agent has it, the GPUs, shared memory, CPUs, memory and file
// size.
func (j *Job) containerLimits(engine string) []string {
	user, userns := fmt.Sprintf("%d:%d", os.Getuid(), os.Getgid()), ""
	if os.Getuid() == 0 {
		user = fmt.Sprintf("%d:%d", containerUID, containerUID)
	} else if engine == "podman" {
		userns = "keep-id" // rootless podman: the caller's uid inside, so the run folder is writable
	}
	argv := []string{"--user", user}
	if userns != "" {
		argv = append(argv, "--userns", userns)
	}
	argv = append(argv, "--cap-drop", "ALL", "--security-opt", "no-new-privileges",
		"--read-only", "--tmpfs", "/tmp:rw,nosuid,nodev,exec,mode=1777", "--pids-limit", strconv.Itoa(j.limits.Pids))
	if !j.Agent.Network {
		argv = append(argv, "--network", "none")
	}
	argv = append(argv, j.gpuFlags(engine)...)
	if j.Agent.ShmSize != "" {
		argv = append(argv, "--shm-size", j.Agent.ShmSize)
	}
	if j.Agent.CPUs > 0 {
		argv = append(argv, "--cpus", strconv.FormatFloat(j.Agent.CPUs, 'f', -1, 64))
	}
	if m := j.limits.MemoryBytes; m > 0 {
		mem := strconv.FormatInt(m, 10)
		argv = append(argv, "--memory", mem, "--memory-swap", mem)
	}
	if f := j.limits.FileSizeBytes; f > 0 {
		argv = append(argv, "--ulimit", fmt.Sprintf("fsize=%d:%d", f, f))
		if engine == "podman" {
			// Given any --ulimit, podman (as root) also raises nofile and
			// nproc to its own maxima (1048576), which the OCI runtime
			// cannot set where the host's limits are lower: name both.
			argv = append(argv, j.inheritedUlimits()...)
		}
	}
	return argv
}

// containerMounts mount the run's folders (the data read-only), the
// validation socket and the agent's code.
func (j *Job) containerMounts(engine string, h, cp agentPaths, socket string) []string {
	// podman mounts the run's folders nosuid,nodev (docker's -v has no such
	// options: there the copy-out's stripping is what keeps a setuid file
	// the agent made from staying setuid on the host).
	ro, rw := ":ro", ""
	if engine == "podman" {
		ro, rw = ":ro,nosuid,nodev", ":nosuid,nodev"
	}
	argv := []string{"-v", h.data + ":" + cp.data + ro, "-v", h.submission + ":" + cp.submission + rw,
		"-v", h.logs + ":" + cp.logs + rw, "-v", h.workspace + ":" + cp.workspace + rw}
	if socket != "" {
		argv = append(argv, "-v", socket+":"+cp.socket)
	}
	if j.Agent.Code != "" {
		argv = append(argv, "-v", j.Agent.Code+":"+config.CodeMount+":ro")
	}
	return argv
}

// containerEnv is the engine's own environment (env) and the -e flags that
// pass the run's variables into the container by name, their values in env
// (the bridge's variables, no secrets, by value).
func (j *Job) containerEnv(cp agentPaths, bridgeEnv []string) (flags, env []string) {
	env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")}
	for _, name := range engineEnv {
		if v, ok := os.LookupEnv(name); ok {
			env = append(env, name+"="+v)
		}
	}
	if _, ok := j.Agent.SetEnv["HOME"]; !ok {
		flags = append(flags, "-e", "HOME="+containerHome)
	}
	for _, kv := range j.rexmleEnv(cp, j.gpusInContainer()) {
		name := kv[:strings.IndexByte(kv, '=')]
		if name == "CUDA_VISIBLE_DEVICES" {
			continue // --gpus or the CDI devices choose the devices
		}
		flags = append(flags, "-e", name)
		env = append(env, kv)
	}
	for _, kv := range j.passedEnv() {
		flags = append(flags, "-e", kv[:strings.IndexByte(kv, '=')])
		env = append(env, kv)
	}
	for _, kv := range bridgeEnv { // proxy addresses and the validation URL: no secrets
		flags = append(flags, "-e", kv)
	}
	return flags, env
}

// containerStopArgv stops the container with the grace period and removes
// it. podman rm --force --time does both before returning; docker rm has no
// grace period, so docker stop goes first. Either way the run cannot end
// with the container still there.
func containerStopArgv(engine, name string, grace time.Duration) []string {
	secs := strconv.Itoa(int(grace.Seconds()))
	if engine == "docker" {
		return []string{"sh", "-c", `docker stop --time "$1" "$2" >/dev/null 2>&1; docker rm --force "$2" >/dev/null 2>&1; exit 0`,
			"docker-stop", secs, name}
	}
	return []string{engine, "rm", "--force", "--time", secs, name}
}

// gpuFlags passes the run's GPUs: docker's --gpus (the NVIDIA container
// toolkit; the quotes are part of docker's CSV syntax) or podman's CDI
// devices (nvidia-ctk cdi generate names them nvidia.com/gpu=<index>).
func (j *Job) gpuFlags(engine string) []string {
	if len(j.GPUs) == 0 {
		return nil
	}
	if engine == "podman" {
		var f []string
		for _, g := range j.GPUs {
			f = append(f, "--device", "nvidia.com/gpu="+strconv.Itoa(g))
		}
		return f
	}
	return []string{"--gpus", `"device=` + j.gpuList() + `"`}
}

// containerBridge gives a container the egress proxy and the validation
// endpoint as loopback ports, as the bwrap sandbox has them: the static
// rexmle-bridge binary (Job.BridgeBin) is mounted read-only and runs as the
// container's main process (under --init), listening on 127.0.0.1:3128
// (the proxy, forwarded to the egress socket mounted at
// /run/rexmle/egress.sock) and 127.0.0.1:5000 (the validation socket), and
// starts the agent as its child, passing SIGTERM on. The container keeps
// --network none: its loopback is all it has, so the proxy's allowlist is
// the only way out. Without the bridge binary the validation socket is
// still mounted, but an egress allowlist cannot be honoured: an error.
func (j *Job) containerBridge(socket, egressSock string) (flags, env []string, fw []egress.Forward, err error) {
	if j.BridgeBin == "" {
		if egressSock != "" {
			return nil, nil, nil, fmt.Errorf("agent %s: egress from a container needs the static rexmle-bridge binary", j.Agent.ID)
		}
		return nil, nil, nil, nil
	}
	if socket != "" {
		fw = append(fw, egress.Forward{Listen: SandboxValidateAddr, Socket: ContainerSocket})
		env = append(env, "REXMLE_VALIDATE_URL=http://"+SandboxValidateAddr)
	}
	if egressSock != "" {
		flags = append(flags, "-v", egressSock+":"+SandboxEgressSock)
		fw = append(fw, egress.Forward{Listen: SandboxProxyAddr, Socket: SandboxEgressSock})
		env = append(env, egress.ProxyEnv(SandboxProxyAddr, j.Agent.Egress, SandboxValidateAddr)...)
	} else if socket != "" {
		env = append(env, "NO_PROXY=localhost,127.0.0.1", "no_proxy=localhost,127.0.0.1")
	}
	if len(fw) > 0 {
		flags = append(flags, "-v", j.BridgeBin+":"+ContainerBridgeBin+":ro")
	}
	return flags, env, fw, nil
}

// prepareContainer readies the host for the run's container: the engine
// must be installed and hold the image (it is never pulled at run time); a
// container left by an earlier, killed run of the same folder is removed
// (it could still write into the fresh run folder); and when the pipeline
// runs as root the run's writable folders and the validation socket are
// given to the container's uid. Paths that do not exist are skipped.
func (j *Job) prepareContainer(engine, name string, env, paths []string) error {
	bin, err := exec.LookPath(engine)
	if err != nil {
		return fmt.Errorf("agent %s: container engine %s is not installed (or set the agent's engine, or REXMLE_ENGINE, to docker or podman): %w",
			j.Agent.ID, engine, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	rm := exec.CommandContext(ctx, bin, "rm", "--force", name)
	rm.Env = env
	rm.Run() // "no such container" is the usual answer
	var stdout, stderr bytes.Buffer
	inspect := exec.CommandContext(ctx, bin, "image", "inspect", "--format", "{{.Id}}", j.Agent.Image)
	inspect.Env, inspect.Stdout, inspect.Stderr = env, &stdout, &stderr
	if err := inspect.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if len(msg) > 500 {
			msg = msg[:500] + "…"
		}
		return fmt.Errorf("agent %s: image %s is not available from %s (build it with `mage agents` or pull it; is the engine working?): %v: %s",
			j.Agent.ID, j.Agent.Image, engine, err, msg)
	}
	j.logger().Info("container image", "run", j.ID(), "engine", engine, "image", j.Agent.Image, "id", strings.TrimSpace(stdout.String()))
	if os.Getuid() != 0 {
		return nil
	}
	if err := worldReadable(j.PublicDir); err != nil {
		return fmt.Errorf("agent %s: make the public data readable by the container's uid %d: %w", j.Agent.ID, containerUID, err)
	}
	for _, p := range paths {
		if p == "" {
			continue
		}
		if err := os.Lchown(p, containerUID, containerUID); err != nil && !os.IsNotExist(err) {
			return fmt.Errorf("agent %s: give %s to the container's uid %d: %w", j.Agent.ID, p, containerUID, err)
		}
		// Owner-only while the run holds them (uid 1000 is a host user too).
		if fi, err := os.Lstat(p); err == nil && fi.IsDir() {
			if err := os.Chmod(p, 0o700); err != nil {
				return fmt.Errorf("agent %s: %w", j.Agent.ID, err)
			}
		}
	}
	return nil
}

// worldReadable adds read permission for others to every file, and read
// and search permission to every folder, under the public data dir, so that
// the container's non-root uid can read what the pipeline (root) prepared
// with owner-only modes. The data is public to the agent by definition;
// nothing else is touched. A missing dir is left alone.
func worldReadable(dir string) error {
	if dir == "" {
		return nil
	}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type()&fs.ModeSymlink != 0 {
			return nil
		}
		want := fs.FileMode(0o004)
		if d.IsDir() {
			want = 0o005
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		if m := fi.Mode().Perm(); m&want != want {
			return os.Chmod(p, m|want)
		}
		return nil
	})
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
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
	if j.Agent.Code != "" {
		binds = append(binds, j.Agent.Code+":"+config.CodeMount+":ro")
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

// inheritedUlimits are --ulimit flags for nofile (the pipeline's own hard
// limit) and nproc (the run's pids limit: the container's uid is a host
// uid, so this also bounds that uid's processes host-wide).
func (j *Job) inheritedUlimits() []string {
	out := []string{"--ulimit", fmt.Sprintf("nproc=%d:%d", j.limits.Pids, j.limits.Pids)}
	var l syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l) == nil && l.Max != ^uint64(0) {
		out = append(out, "--ulimit", fmt.Sprintf("nofile=%d:%d", l.Max, l.Max))
	}
	return out
}
