package agentrecipe

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/rexmle/rexmle/pipeline/challenge"
	"github.com/rexmle/rexmle/pipeline/config"
	"github.com/rexmle/rexmle/pipeline/runner"
	"github.com/rexmle/rexmle/pipeline/runner/egress"
	"github.com/rexmle/rexmle/pipeline/runner/validate"
)

// TestAIDERecordingsReplay replays what AIDE (aideml 0.2.2, driven by the
// scripted LLM through rexmle's runner) did in the real runs recorded by
// TestAIDELive, with no network and no AIDE:
//   - its LLM requests are those of the paper profile's backend (the
//     harness's Azure client: the deployment path on AZURE_OPENAI_ENDPOINT,
//     the host the profile's egress allows; reviews ask for the
//     submit_review tool);
//   - its programs' /validate uploads go through the adapter's bridge to
//     rexmle's real validation endpoint, which answers as recorded, with the
//     "is_valid" key the programs (and the harness's validate_submission.sh)
//     read;
//   - its files, replayed in order into a workspace, are collected by the
//     adapter's own collect: the submission is the best node's of the
//     replayed journal.json, byte for byte as recorded, and grades valid.
func TestAIDERecordingsReplay(t *testing.T) {
	paths := aideRecordings(t)
	py := python(t)
	for _, p := range paths {
		p := p
		t.Run(strings.TrimSuffix(filepath.Base(p), ".json"), func(t *testing.T) {
			rec, err := readRecording(p)
			if err != nil {
				t.Fatal(err)
			}
			if rec.Schema != recordingSchema || rec.Agent != "aide" || !strings.HasPrefix(rec.AgentVersion, "aideml 0.2.2") {
				t.Fatalf("%s: schema %q agent %q version %q", p, rec.Schema, rec.Agent, rec.AgentVersion)
			}
			replayLLM(t, rec)
			replayWorkspace(t, py, rec)
		})
	}
}

// replayLLM checks the recorded LLM requests against the profile they were
// recorded with.
func replayLLM(t *testing.T, rec *recording) {
	b, err := config.Load(filepath.Join("..", "..", "benchmark.toml"))
	if err != nil {
		t.Fatal(err)
	}
	claude := strings.Contains(rec.RecordedWith, "claude-sonnet-4.5")
	profile := "paper"
	if claude {
		profile = "paper-claude"
	}
	p, err := b.Profile(profile)
	if err != nil {
		t.Fatal(err)
	}
	// a user's own endpoint: the egress the profile gives is that host
	const endpoint = "https://lab.openai.azure.com"
	a, err := b.ProfileAgentEnv(p, "aide", func(k string) string {
		if k == "AZURE_OPENAI_ENDPOINT" {
			return endpoint
		}
		return ""
	})
	if err != nil {
		t.Fatal(err)
	}
	allow, err := egress.ParseAllow(a.Egress)
	if err != nil {
		t.Fatal(err)
	}
	model := a.SetEnv["REXMLE_MODEL"]
	var calls, reviews int
	for _, e := range rec.Events {
		if e.Kind != "llm" {
			continue
		}
		calls++
		if e.Method != http.MethodPost || e.Status != http.StatusOK {
			t.Errorf("llm event %d: %s %s answered %d", e.Seq, e.Method, e.Path, e.Status)
		}
		u, err := url.Parse(e.Path)
		if err != nil {
			t.Fatalf("llm event %d: path %q: %v", e.Seq, e.Path, err)
		}
		var dest string
		if claude {
			// the Anthropic client posts to /v1/messages on api.anthropic.com
			if u.Path != "/v1/messages" {
				t.Errorf("llm event %d: path %s, want /v1/messages", e.Seq, u.Path)
			}
			dest = "api.anthropic.com:443"
		} else {
			// the harness's AzureOpenAI client: the deployment's chat path on the resource
			if want := "/openai/deployments/" + model + "/chat/completions"; u.Path != want || u.Query().Get("api-version") == "" {
				t.Errorf("llm event %d: %s, want %s?api-version=…", e.Seq, e.Path, want)
			}
			dest = "lab.openai.azure.com:443"
		}
		if !allow[dest] {
			t.Errorf("llm event %d: %s is not in the profile's egress %v", e.Seq, dest, a.Egress)
		}
		if e.Request["model"] != model {
			t.Errorf("llm event %d: model %v, want the profile's %s", e.Seq, e.Request["model"], model)
		}
		if tools, ok := e.Request["tools"].([]any); ok {
			reviews++
			if s, _ := json.Marshal(tools); !strings.Contains(string(s), `"submit_review"`) || e.Request["tool_choice"] == nil {
				t.Errorf("llm event %d: a tool request that is not AIDE's forced submit_review: %s", e.Seq, s)
			}
		}
	}
	if calls == 0 || reviews == 0 || reviews >= calls {
		t.Errorf("%d LLM requests, %d reviews: want code requests and review tool calls", calls, reviews)
	}
}

