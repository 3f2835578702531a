package runner

import (
	"archive/tar"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rexmle/rexmle/pipeline/config"
	"github.com/rexmle/rexmle/pipeline/runlimits"
)

// testImage is the tiny image the container tests import: the static
// hostile agent (testdata/hostile) as /agent and nothing else.
const testImage = "localhost/rexmle-hostile:test"

// podmanTestConfig writes a containers.conf and a storage.conf into dir for
// podman on machines like CI's: runc with cgroupfs (crun fails on the
// cgroups there), no default ulimits, the vfs storage driver (no overlay
// mounts needed) with its storage, state and file locks under dir, so that
// tests running at the same time (and the machine's own podman) do not
// share anything. It returns the environment that points podman at them.
func podmanTestConfig(dir string) ([]string, error) {
	conf := filepath.Join(dir, "containers.conf")
	storage := filepath.Join(dir, "storage.conf")
	c := "[containers]\ndefault_ulimits = []\n\n[engine]\nruntime = \"runc\"\ncgroup_manager = \"cgroupfs\"\nevents_logger = \"file\"\n" +
		"tmp_dir = \"" + filepath.Join(dir, "tmp") + "\"\nlock_type = \"file\"\n"
	s := "[storage]\ndriver = \"vfs\"\ngraphroot = \"" + filepath.Join(dir, "root") + "\"\nrunroot = \"" + filepath.Join(dir, "run") + "\"\n"
	if err := os.WriteFile(conf, []byte(c), 0o644); err != nil {
		return nil, err
	}
	if err := os.WriteFile(storage, []byte(s), 0o644); err != nil {
		return nil, err
	}
	return []string{"CONTAINERS_CONF=" + conf, "CONTAINERS_STORAGE_CONF=" + storage}, nil
}

// setupPodman skips the test where podman is absent; otherwise it points
// podman at a private configuration and storage in a temporary folder,
// builds the static hostile agent and imports it as testImage.
func setupPodman(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("podman"); err != nil {
		t.Skip("podman is not installed (apt-get install podman runc): the container executor's real runs are not tested")
	}
	// A short folder: podman's run root holds sockets whose paths must stay
	// under the kernel's 108 bytes.
	dir, err := os.MkdirTemp("", "rxp")
	if err != nil {
		t.Fatal(err)
	}
	podmanDir = dir
	t.Cleanup(func() { os.RemoveAll(dir) })
	env, err := podmanTestConfig(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	t.Cleanup(func() { exec.Command("podman", "system", "reset", "--force").Run() })

	rootfs := filepath.Join(dir, "rootfs")
	os.MkdirAll(rootfs, 0o755)
	build := exec.Command("go", "build", "-o", filepath.Join(rootfs, "agent"), "./testdata/hostile")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build the static test agent: %v\n%s", err, out)
	}
	bridge := exec.Command("go", "build", "-o", testBridgeBin(dir), "../../cmd/rexmle-bridge")
	bridge.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := bridge.CombinedOutput(); err != nil {
		t.Fatalf("build the static bridge: %v\n%s", err, out)
	}
	tarball := filepath.Join(dir, "rootfs.tar")
	if err := writeRootfsTar(tarball, filepath.Join(rootfs, "agent")); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("podman", "import", tarball, testImage).CombinedOutput(); err != nil {
		t.Fatalf("podman import: %v\n%s", err, out)
	}
}

// podmanDir is setupPodman's folder: podman's state, the image's rootfs,
// the static bridge.
var podmanDir string

// testBridgeBin is where setupPodman builds the static rexmle-bridge.
func testBridgeBin(dir string) string { return filepath.Join(dir, "rexmle-bridge") }

