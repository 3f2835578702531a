package agentrecipe

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/rexmle/rexmle/pipeline/config"
	"github.com/rexmle/rexmle/pipeline/runner/egress"
)

// mlmRecording is a recording (schema rexmle-agent-recording/1, the
// shared format of recording_test.go) of a real ML-Master run, read with
// the fields ML-Master's replay needs besides the shared ones: which
// endpoint each validation went to, the multipart field of each upload, and
// the LLM destination.
type mlmRecording struct {
	Schema    string            `json:"schema"`
	Agent     string            `json:"agent"`
	Challenge string            `json:"challenge"`
	LLMHost   string            `json:"llm_base_url_host"`
	Events    []mlmEvent        `json:"events"`
	Collected recCollected      `json:"collected"`
	Blobs     map[string]string `json:"blobs"`
}

type mlmEvent struct {
	recEvent
	Endpoint      string            `json:"endpoint"` // adapter-bridge or rexmle (127.0.0.1:5000 in the sandbox)
	RequestFields map[string]string `json:"request_fields"`
}

func loadMLMasterRecordings(t *testing.T) []mlmRecording {
	t.Helper()
	paths, _ := filepath.Glob(filepath.Join("testdata", "recordings", "ml-master-*.json"))
	if len(paths) == 0 {
		t.Fatal("no recordings of ml-master in testdata/recordings")
	}
	var out []mlmRecording
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var r mlmRecording
		if err := json.Unmarshal(b, &r); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if r.Schema != recordingSchema || r.Agent != "ml-master" || r.Challenge == "" || len(r.Events) == 0 {
			t.Fatalf("%s: schema %q agent %q challenge %q, %d events", p, r.Schema, r.Agent, r.Challenge, len(r.Events))
		}
		out = append(out, r)
	}
	return out
}

// mlMasterReplayer drives the ML-Master adapter's own code (Debian's
// python3) over a replayed workspace: it links the working submission
// folder, serves the adapter's bridge and, on "collect", runs the
// adapter's collect().
const mlMasterReplayer = `
import json, os, sys
sys.path.insert(0, sys.argv[1])
import adapter
task = adapter.ak.parse(sys.argv[2:])
root, exp_ws, logs, live = adapter.folders(task)
adapter.link_live_submission(live, task.submission)
bridge = adapter.ak.open_bridge(task, live, [root])
print(json.dumps({"url": bridge.url}), flush=True)
for line in sys.stdin:
    if line.strip() == "collect":
        got = adapter.collect(task)
        print(json.dumps({"collected": got}), flush=True)
    else:
        break
bridge.close()
`

// postUpload sends the recorded multipart upload (fields and filenames as
// ML-Master's requests call sent them) to base (an http URL, or "" for the
// Unix socket sock) and returns the status and the decoded answer.
func mlmUpload(t *testing.T, base, sock string, e mlmEvent) (int, map[string]any) {
	t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	names := make([]string, 0, len(e.RequestFiles))
	for n := range e.RequestFiles {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		w, err := mw.CreateFormFile(e.RequestFields[n], n)
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(w, e.RequestFiles[n])
	}
	mw.Close()
	c := http.DefaultClient
	u := base + e.Path
	if sock != "" {
		c = &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, "unix", sock)
		}}}
		u = "http://rexmle" + e.Path
	}
	resp, err := c.Post(u, mw.FormDataContentType(), &buf)
	if err != nil {
		t.Fatalf("event %d: %v", e.Seq, err)
	}
	defer resp.Body.Close()
	var ans map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&ans); err != nil {
		t.Fatalf("event %d: answer is not JSON: %v", e.Seq, err)
	}
	return resp.StatusCode, ans
}

