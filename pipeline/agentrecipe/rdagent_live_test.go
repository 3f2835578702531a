package agentrecipe

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/rexmle/rexmle/pipeline/binaries"
	"github.com/rexmle/rexmle/pipeline/challenge"
	"github.com/rexmle/rexmle/pipeline/config"
	"github.com/rexmle/rexmle/pipeline/runner"
	"github.com/rexmle/rexmle/pipeline/runner/sandbox"
	"github.com/rexmle/rexmle/pipeline/runner/validate"
)

// TestRDAgentLive runs R&D-Agent v0.8.0's own data_science loop, from its
// source, as a local agent of the paper profile through rexmle's runner:
// bubblewrap sandbox, egress proxy, validation endpoint, a time limit that
// stops it mid-step. The LLM is testdata/rdagent_scripted_llm.py on the
// host's loopback, reached through the proxy as the profile's Azure gpt-5.
//
// It needs REXMLE_RDAGENT_SOURCE, a folder holding RD-Agent/ (microsoft/
// RD-Agent at v0.8.0) and pylib/ (pydantic 2 and the pure-Python packages
// Debian 12 lacks); agents/rd-agent/README.md says how to lay it out. What
// cannot run here is stood in by testdata/rdagent-standins: tiktoken (its
// core is a Rust extension), litellm (not obtainable here; the stand-in sends
// LiteLLM's Azure requests), the pydantic-ai and prefect names that only the
// unused MCP agent imports, and bin/rdagent (the data_science command as
// rdagent/app/cli.py registers it; the CLI module also imports the other
// commands' Azure and LangChain readers).
// REXMLE_RDAGENT_RECORD=1 writes testdata/recordings/rd-agent-<challenge>.json.
func TestRDAgentLive(t *testing.T) {
	src := os.Getenv("REXMLE_RDAGENT_SOURCE")
	if src == "" {
		t.Skip("REXMLE_RDAGENT_SOURCE is not set (a folder with R&D-Agent v0.8.0 and its Python packages)")
	}
	if err := sandbox.Available(); err != nil {
		t.Skip(err)
	}
	ids := []string{"ldct-iqa", "isles22", "dentex"}
	if v := os.Getenv("REXMLE_RDAGENT_LIVE_CHALLENGES"); v != "" {
		ids = strings.Split(v, ",")
	}
	repo, _ := filepath.Abs(filepath.Join("..", ".."))
	if err := binaries.Build(context.Background(), repo); err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		t.Run(id, func(t *testing.T) { liveRDAgent(t, repo, src, id) })
	}
}

const rdLiveKey = "scripted-key-NEVER-PRINT-4711"

