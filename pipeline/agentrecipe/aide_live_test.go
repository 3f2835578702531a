package agentrecipe

import (
	"bufio"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/rexmle/rexmle/pipeline/binaries"
	"github.com/rexmle/rexmle/pipeline/challenge"
	"github.com/rexmle/rexmle/pipeline/config"
	"github.com/rexmle/rexmle/pipeline/runner"
	"github.com/rexmle/rexmle/pipeline/runner/sandbox"
	"github.com/rexmle/rexmle/pipeline/runner/validate"
)

// TestAIDELive runs AIDE itself — aideml 0.2.2 from its source, with the
// paper harness's OpenAI backend — as a local agent through rexmle's runner:
// bubblewrap sandbox, egress proxy, validation endpoint, time limit. The LLM
// is scriptedAIDE on the host's loopback, reached through the proxy with the
// paper profile's backend settings (gpt-5 on "Azure"; REXMLE_AIDE_LIVE_BACKEND
// =claude-sonnet-4.5 for the paper-claude profile's Anthropic backend).
//
// It needs REXMLE_AIDE_SOURCE: a folder holding site/ (aide with the
// harness's backend_openai.py in place, openai, anthropic and the other
// Python packages Debian lacks) and shim/, on PYTHONPATH inside the sandbox
// (bound read-only at the same path), plus Debian's python3-numpy, -pandas,
// -sklearn, -scipy, -pil, -nibabel, -omegaconf, -httpx's dependencies, ...
// (see agents/aide/README.md). REXMLE_AIDE_RECORD=1 writes the recordings
// to testdata/recordings/aide-<challenge>.json.
func TestAIDELive(t *testing.T) {
	src := aideSource(t)
	if err := sandbox.Available(); err != nil {
		t.Skip(err)
	}
	ids := []string{"ldct-iqa", "isles22", "dentex"}
	if v := os.Getenv("REXMLE_AIDE_LIVE_CHALLENGES"); v != "" {
		ids = strings.Split(v, ",")
	}
	backend := os.Getenv("REXMLE_AIDE_LIVE_BACKEND")
	if backend == "" {
		backend = "gpt-5"
	}
	repo, _ := filepath.Abs(filepath.Join("..", ".."))
	if err := binaries.Build(context.Background(), repo); err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		t.Run(id, func(t *testing.T) { liveAIDE(t, repo, src, id, backend) })
	}
}

// aideSource is REXMLE_AIDE_SOURCE (see TestAIDELive); the test skips without it.
func aideSource(t *testing.T) string {
	t.Helper()
	src := os.Getenv("REXMLE_AIDE_SOURCE")
	if src == "" {
		t.Skip("REXMLE_AIDE_SOURCE is not set (a folder with aideml 0.2.2 and its Python packages)")
	}
	return src
}

// aideKeep: the paths of AIDE's workspace the recording follows.
func aideKeep(rel string) bool {
	p := strings.Split(rel, "/")
	if p[0] != "aide" {
		return false
	}
	if len(p) == 1 {
		return true
	}
	switch p[1] {
	case "best":
		return true
	case "workspaces":
		return len(p) <= 3 || p[3] == "submission" || p[3] == "working"
	case "logs":
		return len(p) <= 2 || (len(p) == 3 && !strings.Contains(p[2], ".")) || (len(p) == 4 && p[3] == "journal.json")
	}
	return false
}

func aideBlob(rel string) bool {
	return strings.Contains(rel, "/submission/") || strings.HasPrefix(rel, "aide/best/") || strings.HasSuffix(rel, "/journal.json") ||
		strings.HasSuffix(rel, "/working/submission.csv")
}

