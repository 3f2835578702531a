package agentimage

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"

	"github.com/rexmle/rexmle/pipeline/podmantest"
)

func write(t *testing.T, path, content string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
}

func TestHashDir(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "Containerfile"), "FROM scratch\n", 0o644)
	write(t, filepath.Join(dir, "src", "adapter.py"), "print(1)\n", 0o644)
	h1, err := HashDir(dir)
	if err != nil || len(h1) != 64 {
		t.Fatalf("%q %v", h1, err)
	}
	if h, _ := HashDir(dir); h != h1 {
		t.Fatal("the hash is not deterministic")
	}
	changes := []struct {
		name string
		do   func()
	}{
		{"content", func() { write(t, filepath.Join(dir, "src", "adapter.py"), "print(2)\n", 0o644) }},
		{"executable bit", func() { os.Chmod(filepath.Join(dir, "src", "adapter.py"), 0o755) }},
		{"rename", func() { os.Rename(filepath.Join(dir, "src", "adapter.py"), filepath.Join(dir, "src", "entry.py")) }},
		{"new file", func() { write(t, filepath.Join(dir, "README"), "", 0o644) }},
		{"symlink", func() { os.Symlink("src/entry.py", filepath.Join(dir, "link")) }},
	}
	seen := map[string]string{h1: "start"}
	for _, c := range changes {
		c.do()
		h, err := HashDir(dir)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if prev, ok := seen[h]; ok {
			t.Errorf("after %s the hash equals the one after %s", c.name, prev)
		}
		seen[h] = c.name
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := HashDir(dir); err == nil || !strings.Contains(err.Error(), "fifo") {
		t.Fatalf("a FIFO in the recipe: %v", err)
	}
}

func TestEngineAndIDs(t *testing.T) {
	if e, err := Engine(""); err != nil || e != "docker" {
		t.Fatalf("%q %v", e, err)
	}
	if _, err := Engine("lxc"); err == nil || !strings.Contains(err.Error(), `engine is "lxc"`) {
		t.Fatalf("bad engine: %v", err)
	}
	if e, err := Engine("podman"); err != nil || e != "podman" {
		t.Fatalf("explicit engine %q %v", e, err)
	}
	dir := t.TempDir()
	write(t, filepath.Join(dir, "b", Containerfile), "FROM scratch\n", 0o644)
	write(t, filepath.Join(dir, "a", Containerfile), "FROM scratch\n", 0o644)
	write(t, filepath.Join(dir, "notes", "README.md"), "", 0o644)
	if ids, err := Agents(dir); err != nil || strings.Join(ids, ",") != "a,b" {
		t.Fatalf("agents %q %v", ids, err)
	}
	if _, err := Agents(filepath.Join(dir, "missing")); err == nil {
		t.Fatal("a missing agents folder gave no error")
	}
}

// setupPodman points podman at a private configuration and storage or
// skips where podman is absent.
func setupPodman(t *testing.T) { podmantest.Private(t) }

func readRecord(t *testing.T, path string) []Result {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []Result
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var r Result
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("record line %q: %v", sc.Text(), err)
		}
		out = append(out, r)
	}
	return out
}