func liveRDAgent(t *testing.T, repo, src, id string) {
	ch, ok := challenge.Lookup(id)
	if !ok {
		t.Fatalf("no challenge %s", id)
	}
	ctx := context.Background()
	dir := t.TempDir()
	os.Chmod(dir, 0o755)
	os.Chmod(filepath.Dir(dir), 0o755)
	raw, data := filepath.Join(dir, "raw"), filepath.Join(dir, "data")
	if err := ch.Synthesize(ctx, raw, 1, challenge.SynthSize{}); err != nil {
		t.Fatal(err)
	}
	if err := ch.Prepare(ctx, raw, data); err != nil {
		t.Fatal(err)
	}
	filepath.Walk(data, func(p string, fi os.FileInfo, err error) error {
		if err == nil && fi.IsDir() {
			os.Chmod(p, 0o755)
		}
		return nil
	})
	private := filepath.Join(data, "private")

	llmLog := filepath.Join(dir, "llm.jsonl")
	llm := exec.Command(python(t), filepath.Join("testdata", "rdagent_scripted_llm.py"), llmLog)
	out, err := llm.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	llm.Stderr = os.Stderr
	if err := llm.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { llm.Process.Kill(); llm.Wait() })
	port, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	llmURL := "http://127.0.0.1:" + strings.TrimSpace(port)

	b, err := config.Load(filepath.Join(repo, "benchmark.toml"))
	if err != nil {
		t.Fatal(err)
	}
	p, err := b.Profile("paper")
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range map[string]string{"AZURE_OPENAI_ENDPOINT": llmURL, "AZURE_OPENAI_API_KEY": rdLiveKey, "AZURE_OPENAI_API_VERSION": "2024-12-01-preview"} {
		t.Setenv(k, v)
	}
	a, err := b.ProfileAgentEnv(p, "rd-agent", os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	agents := filepath.Join(repo, "agents")
	a.Executor, a.Image, a.GPUs, a.ShmSize = "local", "", 0, ""
	a.Command = []string{"/usr/bin/python3", filepath.Join(agents, "rd-agent", "adapter.py"), "--data", "{data}", "--submission", "{submission}",
		"--logs", "{logs}", "--workspace", "{workspace}", "--time-limit", "{time_limit}", "--challenge", "{challenge}"}
	if a.SetEnv == nil {
		a.SetEnv = map[string]string{}
	}
	standins, _ := filepath.Abs(filepath.Join("testdata", "rdagent-standins"))
	a.SetEnv["PYTHONPATH"] = strings.Join([]string{standins, filepath.Join(src, "pylib"), filepath.Join(src, "RD-Agent")}, ":")
	a.SetEnv["PATH"] = filepath.Join(standins, "bin") + ":/usr/local/bin:/usr/bin:/bin"
	a.SetEnv["PYTHONDONTWRITEBYTECODE"] = "1"
	a.SetEnv["REXMLE_HARDWARE"] = "no GPU (test sandbox), 2 CPU cores"
	// converting a few hundred pickled records to text takes longer than 5 %
	// of a short limit on a loaded machine (the submission is copied first)
	a.SetEnv["REXMLE_COPY_RESERVE"] = "30"
	limit := 150 * time.Second
	if v := os.Getenv("REXMLE_RDAGENT_LIVE_LIMIT"); v != "" {
		if d, err := time.ParseDuration(v); err == nil {
			limit = d
		}
	}
	runDir := filepath.Join(dir, "run")
	start := time.Now()
	rec := &rdRecorder{start: start}
	check := validate.Check(ch, private, challenge.Reference)
	ws := filepath.Join(runDir, "workspace")
	j := &runner.Job{Group: "rd-agent-live", Challenge: id, Agent: a, Seed: 1, PublicDir: filepath.Join(data, "public"), RunDir: runDir,
		Setting: "live", TimeLimit: limit, Grace: 30 * time.Second, AgentBin: binaries.Agent(repo), BridgeBin: binaries.Bridge(repo),
		ReadOnly: []string{src, agents, standins}, Validate: func(ctx context.Context, d string) error {
			err := check(ctx, d)
			rec.validate(ws, d, err)
			return err
		}}
	w := watchTree(ws, start, 150*time.Millisecond, rdKeep, rdBlob)
	info, err := runner.Execute(ctx, j)
	fsEvents, blobs := w.close()
	console, _ := os.ReadFile(filepath.Join(runDir, "logs", "console.log"))
	if keep := os.Getenv("REXMLE_RDAGENT_LIVE_KEEP"); keep != "" {
		dst := filepath.Join(keep, id)
		os.RemoveAll(dst)
		exec.Command("cp", "-a", runDir, dst).Run()
		exec.Command("cp", llmLog, dst+"-llm.jsonl").Run()
	}
	if err != nil {
		t.Fatalf("run: %v\n%s", err, rdTail(console, 4000))
	}
	t.Logf("run.json: status %s %s, exit %d, %.1f s, isolation %q, egress %v (refused %d), validation %s",
		info.Status, info.Error, info.ExitCode, info.WallSeconds, info.Isolation, info.Egress, info.EgressRefused, info.ValidationURL)
	for _, l := range rdKeyLines(console) {
		t.Log("console: " + l)
	}
	if strings.Contains(string(console), rdLiveKey) {
		t.Error("the console log holds the API key")
	}
	filepath.WalkDir(filepath.Join(runDir, "logs"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if b, _ := os.ReadFile(p); strings.Contains(string(b), rdLiveKey) {
				t.Errorf("%s holds the API key", p)
			}
		}
		return nil
	})
	llmEvents := rdLLMEvents(t, llmLog, start)
	if len(llmEvents) == 0 {
		t.Fatal("R&D-Agent made no LLM call")
	}
	if info.EgressRefused != 0 {
		t.Errorf("the proxy refused %d requests", info.EgressRefused)
	}
	// stopped at the limit, mid-step
	if !strings.Contains(string(console), "time limit reached") {
		t.Errorf("the adapter did not stop R&D-Agent at the time limit:\n%s", rdTail(console, 3000))
	}
	sub := filepath.Join(runDir, "submission")
	if err := check(ctx, sub); err != nil {
		t.Fatalf("the collected submission is not valid: %v", err)
	}
	if rec.validations() == 0 {
		t.Error("R&D-Agent never called the validation endpoint")
	}
	if os.Getenv("REXMLE_RDAGENT_RECORD") == "1" {
		rdWriteRecording(t, id, append(append(append([]recEvent{}, rec.events...), llmEvents...), fsEvents...), blobs, sub)
	}
}