func replayWorkspace(t *testing.T, py string, rec *recording) {
	ch, ok := challenge.Lookup(rec.Challenge)
	if !ok {
		t.Fatalf("no challenge %s", rec.Challenge)
	}
	ctx := context.Background()
	dir := t.TempDir()
	data := syntheticData(t, ch, dir)
	private := filepath.Join(data, "private")
	runDir := filepath.Join(dir, "run")
	ws, sub, logs := filepath.Join(runDir, "workspace"), filepath.Join(runDir, "submission"), filepath.Join(runDir, "logs")
	for _, d := range []string{ws, sub, logs} {
		os.MkdirAll(d, 0o755)
	}
	mounts := map[string]string{runner.ContainerSubmission: sub, runner.ContainerWorkspace: ws, runner.ContainerLogs: logs,
		sub: sub, ws: ws, logs: logs}
	h, err := validate.Handler(validate.Config{Check: validate.Check(ch, private, challenge.Reference), Folders: mounts,
		Default: runner.ContainerSubmission, Scratch: filepath.Join(runDir, ".validate")})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := validate.Listen(filepath.Join(runDir, "validate.sock"), h)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()

	// the adapter's bridge, the live submission being the replayed one
	root := filepath.Join(ws, "aide")
	liveLink := filepath.Join(dir, "live")
	bridge := exec.Command(py, filepath.Join("testdata", "aide_replay.py"), "bridge", agentsDir, ws, srv.Socket, liveLink)
	stdin, _ := bridge.StdinPipe()
	out, _ := bridge.StdoutPipe()
	bridge.Stderr = io.Discard
	if err := bridge.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { stdin.Close(); bridge.Wait() }()
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("the bridge did not start: %v", err)
	}
	bridgeURL := "http://127.0.0.1:" + strings.TrimSpace(line) + "/validate"

	validated := 0
	for i, e := range rec.Events {
		switch e.Kind {
		case "fs":
			applyFS(t, ws, rec, e)
		case "validate":
			// the fs events come from a walk every 100 ms, so a file the
			// program wrote just before posting may be seen up to a walk
			// later: writes seen within fsLag after the post happened
			// before it (removals are left in their place)
			for _, f := range rec.Events[i+1:] {
				if f.T > e.T+fsLag {
					break
				}
				if f.Kind == "fs" && f.Op != "remove" {
					applyFS(t, ws, rec, f)
				}
			}
			// the live folder is AIDE's exp submission folder at this moment
			os.Remove(liveLink)
			if m, _ := filepath.Glob(filepath.Join(root, "workspaces", "*-exp", "submission")); len(m) == 1 {
				os.Symlink(m[0], liveLink)
			}
			got := postUpload(t, bridgeURL, e.RequestFiles)
			validated++
			if _, ok := got["is_valid"]; !ok {
				t.Errorf("validate event %d: the answer has no is_valid, the key the programs read: %v", e.Seq, got)
			}
			if got["is_valid"] != e.Response["is_valid"] || got["valid"] != e.Response["valid"] {
				t.Errorf("validate event %d: answered %v, recorded %v", e.Seq, got, e.Response)
			}
		}
	}
	if validated == 0 {
		t.Error("the recording has no /validate request")
	}

	// the adapter's collect, as at the deadline
	c := exec.Command(py, filepath.Join("testdata", "aide_replay.py"), "collect", agentsDir, root, sub, logs)
	var stderr bytes.Buffer
	c.Stderr = &stderr
	from, err := c.Output()
	if err != nil {
		t.Fatalf("collect: %v\n%s", err, stderr.String())
	}
	if !strings.Contains(string(from), "/best/node-"+rec.Collected.BestNode+"/") {
		t.Errorf("collected from %q, want the kept copy of node %s\n%s", from, rec.Collected.BestNode, stderr.String())
	}
	m, _ := filepath.Glob(filepath.Join(root, "logs", "*-exp", "journal.json"))
	if len(m) != 1 {
		t.Fatalf("replayed journal.json: %v", m)
	}
	if best := aideBest(readJournal(t, m[0])); best == nil || best.ID != rec.Collected.BestNode {
		t.Errorf("the replayed journal's best node is %v, the recording collected node %s", best, rec.Collected.BestNode)
	}
	var files []string
	filepath.Walk(sub, func(p string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() {
			rel, _ := filepath.Rel(sub, p)
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	sort.Strings(files)
	if strings.Join(files, ",") != strings.Join(rec.Collected.Files, ",") {
		t.Errorf("collected %v, recorded %v", files, rec.Collected.Files)
	}
	if _, err := challenge.SafeGrade(ctx, ch, sub, private, challenge.Reference); (err == nil) != rec.Collected.Valid {
		t.Errorf("the collected submission grades with error %v; recorded valid=%v", err, rec.Collected.Valid)
	}
	if !rec.Collected.Valid {
		t.Error("the recording's collected submission was not valid")
	}
	var stop *recEvent
	for i := range rec.Events {
		if rec.Events[i].Kind == "stop" {
			stop = &rec.Events[i]
		}
	}
	if stop == nil || !stop.MidStep {
		t.Errorf("the recording does not end with a mid-step stop: %+v", stop)
	}
}

// fsLag bounds how late the recordings' 100 ms walk sees a file.
const fsLag = 0.3

// applyFS replays one fs event into the workspace ws (writes and mkdirs
// are idempotent, so an event applied early is applied again harmlessly).
func applyFS(t *testing.T, ws string, rec *recording, e recEvent) {
	t.Helper()
	if strings.Contains(e.Path, "..") || filepath.IsAbs(e.Path) {
		t.Fatalf("fs event %d: path %q leaves the workspace", e.Seq, e.Path)
	}
	p := filepath.Join(ws, filepath.FromSlash(e.Path))
	switch e.Op {
	case "mkdir":
		os.MkdirAll(p, 0o755)
	case "remove":
		os.RemoveAll(p)
	case "write":
		enc, ok := rec.Blobs[e.SHA256]
		if !ok {
			return // a file whose content the recording does not keep (an older journal.json)
		}
		b, err := base64.StdEncoding.DecodeString(enc)
		if err != nil || sha(b) != e.SHA256 {
			t.Fatalf("fs event %d: blob %s does not decode to its hash", e.Seq, e.SHA256)
		}
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	default:
		t.Fatalf("fs event %d: op %q", e.Seq, e.Op)
	}
}

// postUpload sends files as the programs did: multipart, field "file".
func postUpload(t *testing.T, u string, files map[string]string) map[string]any {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	for name, text := range files {
		fw, _ := mw.CreateFormFile("file", name)
		io.WriteString(fw, text)
	}
	mw.Close()
	cl := &http.Client{Timeout: 2 * time.Minute, Transport: &http.Transport{Proxy: nil}}
	resp, err := cl.Post(u, mw.FormDataContentType(), &body)
	if err != nil {
		t.Fatalf("post to the bridge: %v", err)
	}
	defer resp.Body.Close()
	var got map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&got); err != nil {
		t.Fatalf("the bridge's answer: %v", err)
	}
	return got
}
