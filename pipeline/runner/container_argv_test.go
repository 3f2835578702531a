package runner

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/rexmle/rexmle/pipeline/runlimits"
	"github.com/rexmle/rexmle/pipeline/settings"
)

// flagValue returns the value after the first occurrence of flag in argv.
func flagValue(argv []string, flag string) (string, bool) {
	for i := 0; i+1 < len(argv); i++ {
		if argv[i] == flag {
			return argv[i+1], true
		}
	}
	return "", false
}

// flagValues returns every value given to flag.
func flagValues(argv []string, flag string) []string {
	var out []string
	for i := 0; i+1 < len(argv); i++ {
		if argv[i] == flag {
			out = append(out, argv[i+1])
		}
	}
	return out
}

// fakeEngines puts fake docker and podman first on PATH: each appends its
// arguments to the returned file, prints an image id for "image inspect"
// and fails (exit 1) for any image named "missing/..." and for rm.
func fakeEngines(t *testing.T) string {
	t.Helper()
	bin := t.TempDir()
	calls := filepath.Join(bin, "calls")
	script := "#!/bin/sh\necho \"$@\" >> " + calls + "\n" +
		"case \"$1 $2\" in\n" +
		"\"image inspect\") case \"$5\" in missing/*) echo \"Error: $5: image not known\" >&2; exit 125;; esac; echo sha256:0123; exit 0;;\n" +
		"esac\nexit 1\n"
	for _, e := range []string{"docker", "podman"} {
		if err := os.WriteFile(filepath.Join(bin, e), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	return calls
}

func TestDockerArgv(t *testing.T) {
	fakeEngines(t)
	j := containerJob("docker", false, []int{2, 5})
	j.Host = settings.NewEnviron([]string{"OPENAI_API_KEY=sk-secret-value"})
	l, err := j.build(&validationServer{socket: "/r/isles22/aide/seed-2/validate.sock"})
	if err != nil {
		t.Fatal(err)
	}
	user := fmt.Sprintf("%d:%d", os.Getuid(), os.Getgid())
	if os.Getuid() == 0 {
		user = "1000:1000" // never root inside
	}
	// Default limits: 3/4 of the host's RAM, files up to 256 GiB.
	mem := strconv.FormatInt(j.limits.MemoryBytes, 10)
	if total, err := runlimits.System().MemTotal(); err != nil || j.limits.MemoryBytes != int64(float64(total)*runlimits.MemoryShare) {
		t.Fatalf("default memory limit %d, host RAM %d (%v)", j.limits.MemoryBytes, total, err)
	}
	// The engine, run options up to the image, then the templated command.
	want := []string{"docker", "run", "--rm", "--init", "--name", containerName(j), "--label", "io.rexmle.run=paper/isles22/aide/seed-2",
		"--pull", "never", "--user", user, "--cap-drop", "ALL", "--security-opt", "no-new-privileges",
		"--read-only", "--tmpfs", "/tmp:rw,nosuid,nodev,exec,mode=1777", "--pids-limit", "4096",
		"--network", "none", "--gpus", `"device=2,5"`, "--memory", mem, "--memory-swap", mem, "--ulimit", "fsize=274877906944:274877906944",
		"-v", "/d/isles22/public:/data:ro", "-v", "/r/isles22/aide/seed-2/submission:/submission",
		"-v", "/r/isles22/aide/seed-2/logs:/logs", "-v", "/r/isles22/aide/seed-2/workspace:/workspace",
		"-v", "/r/isles22/aide/seed-2/validate.sock:/run/rexmle/validate.sock", "-w", "/workspace",
		"-e", "HOME=/tmp", "-e", "REXMLE_SEED", "-e", "REXMLE_CHALLENGE", "-e", "REXMLE_TIME_LIMIT", "-e", "REXMLE_VALIDATE_SOCKET",
		"-e", "OPENAI_API_KEY", "-e", "MODE",
		"ghcr.io/x/aide:1", "aide", "data_dir=/data", "log_dir=/logs", "out=/submission", "t=86400", "gpus=0,1"}
	if !reflect.DeepEqual(l.argv, want) {
		t.Fatalf("argv\n%q\nwant\n%q", l.argv, want)
	}
	if strings.Contains(strings.Join(l.argv, " "), "sk-secret-value") {
		t.Fatal("a secret value is on the command line")
	}
	env := strings.Join(l.env, "\n")
	for _, kv := range []string{"OPENAI_API_KEY=sk-secret-value", "MODE=fast", "REXMLE_SEED=2", "REXMLE_VALIDATE_SOCKET=/run/rexmle/validate.sock"} {
		if !strings.Contains(env, kv) {
			t.Errorf("env lacks %s", kv)
		}
	}
	if strings.Contains(env, "REXMLE_TEST_UNSET_VAR") {
		t.Error("an unset variable was passed")
	}
	if l.isolation != "container: docker" {
		t.Fatalf("isolation %q", l.isolation)
	}
	// docker stop with the grace period, then docker rm --force, through sh
	// with the grace and the name as arguments (never spliced into the script).
	stop := strings.Join(l.stopArgv, " ")
	if l.stopArgv[0] != "sh" || !strings.Contains(stop, `docker stop --time "$1" "$2"`) || !strings.Contains(stop, `docker rm --force "$2"`) ||
		!reflect.DeepEqual(l.stopArgv[len(l.stopArgv)-2:], []string{"300", containerName(j)}) {
		t.Fatalf("stop %q", l.stopArgv)
	}

	// With network allowed and no GPUs: neither --network nor --gpus.
	l, _ = containerJob("docker", true, nil).build(nil)
	s := strings.Join(l.argv, " ")
	if strings.Contains(s, "--network") || strings.Contains(s, "--gpus") || strings.Contains(s, "validate.sock") {
		t.Fatalf("argv %s", s)
	}
}

func TestPodmanArgvLimitsAndGPUs(t *testing.T) {
	fakeEngines(t)
	t.Setenv("CONTAINERS_CONF", "/etc/x/containers.conf")
	j := containerJob("docker", false, []int{1, 3})
	j.Agent.Engine = "podman"
	j.Agent.ShmSize, j.Agent.CPUs, j.Agent.Memory = "16g", 7.5, "64g"
	j.Agent.SetEnv = map[string]string{"HOME": "/workspace"}
	l, err := j.build(nil)
	if err != nil {
		t.Fatal(err)
	}
	if l.argv[0] != "podman" || l.argv[1] != "run" || l.isolation != "container: podman" {
		t.Fatalf("argv %q isolation %q", l.argv[:2], l.isolation)
	}
	if got := flagValues(l.argv, "--device"); !reflect.DeepEqual(got, []string{"nvidia.com/gpu=1", "nvidia.com/gpu=3"}) {
		t.Errorf("CDI devices %q", got)
	}
	for flag, want := range map[string]string{"--shm-size": "16g", "--cpus": "7.5", "--memory": "68719476736", "--memory-swap": "68719476736", "--pids-limit": "4096", "--network": "none"} {
		if v, ok := flagValue(l.argv, flag); !ok || v != want {
			t.Errorf("%s = %q (present %v), want %q", flag, v, ok, want)
		}
	}
	if _, ok := flagValue(l.argv, "--gpus"); ok {
		t.Error("podman was given docker's --gpus")
	}
	// The agent's own HOME wins over the default /tmp, passed by name.
	if strings.Contains(strings.Join(l.argv, " "), "HOME=/tmp") || !strings.Contains(strings.Join(l.env, "\n"), "HOME=/workspace") {
		t.Errorf("HOME: argv %q", l.argv)
	}
	if os.Getuid() != 0 {
		if v, _ := flagValue(l.argv, "--userns"); v != "keep-id" {
			t.Errorf("rootless podman without --userns keep-id: %q", l.argv)
		}
	}
	// The engine finds its configuration in the client's environment.
	if !strings.Contains(strings.Join(l.env, "\n"), "CONTAINERS_CONF=/etc/x/containers.conf") {
		t.Errorf("CONTAINERS_CONF not passed to the engine: %q", l.env)
	}
	// The container is removed at the end, after the grace period.
	if !reflect.DeepEqual(l.stopArgv, []string{"podman", "rm", "--force", "--time", "300", containerName(j)}) {
		t.Errorf("stop %q", l.stopArgv)
	}
	// The GPUs are renumbered from 0 inside; CUDA_VISIBLE_DEVICES is the engine's business.
	if strings.Contains(strings.Join(l.env, "\n"), "CUDA_VISIBLE_DEVICES") || l.argv[len(l.argv)-1] != "gpus=0,1" {
		t.Errorf("gpus: env %q argv %q", l.env, l.argv)
	}
}

func TestEngineChoice(t *testing.T) {
	fakeEngines(t)
	j := containerJob("docker", false, nil)
	if e, err := j.Engine(); err != nil || e != "docker" {
		t.Fatalf("default %q %v", e, err)
	}
	j.EngineSetting = "podman"
	if e, err := j.Engine(); err != nil || e != "podman" {
		t.Fatalf("from REXMLE_ENGINE %q %v", e, err)
	}
	j.Agent.Engine = "docker" // the agent's own setting wins
	if e, err := j.Engine(); err != nil || e != "docker" {
		t.Fatalf("agent engine %q %v", e, err)
	}
	j.Agent.Engine = ""
	j.EngineSetting = "lxc"
	if _, err := j.build(nil); err == nil || !strings.Contains(err.Error(), `REXMLE_ENGINE is "lxc"`) {
		t.Fatalf("bad engine: %v", err)
	}
}

func TestBuiltinAgentInContainer(t *testing.T) {
	fakeEngines(t)
	j := containerJob("docker", false, nil)
	j.EngineSetting = "podman"
	j.Agent.Command, j.Agent.Builtin, j.AgentBin = nil, "sample", "/host/bin/rexmle-agent"
	l, err := j.build(nil)
	if err != nil {
		t.Fatal(err)
	}
	i := len(l.argv) - 11 // image, binary, subcommand, then 8 flag words
	if i < 0 || l.argv[i] != "ghcr.io/x/aide:1" || l.argv[i+1] != ContainerAgentBin || l.argv[i+2] != "sample" {
		t.Fatalf("argv tail %q", l.argv[i:])
	}
	if !strings.Contains(strings.Join(l.argv, " "), "-v /host/bin/rexmle-agent:"+ContainerAgentBin+":ro") {
		t.Fatalf("the binary is not mounted: %q", l.argv)
	}
}

// TestDockerStopCommand runs the docker executor's stop command against a
// fake docker that records its arguments: stop with the grace period, then
// a forced removal (which the fake refuses: the stop command still ends).
func TestDockerStopCommand(t *testing.T) {
	calls := fakeEngines(t)
	j := containerJob("docker", false, nil)
	j.EngineSetting = "docker"
	l, err := j.build(nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(calls)
	if want := "rm --force " + containerName(j) + "\nimage inspect --format {{.Id}} ghcr.io/x/aide:1\n"; string(b) != want {
		t.Fatalf("before the run docker was called with\n%s\nwant\n%s", b, want)
	}
	os.Remove(calls)
	if out, err := exec.Command(l.stopArgv[0], l.stopArgv[1:]...).CombinedOutput(); err != nil {
		t.Fatalf("stop command: %v %s", err, out)
	}
	b, _ = os.ReadFile(calls)
	if want := "stop --time 300 " + containerName(j) + "\nrm --force " + containerName(j) + "\n"; string(b) != want {
		t.Fatalf("docker was called with\n%s\nwant\n%s", b, want)
	}
}

func TestContainerCannotStart(t *testing.T) {
	fakeEngines(t)
	j := containerJob("docker", false, nil)
	j.Agent.Engine = "podman"
	j.Agent.Image = "missing/agent:1"
	if _, err := j.build(nil); err == nil || !strings.Contains(err.Error(), "image missing/agent:1 is not available from podman (build it with `mage agents`") ||
		!strings.Contains(err.Error(), "image not known") {
		t.Fatalf("missing image: %v", err)
	}
	t.Setenv("PATH", t.TempDir()) // no engine at all
	j.Agent.Image = "ghcr.io/x/aide:1"
	if _, err := j.build(nil); err == nil || !strings.Contains(err.Error(), "container engine podman is not installed") {
		t.Fatalf("missing engine: %v", err)
	}
}

func TestWorldReadable(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "train")
	os.Mkdir(sub, 0o700)
	f := filepath.Join(sub, "case1.nii.gz")
	os.WriteFile(f, []byte("x"), 0o600)
	os.Chmod(f, 0o600)
	os.Chmod(sub, 0o700)
	exe := filepath.Join(dir, "run.sh")
	os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o750)
	os.Chmod(exe, 0o750)
	outside := filepath.Join(t.TempDir(), "secret")
	os.WriteFile(outside, []byte("x"), 0o600)
	os.Chmod(outside, 0o600)
	os.Symlink(outside, filepath.Join(dir, "link"))
	if err := worldReadable(dir); err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]os.FileMode{sub: 0o705, f: 0o604, exe: 0o754, outside: 0o600} {
		fi, err := os.Stat(p)
		if err != nil || fi.Mode().Perm() != want {
			t.Errorf("%s: mode %v (%v), want %v", p, fi.Mode().Perm(), err, want)
		}
	}
	if err := worldReadable(filepath.Join(dir, "missing")); err != nil {
		t.Errorf("missing dir: %v", err)
	}
}
