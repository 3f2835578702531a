package smoke

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rexmle/rexmle/pipeline/agentimage"
	_ "github.com/rexmle/rexmle/pipeline/challenges/all"
	"github.com/rexmle/rexmle/pipeline/checkouttest"
	"github.com/rexmle/rexmle/pipeline/config"
	"github.com/rexmle/rexmle/pipeline/podmantest"
	"github.com/rexmle/rexmle/pipeline/runner/sandbox"
	"github.com/rexmle/rexmle/pipeline/scriptedllm"
	"github.com/rexmle/rexmle/pipeline/settings"
)

// realKey stands for a user's real key in the environment: the smoke must
// never send it, nor write it anywhere.
const realKey = "sk-real-key-that-must-not-leave"

// reachable is a fresh folder that nobody can search (a root pipeline's
// sandbox runs as nobody).
func reachable(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "rexmle-smoke-")
	if err != nil {
		t.Fatal(err)
	}
	os.Chmod(dir, 0o755)
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

func needBwrap(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("bwrap"); err != nil {
		t.Skip("bwrap is not installed (Debian package bubblewrap)")
	}
	if err := sandbox.Available(); err != nil {
		t.Fatal(err)
	}
}

// noSecret fails when a file under dir holds the real or the dummy key.
func noSecret(t *testing.T, dir string) {
	t.Helper()
	n := 0
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return nil
		}
		n++
		b, _ := os.ReadFile(p)
		for _, k := range []string{realKey, DummyKey} {
			if strings.Contains(string(b), k) {
				t.Errorf("%s holds the key %q", p, k)
			}
		}
		return nil
	})
	if n == 0 {
		t.Errorf("no files under %s", dir)
	}
}

// authScript answers as ForAgent does and keeps the keys the agent sent.
type authScript struct {
	mu   sync.Mutex
	keys []string
}

func (a *authScript) script(id string) scriptedllm.Script {
	inner := scriptedllm.ForAgent(id)
	return scriptedllm.ScriptFunc(func(r *scriptedllm.Request) scriptedllm.Reply {
		a.mu.Lock()
		a.keys = append(a.keys, r.Auth)
		a.mu.Unlock()
		return inner.Reply(r)
	})
}

// The stand-in's own adapter and agent, from the checkout's agents/ folder
// bound at /agent (agent standin-local of benchmark.toml), in the real
// bwrap sandbox, through the egress proxy to the scripted LLM and the
// validation endpoint: the smoke passes, the agent sent the dummy key,
// never the user's, and no file holds either.
func TestStandinLocalPassesUnderBwrap(t *testing.T) {
	needBwrap(t)
	agent, bridge := checkouttest.Binaries(t)
	t.Setenv("REXMLE_STANDIN_API_KEY", realKey)
	t.Setenv("REXMLE_STANDIN_BASE_URL", "https://api.example.invalid/v1")
	b, err := config.Load(filepath.Join("..", "..", "benchmark.toml"))
	if err != nil {
		t.Fatal(err)
	}
	out := reachable(t)
	var auth authScript
	rs, err := Run(context.Background(), Options{Bench: b, Profile: "standin-local", Out: out, Host: settings.NewEnviron(os.Environ()), TimeLimit: 2 * time.Minute,
		AgentBin: agent, BridgeBin: bridge, Script: auth.script})
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 1 {
		t.Fatalf("results %+v", rs)
	}
	r := rs[0]
	log, _ := os.ReadFile(filepath.Join(out, "standin-local", "standin-local", "logs", "console.log"))
	if !r.OK || r.LLMCalls != 1 || r.ValidateCalls < 1 || r.Status != "done" || !slices.Contains(r.Files, "submission.csv") {
		t.Fatalf("result %+v\n%s", r, log)
	}
	if len(auth.keys) != 1 || auth.keys[0] != "Bearer "+DummyKey {
		t.Errorf("the agent sent %q, want the dummy key", auth.keys)
	}
	if err := Err("standin-local", rs); err != nil {
		t.Error(err)
	}
	if _, err := os.Stat(filepath.Join(out, "standin-local", "smoke.json")); err != nil {
		t.Error(err)
	}
	noSecret(t, out)
}

