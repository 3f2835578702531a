package runner

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
)

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
