package agentrecipe

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/rexmle/rexmle/pipeline/binaries"
	"github.com/rexmle/rexmle/pipeline/checkouttest"
	"github.com/rexmle/rexmle/pipeline/settings"

	"github.com/rexmle/rexmle/pipeline/agentimage"
	"github.com/rexmle/rexmle/pipeline/runner"
	"github.com/rexmle/rexmle/pipeline/stages"
)

// journeyCheckout makes a temporary checkout of the repository: every
// entry linked except what the pipeline writes (data, results, bin, site),
// the committed paper results linked under results/, benchmark.toml
// copied. The stages write only into it.
func journeyCheckout(t *testing.T) string {
	t.Helper()
	repo, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	b, err := os.ReadFile(filepath.Join(repo, "benchmark.toml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "benchmark.toml"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	checkouttest.Link(t, repo, root)
	if err := os.MkdirAll(filepath.Join(root, "results"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(repo, "results", "paper"), filepath.Join(root, "results", "paper")); err != nil {
		t.Fatal(err)
	}
	return root
}

// TestStandinProfileJourney is the paper user's journey with the stand-in,
// through the same stages `mage` runs: `REXMLE_PROFILE=standin mage agents`
// builds only the stand-in's image on an engine that has nothing (its
// local base imported first); with a fake OpenAI-compatible server on the
// host's loopback as the backend, doctor passes, prepare → run → grade →
// rank → judge → report go through; the container reaches the endpoint
// through the egress proxy and validates its submission through the
// adapter's own HTTP server, and the key is never written anywhere.
func TestStandinProfileJourney(t *testing.T) {
	if testing.Short() {
		t.Skip("builds an image and runs every stage (about a minute)")
	}
	if _, err := exec.LookPath("podman"); err != nil {
		t.Skip("podman is not installed")
	}
	pdir, err := os.MkdirTemp("", "rxj") // short: podman's socket paths must stay under 108 bytes
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(pdir) })
	penv := podmanEnv(t, pdir)
	t.Cleanup(func() {
		cmd := exec.Command("podman", "system", "reset", "--force")
		cmd.Env = penv
		cmd.Run()
	})
	t.Setenv("CONTAINERS_CONF", filepath.Join(pdir, "containers.conf"))
	t.Setenv("CONTAINERS_STORAGE_CONF", filepath.Join(pdir, "storage.conf"))

	var mu sync.Mutex
	var chats []map[string]any
	var auth []string
	llm := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" {
			http.NotFound(w, r)
			return
		}
		var req map[string]any
		b, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		json.Unmarshal(b, &req)
		mu.Lock()
		chats = append(chats, req)
		auth = append(auth, r.Header.Get("Authorization"))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"id":"c1","object":"chat.completion","model":"standin-model","choices":[{"index":0,"message":{"role":"assistant","content":"plan: copy the sample submission"},"finish_reason":"stop"}]}`)
	}))
	defer llm.Close()
	root := journeyCheckout(t)
	cfg := filepath.Join(root, "benchmark.toml")
	// The user's environment, as the magefile reads it once.
	set, err := settings.Load(append(os.Environ(), "REXMLE_ENGINE=podman", "REXMLE_STANDIN_BASE_URL="+llm.URL+"/v1",
		"REXMLE_STANDIN_API_KEY="+secretValue, "REXMLE_RETRY_FAILED=", "REXMLE_CONFIG="+cfg, "REXMLE_PROFILE=standin", "REXMLE_AGENTS="))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := agentimage.FromSettings(ctx, set); err != nil {
		t.Fatalf("mage agents: %v", err)
	}
	if out, err := exec.Command("podman", "image", "inspect", "--format", "{{.Id}}", "rexmle-aide").CombinedOutput(); err == nil {
		t.Fatalf("the stand-in profile built the AIDE image too: %s", out)
	}

	o := stages.FromSettings(set)
	o.Challenges, o.Mode = []string{"ldct-iqa"}, "reference"
	if err := stages.Prepare(ctx, o); err != nil {
		t.Fatalf("prepare: %v", err)
	}
	if err := stages.Doctor(ctx, o); err != nil {
		t.Fatalf("doctor: %v", err)
	}
	if err := binaries.Build(ctx, root); err != nil { // what `mage run` does first (its Binaries dependency)
		t.Fatal(err)
	}
	if err := stages.Run(ctx, o); err != nil {
		t.Fatalf("run: %v", err)
	}
	runDir := filepath.Join(root, "results", "runs", "standin", "ldct-iqa", "standin", "seed-1")
	in, err := runner.ReadInfo(runDir)
	if err != nil || in.Status != runner.StatusDone || !strings.Contains(in.Isolation, "podman") {
		log, _ := os.ReadFile(filepath.Join(runDir, "logs", "console.log"))
		t.Fatalf("run.json %+v %v\n%s", in, err, log)
	}
	mu.Lock()
	if len(chats) != 1 || chats[0]["model"] != "standin-model" || auth[0] != "Bearer "+secretValue {
		t.Errorf("chat requests %v (auth %d)", chats, len(auth))
	}
	mu.Unlock()
	j := journal(t, filepath.Join(runDir, "logs", "standin", "journal.jsonl"))
	if v := find(j, "validate"); v != "Submission is valid." {
		t.Errorf("validation inside the container: %q", v)
	}

	for _, s := range []struct {
		name string
		f    func(context.Context, stages.Options) error
	}{{"grade", stages.Grade}, {"rank", stages.Rank}, {"judge", stages.Judge}, {"report", stages.Report}} {
		if err := s.f(ctx, o); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
	}
	grades := readJSONL(t, filepath.Join(root, "results", "grades.jsonl"))
	graded := false
	for _, g := range grades {
		if g["run_id"] == "standin/ldct-iqa/standin/seed-1" && g["valid"] == true {
			graded = true
		}
	}
	if !graded {
		t.Errorf("no valid grade for the stand-in run in %v", grades)
	}
	csvHas := func(name, prefix string) {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(root, "results", name))
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(l, prefix) {
				return
			}
		}
		t.Errorf("%s has no row %q…", name, prefix)
	}
	csvHas("ranks.csv", "standin,standin,standin,ldct-iqa,standin,")
	csvHas("capabilities.csv", "standin,standin,")
	index, err := os.ReadFile(filepath.Join(root, "site", "index.html"))
	if err != nil || !strings.Contains(string(index), "Stand-in agent") {
		t.Errorf("the site's front page does not show the stand-in: %v", err)
	}
	// The key is passed by name only: no file of the run, the results or the site holds it.
	for _, dir := range []string{filepath.Join(root, "results"), filepath.Join(root, "site")} {
		filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || !d.Type().IsRegular() {
				return nil
			}
			if b, err := os.ReadFile(p); err == nil && strings.Contains(string(b), secretValue) {
				t.Errorf("%s holds the API key", p)
			}
			return nil
		})
	}
}

func readJSONL(t *testing.T, path string) []map[string]any {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []map[string]any
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, m)
	}
	return out
}