func liveAIDE(t *testing.T, repo, src, id, backend string) {
	ch, ok := challenge.Lookup(id)
	if !ok {
		t.Fatalf("no challenge %s", id)
	}
	ctx := context.Background()
	dir := t.TempDir()
	os.Chmod(dir, 0o755)
	os.Chmod(filepath.Dir(dir), 0o755)
	data := syntheticData(t, ch, dir)
	filepath.Walk(data, func(p string, fi os.FileInfo, err error) error {
		if err == nil && fi.IsDir() {
			os.Chmod(p, 0o755)
		}
		return nil
	})
	private := filepath.Join(data, "private")

	llm := newScriptedAIDE(t, id)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: llm}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	llmURL := "http://" + ln.Addr().String()

	// the profile's own backend settings, with the scripted URL as its endpoint
	b, err := config.Load(filepath.Join(repo, "benchmark.toml"))
	if err != nil {
		t.Fatal(err)
	}
	profile := map[string]string{"gpt-5": "paper", "claude-sonnet-4.5": "paper-claude", "gemini-3": "paper-gemini"}[backend]
	p, err := b.Profile(profile)
	if err != nil {
		t.Fatal(err)
	}
	const key = "scripted-key-NEVER-PRINT-0815"
	llm.key = key
	env := map[string]string{"AZURE_OPENAI_ENDPOINT": llmURL, "AZURE_OPENAI_API_KEY": key, "AZURE_OPENAI_API_VERSION": "2024-12-01-preview",
		"ANTHROPIC_API_KEY": key, "ANTHROPIC_BASE_URL": llmURL, "GEMINI_API_KEY": key}
	for k, v := range env {
		t.Setenv(k, v)
	}
	a, err := b.ProfileAgentEnv(p, "aide", os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	if backend == "claude-sonnet-4.5" {
		// the profile's Anthropic backend has no URL variable: reach the
		// scripted endpoint as the gateway users would name in base_url_env
		a.SetEnv["REXMLE_BASE_URL_ENV"] = "ANTHROPIC_BASE_URL"
		a.Env = append(a.Env, "ANTHROPIC_BASE_URL")
		a.Egress = []string{ln.Addr().String()}
	}
	agents := filepath.Join(repo, "agents")
	a.Executor, a.Image, a.GPUs, a.ShmSize = "local", "", 0, ""
	a.Command = []string{"/usr/bin/python3", filepath.Join(agents, "aide", "adapter.py"), "--data", "{data}", "--submission", "{submission}",
		"--logs", "{logs}", "--workspace", "{workspace}", "--time-limit", "{time_limit}", "--challenge", "{challenge}"}
	a.SetEnv["PYTHONPATH"] = filepath.Join(src, "site") + ":" + filepath.Join(src, "shim")
	a.SetEnv["PYTHONDONTWRITEBYTECODE"] = "1"
	a.SetEnv["REXMLE_HARDWARE"] = "no GPU (test sandbox), 2 CPU cores"
	limit := 180 * time.Second
	if v := os.Getenv("REXMLE_AIDE_LIVE_LIMIT"); v != "" {
		if d, err := time.ParseDuration(v); err == nil {
			limit = d
		}
	}
	runDir := filepath.Join(dir, "run")
	j := &runner.Job{Group: "aide-live", Challenge: id, Agent: a, Seed: 1, PublicDir: filepath.Join(data, "public"), RunDir: runDir,
		Setting: "live", TimeLimit: limit, Grace: 30 * time.Second, AgentBin: binaries.Agent(repo), BridgeBin: binaries.Bridge(repo),
		ReadOnly: []string{src, agents}, Validate: validate.Check(ch, private, challenge.Reference)}
	start := time.Now()
	llm.start = start
	w := watchTree(filepath.Join(runDir, "workspace"), start, 100*time.Millisecond, aideKeep, aideBlob)
	info, err := runner.Execute(ctx, j)
	fsEvents, blobs := w.close()
	console, _ := os.ReadFile(filepath.Join(runDir, "logs", "console.log"))
	if keep := os.Getenv("REXMLE_AIDE_LIVE_KEEP"); keep != "" {
		// the whole run folder, for reading after the test (its temp folder goes)
		dst := filepath.Join(keep, id+"-"+backend)
		os.RemoveAll(dst)
		if out, err := exec.Command("cp", "-a", runDir, dst).CombinedOutput(); err != nil {
			t.Logf("keep %s: %v %s", dst, err, out)
		}
	}
	if err != nil {
		t.Fatalf("run: %v\n%s", err, tail(console, 4000))
	}
	if strings.Contains(string(console), key) {
		t.Error("the console log holds the API key")
	}
	t.Logf("run.json: status %s %s, exit %d, %.1f s, isolation %q, egress %v (refused %d), validation %s",
		info.Status, info.Error, info.ExitCode, info.WallSeconds, info.Isolation, info.Egress, info.EgressRefused, info.ValidationURL)
	for _, l := range keyLines(console) {
		t.Log("console: " + l)
	}

	// AIDE's journal, as the adapter copied it out
	logs := filepath.Join(runDir, "logs", "aide")
	nodes := readJournal(t, filepath.Join(logs, "journal.json"))
	best := aideBest(nodes)
	if best == nil {
		t.Fatalf("AIDE's journal has no good node (%d nodes)\n%s", len(nodes), tail(console, 4000))
	}
	var kept struct {
		NodeID string   `json:"node_id"`
		Files  []string `json:"files"`
	}
	if b, err := os.ReadFile(filepath.Join(logs, "best_node.json")); err != nil || json.Unmarshal(b, &kept) != nil {
		t.Fatalf("best_node.json: %v", err)
	}
	if kept.NodeID != best.ID {
		t.Errorf("the kept submission is node %s's; AIDE's journal says node %s is best", kept.NodeID, best.ID)
	}
	variant := variantRe.FindStringSubmatch(best.Code)
	if variant == nil {
		t.Fatalf("best node %s's code has no VARIANT line", best.ID)
	}
	exp := expFolder(t, filepath.Join(runDir, "workspace", "aide", "workspaces"))
	var written map[string]string
	if b, err := os.ReadFile(filepath.Join(exp, "working", "written_"+variant[1]+".json")); err != nil || json.Unmarshal(b, &written) != nil {
		t.Fatalf("what node %s wrote: %v", best.ID, err)
	}
	sub := filepath.Join(runDir, "submission")
	got := map[string]string{}
	filepath.Walk(sub, func(p string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() {
			b, _ := os.ReadFile(p)
			rel, _ := filepath.Rel(sub, p)
			got[filepath.ToSlash(rel)] = sha(b)
		}
		return nil
	})
	if len(got) != len(written) {
		t.Errorf("collected %d files, the best node (%s, %s) wrote %d", len(got), best.ID, variant[1], len(written))
	}
	for f, h := range written {
		if got[f] != h {
			t.Errorf("collected %s differs from what the best node wrote", f)
		}
	}
	// the stop came in the middle of the improvement that trains for ever:
	// its program had cleared the live folder and written part of it
	if !strings.Contains(string(console), "time limit reached") {
		t.Error("the adapter's deadline did not stop AIDE")
	}
	if llm.reviews >= llm.drafts+llm.debugs+llm.improves {
		t.Errorf("every step was reviewed (%d reviews, %d code answers): no step was in flight at the stop", llm.reviews, llm.drafts+llm.debugs+llm.improves)
	}
	res, gerr := challenge.SafeGrade(ctx, ch, sub, private, challenge.Reference)
	valid := gerr == nil && res != nil
	if !valid {
		t.Errorf("the collected submission does not grade: %v", gerr)
	} else {
		t.Logf("graded valid: %v", res.Values)
	}
	live, _ := os.ReadFile(filepath.Join(exp, "submission", "submission.csv"))
	if b, _ := os.ReadFile(filepath.Join(sub, "submission.csv")); string(b) == string(live) {
		t.Log("note: the live submission.csv equals the collected one")
	}
	t.Logf("AIDE: %d nodes, best %s (%s, metric %v); LLM requests %d (drafts %d, debugs %d, improvements %d, reviews %d)",
		len(nodes), best.ID, variant[1], *best.Metric.Value, len(llm.events), llm.drafts, llm.debugs, llm.improves, llm.reviews)

	if os.Getenv("REXMLE_AIDE_RECORD") != "" {
		events := append([]recEvent{}, llm.events...)
		events = append(events, validateCalls(t, filepath.Join(exp, "working", "validate_calls.jsonl"), start)...)
		// keep only the last journal.json content
		lastJournal := ""
		for _, e := range fsEvents {
			if e.Op == "write" && strings.HasSuffix(e.Path, "/journal.json") {
				lastJournal = e.SHA256
			}
		}
		var kept []recEvent
		for _, e := range fsEvents {
			if e.Op == "write" && strings.HasSuffix(e.Path, "/journal.json") && e.SHA256 != lastJournal {
				delete(blobs, e.SHA256)
			}
			kept = append(kept, e)
		}
		events = append(events, kept...)
		stopT := info.WallSeconds
		events = append(events, recEvent{T: stopT, Kind: "stop", How: "the adapter's deadline (time limit less the copy reserve): SIGTERM to AIDE's process group, then collect", MidStep: true})
		var files []string
		for f := range got {
			files = append(files, f)
		}
		sort.Strings(files)
		rec := &recording{Agent: "aide", AgentVersion: "aideml 0.2.2 @ 6568c8bc27af51fe90ac83cdc87eb59512e4f527 (WecoAI/aideml tag v0.2.2) with rajpurkarlab/ReX-MLE@6492376 rex-mle/setup/aide/backend_openai.txt",
			Challenge: id, RecordedWith: "pipeline/agentrecipe TestAIDELive (" + backend + ", profile " + profile + "): runner.Execute, executor local (bubblewrap), egress proxy, rexmle validation endpoint; scripted LLM scriptedAIDE; fs events from a 100 ms before/after walk of the workspace; " +
				time.Now().UTC().Format("2006-01-02") + ". Re-record: REXMLE_AIDE_SOURCE=<aideml tree> REXMLE_AIDE_RECORD=1 go test ./pipeline/agentrecipe -run TestAIDELive",
			Events: events, Blobs: encodeBlobs(kept, blobs), Collected: recCollected{Files: files, Valid: valid, BestNode: best.ID}}
		name := "aide-" + id + ".json"
		if backend != "gpt-5" {
			name = "aide-" + backend + "-" + id + ".json"
		}
		if err := writeRecording(filepath.Join("testdata", "recordings", name), rec); err != nil {
			t.Fatal(err)
		}
	}
}

