package agentrecipe

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rexmle/rexmle/pipeline/runner"
)

// podmanEnv points podman at a private configuration and storage under dir
// (runc with cgroupfs and no default ulimits, as these machines need; vfs
// storage), so the test shares nothing with other podman users.
func podmanEnv(t *testing.T, dir string) []string {
	t.Helper()
	conf := "[containers]\ndefault_ulimits = []\n\n[engine]\nruntime = \"runc\"\ncgroup_manager = \"cgroupfs\"\nevents_logger = \"file\"\n" +
		"tmp_dir = \"" + filepath.Join(dir, "tmp") + "\"\nlock_type = \"file\"\n"
	storage := "[storage]\ndriver = \"vfs\"\ngraphroot = \"" + filepath.Join(dir, "root") + "\"\nrunroot = \"" + filepath.Join(dir, "run") + "\"\n"
	if err := os.WriteFile(filepath.Join(dir, "containers.conf"), []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "storage.conf"), []byte(storage), 0o644); err != nil {
		t.Fatal(err)
	}
	return append(os.Environ(), "CONTAINERS_CONF="+filepath.Join(dir, "containers.conf"), "CONTAINERS_STORAGE_CONF="+filepath.Join(dir, "storage.conf"))
}

// The stand-in's recipe builds with no network (its base imported from this
// machine's Python) and its adapter runs in the container exactly as the
// runner starts the paper's agents: data read-only at /data, the run's
// folders and validation socket mounted, the host user, the command from
// benchmark.toml; it reaches the fake chat endpoint, validates through
// rexmle's socket, and leaves a submission that grades.
func TestStandinImageRunsEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("builds an image (about 30 s)")
	}
	if _, err := exec.LookPath("podman"); err != nil {
		t.Skip("podman is not installed")
	}
	dir, err := os.MkdirTemp("", "rxa") // short: podman's socket paths must stay under 108 bytes
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	env := podmanEnv(t, dir)
	podman := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("podman", args...)
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("podman %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	t.Cleanup(func() {
		cmd := exec.Command("podman", "system", "reset", "--force")
		cmd.Env = env
		cmd.Run()
	})
	tarball := filepath.Join(dir, "python.tar")
	mk := exec.Command("sh", filepath.Join(agentsDir, "standin", "python-rootfs.sh"), tarball)
	mk.Env = append(os.Environ(), "PYTHON="+python(t))
	if out, err := mk.CombinedOutput(); err != nil {
		t.Fatalf("python rootfs: %v\n%s", err, out)
	}
	podman("import", tarball, "localhost/rexmle-python-base:test")
	podman("build", "-q", "--network", "none", "--build-arg", "BASE=localhost/rexmle-python-base:test", "-t", "localhost/rexmle-standin:test", "-f", filepath.Join(agentsDir, "standin", "Containerfile"), agentsDir)

	w := newWorld(t, "ldct-iqa")
	// as the runner does: the host user, keys passed by name only
	env = append(env, "REXMLE_STANDIN_API_KEY="+secretValue)
	args := []string{"run", "--rm", "--network", "host", "--user", fmt.Sprintf("%d:%d", os.Getuid(), os.Getgid()), "--security-opt", "no-new-privileges", "--cap-drop", "ALL",
		"-v", w.public + ":/data:ro", "-v", w.sub + ":/submission", "-v", w.logs + ":/logs", "-v", w.ws + ":/workspace",
		"-v", w.socket + ":" + runner.ContainerSocket, "-w", "/workspace",
		"-e", "REXMLE_VALIDATE_SOCKET=" + runner.ContainerSocket, "-e", "REXMLE_ENDPOINT=openai-compatible",
		"-e", "REXMLE_API_KEY_ENV=REXMLE_STANDIN_API_KEY", "-e", "REXMLE_STANDIN_API_KEY",
		"-e", "REXMLE_BASE_URL_ENV=REXMLE_STANDIN_BASE_URL", "-e", "REXMLE_STANDIN_BASE_URL=" + w.llmURL,
		"-e", "REXMLE_MODEL=standin-model", "-e", "REXMLE_HARDWARE=test container",
		"localhost/rexmle-standin:test",
		// the command of agent "standin" in benchmark.toml, placeholders filled as for a container
		"python3", "/opt/rexmle/adapter.py", "--data", "/data", "--submission", "/submission", "--logs", "/logs",
		"--workspace", "/workspace", "--time-limit", "300", "--challenge", "ldct-iqa"}
	out := podman(args...)
	if strings.Contains(out, secretValue) {
		t.Error("the container printed the API key")
	}
	if len(w.llm.reqs) != 1 {
		t.Fatalf("%d chat requests from the container, want 1\n%s", len(w.llm.reqs), out)
	}
	j := journal(t, filepath.Join(w.logs, "standin", "journal.jsonl"))
	if v := find(j, "validate"); v != "Submission is valid." {
		t.Errorf("validation from inside the container: %q\n%s", v, out)
	}
	w.checkGraded(t)
}
