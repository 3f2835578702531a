package agentrecipe

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rexmle/rexmle/pipeline/challenge"
	"github.com/rexmle/rexmle/pipeline/config"
	"github.com/rexmle/rexmle/pipeline/runner/egress"
	"github.com/rexmle/rexmle/pipeline/runner/validate"
)

func loadRDRecording(t *testing.T, id string) *recording {
	t.Helper()
	r, err := readRecording(filepath.Join("testdata", "recordings", "rd-agent-"+id+".json"))
	if err != nil {
		t.Fatal(err)
	}
	if r.Schema != recordingSchema || r.Agent != "rd-agent" || r.Challenge != id {
		t.Fatalf("recording %s: schema %q agent %q challenge %q", id, r.Schema, r.Agent, r.Challenge)
	}
	for i, e := range r.Events {
		if e.Seq != i+1 {
			t.Fatalf("event %d has seq %d", i+1, e.Seq)
		}
	}
	return r
}

// rdDecode reads a request file as the live test wrote it: text, or
// "base64:..." for binaries.
func rdDecode(t *testing.T, s string) []byte {
	if b64, ok := strings.CutPrefix(s, "base64:"); ok {
		b, err := base64.StdEncoding.DecodeString(b64)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	return []byte(s)
}

// The recorded R&D-Agent runs, replayed at the boundary: its LLM requests
// through rexmle's egress proxy as the paper profile allows them, its
// submission checks through the adapter's valid.py (R&D-Agent's own check
// contract) and bridge to rexmle's validation endpoint, and its files into a
// workspace from which the adapter collects the SOTA experiment's folder,
// which the real grader accepts.
func TestRDAgentRecordingsReplay(t *testing.T) {
	py := python(t)
	needModules(t, py, "json")
	for _, id := range []string{"ldct-iqa", "isles22", "dentex"} {
		t.Run(id, func(t *testing.T) {
			rec := loadRDRecording(t, id)
			ch, ok := challenge.Lookup(id)
			if !ok {
				t.Fatalf("no challenge %s", id)
			}
			data := syntheticData(t, ch, t.TempDir())
			public, private := filepath.Join(data, "public"), filepath.Join(data, "private")
			check := validate.Check(ch, private, challenge.Reference)
			rdReplayLLM(t, rec)
			rdReplayValidation(t, py, rec, public, check)
			rdReplayCollect(t, py, rec, check, ch, private)
			stop := rec.Events[len(rec.Events)-1]
			if stop.Kind != "stop" || !stop.MidStep {
				t.Errorf("the run did not end stopped mid-step at the deadline: %+v", stop)
			}
		})
	}
}

// rdReplayLLM sends every recorded LLM request through rexmle's egress proxy,
// allowed as the paper profile's gpt-5 backend allows ($AZURE_OPENAI_ENDPOINT),
// to a stand-in for the endpoint, and checks what arrives: the Azure
// deployment path, temperature 1 (CHAT_TEMPERATURE), streaming as R&D-Agent's
// LiteLLM backend asks (chat_stream), the recorded body.
func rdReplayLLM(t *testing.T, rec *recording) {
	var got [][]byte
	var paths []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got = append(got, b)
		paths = append(paths, r.URL.RequestURI())
		w.Write([]byte("{}"))
	}))
	defer srv.Close()
	t.Setenv("AZURE_OPENAI_ENDPOINT", srv.URL)
	t.Setenv("AZURE_OPENAI_API_KEY", "k")
	t.Setenv("AZURE_OPENAI_API_VERSION", "2024-12-01-preview")
	b, err := config.Load(filepath.Join("..", "..", "benchmark.toml"))
	if err != nil {
		t.Fatal(err)
	}
	p, err := b.Profile("paper")
	if err != nil {
		t.Fatal(err)
	}
	a, err := b.ProfileAgentEnv(p, "rd-agent", os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(t.TempDir(), "egress.sock")
	proxy, err := egress.Listen(context.Background(), sock, a.Egress, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	defer proxy.Close()
	client := &http.Client{Transport: &http.Transport{
		Proxy: http.ProxyURL(&url.URL{Scheme: "http", Host: "egress"}),
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, "unix", sock)
		},
	}}
	n := 0
	deploy := regexp.MustCompile(`^/openai/deployments/(gpt-5|text-embedding-3-small)/(chat/completions|embeddings)\?api-version=2024-12-01-preview$`)
	for _, e := range rec.Events {
		if e.Kind != "llm" {
			continue
		}
		path := e.Path
		if !deploy.MatchString(path) {
			t.Errorf("seq %d: LLM request to %s, want the profile's Azure deployment", e.Seq, path)
		}
		req := e.Request
		if strings.Contains(path, "chat/completions") {
			if req["temperature"] != 1.0 || req["stream"] != true || req["model"] != "gpt-5" {
				t.Errorf("seq %d: model %v temperature %v stream %v, want gpt-5, 1 (CHAT_TEMPERATURE) and streaming", e.Seq, req["model"], req["temperature"], req["stream"])
			}
		}
		body, _ := json.Marshal(req)
		resp, err := client.Post(srv.URL+path, "application/json", bytes.NewReader(body))
		if err != nil {
			t.Fatalf("seq %d through the proxy: %v", e.Seq, err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("seq %d: the proxy answered %d", e.Seq, resp.StatusCode)
		}
		n++
	}
	if n == 0 || len(got) != n || proxy.Refused() != 0 {
		t.Fatalf("%d LLM requests replayed, %d arrived, %d refused", n, len(got), proxy.Refused())
	}
	if paths[0] != rec.Events[firstKind(rec, "llm")].Path {
		t.Errorf("the first request arrived at %s", paths[0])
	}
	// a destination the profile does not name is refused
	resp, err := client.Post("http://127.0.0.1:9/v1/chat/completions", "application/json", strings.NewReader("{}"))
	if err == nil {
		resp.Body.Close()
	}
	if proxy.Refused() != 1 {
		t.Errorf("a request to another host: refused %d", proxy.Refused())
	}
}