type aideJournalNode struct {
	ID      string `json:"id"`
	Code    string `json:"code"`
	Step    int    `json:"step"`
	IsBuggy bool   `json:"is_buggy"`
	Metric  struct {
		Value    *float64 `json:"value"`
		Maximize *bool    `json:"maximize"`
	} `json:"metric"`
}

func readJournal(t *testing.T, path string) []aideJournalNode {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("journal: %v", err)
	}
	var j struct {
		Nodes []aideJournalNode `json:"nodes"`
	}
	if err := json.Unmarshal(b, &j); err != nil {
		t.Fatalf("journal %s: %v", path, err)
	}
	return j.Nodes
}

// aideBest is aideml 0.2.2's Journal.get_best_node(): the good node (not
// buggy) with the best metric, the first of equals.
func aideBest(nodes []aideJournalNode) *aideJournalNode {
	var best *aideJournalNode
	for i := range nodes {
		n := &nodes[i]
		if n.IsBuggy || n.Metric.Value == nil {
			continue
		}
		if best == nil {
			best = n
			continue
		}
		max := n.Metric.Maximize == nil || *n.Metric.Maximize
		if (max && *n.Metric.Value > *best.Metric.Value) || (!max && *n.Metric.Value < *best.Metric.Value) {
			best = n
		}
	}
	return best
}