// writeRootfsTar writes a root filesystem holding /agent and the empty
// folders an engine mounts over.
func writeRootfsTar(path, agent string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	tw := tar.NewWriter(f)
	// The root and /etc are writable by anyone in the image: only the
	// read-only root stops the agent writing there.
	for _, d := range []string{".", "tmp", "proc", "sys", "dev", "etc", "run"} {
		mode := int64(0o755)
		switch d {
		case "tmp":
			mode = 0o1777
		case ".", "etc":
			mode = 0o777
		}
		if err := tw.WriteHeader(&tar.Header{Name: d + "/", Typeflag: tar.TypeDir, Mode: mode}); err != nil {
			return err
		}
	}
	b, err := os.ReadFile(agent)
	if err != nil {
		return err
	}
	if err := tw.WriteHeader(&tar.Header{Name: "agent", Typeflag: tar.TypeReg, Mode: 0o755, Size: int64(len(b))}); err != nil {
		return err
	}
	if _, err := tw.Write(b); err != nil {
		return err
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return f.Close()
}

// containerRunJob is a job for the docker executor on podman running the
// hostile agent with args.
func containerRunJob(t *testing.T, root, name string, args ...string) *Job {
	t.Helper()
	pub := filepath.Join(root, "data", "c1", "public")
	if err := os.MkdirAll(pub, 0o755); err != nil {
		t.Fatal(err)
	}
	return &Job{Group: "g", Challenge: "c1", Seed: 1, PublicDir: pub, RunDir: filepath.Join(root, "results", "runs", "g", "c1", name, "seed-1"),
		Agent:     config.Agent{ID: name, Backend: "none", Executor: "docker", Engine: "podman", Image: testImage, Command: append([]string{"/agent"}, args...)},
		TimeLimit: 60 * time.Second, Grace: time.Second}
}

// assertContainerGone fails when the run's container still exists.
func assertContainerGone(t *testing.T, j *Job) {
	t.Helper()
	err := exec.Command("podman", "container", "exists", containerName(j)).Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Errorf("container %s still exists after the run (podman container exists: %v)", containerName(j), err)
	}
}

// hostProcessesWith lists the host's processes whose command line holds token.
func hostProcessesWith(token string) []string {
	var out []string
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && strings.Contains(string(b), token) {
			out = append(out, e.Name()+": "+strings.ReplaceAll(string(b), "\x00", " "))
		}
	}
	return out
}