func TestBuildWithPodman(t *testing.T) {
	setupPodman(t)
	agents := t.TempDir()
	fixt := filepath.Join(agents, "fixt")
	// A static binary (the runner tests' fake agent) in a FROM scratch image:
	// no registry, no network.
	build := exec.Command("go", "build", "-o", filepath.Join(fixt, "agent"), "../runner/testdata/hostile")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build the static fixture agent: %v\n%s", err, out)
	}
	write(t, filepath.Join(fixt, Containerfile), "FROM scratch\nCOPY fixt/agent /agent\nENTRYPOINT [\"/agent\"]\n", 0o644)
	write(t, filepath.Join(agents, "broken", Containerfile), "FROM scratch\nCOPY no-such-file /x\n", 0o644)
	record := filepath.Join(t.TempDir(), "results", "agent-images.jsonl")
	ctx := context.Background()

	res, err := Build(ctx, Options{AgentsDir: agents, Engine: "podman", Record: record})
	if err == nil || !strings.Contains(err.Error(), "agent broken (podman): podman build") || !strings.Contains(err.Error(), "no-such-file") {
		t.Fatalf("the broken recipe's error does not name the agent and the engine's message: %v", err)
	}
	if len(res) != 1 || res[0].Agent != "fixt" || !res[0].Built || res[0].ImageID == "" {
		t.Fatalf("results %+v", res)
	}
	first := res[0]
	tag, _, _ := Tag("fixt", fixt)
	if first.Tag != tag || !strings.HasPrefix(tag, "rexmle-fixt:") {
		t.Fatalf("tag %q, want %q", first.Tag, tag)
	}
	t.Logf("built %s (%s) in %.1fs", first.Tag, first.ImageID[:12], first.Seconds)
	// The image runs, and benchmark.toml's name (rexmle-fixt = :latest) finds it.
	out, err := exec.Command("podman", "run", "--rm", "--pull", "never", "rexmle-fixt", "ignore-term", "0").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "ignoring SIGTERM") {
		t.Fatalf("run the built image: %v\n%s", err, out)
	}

	// Unchanged: skipped, same image.
	res, err = Build(ctx, Options{AgentsDir: agents, Engine: "podman", IDs: []string{"fixt"}, Record: record})
	if err != nil || len(res) != 1 || res[0].Built || res[0].ImageID != first.ImageID {
		t.Fatalf("second build: %+v %v", res, err)
	}
	// Changed: a new tag, rebuilt.
	write(t, filepath.Join(fixt, "notes.txt"), "v2\n", 0o644)
	res, err = Build(ctx, Options{AgentsDir: agents, Engine: "podman", IDs: []string{"fixt"}, Record: record})
	if err != nil || len(res) != 1 || !res[0].Built || res[0].Tag == first.Tag {
		t.Fatalf("after a change: %+v %v", res, err)
	}
	// Forced: rebuilt although up to date.
	res, err = Build(ctx, Options{AgentsDir: agents, Engine: "podman", IDs: []string{"fixt"}, Force: true, Record: record})
	if err != nil || len(res) != 1 || !res[0].Built {
		t.Fatalf("forced: %+v %v", res, err)
	}
	rec := readRecord(t, record)
	if len(rec) != 3 || rec[0].ImageID != first.ImageID || rec[1].Tag == rec[0].Tag {
		t.Fatalf("record %+v: want the three builds", rec)
	}
	if _, err := Build(ctx, Options{AgentsDir: agents, Engine: "podman", IDs: []string{"../fixt"}}); err == nil {
		t.Fatal("an id outside the agents folder was accepted")
	}
}

// A recipe that ships the local-base script (the stand-in's) builds on a
// fresh engine: the base image it starts FROM is imported first, once.
func TestBuildImportsTheLocalBase(t *testing.T) {
	setupPodman(t)
	agents := t.TempDir()
	rec := filepath.Join(agents, "standin")
	// The script's contract: write a rootfs tar to $1. Here a tiny one.
	write(t, filepath.Join(rec, RootfsScript), "set -eu\nd=$(mktemp -d)\necho base-marker > \"$d/marker\"\ntar -C \"$d\" -cf \"$1\" .\nrm -rf \"$d\"\n", 0o755)
	write(t, filepath.Join(rec, Containerfile), "FROM "+LocalBase+"\nCOPY standin/"+RootfsScript+" /recipe.sh\n", 0o644)
	ctx := context.Background()
	if _, err := inspect(ctx, "podman", LocalBase); err == nil {
		t.Fatal("the private storage already holds the base image")
	}
	res, err := Build(ctx, Options{AgentsDir: agents, Engine: "podman"})
	if err != nil || len(res) != 1 || !res[0].Built {
		t.Fatalf("build on a fresh engine: %+v %v", res, err)
	}
	baseID, err := inspect(ctx, "podman", LocalBase)
	if err != nil {
		t.Fatalf("the base image was not imported: %v", err)
	}
	out, err := exec.Command("podman", "image", "inspect", "--format", "{{.Parent}} {{len .RootFS.Layers}}", res[0].Tag).CombinedOutput()
	if err != nil || !strings.Contains(string(out), " 2") {
		t.Errorf("the agent image is not the base plus one layer: %v %s", err, out)
	}
	// A forced rebuild keeps the imported base.
	if _, err := Build(ctx, Options{AgentsDir: agents, Engine: "podman", Force: true}); err != nil {
		t.Fatal(err)
	}
	if again, _ := inspect(ctx, "podman", LocalBase); again != baseID {
		t.Errorf("the base image was imported again: %s → %s", baseID, again)
	}
}