func firstKind(rec *recording, kind string) int {
	for i, e := range rec.Events {
		if e.Kind == kind {
			return i
		}
	}
	return -1
}

// rdReplayValidation rebuilds each folder R&D-Agent's check named, asks
// rexmle's real validation endpoint through the adapter's bridge with the
// adapter's valid.py, run as R&D-Agent runs it, and checks R&D-Agent would
// read the answer as recorded: "Submission is valid." on stdout and exit 0
// (the phrase its evaluators' prompts look for, dev/runner/eval.py:169), or
// the reason and exit 1.
func rdReplayValidation(t *testing.T, py string, rec *recording, public string, check validate.CheckFunc) {
	n := 0
	for _, e := range rec.Events {
		if e.Kind != "validate" {
			continue
		}
		n++
		root := t.TempDir()
		dir, _ := e.Request["dir"].(string)
		if dir == "" || strings.HasPrefix(dir, "..") || filepath.IsAbs(dir) {
			t.Fatalf("seq %d: the recorded folder %q is not one in the agent's workspace", e.Seq, dir)
		}
		ws := filepath.Join(root, filepath.FromSlash(dir))
		for name, content := range e.RequestFiles {
			p := filepath.Join(ws, filepath.FromSlash(name))
			os.MkdirAll(filepath.Dir(p), 0o755)
			if err := os.WriteFile(p, rdDecode(t, content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		h, err := validate.Handler(validate.Config{Check: check, Folders: map[string]string{root: root}, Default: root,
			Scratch: filepath.Join(t.TempDir(), "scratch")})
		if err != nil {
			t.Fatal(err)
		}
		sock := filepath.Join(t.TempDir(), "v.sock")
		s, err := validate.Listen(sock, h)
		if err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command(py, filepath.Join("testdata", "rdagent_replay.py"), "check", agentsDir, ws, filepath.Join(root, "rd-agent"), public, rec.Challenge, sock).Output()
		s.Close()
		if err != nil {
			t.Fatalf("seq %d: %v", e.Seq, err)
		}
		var got struct {
			Stdout   string `json:"stdout"`
			ExitCode int    `json:"exit_code"`
		}
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		resp := e.Response
		if resp["valid"] == true {
			if strings.TrimSpace(got.Stdout) != "Submission is valid." || got.ExitCode != 0 {
				t.Errorf("seq %d: R&D-Agent's check printed %q, exit %d; recorded valid", e.Seq, got.Stdout, got.ExitCode)
			}
		} else if !strings.HasPrefix(got.Stdout, "Submission is invalid: ") || got.ExitCode != 1 {
			t.Errorf("seq %d: R&D-Agent's check printed %q, exit %d; recorded invalid (%v)", e.Seq, got.Stdout, got.ExitCode, resp["reason"])
		}
	}
	if n == 0 {
		t.Error("the recording has no validation call")
	}
}

// rdReplayCollect replays the recorded files and folders into a workspace,
// runs the adapter's collection, and checks it took the folder of the newest
// SOTA record and that the real grader accepts what it copied.
func rdReplayCollect(t *testing.T, py string, rec *recording, check validate.CheckFunc, ch challenge.Challenge, private string) {
	ws := t.TempDir()
	lastSOTA := ""
	wsID := regexp.MustCompile(`RD-Agent_workspace(?:/|[^0-9a-f]{1,3})([0-9a-f]{32})`) // a pickled Path: its parts apart
	for _, e := range rec.Events {
		if e.Kind != "fs" {
			continue
		}
		applyFS(t, ws, rec, e)
		if e.Op == "write" && strings.Contains(e.Path, "/sota_exp_to_submit/") {
			b, err := os.ReadFile(filepath.Join(ws, filepath.FromSlash(e.Path)))
			if err != nil {
				t.Fatalf("fs event %d: the SOTA record's content is not in the recording: %v", e.Seq, err)
			}
			if m := wsID.FindSubmatch(b); m != nil {
				lastSOTA = string(m[1])
			}
		}
	}
	if lastSOTA == "" {
		t.Fatal("no SOTA record in the recording")
	}
	sub := t.TempDir()
	out, err := exec.Command(py, filepath.Join("testdata", "rdagent_replay.py"), "collect", agentsDir, filepath.Join(ws, "rd-agent"), sub).Output()
	if err != nil {
		t.Fatalf("collect: %v", err)
	}
	var got struct {
		Folder string `json:"folder"`
	}
	json.Unmarshal(out, &got)
	if filepath.Base(got.Folder) != lastSOTA {
		t.Errorf("collected %s, want the newest SOTA record's workspace %s", got.Folder, lastSOTA)
	}
	if err := check(context.Background(), sub); err != nil {
		t.Fatalf("the collected submission does not validate: %v", err)
	}
	res, err := challenge.SafeGrade(context.Background(), ch, sub, private, challenge.Reference)
	if err != nil {
		t.Fatalf("grade: %v", err)
	}
	t.Logf("collected %s; graded: %v", lastSOTA, res.Values)
	for _, f := range rec.Collected.Files {
		if f == "submission.csv" || strings.HasPrefix(f, "predictions/") {
			if _, err := os.Stat(filepath.Join(sub, f)); err != nil {
				t.Errorf("the live run collected %s; the replay did not", f)
			}
		}
	}
}
