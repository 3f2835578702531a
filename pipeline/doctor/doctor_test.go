package doctor

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rexmle/rexmle/pipeline/challenge"
	"github.com/rexmle/rexmle/pipeline/config"
	"github.com/rexmle/rexmle/pipeline/gpu"
)

func dur(s string) config.Duration {
	d, err := time.ParseDuration(s)
	if err != nil {
		panic(err)
	}
	return config.Duration{Duration: d}
}

// bench is a checkout in root with two challenges and four agents: a
// built-in, a local agent, a container agent and a GPU agent.
func bench(root string) *config.Benchmark {
	return &config.Benchmark{
		Root:  root,
		Paths: config.Paths{Data: "data", Results: "results", Runs: "results/runs", Database: "results/db.sqlite"},
		Agents: []config.Agent{
			{ID: "sample", Builtin: "sample", Executor: "local", TimeLimit: dur("10m")},
			{ID: "aide", Executor: "local", Command: []string{"aide", "data_dir={data}"}, Env: []string{"OPENAI_API_KEY", "OPENAI_BASE_URL"}, TimeLimit: dur("24h"), GPUs: 1},
			{ID: "boxed", Executor: "docker", Image: "rexmle-boxed", Env: []string{"ANTHROPIC_API_KEY"}, TimeLimit: dur("24h")},
			{ID: "pair", Executor: "podman", Image: "rexmle-pair", TimeLimit: dur("1h"), GPUs: 2},
		},
		Challenges: []*config.Challenge{{ID: "c1"}, {ID: "c2", Sources: []config.Source{{Folder: "shared"}}}},
	}
}

// prepare writes a prepared data folder for challenge id; synthetic adds
// the demo's marker to its raw folder.
func prepare(t *testing.T, root, id, rawFolder string, synthetic bool) {
	t.Helper()
	dir := filepath.Join(root, "data", id)
	if err := os.MkdirAll(filepath.Join(dir, "public"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "public", "train.csv"), []byte("id\n1\n"), 0o644)
	if _, err := challenge.WriteManifestData(dir, id, "x", ""); err != nil {
		t.Fatal(err)
	}
	raw := filepath.Join(root, "data", "raw", rawFolder)
	os.MkdirAll(raw, 0o755)
	if synthetic {
		os.WriteFile(filepath.Join(raw, ".rexmle-synthetic"), []byte("seed 1\n"), 0o644)
	}
}