// fakeAgent is a local agent in a code folder that breaks at one step,
// chosen by its first argument; it reaches the LLM through the egress
// proxy and the validation endpoint as a real agent does.
const fakeAgent = `import json, os, sys, time, urllib.request
mode = sys.argv[1]
if mode == "exit":
    print("cannot import my model library"); sys.exit(3)
if mode == "quiet":
    time.sleep(60)
url = os.environ[os.environ["REXMLE_BASE_URL_ENV"]]
if mode == "elsewhere":
    url = "http://api.elsewhere.example/v1"
key = os.environ[os.environ["REXMLE_API_KEY_ENV"]]
req = urllib.request.Request(url + "/chat/completions", json.dumps({"model": "m", "messages": [{"role": "user", "content": "go"}]}).encode(),
                             {"Content-Type": "application/json", "Authorization": "Bearer " + key})
print(json.loads(urllib.request.urlopen(req, timeout=30).read())["choices"][0]["message"]["content"][:40])
if mode in ("nosubmit", "invalid"):
    if mode == "invalid":
        open("/submission/submission.csv", "w").write("image_id,quality_score\nnot-an-id,x\n")
    v = urllib.request.Request(os.environ["REXMLE_VALIDATE_URL"] + "/validate", json.dumps({"dir": "/submission"}).encode(), {"Content-Type": "application/json"})
    print(urllib.request.urlopen(v, timeout=60).read().decode())
if mode == "novalidate":
    open("/submission/submission.csv", "w").write("image_id,quality_score\n")
`

// Each broken agent fails the smoke at its own step with its own message,
// in the real sandbox.
func TestSmokeNamesTheStepThatBroke(t *testing.T) {
	needBwrap(t)
	agent, bridge := checkouttest.Binaries(t)
	out := reachable(t)
	code := filepath.Join(out, "code")
	os.MkdirAll(code, 0o755)
	if err := os.WriteFile(filepath.Join(code, "fake.py"), []byte(fakeAgent), 0o644); err != nil {
		t.Fatal(err)
	}
	backend := map[string]config.AgentBackend{"fake": {Model: "m", Endpoint: "openai", APIKeyEnv: "FAKE_API_KEY", Egress: []string{"api.openai.com:443"}}}
	cases := []struct{ id, step, want string }{
		{"missing", StepImage, `agent code missing: missing: /agent/missing.py: the agent's script "/agent/missing.py" cannot be read in the sandbox: /agent/missing.py does not exist inside the sandbox`},
		{"exit", StepStart, "agent start failed: the agent exited before its first LLM call; the run ended failed with exit code 3"},
		{"quiet", StepLLM, "no LLM call: no request reached the scripted LLM"},
		{"elsewhere", StepLLM, "no LLM call: the egress proxy refused 1 request(s) to destinations other than the backend (127.0.0.1:"},
		{"novalidate", StepValidate, "no validation call: the agent never asked the validation endpoint"},
		{"nosubmit", StepSubmission, "no submission: the sealed submission folder is empty; the run ended done"},
		{"invalid", StepValid, "invalid submission: ldct-iqa's grader refuses it"},
	}
	b := &config.Benchmark{Root: out, Paths: config.Paths{Data: "data", Results: "results", Runs: "results/runs", Database: "results/db.sqlite"},
		Profiles: map[string]config.Profile{}}
	prof := config.Profile{Data: "synthetic"}
	for _, c := range cases {
		script := "/agent/fake.py"
		if c.id == "missing" {
			script = "/agent/missing.py"
		}
		b.Agents = append(b.Agents, config.Agent{ID: c.id, Backend: "fake", Backends: backend, Executor: "local", Code: code,
			Command: []string{"python3", script, c.id}, TimeLimit: config.Duration{Duration: time.Minute}, GracePeriod: config.Duration{Duration: 2 * time.Second}})
		prof.Agents = append(prof.Agents, c.id)
	}
	b.Profiles["t"] = prof
	rs, err := Run(context.Background(), Options{Bench: b, Profile: "t", Out: filepath.Join(out, "smoke"), TimeLimit: 8 * time.Second,
		AgentBin: agent, BridgeBin: bridge})
	if err != nil {
		t.Fatal(err)
	}
	var table bytes.Buffer
	Print(&table, "t", rs)
	t.Log("\n" + table.String())
	for i, c := range cases {
		r := rs[i]
		if r.Agent != c.id || r.OK || r.Step != c.step || !strings.Contains(r.Message, c.want) {
			t.Errorf("%s: %+v\nwant step %q with %q", c.id, r, c.step, c.want)
		}
	}
	// The OpenAI backend (no URL variable) was answered as an
	// OpenAI-compatible endpoint: said in a note, and the LLM got calls.
	if r := rs[4]; r.LLMCalls != 1 || len(r.Notes) == 0 || !strings.Contains(r.Notes[0], "answered by the scripted LLM as an OpenAI-compatible endpoint") {
		t.Errorf("novalidate: %+v", r)
	}
	if err := Err("t", rs); err == nil || !strings.Contains(err.Error(), "7 of 7 agent(s) failed: elsewhere (LLM call), exit (agent start), invalid (valid submission)") {
		t.Errorf("summary: %v", err)
	}
}