func TestContainerExecutorHostileAgent(t *testing.T) {
	setupPodman(t)

	t.Run("cannot read, write or remount what it is not given", func(t *testing.T) {
		root := t.TempDir()
		privs := []string{filepath.Join(root, "data", "c1", "private", "answers.csv"), filepath.Join(root, "data", "raw", "c1", "labels.csv"),
			filepath.Join(root, "results", "rexmle.sqlite"), filepath.Join(root, "results", "runs", "g", "c1", "other", "seed-1", "submission", "copied.csv"),
			filepath.Join(root, "checkout", "benchmark.toml"), filepath.Join(root, "other-checkout", "data", "c1", "private", "answers.csv")}
		for _, p := range privs {
			os.MkdirAll(filepath.Dir(p), 0o755)
			if err := os.WriteFile(p, []byte("case,label\n1,"+secret+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		j := containerRunJob(t, root, "probe", "probe", "/logs/probe.json", strings.Join(privs, ","), ln.Addr().String())
		// Prepared as root with owner-only modes: the container's uid must
		// still read it.
		os.WriteFile(filepath.Join(j.PublicDir, "train.csv"), []byte("case,label\n0,public\n"), 0o600)
		os.Chmod(filepath.Join(j.PublicDir, "train.csv"), 0o600)
		// Writable by anyone on the host: only the read-only mount protects it.
		if err := os.Chmod(j.PublicDir, 0o777); err != nil {
			t.Fatal(err)
		}
		j.Agent.SetEnv = map[string]string{"PROBE_SECRET": secret}
		j.Validate = func(ctx context.Context, dir string) error { return nil }
		in, err := Execute(context.Background(), j)
		if err != nil || in.Status != StatusDone || in.Isolation != "container: podman" {
			log, _ := os.ReadFile(filepath.Join(j.RunDir, "logs", "console.log"))
			t.Fatalf("%+v %v\nconsole.log:\n%s", in, err, log)
		}
		b, err := os.ReadFile(filepath.Join(j.RunDir, "logs", "probe.json"))
		if err != nil {
			t.Fatalf("no report: %v", err)
		}
		var r struct {
			UID         int      `json:"uid"`
			CapEff      string   `json:"cap_eff"`
			NoNewPrivs  string   `json:"no_new_privs"`
			Files       int      `json:"files"`
			Found       []string `json:"found"`
			Direct      []string `json:"direct"`
			Wrote       []string `json:"wrote"`
			Mounts      []string `json:"mounts"`
			MountErrs   []string `json:"mount_errs"`
			Dial        string   `json:"dial"`
			Validation  string   `json:"validation"`
			Public      bool     `json:"public_seen"`
			WroteOwn    bool     `json:"wrote_own"`
			EnvLeaks    []string `json:"env_leaks"`
			HomeIsTmp   bool     `json:"home_is_tmp"`
			RootWritErr string   `json:"root_writ_err"`
		}
		if err := json.Unmarshal(b, &r); err != nil {
			t.Fatal(err)
		}
		t.Logf("uid %d, CapEff %s, %d files read, mount errors %q, dial %q, write / %q", r.UID, r.CapEff, r.Files, r.MountErrs, r.Dial, r.RootWritErr)
		if r.Files == 0 || !r.Public || !r.WroteOwn {
			t.Fatalf("the probe did not run as it should: files %d, public data seen %v, own submission written %v", r.Files, r.Public, r.WroteOwn)
		}
		if r.UID == 0 || r.CapEff != "0000000000000000" || r.NoNewPrivs != "1" {
			t.Errorf("uid %d CapEff %q NoNewPrivs %q: want non-root, no capabilities, no new privileges", r.UID, r.CapEff, r.NoNewPrivs)
		}
		if len(r.Found)+len(r.Direct)+len(r.EnvLeaks) > 0 {
			t.Errorf("the agent reached private answers: found %v, direct %v, env %v", r.Found, r.Direct, r.EnvLeaks)
		}
		if len(r.Wrote) > 0 {
			t.Errorf("the agent wrote into %v", r.Wrote)
		}
		if _, err := os.Stat(filepath.Join(j.PublicDir, "planted.csv")); err == nil {
			t.Error("a file appeared in the host's public data")
		}
		if len(r.Mounts) > 0 {
			t.Errorf("mount changes succeeded: %v", r.Mounts)
		}
		if r.Dial == "connected" {
			t.Error("the agent reached a host loopback server without network")
		}
		if r.Validation != "connected" {
			t.Errorf("the validation socket is not reachable inside: %q", r.Validation)
		}
		if !r.HomeIsTmp {
			t.Error("HOME is not /tmp inside the container")
		}
		if b, _ := os.ReadFile(filepath.Join(j.RunDir, "submission", "submission.csv")); string(b) != "case,label\n1,0\n" {
			t.Errorf("submission on the host: %q", b)
		}
		assertContainerGone(t, j)
	})

	t.Run("shared memory, CPU, memory and pids limits are applied", func(t *testing.T) {
		if _, err := os.Stat("/sys/fs/cgroup/cgroup.controllers"); err != nil && os.Getuid() != 0 {
			t.Skip("rootless podman on cgroups v1 ignores resource limits")
		}
		j := containerRunJob(t, t.TempDir(), "limits", "limits", "/logs/limits.json")
		j.Agent.ShmSize, j.Agent.CPUs, j.Agent.Memory = "100m", 1.5, "256m"
		in, err := Execute(context.Background(), j)
		if err != nil || in.Status != StatusDone {
			t.Fatalf("%+v %v", in, err)
		}
		b, err := os.ReadFile(filepath.Join(j.RunDir, "logs", "limits.json"))
		if err != nil {
			t.Fatal(err)
		}
		var l map[string]string
		json.Unmarshal(b, &l)
		t.Logf("inside: %v", l)
		if l["memory"] != strconv.Itoa(256<<20) || l["pids"] != strconv.Itoa(runlimits.DefaultPids) {
			t.Errorf("memory %q pids %q, want %d and %d", l["memory"], l["pids"], 256<<20, runlimits.DefaultPids)
		}
		// 1.5 CPUs: a quota of 1.5 periods.
		cpu := l["cpu_max"]
		if cpu == "" {
			cpu = l["cpu_quota"] + " " + l["cpu_period"]
		}
		var quota, period float64
		if _, err := fmt.Sscan(cpu, &quota, &period); err != nil || period == 0 || quota/period != 1.5 {
			t.Errorf("cpu limit %q, want 1.5 periods", cpu)
		}
		if !strings.Contains(l["shm"], "size=102400k") {
			t.Errorf("/dev/shm options %q, want size=102400k", l["shm"])
		}
		assertContainerGone(t, j)
	})

	t.Run("image not built: a failed run saying so", func(t *testing.T) {
		j := containerRunJob(t, t.TempDir(), "unbuilt", "ignore-term", "0")
		j.Agent.Image = "localhost/rexmle-never-built:1"
		in, err := Execute(context.Background(), j)
		if err != nil || in.Status != StatusFailed || !strings.Contains(in.Error, "image localhost/rexmle-never-built:1 is not available from podman") {
			t.Fatalf("%+v %v", in, err)
		}
		back, ok := Finished(j.RunDir)
		if !ok || back.Status != StatusFailed || back.Error != in.Error {
			t.Fatalf("run.json %+v", back)
		}
	})

	t.Run("ignores SIGTERM: killed after the grace period", func(t *testing.T) {
		j := containerRunJob(t, t.TempDir(), "stubborn", "ignore-term", "60")
		j.TimeLimit = 2 * time.Second
		in, err := Execute(context.Background(), j)
		if err != nil || in.Status != StatusTimedOut {
			t.Fatalf("%+v %v", in, err)
		}
		log, _ := os.ReadFile(filepath.Join(j.RunDir, "logs", "console.log"))
		t.Logf("wall %.2fs", in.WallSeconds)
		if !strings.Contains(string(log), "ignoring SIGTERM") {
			t.Fatalf("the agent never started: %s", log)
		}
		// The time limit plus the grace period, plus the engine's own work.
		if in.WallSeconds < 2.9 || in.WallSeconds > 15 {
			t.Errorf("wall %.2fs, want about 3 s (2 s limit + 1 s grace)", in.WallSeconds)
		}
		assertContainerGone(t, j)
	})

	t.Run("cancelled: interrupted and removed", func(t *testing.T) {
		j := containerRunJob(t, t.TempDir(), "cancel", "ignore-term", "60")
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(2*time.Second, cancel)
		in, err := Execute(ctx, j)
		if !errors.Is(err, context.Canceled) || in == nil || in.Status != StatusInterrupted {
			t.Fatalf("%+v %v", in, err)
		}
		if in.WallSeconds > 15 {
			t.Errorf("wall %.2fs after a cancel at 2 s with 1 s grace", in.WallSeconds)
		}
		assertContainerGone(t, j)
	})

	t.Run("setsid daemon dies with the container", func(t *testing.T) {
		token := "rexmle-daemon-" + filepath.Base(t.TempDir())
		j := containerRunJob(t, t.TempDir(), "daemon", "daemon", token)
		in, err := Execute(context.Background(), j)
		if err != nil || in.Status != StatusDone {
			t.Fatalf("%+v %v", in, err)
		}
		out := filepath.Join(j.RunDir, "submission", "daemon.txt")
		before, err := os.ReadFile(out)
		if err != nil || !strings.Contains(string(before), token) {
			t.Fatalf("the daemon never wrote: %v %q", err, before)
		}
		time.Sleep(500 * time.Millisecond)
		after, _ := os.ReadFile(out)
		if len(after) != len(before) {
			t.Errorf("the daemon still writes into the submission after the run: %d → %d bytes", len(before), len(after))
		}
		if ps := hostProcessesWith(token); len(ps) > 0 {
			t.Errorf("processes survived the run: %v", ps)
		}
		assertContainerGone(t, j)
	})

	t.Run("egress: the allowed endpoint only, through the proxy; validation over HTTP", func(t *testing.T) {
		allowed, refused := fakeLLMAndOther(t)
		j := containerRunJob(t, t.TempDir(), "llm", "egress", "/logs/egress.json", allowed, refused)
		j.BridgeBin = testBridgeBin(podmanDir)
		j.Agent.Egress = []string{allowed}
		var asked []string
		j.Validate = func(ctx context.Context, dir string) error { asked = append(asked, dir); return nil }
		in, err := Execute(context.Background(), j)
		if err != nil || in.Status != StatusDone {
			log, _ := os.ReadFile(filepath.Join(j.RunDir, "logs", "console.log"))
			t.Fatalf("%+v %v\n%s", in, err, log)
		}
		res := readEgressReport(t, j)
		checkEgressReport(t, res)
		if len(asked) != 1 {
			t.Errorf("validation over HTTP asked %v", asked)
		}
		assertContainerGone(t, j)
	})

	t.Run("FIFO and giant sparse file: the run ends", func(t *testing.T) {
		j := containerRunJob(t, t.TempDir(), "junk", "leave-junk")
		in, err := Execute(context.Background(), j)
		if err != nil || in.Status != StatusDone {
			log, _ := os.ReadFile(filepath.Join(j.RunDir, "logs", "console.log"))
			t.Fatalf("%+v %v\n%s", in, err, log)
		}
		// The sealed submission keeps neither: the FIFO is not a regular
		// file and the sparse file is over the per-file cap.
		if in.Snapshot == nil || in.Snapshot.DroppedCount != 2 {
			t.Fatalf("snapshot: %+v, want the FIFO and the 2 GB file dropped", in.Snapshot)
		}
		for _, f := range []string{"submission.csv", "big.csv"} {
			if _, err := os.Lstat(filepath.Join(j.RunDir, "submission", f)); !os.IsNotExist(err) {
				t.Errorf("%s is in the sealed submission: %v", f, err)
			}
		}
		assertContainerGone(t, j)
	})
}

// TestContainerExecutorHardening: the hardening tests' agents in a podman
// container: FIFO logs, a setuid file and world-writable files in the
// workspace and logs, a fork bomb, a memory hog, a file-size hog.
func TestContainerExecutorHardening(t *testing.T) {
	setupPodman(t)
	t.Run("FIFO logs: the stage ends and says so", func(t *testing.T) {
		j := containerRunJob(t, t.TempDir(), "fifo", "badlogs", "fifo")
		in := finishWithin(t, j, 60*time.Second)
		if in.Status != StatusDone || !hasProblem(in, "logs/working_time.json", "named pipe (FIFO)") || !hasProblem(in, "logs/console.log", "named pipe (FIFO)") {
			t.Errorf("%s %q, log problems %q", in.Status, in.Error, in.LogProblems)
		}
		assertContainerGone(t, j)
	})
	t.Run("setuid and world-writable files: stripped on the host", func(t *testing.T) {
		j := containerRunJob(t, t.TempDir(), "setuid", "badlogs", "setuid")
		in := finishWithin(t, j, 60*time.Second)
		if in.Status != StatusDone {
			log, _ := os.ReadFile(filepath.Join(j.RunDir, "logs", "console.log"))
			t.Fatalf("%+v\n%s", in, log)
		}
		checkHandedBack(t, j.RunDir, []string{"workspace", "logs"})
		mounts, _ := os.ReadFile(filepath.Join(j.RunDir, "logs", "mounts.txt"))
		t.Logf("inside: %s; copy_out %+v", mounts, in.CopyOut)
		for _, l := range strings.Split(strings.TrimSpace(string(mounts)), "\n") {
			if !strings.Contains(l, "nosuid") || !strings.Contains(l, "nodev") {
				t.Errorf("mount %q is not nosuid,nodev", l)
			}
		}
		if in.CopyOut == nil || in.CopyOut.Removed != 4 {
			t.Errorf("copy_out %+v, want the 4 FIFOs and sockets removed", in.CopyOut)
		}
	})
	t.Run("fork bomb: --pids-limit", func(t *testing.T) {
		j := containerRunJob(t, t.TempDir(), "fork", "hog", "fork", "400")
		j.Agent.PidsLimit = 64
		finishWithin(t, j, 60*time.Second)
		v := readHog(t, j)
		t.Logf("started %v (%v)", v["started"], v["err"])
		if n, _ := v["started"].(float64); n >= 64 || n < 3 {
			t.Errorf("started %v processes with pids_limit 64", n)
		}
		assertContainerGone(t, j)
	})
	t.Run("memory hog: --memory", func(t *testing.T) {
		j := containerRunJob(t, t.TempDir(), "mem", "hog", "mem", strconv.Itoa(1<<30))
		j.Agent.Memory = "256m"
		in := finishWithin(t, j, 60*time.Second)
		v := readHog(t, j)
		t.Logf("%s exit %d; got %v MiB", in.Status, in.ExitCode, v["bytes"].(float64)/(1<<20))
		if got := v["bytes"].(float64); got > 256<<20 {
			t.Errorf("the container held %v bytes with memory = 256m", got)
		}
		assertContainerGone(t, j)
	})
	t.Run("file-size hog: --ulimit fsize", func(t *testing.T) {
		j := containerRunJob(t, t.TempDir(), "fsize", "hog", "fsize", strconv.Itoa(64<<20))
		j.Agent.FileSizeLimit = "1m"
		finishWithin(t, j, 60*time.Second)
		fi, err := os.Stat(filepath.Join(j.RunDir, "workspace", "big"))
		if err != nil || fi.Size() > 1<<20 {
			t.Errorf("the file is %v (%v) with file_size_limit 1m", fi, err)
		}
		assertContainerGone(t, j)
	})
}