// prepareDemo writes a prepared folder of challenge id where the demo's
// synthetic data lives (data/synthetic/<id>, raw data under
// data/synthetic/raw/<id>).
func prepareDemo(t *testing.T, root, id string) {
	t.Helper()
	dir := filepath.Join(root, "data", "synthetic", id)
	if err := os.MkdirAll(filepath.Join(dir, "public"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := challenge.WriteManifestData(dir, id, "x", ""); err != nil {
		t.Fatal(err)
	}
	raw := filepath.Join(root, "data", "synthetic", "raw", id)
	os.MkdirAll(raw, 0o755)
	os.WriteFile(filepath.Join(raw, ".rexmle-synthetic"), []byte("seed 1\n"), 0o644)
}

type fakeHost struct {
	paths  map[string]string
	files  map[string]fs.FileMode // extra host files the sandbox view sees (the rest: this host's)
	images map[string]bool
	runErr string // what the engine says when it cannot start a container; empty: it can
	env    map[string]string
	devs   []gpu.Device
	devErr error
	free   uint64
	calls  []string
}

func (h *fakeHost) probe() Probe {
	return Probe{
		LookPath: func(f string) (string, error) {
			if p, ok := h.paths[f]; ok {
				return p, nil
			}
			return "", errors.New("executable file not found in $PATH")
		},
		Output: func(ctx context.Context, name string, args ...string) ([]byte, error) {
			h.calls = append(h.calls, name+" "+strings.Join(args, " "))
			img := args[len(args)-1]
			if len(args) >= 2 && args[0] == "image" && args[1] == "inspect" && h.images[name+":"+img] {
				return []byte("sha256:0123456789abcdef0123\n"), nil
			}
			if len(args) >= 1 && args[0] == "run" && h.images[name+":"+img] {
				if h.runErr != "" {
					return []byte(h.runErr), errors.New("exit status 126")
				}
				// what runc says when the probe's entrypoint is not in the image
				return []byte(`Error: runc: runc create failed: unable to start container process: exec: "` + probeEntrypoint + `": stat ` + probeEntrypoint + `: no such file or directory`), errors.New("exit status 127")
			}
			return []byte("Error: " + img + ": image not known\n"), errors.New("exit status 125")
		},
		LookupEnv: func(n string) (string, bool) { v, ok := h.env[n]; return v, ok },
		Devices:   func() ([]gpu.Device, error) { return h.devs, h.devErr },
		FreeBytes: func(string) (uint64, error) { return h.free, nil },
		MemTotal:  func() (int64, error) { return 64 << 30, nil },
		Lstat: func(name string) (fs.FileInfo, error) {
			if m, ok := h.files[name]; ok {
				return fakeFile{name: filepath.Base(name), mode: m}, nil
			}
			return os.Lstat(name)
		},
	}
}

type fakeFile struct {
	name string
	mode fs.FileMode
}

func (f fakeFile) Name() string       { return f.name }
func (f fakeFile) Size() int64        { return 1 }
func (f fakeFile) Mode() fs.FileMode  { return f.mode }
func (f fakeFile) ModTime() time.Time { return time.Time{} }
func (f fakeFile) IsDir() bool        { return f.mode.IsDir() }
func (f fakeFile) Sys() any           { return nil }

func find(r *Report, area, item string) *Check {
	for i := range r.Checks {
		if r.Checks[i].Area == area && r.Checks[i].Item == item {
			return &r.Checks[i]
		}
	}
	return nil
}

// TestPaperHostWithoutGPU is the case: the paper profile on a host
// with no NVIDIA driver, no agent installed, one key missing, one image
// not built. Every problem is a FAIL naming what to do, scoped to the runs
// it stops; set keys are reported without their values.
func TestPaperHostWithoutGPU(t *testing.T) {
	root := t.TempDir()
	b := bench(root)
	prepare(t, root, "c1", "c1", false)
	prepare(t, root, "c2", "shared", false)
	h := &fakeHost{paths: map[string]string{"bwrap": "/usr/bin/bwrap", "docker": "/usr/bin/docker"},
		env:    map[string]string{"OPENAI_API_KEY": "sk-very-secret-value"},
		devErr: errors.New("NVML: Driver Not Loaded"), free: 500 << 30}
	p := config.Profile{Data: "fetched", Agents: []string{"aide", "boxed", "pair", "sample"}, Judge: "openai"}
	b.Judge.APIKeyEnv = "REXMLE_TEST_JUDGE_KEY"
	r := Run(context.Background(), Input{Bench: b, ProfileName: "paper", Profile: p, Challenges: b.Challenges}, h.probe())
	var out bytes.Buffer
	r.Print(&out)
	if strings.Contains(out.String(), "sk-very-secret-value") {
		t.Fatal("the table prints a key's value")
	}
	want := map[string]string{ // area/item → a piece of the detail
		"executor/aide: aide":          "not installed",
		"key/boxed: ANTHROPIC_API_KEY": "ANTHROPIC_API_KEY is not set",
		"image/boxed: rexmle-boxed":    "go run mage.go agents",
		"executor/pair: podman":        "not found",
		"gpu/NVML":                     "Driver Not Loaded",
	}
	for k, piece := range want {
		f := strings.SplitN(k, "/", 2)
		c := find(r, f[0], f[1])
		if c == nil || c.Status != Fail || !strings.Contains(c.Detail, piece) {
			t.Errorf("%s: %+v, want FAIL with %q\n%s", k, c, piece, out.String())
		}
	}
	if c := find(r, "key", "aide: OPENAI_API_KEY"); c == nil || c.Status != OK {
		t.Errorf("set key: %+v", c)
	}
	if c := find(r, "key", "aide: OPENAI_BASE_URL"); c == nil || c.Status != Warn {
		t.Errorf("optional variable: %+v", c)
	}
	if r.Err() == nil || len(r.GPUs) != 0 || !strings.Contains(r.NoGPU, "Driver Not Loaded") {
		t.Fatalf("err %v gpus %v why %q", r.Err(), r.GPUs, r.NoGPU)
	}
	// What stops which run.
	if got := r.Blocking("sample", "c1"); len(got) != 0 {
		t.Errorf("the built-in agent is stopped by %v", got)
	}
	aide := Reasons(r.Blocking("aide", "c2"))
	if !strings.Contains(aide, "not installed") || !strings.Contains(aide, "Driver Not Loaded") || strings.Contains(aide, "ANTHROPIC") {
		t.Errorf("aide blocked by:\n%s", aide)
	}
	boxed := Reasons(r.Blocking("boxed", "c1"))
	if !strings.Contains(boxed, "ANTHROPIC_API_KEY") || !strings.Contains(boxed, "rexmle-boxed") || strings.Contains(boxed, "NVML") {
		t.Errorf("boxed blocked by:\n%s", boxed)
	}
	if len(h.calls) != 1 || h.calls[0] != "docker image inspect --format {{.Id}} rexmle-boxed" {
		t.Errorf("engine calls %q", h.calls)
	}
}

func TestGPUsAndImagesPresent(t *testing.T) {
	root := t.TempDir()
	b := bench(root)
	prepare(t, root, "c1", "c1", false)
	devs := []gpu.Device{
		{Index: 0, MIG: -1, UUID: "GPU-aaaa", Name: "H100", MemTotalBytes: 80 << 30},
		{Index: 1, MIG: -1, UUID: "GPU-bbbb", Name: "H100", MemTotalBytes: 80 << 30, MIGEnabled: true},
		{Index: 1, MIG: 0, UUID: "MIG-cccc", Name: "3g.40gb", MemTotalBytes: 40 << 30, ParentUUID: "GPU-bbbb"},
		{Index: 1, MIG: 1, UUID: "MIG-dddd", Name: "3g.40gb", MemTotalBytes: 40 << 30, ParentUUID: "GPU-bbbb"},
	}
	h := &fakeHost{paths: map[string]string{"bwrap": "/usr/bin/bwrap", "podman": "/usr/bin/podman"},
		files:  map[string]fs.FileMode{"/usr/local/bin/aide": 0o755}, // on the sandbox's PATH
		images: map[string]bool{"podman:rexmle-pair": true, "podman:rexmle-boxed": true},
		env:    map[string]string{"OPENAI_API_KEY": "x", "ANTHROPIC_API_KEY": "y", "CUDA_VISIBLE_DEVICES": "MIG-dddd,0"},
		devs:   devs, free: 500 << 30}
	p := config.Profile{Data: "fetched", Agents: []string{"aide", "boxed", "pair"}}
	r := Run(context.Background(), Input{Bench: b, ProfileName: "paper", Profile: p, Challenges: b.Challenges[:1], Engine: "podman"}, h.probe())
	var out bytes.Buffer
	r.Print(&out)
	for _, c := range r.Failures() {
		if c.Item != "pair" {
			t.Fatalf("unexpected failure %+v\n%s", c, out.String())
		}
	}
	if len(r.GPUs) != 2 || r.GPUs[0].UUID != "MIG-dddd" || r.GPUs[1].UUID != "GPU-aaaa" {
		t.Fatalf("usable GPUs %+v", r.GPUs)
	}
	for _, s := range []string{"MIG-dddd", "40.0 GiB", "MIG mode on: 2 instance(s)", "built (0123456789ab)"} {
		if !strings.Contains(out.String(), s) {
			t.Errorf("table lacks %q:\n%s", s, out.String())
		}
	}
	// Two devices, but one is a MIG instance: the 2-GPU agent cannot use them together.
	if got := r.Blocking("pair", "c1"); len(got) != 1 || !strings.Contains(got[0].Detail, "1 whole GPU(s) usable here (a process can use only one MIG instance)") {
		t.Fatalf("pair on a MIG instance and a GPU: %v", got)
	}
	if err := r.Err(); err == nil {
		t.Fatal("no error for the 2-GPU agent")
	}
	// One GPU fewer than pair needs: pair alone is stopped.
	h.env["CUDA_VISIBLE_DEVICES"] = "0"
	r = Run(context.Background(), Input{Bench: b, ProfileName: "paper", Profile: p, Challenges: b.Challenges[:1]}, h.probe())
	if got := r.Blocking("pair", "c1"); len(got) != 1 || !strings.Contains(got[0].Detail, "needs 2 GPU(s); 1 usable") {
		t.Fatalf("pair: %v", got)
	}
	if got := r.Blocking("aide", "c1"); len(got) != 0 {
		t.Fatalf("aide: %v", got)
	}
	// A typo in CUDA_VISIBLE_DEVICES is an error naming the entry.
	h.env["CUDA_VISIBLE_DEVICES"] = "GPU-zzzz"
	r = Run(context.Background(), Input{Bench: b, ProfileName: "paper", Profile: p, Challenges: b.Challenges[:1]}, h.probe())
	if c := find(r, "gpu", "CUDA_VISIBLE_DEVICES"); c == nil || c.Status != Fail || !strings.Contains(c.Detail, `"GPU-zzzz"`) {
		t.Fatalf("typo: %+v", c)
	}
}

func TestDataAndDisk(t *testing.T) {
	root := t.TempDir()
	b := bench(root)
	prepare(t, root, "c1", "c1", true)      // synthetic data where fetched data belongs
	prepare(t, root, "c2", "shared", false) // fetched
	prepareDemo(t, root, "c1")
	prepareDemo(t, root, "c2")
	h := &fakeHost{paths: map[string]string{"bwrap": "/usr/bin/bwrap"}, devErr: errors.New("no driver"), free: 600 << 20}
	demo := config.Profile{Data: "synthetic", Agents: []string{"sample"}}
	r := Run(context.Background(), Input{Bench: b, ProfileName: "demo", Profile: demo, Challenges: b.Challenges}, h.probe())
	if c := find(r, "disk", "data"); c == nil || c.Status != Fail || !strings.Contains(c.Detail, "want at least 1.0 GiB") {
		t.Fatalf("disk: %+v", c)
	}
	if got := r.Blocking("sample", "c2"); len(got) != 2 { // disk data + disk runs stop everything
		t.Fatalf("low disk stops %v", got)
	}
	if c := find(r, "gpu", "NVML"); c == nil || c.Status != Warn {
		t.Fatalf("no GPU on a profile that needs none: %+v", c)
	}
	h.free = 2 << 30
	r = Run(context.Background(), Input{Bench: b, ProfileName: "demo", Profile: demo, Challenges: b.Challenges}, h.probe())
	if err := r.Err(); err != nil {
		t.Fatalf("demo: %v", err)
	}
	paper := config.Profile{Data: "fetched", Agents: []string{"sample"}}
	r = Run(context.Background(), Input{Bench: b, ProfileName: "paper", Profile: paper, Challenges: b.Challenges, MinFreeBytes: 1 << 30}, h.probe())
	if c := find(r, "data", "c1"); c == nil || c.Status != Fail || !strings.Contains(c.Detail, "synthetic") {
		t.Fatalf("synthetic data on the paper profile: %+v", c)
	}
	if c := find(r, "data", "c2"); c == nil || c.Status != OK {
		t.Fatalf("fetched data: %+v", c)
	}
	if len(r.Blocking("sample", "c1")) != 1 || len(r.Blocking("sample", "c2")) != 0 {
		t.Fatalf("data failures stop the wrong runs: %v / %v", r.Blocking("sample", "c1"), r.Blocking("sample", "c2"))
	}
	os.RemoveAll(filepath.Join(root, "data", "c2", "public"))
	r = Run(context.Background(), Input{Bench: b, ProfileName: "paper", Profile: paper, Challenges: b.Challenges, MinFreeBytes: 1 << 30}, h.probe())
	if c := find(r, "data", "c2"); c == nil || c.Status != Fail || !strings.Contains(c.Detail, "not prepared") {
		t.Fatalf("unprepared: %+v", c)
	}
}

func TestTimeLimit(t *testing.T) {
	a := config.Agent{ID: "a", TimeLimit: dur("24h")}
	if d, err := TimeLimit(a, config.Profile{}); err != nil || d != 24*time.Hour {
		t.Fatalf("agent's: %v %v", d, err)
	}
	if d, err := TimeLimit(a, config.Profile{TimeLimit: dur("72h")}); err != nil || d != 72*time.Hour {
		t.Fatalf("profile's: %v %v", d, err)
	}
	bad := []struct {
		a config.Agent
		p config.Profile
	}{
		{config.Agent{ID: "a", TimeLimit: dur("-1h")}, config.Profile{}},
		{config.Agent{ID: "a"}, config.Profile{}},
		{a, config.Profile{TimeLimit: dur("-5m")}},
		{config.Agent{ID: "a", TimeLimit: dur("-1h")}, config.Profile{TimeLimit: dur("1h")}}, // a negative value is an error even when overridden
		{config.Agent{ID: "a", TimeLimit: dur("1h"), GracePeriod: dur("-1s")}, config.Profile{}},
	}
	for _, tc := range bad {
		if d, err := TimeLimit(tc.a, tc.p); err == nil || !strings.Contains(err.Error(), "want a positive duration") {
			t.Errorf("TimeLimit(%+v, %+v) = %v, %v", tc.a, tc.p, d, err)
		}
	}
	// In the table too, stopping that agent only.
	root := t.TempDir()
	b := bench(root)
	b.Agents[0].TimeLimit = dur("-10m")
	h := &fakeHost{paths: map[string]string{"bwrap": "/usr/bin/bwrap"}, devErr: errors.New("no driver"), free: 2 << 30}
	r := Run(context.Background(), Input{Bench: b, ProfileName: "demo", Profile: config.Profile{Data: "synthetic", Agents: []string{"sample"}}}, h.probe())
	if c := find(r, "config", "agent sample"); c == nil || c.Status != Fail {
		t.Fatalf("%+v", c)
	}
}

// The backend a profile picks brings its own variables: the API key, and
// the endpoint URL the egress allowlist is resolved from. The doctor checks
// them as the run stage will use them (the stand-in and paper profiles
// said "every run can start" with neither set).
func TestBackendVariables(t *testing.T) {
	root := t.TempDir()
	b := bench(root)
	b.Agents = append(b.Agents, config.Agent{ID: "llm", Backend: "fake", Executor: "podman", Image: "rexmle-llm", TimeLimit: dur("10m"),
		Backends: map[string]config.AgentBackend{"fake": {Model: "m", Endpoint: "openai-compatible", APIKeyEnv: "REXMLE_TEST_API_KEY",
			BaseURLEnv: "REXMLE_TEST_BASE_URL", Egress: []string{"$REXMLE_TEST_BASE_URL"}}}})
	prepareDemo(t, root, "c1")
	p := config.Profile{Data: "synthetic", Agents: []string{"llm"}, Backend: "fake", Judge: "heuristic"}
	in := Input{Bench: b, ProfileName: "standin", Profile: p, Challenges: b.Challenges[:1]}
	h := &fakeHost{paths: map[string]string{"podman": "/usr/bin/podman"}, images: map[string]bool{"podman:rexmle-llm": true}, free: 500 << 30}
	r := Run(context.Background(), in, h.probe())
	var out bytes.Buffer
	r.Print(&out)
	if c := find(r, "config", "agent llm backend"); c == nil || c.Status != Fail || !strings.Contains(c.Detail, "REXMLE_TEST_BASE_URL is not set") {
		t.Errorf("unset endpoint variable: %+v\n%s", c, out.String())
	}
	if c := find(r, "key", "llm: REXMLE_TEST_API_KEY"); c == nil || c.Status != Fail {
		t.Errorf("unset backend key: %+v\n%s", c, out.String())
	}
	if why := Reasons(r.Blocking("llm", "c1")); !strings.Contains(why, "REXMLE_TEST_API_KEY") || !strings.Contains(why, "REXMLE_TEST_BASE_URL") || r.Err() == nil {
		t.Errorf("the llm runs are stopped by:\n%s (err %v)", why, r.Err())
	}
	h.env = map[string]string{"REXMLE_TEST_API_KEY": "sk-secret-abc", "REXMLE_TEST_BASE_URL": "http://127.0.0.1:9/v1"}
	r = Run(context.Background(), in, h.probe())
	out.Reset()
	r.Print(&out)
	if len(r.Blocking("llm", "c1")) != 0 || strings.Contains(out.String(), "sk-secret-abc") {
		t.Errorf("with both set:\n%s", out.String())
	}
	if c := find(r, "key", "llm: REXMLE_TEST_API_KEY"); c == nil || c.Status != OK {
		t.Errorf("set backend key: %+v", c)
	}
}

// An installed docker whose daemon is not running is not "no image".
func TestDockerDaemonDown(t *testing.T) {
	root := t.TempDir()
	b := bench(root)
	prepare(t, root, "c1", "c1", false)
	h := &fakeHost{paths: map[string]string{"docker": "/usr/bin/docker"}, free: 500 << 30}
	pr := h.probe()
	pr.Output = func(ctx context.Context, name string, args ...string) ([]byte, error) {
		return []byte("Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?\n"), errors.New("exit status 1")
	}
	p := config.Profile{Data: "fetched", Agents: []string{"boxed"}, Judge: "heuristic"}
	r := Run(context.Background(), Input{Bench: b, ProfileName: "paper", Profile: p, Challenges: b.Challenges[:1]}, pr)
	c := find(r, "executor", "boxed: docker daemon")
	if c == nil || c.Status != Fail || !strings.Contains(c.Detail, "REXMLE_ENGINE=podman") {
		t.Errorf("daemon down: %+v", c)
	}
	if c := find(r, "image", "boxed: rexmle-boxed"); c != nil {
		t.Errorf("reported as a missing image: %+v", c)
	}
}

// An engine that lists the image but cannot start a container (podman here
// with the default containers.conf: runc may not set the default
// ulimits) fails every run: the doctor starts one throw-away container per
// engine and image and says what to set.
func TestEngineCannotStartContainers(t *testing.T) {
	root := t.TempDir()
	b := bench(root)
	b.Agents = append(b.Agents, config.Agent{ID: "pair2", Executor: "podman", Image: "rexmle-pair", TimeLimit: dur("1h")})
	prepare(t, root, "c1", "c1", false)
	h := &fakeHost{paths: map[string]string{"podman": "/usr/bin/podman"}, images: map[string]bool{"podman:rexmle-pair": true}, free: 500 << 30,
		devs: []gpu.Device{{Index: 0, UUID: "GPU-a"}, {Index: 1, UUID: "GPU-b"}}}
	p := config.Profile{Data: "fetched", Agents: []string{"pair", "pair2"}, Judge: "heuristic"}
	in := Input{Bench: b, ProfileName: "p", Profile: p, Challenges: b.Challenges[:1]}
	r := Run(context.Background(), in, h.probe())
	if c := find(r, "engine", "podman runs rexmle-pair"); c == nil || c.Status != OK {
		t.Fatalf("working engine: %+v", c)
	}
	runs := 0
	for _, c := range h.calls {
		if strings.HasPrefix(c, "podman run ") {
			runs++
		}
	}
	if runs != 1 {
		t.Errorf("%d probe containers for one engine and image, want 1: %q", runs, h.calls)
	}
	h.runErr = "Error: runc: runc create failed: unable to start container process: error during container init: error setting rlimits for ready process: error setting rlimit type 7: operation not permitted: OCI permission denied\n"
	r = Run(context.Background(), in, h.probe())
	c := find(r, "engine", "podman runs rexmle-pair")
	if c == nil || c.Status != Fail || !strings.Contains(c.Detail, "rlimit") || !strings.Contains(c.Detail, "default_ulimits = []") {
		t.Fatalf("broken engine: %+v", c)
	}
	for _, a := range []string{"pair", "pair2"} {
		if !strings.Contains(Reasons(r.Blocking(a, "c1")), "cannot start a container") {
			t.Errorf("the %s runs are not stopped by the broken engine", a)
		}
	}
}

// TestLimitsShown: every agent's limits, resolved from its settings and
// the host (64 GiB of RAM, 500 GiB free here), with how its executor
// enforces them; a setting that cannot be resolved is a failure.
func TestLimitsShown(t *testing.T) {
	root := t.TempDir()
	b := bench(root)
	prepare(t, root, "c1", "c1", false)
	h := &fakeHost{paths: map[string]string{"bwrap": "/usr/bin/bwrap", "docker": "/usr/bin/docker"}, free: 500 << 30}
	for i := range b.Agents {
		if b.Agents[i].ID == "sample" {
			b.Agents[i].PidsLimit, b.Agents[i].Memory, b.Agents[i].DiskLimit = 512, "8g", "unlimited"
		}
	}
	p := config.Profile{Data: "synthetic", Agents: []string{"aide", "sample"}}
	r := Run(context.Background(), Input{Bench: b, ProfileName: "demo", Profile: p, Challenges: b.Challenges}, h.probe())
	var out bytes.Buffer
	r.Print(&out)
	for item, pieces := range map[string][]string{
		"sample": {"pids 512 (pids_limit)", "memory 8.0 GiB (memory)", "file size 256.0 GiB (default)", "disk unlimited (disk_limit)", "every 10s", "bwrap: rlimits nproc, data, fsize"},
		"aide":   {"pids 4096 (default)", "memory 48.0 GiB (75% of the host's 64.0 GiB RAM)", "disk 250.0 GiB (50% of the 500.0 GiB free"},
	} {
		c := find(r, "limits", item)
		if c == nil || c.Status == Fail {
			t.Fatalf("limits/%s: %+v\n%s", item, c, out.String())
		}
		for _, piece := range pieces {
			if !strings.Contains(c.Detail, piece) {
				t.Errorf("limits/%s: %q lacks %q", item, c.Detail, piece)
			}
		}
	}
	h.free = 0
	bad := *h
	probe := bad.probe()
	probe.MemTotal = func() (int64, error) { return 0, errors.New("no /proc/meminfo") }
	r = Run(context.Background(), Input{Bench: b, ProfileName: "demo", Profile: p, Challenges: b.Challenges}, probe)
	if c := find(r, "limits", "aide"); c == nil || c.Status != Fail || !strings.Contains(c.Detail, "no /proc/meminfo") {
		t.Errorf("limits/aide without the host's RAM: %+v", c)
	}
}

// A container agent's code folder must exist (it is bound at /agent); a
// missing one stops that agent's runs with the folder named.
func TestContainerAgentCodeFolder(t *testing.T) {
	root := t.TempDir()
	b := bench(root)
	os.MkdirAll(filepath.Join(root, "agents", "boxed"), 0o755)
	b.Agents[2].Code = filepath.Join(root, "agents", "boxed")
	b.Agents = append(b.Agents, config.Agent{ID: "gone", Executor: "apptainer", Image: "x.sif", Code: filepath.Join(root, "nope"), TimeLimit: dur("1h")})
	h := &fakeHost{paths: map[string]string{"docker": "/usr/bin/docker", "apptainer": "/usr/bin/apptainer"}, images: map[string]bool{"docker:rexmle-boxed": true},
		env: map[string]string{"ANTHROPIC_API_KEY": "k"}, free: 500 << 30}
	r := Run(context.Background(), Input{Bench: b, ProfileName: "p", Profile: config.Profile{Data: "fetched", Agents: []string{"boxed", "gone"}}}, h.probe())
	if c := find(r, "executor", "boxed: code"); c == nil || c.Status != OK || !strings.Contains(c.Detail, "read-only at /agent") {
		t.Errorf("boxed: %+v", c)
	}
	if got := r.Blocking("gone", "c1"); len(got) != 1 || got[0].Item != "gone: code" || !strings.Contains(got[0].Detail, filepath.Join(root, "nope")+" does not exist") {
		t.Errorf("gone: %+v", got)
	}
	if got := r.Blocking("boxed", "c1"); len(got) != 0 {
		t.Errorf("boxed blocked by %+v", got)
	}
}