// TestMLMasterRecordingsReplay replays each recorded real ML-Master run
// (its own MCTS loop from the harness's source, through the runner with
// bwrap, the egress proxy and the validation endpoint; see recorded_with):
// the files it wrote go into a fresh run folder in their order, each
// /validate request it sent goes to the endpoint it went to then (the
// adapter's bridge, run from the adapter's code, or rexmle's endpoint, the
// sandbox's 127.0.0.1:5000), and each answer must carry what ML-Master
// reads — res['is_valid'] and res['result'] (agent/mcts_agent.py,
// parse_exec_result and parse_exec_result_without_tool) — with the verdict
// it got then; the adapter's collect() then hands in the best node's
// submission, which the real grader grades valid; its LLM requests pass
// the egress allowlist of the recording profile, and the paper profile's
// allowlist admits the URL the adapter gives ML-Master.
func TestMLMasterRecordingsReplay(t *testing.T) {
	py := python(t)
	for _, rec := range loadMLMasterRecordings(t) {
		t.Run(rec.Challenge, func(t *testing.T) {
			w := newWorld(t, rec.Challenge)
			cmd := exec.Command(py, "-c", mlMasterReplayer, filepath.Join(agentsDir, "ml-master"), "--data", w.public,
				"--submission", w.sub, "--logs", w.logs, "--workspace", w.ws, "--validate-socket", w.socket, "--time-limit", "600",
				"--challenge", rec.Challenge)
			cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "PYTHONDONTWRITEBYTECODE=1"}
			stdin, _ := cmd.StdinPipe()
			stdout, _ := cmd.StdoutPipe()
			var errb bytes.Buffer
			cmd.Stderr = &errb
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer func() { stdin.Close(); cmd.Wait() }()
			lines := bufio.NewScanner(stdout)
			next := func() map[string]any {
				if !lines.Scan() {
					t.Fatalf("the adapter's replayer stopped:\n%s", errb.String())
				}
				var m map[string]any
				json.Unmarshal(lines.Bytes(), &m)
				return m
			}
			bridgeURL, _ := next()["url"].(string)

			var nLLM, nValidate, nStop int
			csvOf := map[string]string{} // submission_<node>.csv -> content, as written
			for _, e := range rec.Events {
				switch e.Kind {
				case "fs":
					replayFS(t, w.runDir, e.recEvent, rec.Blobs, csvOf)
				case "health":
					base := bridgeURL
					if e.Endpoint == "rexmle" {
						continue // the runner's endpoint's /health is covered by its own tests
					}
					resp, err := http.Get(base + e.Path)
					if err != nil || resp.StatusCode != http.StatusOK {
						t.Errorf("event %d: GET /health on the bridge: %v %v", e.Seq, resp, err)
					}
					if resp != nil {
						resp.Body.Close()
					}
				case "validate":
					nValidate++
					if len(e.RequestFiles) != 1 || e.ContentType != "multipart/form-data" {
						t.Fatalf("event %d: ML-Master sent %q with %v, want one multipart file (utils/server_utils.py call_validate)", e.Seq, e.ContentType, e.RequestFiles)
					}
					was := e.Response
					var code int
					var ans map[string]any
					if e.Endpoint == "rexmle" {
						code, ans = mlmUpload(t, "", w.socket, e)
					} else {
						code, ans = mlmUpload(t, bridgeURL, "", e)
					}
					isValid, ok1 := ans["is_valid"].(bool)
					result, ok2 := ans["result"].(string)
					if code != http.StatusOK || !ok1 || !ok2 {
						t.Errorf("event %d (%s): HTTP %d %v: ML-Master reads res['is_valid'] and res['result']", e.Seq, e.Endpoint, code, ans)
						continue
					}
					if was["is_valid"] != isValid {
						t.Errorf("event %d (%s): is_valid %v now, %v when recorded (%s)", e.Seq, e.Endpoint, isValid, was["is_valid"], result)
					}
				case "llm":
					nLLM++
					if e.Method != http.MethodPost || e.Path != "/v1/chat/completions" || e.Request["model"] != "gpt-5" {
						t.Errorf("event %d: LLM request %s %s model %v", e.Seq, e.Method, e.Path, e.Request["model"])
					}
				case "stop":
					nStop++
					if !e.MidStep || !strings.Contains(e.How, "time limit reached") {
						t.Errorf("event %d: stop %q mid_step %v, want the adapter's deadline in the middle of a step", e.Seq, e.How, e.MidStep)
					}
				}
			}
			if nLLM == 0 || nValidate == 0 || nStop != 1 {
				t.Fatalf("%d LLM requests, %d validations, %d stops recorded", nLLM, nValidate, nStop)
			}

			// the LLM destination passes the recording profile's allowlist
			allowed, err := config.ResolveEgress([]string{"$REXMLE_MLM_URL"}, func(string) string { return "http://" + rec.LLMHost + "/v1" })
			if err != nil {
				t.Fatal(err)
			}
			if m, err := egress.ParseAllow(allowed); err != nil || !m[rec.LLMHost] {
				t.Errorf("LLM host %s not admitted by %v (%v)", rec.LLMHost, allowed, err)
			}

			fmt.Fprintln(stdin, "collect")
			if got, _ := next()["collected"].(string); !strings.HasSuffix(got, "best_submission") {
				t.Fatalf("collect() took %q, want best_submission/", got)
			}
			node, err := os.ReadFile(filepath.Join(w.sub, "node_id.txt"))
			if err != nil {
				t.Fatalf("no node_id.txt in the collected submission: %v", err)
			}
			best := "submission_" + strings.TrimSpace(string(node)) + ".csv"
			got, _ := os.ReadFile(filepath.Join(w.sub, "submission.csv"))
			if want, ok := csvOf[best]; !ok || string(got) != want {
				t.Errorf("collected submission.csv is not the best node's %s (%d bytes, recorded %v)", best, len(got), ok)
			}
			var files []string
			filepath.WalkDir(w.sub, func(p string, d os.DirEntry, err error) error {
				if err == nil && !d.IsDir() {
					r, _ := filepath.Rel(w.sub, p)
					files = append(files, r)
				}
				return nil
			})
			sort.Strings(files)
			if strings.Join(files, ",") != strings.Join(rec.Collected.Files, ",") {
				t.Errorf("collected %v, the real run collected %v", files, rec.Collected.Files)
			}
			if !rec.Collected.Valid {
				t.Error("the recorded run's submission did not grade valid")
			}
			w.checkGraded(t)
		})
	}
}