// `REXMLE_PROFILE=standin mage agents` builds the stand-in only (it
// builds offline), not the paper's CUDA recipes, which need a registry.
func TestProfileRecipes(t *testing.T) {
	cfg, agents := filepath.Join("..", "..", "benchmark.toml"), filepath.Join("..", "..", "agents")
	for prof, want := range map[string]string{"standin": "standin", "paper": "aide,ml-master,rd-agent", "paper-claude": "aide,ml-master", "demo": ""} {
		ids, err := ProfileRecipes(cfg, prof, agents)
		if err != nil || strings.Join(ids, ",") != want {
			t.Errorf("profile %s: %q %v, want %q", prof, ids, err, want)
		}
	}
	if _, err := ProfileRecipes(cfg, "papper", agents); err == nil || !strings.Contains(err.Error(), "papper") {
		t.Errorf("an unknown profile: %v", err)
	}
}

func TestBaseRefs(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, Containerfile)
	write(t, p, "# a recipe\nARG CUDA=12.1\nARG BASE=\"docker.io/nvidia/cuda:${CUDA}-runtime\" OTHER=x\n"+
		"FROM --platform=linux/amd64 ${BASE} AS build\nARG LATE=ignored\nRUN echo \\\n  FROM not/this\n"+
		"FROM build\nFROM scratch AS empty\nfrom docker.io/library/python:3.11-slim@sha256:abc as final\nFROM $OTHER\n", 0o644)
	refs, err := BaseRefs(p)
	want := "docker.io/nvidia/cuda:12.1-runtime,docker.io/library/python:3.11-slim@sha256:abc,x"
	if err != nil || strings.Join(refs, ",") != want {
		t.Errorf("refs %q %v, want %s", refs, err, want)
	}
	if _, err := BaseRefs(filepath.Join(dir, "none")); err == nil {
		t.Error("a missing Containerfile gave no error")
	}
}

// `mage agents` records what the built image resolved to, read from the
// image itself: the base image (ARG default applied) with its id, the
// image's Python version and its installed distributions; an image that
// is up to date but has no record gets one; each agent's engine setting
// wins over the default engine (docker, absent here).
func TestRecordsTheBuiltImagesVersions(t *testing.T) {
	if testing.Short() {
		t.Skip("builds images (about 30 s)")
	}
	setupPodman(t)
	t.Setenv("PATH", "/usr/sbin:/usr/bin:/sbin:/bin") // docker, the default engine, is not there
	ctx := context.Background()
	rec := filepath.Join(t.TempDir(), "agent-images.jsonl")
	// The real stand-in recipe: its base is imported from this machine's Python.
	repoAgents := filepath.Join("..", "..", "agents")
	res, err := Build(ctx, Options{AgentsDir: repoAgents, Engine: "docker", Engines: map[string]string{"standin": "podman"}, IDs: []string{"standin"}, Record: rec})
	if err != nil || len(res) != 1 || res[0].Engine != "podman" {
		t.Fatalf("build: %+v %v", res, err)
	}
	hostPy, err := exec.Command("/usr/bin/python3", "-c", "import sys; print(sys.version.split()[0])").Output()
	if err != nil {
		t.Fatal(err)
	}
	baseID, err := inspect(ctx, "podman", LocalBase)
	if err != nil {
		t.Fatal(err)
	}
	rs := readRecord(t, rec)
	if len(rs) != 1 || len(rs[0].Bases) != 1 || rs[0].Bases[0].Ref != LocalBase || rs[0].Bases[0].ID != baseID || rs[0].Bases[0].Error != "" {
		t.Fatalf("base image record %+v", rs)
	}
	if v := rs[0].Versions; v == nil || v.Error != "" || v.Python != strings.TrimSpace(string(hostPy)) {
		t.Fatalf("versions %+v, want python %s", v, hostPy)
	}
	// A recipe with a pinned distribution, FROM through an ARG and a stage.
	agents := t.TempDir()
	write(t, filepath.Join(agents, "pinned", Containerfile), "ARG BASE="+LocalBase+"\nFROM ${BASE} AS base\nFROM base\n"+
		"COPY pinned/demo_pkg-1.2.3.dist-info /usr/lib/python3/dist-packages/demo_pkg-1.2.3.dist-info\n", 0o644)
	write(t, filepath.Join(agents, "pinned", "demo_pkg-1.2.3.dist-info", "METADATA"), "Metadata-Version: 2.1\nName: demo-pkg\nVersion: 1.2.3\n", 0o644)
	opts := Options{AgentsDir: agents, Engine: "docker", Engines: map[string]string{"pinned": "podman"}, Record: rec}
	if res, err = Build(ctx, opts); err != nil || len(res) != 1 || !res[0].Built {
		t.Fatalf("pinned: %+v %v", res, err)
	}
	rs = readRecord(t, rec)
	last := rs[len(rs)-1]
	if last.Agent != "pinned" || len(last.Bases) != 1 || last.Bases[0].ID != baseID || last.Versions == nil ||
		!reflect.DeepEqual(last.Versions.Packages, []Package{{Name: "demo-pkg", Version: "1.2.3"}}) {
		t.Fatalf("pinned record %+v", last)
	}
	// Up to date and recorded: no new line. Up to date, record lost: recorded again.
	if res, _ = Build(ctx, opts); res[0].Built || len(readRecord(t, rec)) != 2 {
		t.Fatalf("an up-to-date image was recorded twice: %+v", res)
	}
	os.Remove(rec)
	if res, _ = Build(ctx, opts); res[0].Built || len(readRecord(t, rec)) != 1 || readRecord(t, rec)[0].Versions == nil {
		t.Fatalf("an up-to-date image without a record: %+v", res)
	}
	// Without the agent's engine the default (docker) is used and is missing.
	if _, err := Build(ctx, Options{AgentsDir: agents, Engine: "docker"}); err == nil || !strings.Contains(err.Error(), "agent pinned: engine docker not found") {
		t.Errorf("default engine: %v", err)
	}
}