// --- recording (the shared format of recording_test.go) ------------------------

type rdRecorder struct {
	mu     sync.Mutex
	start  time.Time
	events []recEvent
}

// validate records one call of rexmle's validation endpoint: the folder the
// agent's check named (relative to the workspace), its submission files (text
// as it is, binaries as "base64:..."), and the answer the adapter's bridge
// turns into {"valid", "reason", "result"}.
func (r *rdRecorder) validate(ws, dir string, err error) {
	rel, _ := filepath.Rel(ws, dir)
	if strings.HasPrefix(rel, "..") {
		// The endpoint grades a sealed snapshot of the folder the agent
		// named: that folder is the experiment workspace whose
		// submission.csv the snapshot holds.
		if snap, e := os.ReadFile(filepath.Join(dir, "submission.csv")); e == nil {
			cands, _ := filepath.Glob(filepath.Join(ws, "rd-agent", "git_ignore_folder", "RD-Agent_workspace", "*", "submission.csv"))
			for _, c := range cands {
				if b, e := os.ReadFile(c); e == nil && bytes.Equal(b, snap) {
					rel, _ = filepath.Rel(ws, filepath.Dir(c))
					break
				}
			}
		}
	}
	files := map[string]string{}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, e error) error {
		if e != nil || d.IsDir() {
			return nil
		}
		fr, _ := filepath.Rel(dir, p)
		if b, e := os.ReadFile(p); e == nil && (fr == "submission.csv" || strings.HasPrefix(fr, "predictions")) {
			if utf8.Valid(b) && !bytes.ContainsRune(b, 0) {
				files[filepath.ToSlash(fr)] = string(b)
			} else {
				files[filepath.ToSlash(fr)] = "base64:" + base64.StdEncoding.EncodeToString(b)
			}
		}
		return nil
	})
	resp := map[string]any{"valid": err == nil, "reason": ""}
	if err != nil {
		resp["reason"] = err.Error()
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, recEvent{T: time.Since(r.start).Seconds(), Kind: "validate", Method: "POST", Path: "/validate",
		ContentType: "application/json", Request: map[string]any{"dir": filepath.ToSlash(rel)}, RequestFiles: files, Response: resp, Status: 200})
}

func (r *rdRecorder) validations() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.events)
}

// rdKeep: the paths of R&D-Agent's folder the recording follows (and the
// folders on the way to them): the experiment workspaces' outputs and the
// SOTA records under log/run/Loop_N/record/sota_exp_to_submit/.
func rdKeep(rel string) bool {
	p := strings.Split(rel, "/")
	if p[0] != "rd-agent" {
		return false
	}
	if len(p) == 1 {
		return true
	}
	switch p[1] {
	case "git_ignore_folder":
		if len(p) == 2 {
			return true
		}
		if p[2] != "RD-Agent_workspace" {
			return false
		}
		if len(p) <= 4 {
			return true
		}
		return p[4] == "submission.csv" || p[4] == "scores.csv" || p[4] == "main.py" || p[4] == "predictions"
	case "log":
		want := []string{"log", "run", "Loop_", "record", "sota_exp_to_submit"}
		for i, w := range want {
			if len(p) <= i+1 {
				return true
			}
			if !strings.HasPrefix(p[i+1], w) {
				return false
			}
		}
		return true
	}
	return false
}