// replayFS applies one recorded file event under runDir, the content of a
// write from blobs; csvOf keeps the content of every node CSV written.
func replayFS(t *testing.T, runDir string, e recEvent, blobs map[string]string, csvOf map[string]string) {
	t.Helper()
	if strings.Contains(e.Path, "..") || filepath.IsAbs(e.Path) {
		t.Fatalf("event %d: path %q leaves the run folder", e.Seq, e.Path)
	}
	p := filepath.Join(runDir, e.Path)
	switch e.Op {
	case "mkdir":
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
	case "remove":
		os.RemoveAll(p)
	case "write":
		enc, ok := blobs[e.SHA256]
		if !ok {
			t.Fatalf("event %d: %s has no recorded content (sha256 %s)", e.Seq, e.Path, e.SHA256)
		}
		b, err := base64.StdEncoding.DecodeString(enc)
		if err != nil || sha(b) != e.SHA256 {
			t.Fatalf("event %d: blob %s does not decode to its hash (%v)", e.Seq, e.SHA256, err)
		}
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		if base := filepath.Base(p); strings.HasPrefix(base, "submission_") && strings.HasSuffix(base, ".csv") {
			csvOf[base] = string(b)
		}
	}
}

// The paper profiles' ML-Master (gpt-5, endpoint openai, no URL variable)
// gets the OpenAI API's URL from the adapter, and the profile's egress
// admits exactly that destination.
func TestMLMasterPaperEgressAdmitsItsURL(t *testing.T) {
	cfg, err := config.Load(filepath.Join("..", "..", "benchmark.toml"))
	if err != nil {
		t.Fatal(err)
	}
	a, err := cfg.ProfileAgentEnv(cfg.Profiles["paper"], "ml-master", func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"REXMLE_API_KEY_ENV": "OPENAI_API_KEY", "OPENAI_API_KEY": secretValue}
	for k, v := range a.SetEnv {
		env[k] = v
	}
	d, _ := dry(t, "ml-master", env, "--challenge", "isles22")
	u, err := url.Parse(d.Values["REXMLE_LLM_BASE_URL"])
	if err != nil || u.Scheme != "https" {
		t.Fatalf("base URL %q", d.Values["REXMLE_LLM_BASE_URL"])
	}
	m, err := egress.ParseAllow(a.Egress)
	if err != nil || !m[net.JoinHostPort(u.Hostname(), "443")] {
		t.Errorf("profile paper's egress %v does not admit %s", a.Egress, u.Host)
	}
}