// The stand-in profile as a user runs it: `REXMLE_PROFILE=standin mage
// agents` builds the stand-in's image (its base imported from this
// machine's Python, no registry), then the smoke runs it in podman through
// the container executor, the egress proxy and the validation socket.
func TestStandinProfilePassesInPodman(t *testing.T) {
	if testing.Short() {
		t.Skip("builds an image (about a minute)")
	}
	dir := podmantest.Private(t)
	agent, bridge := checkouttest.Binaries(t)
	t.Setenv("REXMLE_STANDIN_API_KEY", realKey)
	repo, _ := filepath.Abs(filepath.Join("..", ".."))
	if _, err := agentimage.Build(context.Background(), agentimage.Options{AgentsDir: filepath.Join(repo, "agents"), Engine: "podman", IDs: []string{"standin"}}); err != nil {
		t.Fatalf("mage agents: %v", err)
	}
	b, err := config.Load(filepath.Join(repo, "benchmark.toml"))
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "smoke")
	var auth authScript
	rs, err := Run(context.Background(), Options{Bench: b, Profile: "standin", Out: out, Host: settings.NewEnviron(os.Environ()), Engine: "podman", TimeLimit: 3 * time.Minute,
		AgentBin: agent, BridgeBin: bridge, Script: auth.script})
	if err != nil {
		t.Fatal(err)
	}
	var table bytes.Buffer
	Print(&table, "standin", rs)
	if len(rs) != 1 || !rs[0].OK || rs[0].LLMCalls != 1 || rs[0].ValidateCalls < 1 || rs[0].Executor != "docker" {
		log, _ := os.ReadFile(filepath.Join(out, "standin", "standin", "logs", "console.log"))
		t.Fatalf("%s\n%s", table.String(), log)
	}
	in, err := os.ReadFile(filepath.Join(out, "standin", "standin", "run.json"))
	if err != nil || !strings.Contains(string(in), `"isolation": "container: podman"`) {
		t.Errorf("run.json: %v\n%s", err, in)
	}
	if len(auth.keys) != 1 || auth.keys[0] != "Bearer "+DummyKey {
		t.Errorf("the agent sent %q, want the dummy key", auth.keys)
	}
	noSecret(t, out)
}

// A container agent whose image is not built fails at the image step, with
// how to build it; podman looks in a private, empty store.
func TestSmokeSaysWhichImageToBuild(t *testing.T) {
	dir := podmantest.Private(t)
	b, err := config.Load(filepath.Join("..", "..", "benchmark.toml"))
	if err != nil {
		t.Fatal(err)
	}
	for i := range b.Agents {
		b.Agents[i].Engine = "podman"
	}
	rs, err := Run(context.Background(), Options{Bench: b, Profile: "paper", Agents: []string{"aide"}, Out: filepath.Join(dir, "smoke"), TimeLimit: 5 * time.Second,
		AgentBin: "/nonexistent/rexmle-agent", BridgeBin: "/nonexistent/rexmle-bridge"})
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 1 || rs[0].Step != StepImage || !strings.Contains(rs[0].Message, "image missing: aide: rexmle-aide: podman has no image rexmle-aide") ||
		!strings.Contains(rs[0].Message, "Build the profile's images with `REXMLE_PROFILE=paper go run mage.go agents`") {
		t.Fatalf("%+v", rs)
	}
}