// rdBlob: the files whose content the recording keeps (the submission and
// the SOTA records the adapter reads); others are kept by hash.
func rdBlob(rel string) bool {
	return strings.HasSuffix(rel, "/submission.csv") || strings.Contains(rel, "/predictions/") || strings.HasSuffix(rel, ".pkl")
}

// rdLLMEvents reads the scripted server's request log; long message
// contents are cut to 300 characters.
func rdLLMEvents(t *testing.T, path string, start time.Time) []recEvent {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []recEvent
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if line == "" {
			continue
		}
		var m struct {
			T       float64        `json:"t"`
			Path    string         `json:"path"`
			Request map[string]any `json:"request"`
		}
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatal(err)
		}
		cut := func(v any) any {
			if c, ok := v.(string); ok && len(c) > 300 {
				return c[:300]
			}
			return v
		}
		if msgs, ok := m.Request["messages"].([]any); ok {
			for _, mm := range msgs {
				if mmm, ok := mm.(map[string]any); ok {
					mmm["content"] = cut(mmm["content"])
				}
			}
		}
		if in, ok := m.Request["input"].([]any); ok {
			for i := range in {
				in[i] = cut(in[i])
			}
		}
		out = append(out, recEvent{T: m.T - float64(start.UnixNano())/1e9, Kind: "llm", Method: "POST", Path: m.Path, Request: m.Request, Status: 200})
	}
	return out
}

func rdWriteRecording(t *testing.T, id string, events []recEvent, blobs map[string][]byte, sub string) {
	var files []string
	filepath.WalkDir(sub, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(sub, p)
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	last := 0.0
	for _, e := range events {
		last = max(last, e.T)
	}
	events = append(events, recEvent{T: last, Kind: "stop", How: "SIGTERM at the deadline (the adapter's time limit, less its copy reserve)", MidStep: true})
	rec := &recording{Agent: "rd-agent", AgentVersion: "rdagent v0.8.0 @ 274e274d5dbb72cc2ea139d1a7c93d73ce9b1198", Challenge: id,
		RecordedWith: fmt.Sprintf("rexmle runner, executor local (bubblewrap), paper profile's gpt-5 backend (azure) pointed at testdata/rdagent_scripted_llm.py through the egress proxy; "+
			"R&D-Agent from source with testdata/rdagent-standins for tiktoken and litellm (agents/rd-agent/README.md); fs events from a 150 ms polling walk; %s; "+
			"re-record: REXMLE_RDAGENT_SOURCE=... REXMLE_RDAGENT_RECORD=1 go test ./pipeline/agentrecipe -run TestRDAgentLive", time.Now().UTC().Format("2006-01-02")),
		Events: events, Collected: recCollected{Files: files, Valid: true}, Blobs: encodeBlobs(events, blobs)}
	path := filepath.Join("testdata", "recordings", "rd-agent-"+id+".json")
	if err := writeRecording(path, rec); err != nil {
		t.Fatal(err)
	}
	t.Logf("recorded %d events to %s", len(rec.Events), path)
}

func rdTail(b []byte, n int) string {
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(b)
}

// rdKeyLines: the console lines that show what happened.
func rdKeyLines(console []byte) []string {
	var out []string
	for _, l := range strings.Split(string(console), "\n") {
		if strings.Contains(l, "[adapter]") || strings.Contains(l, "rexmle:") || strings.Contains(l, "Submission is") ||
			strings.Contains(l, "sota_exp_to_submit") || strings.Contains(l, "Start Loop") || strings.Contains(l, "Running time") {
			if len(l) > 240 {
				l = l[:240]
			}
			out = append(out, strings.TrimSpace(l))
		}
	}
	return out
}