// A recipe of one's own that starts FROM the documented base (the
// stand-in's LocalBase) and ships no script builds offline on a fresh
// engine: the base is imported with the stand-in's script beside it,
// instead of a pull from https://localhost/v2/. Print says what was built.
func TestCustomRecipeFromTheStandinBase(t *testing.T) {
	setupPodman(t)
	agents := t.TempDir()
	write(t, filepath.Join(agents, "standin", RootfsScript), "set -eu\nd=$(mktemp -d)\necho base-marker > \"$d/marker\"\ntar -C \"$d\" -cf \"$1\" .\nrm -rf \"$d\"\n", 0o755)
	write(t, filepath.Join(agents, "mine", Containerfile), "FROM "+LocalBase+"\nCOPY mine/run.sh /opt/mine/run.sh\n", 0o644)
	write(t, filepath.Join(agents, "mine", "run.sh"), "echo mine\n", 0o755)
	ctx := context.Background()
	res, err := Build(ctx, Options{AgentsDir: agents, Engine: "podman", IDs: []string{"mine"}})
	if err != nil || len(res) != 1 || !res[0].Built {
		t.Fatalf("custom recipe on a fresh engine: %+v %v", res, err)
	}
	if _, err := inspect(ctx, "podman", LocalBase); err != nil {
		t.Fatalf("the base image was not imported: %v", err)
	}
	var b strings.Builder
	Print(&b, res)
	if !strings.Contains(b.String(), "mine") || !strings.Contains(b.String(), "built rexmle-mine:") || !strings.Contains(b.String(), "with podman") ||
		!strings.Contains(b.String(), "1 images built, 0 up to date") {
		t.Errorf("printed:\n%s", b.String())
	}
	// Without the stand-in's script the error says what is missing.
	os.RemoveAll(filepath.Join(agents, "standin"))
	if err := exec.Command("podman", "rmi", "-f", LocalBase).Run(); err != nil {
		t.Fatal(err)
	}
	_, err = Build(ctx, Options{AgentsDir: agents, Engine: "podman", IDs: []string{"mine"}, Force: true})
	if err == nil || !strings.Contains(err.Error(), "no registry serves") || !strings.Contains(err.Error(), RootfsScript) {
		t.Fatalf("missing base script: %v", err)
	}
}