func expFolder(t *testing.T, parent string) string {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join(parent, "*-exp"))
	if len(m) != 1 {
		t.Fatalf("AIDE's *-exp folders under %s: %v", parent, m)
	}
	return m[0]
}

func validateCalls(t *testing.T, path string, start time.Time) []recEvent {
	f, err := os.Open(path)
	if err != nil {
		t.Errorf("the programs' validation calls: %v", err)
		return nil
	}
	defer f.Close()
	var out []recEvent
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var c struct {
			T           float64           `json:"t"`
			URL         string            `json:"url"`
			ContentType string            `json:"content_type"`
			Files       map[string]string `json:"files"`
			Answer      map[string]any    `json:"answer"`
		}
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Errorf("%s: %v", path, err)
			continue
		}
		u, _ := url.Parse(c.URL)
		ts := time.Unix(0, int64(c.T*1e9)).Sub(start).Seconds()
		out = append(out, recEvent{T: ts, Kind: "validate", Method: "POST", Path: u.Path, ContentType: c.ContentType,
			RequestFiles: c.Files, Response: c.Answer, Status: 200})
	}
	return out
}

var keyLineRe = regexp.MustCompile(`\[adapter\]|\[rexmle-aide\]|Traceback|Error|egress|validate`)

func keyLines(console []byte) []string {
	var out []string
	for _, l := range strings.Split(string(console), "\n") {
		if keyLineRe.MatchString(l) && len(out) < 60 {
			if len(l) > 300 {
				l = l[:300] + "…"
			}
			out = append(out, l)
		}
	}
	return out
}

func tail(b []byte, n int) string {
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(b)
}
