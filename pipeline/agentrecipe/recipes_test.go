package agentrecipe

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rexmle/rexmle/pipeline/challenge"
	_ "github.com/rexmle/rexmle/pipeline/challenges/all"
	"github.com/rexmle/rexmle/pipeline/runner"
	"github.com/rexmle/rexmle/pipeline/runner/validate"
)

var agentsDir = filepath.Join("..", "..", "agents")

// python returns Debian's interpreter (the one python3-omegaconf and
// python3-typer install into) or the first python3 on PATH.
func python(t *testing.T) string {
	t.Helper()
	if _, err := os.Stat("/usr/bin/python3"); err == nil {
		return "/usr/bin/python3"
	}
	p, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("no python3")
	}
	return p
}

func needModules(t *testing.T, py string, mods ...string) {
	t.Helper()
	for _, m := range mods {
		if err := exec.Command(py, "-c", "import "+m).Run(); err != nil {
			t.Skipf("python module %s missing (apt-get install python3-omegaconf python3-typer)", m)
		}
	}
}

type dryRun struct {
	Agent           string            `json:"agent"`
	Argv            []string          `json:"argv"`
	Cwd             string            `json:"cwd"`
	Env             []string          `json:"env"`
	Values          map[string]string `json:"values"`
	TimeLimit       int               `json:"time_limit"`
	DeadlineReserve int               `json:"deadline_reserve"`
}

// dry runs agents/<id>/adapter.py --dry-run with env added to a clean environment.
func dry(t *testing.T, id string, env map[string]string, args ...string) (dryRun, string) {
	t.Helper()
	cmd := exec.Command(python(t), append([]string{filepath.Join(agentsDir, id, "adapter.py"), "--dry-run"}, args...)...)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "PYTHONDONTWRITEBYTECODE=1"}
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s --dry-run: %v\n%s", id, err, errb.String())
	}
	var d dryRun
	if err := json.Unmarshal(out.Bytes(), &d); err != nil {
		t.Fatalf("%s --dry-run: not JSON: %v\n%s", id, err, out.String())
	}
	return d, out.String()
}

// parse runs one of the testdata checkers; ok is false when it rejects.
func parse(t *testing.T, env []string, script string, args ...string) (map[string]any, string, bool) {
	t.Helper()
	py := python(t)
	cmd := exec.Command(py, append([]string{filepath.Join("testdata", script)}, args...)...)
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "PYTHONDONTWRITEBYTECODE=1"}, env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	if err != nil {
		return nil, errb.String() + out.String(), false
	}
	var m map[string]any
	if err := json.Unmarshal(out.Bytes(), &m); err != nil {
		t.Fatalf("%s: %v\n%s", script, err, out.String())
	}
	return m, errb.String(), true
}

func get(m map[string]any, path string) any {
	var v any = m
	for _, k := range strings.Split(path, ".") {
		mm, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = mm[k]
	}
	return v
}

// Every recipe has its Containerfile and adapter, and its image takes the
// one shared adaptkit.py from the build context (agents/), never a copy.
func TestRecipesShareAdaptkit(t *testing.T) {
	if _, err := os.Stat(filepath.Join(agentsDir, "adaptkit.py")); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"aide", "ml-master", "rd-agent", "standin"} {
		if _, err := os.Stat(filepath.Join(agentsDir, id, "adaptkit.py")); err == nil {
			t.Errorf("agents/%s/adaptkit.py: a copy of the shared agents/adaptkit.py", id)
		}
		cf, err := os.ReadFile(filepath.Join(agentsDir, id, "Containerfile"))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(cf, []byte("COPY adaptkit.py "+id+"/adapter.py")) {
			t.Errorf("agents/%s/Containerfile does not copy the shared adaptkit.py and its adapter from the agents/ context", id)
		}
		for _, f := range []string{"Containerfile", "adapter.py"} {
			if _, err := os.Stat(filepath.Join(agentsDir, id, f)); err != nil {
				t.Errorf("agents/%s: %v", id, err)
			}
		}
	}
}

const secretValue = "sk-test-NEVER-PRINT-4711"

var (
	aideSchema     = filepath.Join("testdata", "aideml-v0.2.2.json")
	mlMasterSchema = filepath.Join("testdata", "ml-master-rexmle-6492376.json")
)

func TestAIDEArgumentsPassAidemlSchema(t *testing.T) {
	needModules(t, python(t), "omegaconf")
	d, raw := dry(t, "aide", map[string]string{"REXMLE_ENDPOINT": "azure", "REXMLE_API_KEY_ENV": "AZURE_OPENAI_API_KEY",
		"AZURE_OPENAI_API_KEY": secretValue, "REXMLE_BASE_URL_ENV": "AZURE_OPENAI_ENDPOINT",
		"AZURE_OPENAI_ENDPOINT": "https://lab.openai.azure.com", "REXMLE_API_VERSION_ENV": "AZURE_OPENAI_API_VERSION",
		"AZURE_OPENAI_API_VERSION": "2025-04-01-preview", "REXMLE_MODEL": "gpt-5", "REXMLE_STEPS": "2000",
		"REXMLE_STEP_TIMEOUT": "32400"}, "--time-limit", "86400", "--challenge", "isles22")
	// AIDE's own entry point (aide.run.run) behind the launcher that keeps the best node's submission
	if len(d.Argv) < 2 || d.Argv[0] != "python3" || !strings.HasSuffix(d.Argv[1], "aide_launch.py") {
		t.Fatalf("argv %v, want python3 .../aide_launch.py key=value...", d.Argv)
	}
	if strings.Contains(raw, secretValue) {
		t.Fatal("the dry run shows the API key")
	}
	cfg, msg, ok := parse(t, nil, "check_omegaconf.py", append([]string{aideSchema}, d.Argv[2:]...)...)
	if !ok {
		t.Fatalf("aideml 0.2.2 rejects the adapter's arguments:\n%s", msg)
	}
	for k, want := range map[string]any{"agent.steps": 2000.0, "exec.timeout": 32400.0, "agent.code.model": "gpt-5",
		"agent.feedback.model": "gpt-5", "agent.code.temp": 1.0, "data_dir": "/data", "copy_data": false, "exp_name": "exp",
		"report.model": "gpt-5", "agent.search.max_debug_depth": 20.0, "agent.search.debug_prob": 1.0} {
		if got := get(cfg, k); got != want {
			t.Errorf("%s = %v, want %v", k, got, want)
		}
	}
	// the harness's OpenAI backend builds openai.AzureOpenAI from these
	for k, want := range map[string]string{"AZURE_OPENAI_ENDPOINT": "https://lab.openai.azure.com", "AZURE_OPENAI_API_VERSION": "2025-04-01-preview"} {
		if d.Values[k] != want {
			t.Errorf("%s = %q, want %q", k, d.Values[k], want)
		}
	}
	if !strings.Contains(strings.Join(d.Env, ","), "AZURE_OPENAI_API_KEY") {
		t.Errorf("env %v: the key is not passed as AZURE_OPENAI_API_KEY", d.Env)
	}
	// aideml 0.2.2 has no agent.time_limit (v6.3.3's key): it would refuse to start
	_, msg, ok = parse(t, nil, "check_omegaconf.py", append([]string{aideSchema, "agent.time_limit=100"}, d.Argv[2:]...)...)
	if ok || !strings.Contains(msg, "time_limit") {
		t.Errorf("agent.time_limit accepted (%q): the schema check would not catch a v6.3.3 key", msg)
	}
	// and the configured command before the recipes is rejected too
	_, _, ok = parse(t, nil, "check_omegaconf.py", aideSchema, "data_dir=/d", "goal_file=/d/description.md")
	if ok {
		t.Error("goal_file accepted: the schema check would not catch a wrong key")
	}
}

func TestMLMasterArgumentsPassItsSchema(t *testing.T) {
	needModules(t, python(t), "omegaconf")
	d, raw := dry(t, "ml-master", map[string]string{"REXMLE_ENDPOINT": "openai", "REXMLE_API_KEY_ENV": "OPENAI_API_KEY",
		"OPENAI_API_KEY": secretValue, "REXMLE_MODEL": "gpt-5", "REXMLE_STEPS": "5000", "REXMLE_STEP_TIMEOUT": "43200"},
		"--time-limit", "259200", "--challenge", "dentex")
	if !strings.HasSuffix(d.Argv[1], "main_mcts.py") {
		t.Fatalf("argv %v, want python main_mcts.py", d.Argv)
	}
	if strings.Contains(raw, secretValue) {
		t.Fatal("the dry run shows the API key")
	}
	// The openai endpoint without a URL variable gets the public URL, never
	// "" (openai.OpenAI(base_url="") fails every call; known issue
	// ml-master-empty-base-url).
	if got := d.Values["REXMLE_LLM_BASE_URL"]; got != "https://api.openai.com/v1" {
		t.Errorf("REXMLE_LLM_BASE_URL = %q, want the OpenAI API's URL", got)
	}
	env := []string{"REXMLE_LLM_API_KEY=" + secretValue, "REXMLE_LLM_BASE_URL=" + d.Values["REXMLE_LLM_BASE_URL"]}
	cfg, msg, ok := parse(t, env, "check_omegaconf.py", append([]string{mlMasterSchema}, d.Argv[2:]...)...)
	if !ok {
		t.Fatalf("ML-Master rejects the adapter's arguments:\n%s", msg)
	}
	for k, want := range map[string]any{"agent.steps": 5000.0, "exec.timeout": 43200.0, "agent.code.model": "gpt-5",
		"agent.feedback.model": "gpt-5", "agent.code.api_key": secretValue, "agent.feedback.api_key": secretValue,
		"agent.code.base_url": "https://api.openai.com/v1", "agent.feedback.base_url": "https://api.openai.com/v1", "agent.time_limit": float64(259200 - d.DeadlineReserve), "exp_name": "rexmle",
		"agent.search.parallel_search_num": 3.0} {
		if got := get(cfg, k); got != want {
			t.Errorf("%s = %v, want %v", k, got, want)
		}
	}
	// the command before the recipes: ML-Master has no such options
	if _, _, ok := parse(t, env, "check_omegaconf.py", mlMasterSchema, "--data-dir", "/d"); ok {
		t.Error("--data-dir accepted")
	}
}

func TestRDAgentArgumentsPassItsCLI(t *testing.T) {
	needModules(t, python(t), "typer")
	d, raw := dry(t, "rd-agent", map[string]string{"REXMLE_ENDPOINT": "azure", "REXMLE_API_KEY_ENV": "AZURE_OPENAI_API_KEY",
		"AZURE_OPENAI_API_KEY": secretValue, "REXMLE_BASE_URL_ENV": "AZURE_OPENAI_ENDPOINT",
		"AZURE_OPENAI_ENDPOINT": "https://lab.openai.azure.com", "REXMLE_API_VERSION_ENV": "AZURE_OPENAI_API_VERSION",
		"AZURE_OPENAI_API_VERSION": "2025-04-01-preview", "REXMLE_MODEL": "gpt-5"}, "--time-limit", "86400", "--challenge", "ldct-iqa")
	if strings.Contains(raw, secretValue) {
		t.Fatal("the dry run shows the API key")
	}
	got, msg, ok := parse(t, nil, "check_rdagent_cli.py", d.Argv...)
	if !ok {
		t.Fatalf("rdagent's CLI rejects %v:\n%s", d.Argv, msg)
	}
	if got["competition"] != "ldct-iqa" {
		t.Errorf("competition %v", got["competition"])
	}
	budget := 86400 - d.DeadlineReserve
	if want := strconv.Itoa(budget/60) + "m"; got["timeout"] != want && got["timeout"] != strconv.Itoa(budget/3600)+"h" {
		t.Errorf("timeout %v, want the budget %d s as %s", got["timeout"], budget, want)
	}
	for k, want := range map[string]string{"CHAT_MODEL": "azure/gpt-5", "AZURE_API_BASE": "https://lab.openai.azure.com",
		"AZURE_API_VERSION": "2025-04-01-preview", "DS_Coder_CoSTEER_ENV_TYPE": "conda", "DS_LOCAL_DATA_PATH": "/workspace/rd-agent/data",
		// issue 28: no Kaggle scenario, gpt-5's only temperature, LiteLLM drops what a model refuses
		"DS_SCEN": "rexmle_scen.RexmleScen", "CHAT_TEMPERATURE": "1", "LITELLM_DROP_PARAMS": "True", "DS_EVAL_SUB_DIR": "eval"} {
		if d.Values[k] != want {
			t.Errorf("%s = %q, want %q", k, d.Values[k], want)
		}
	}
	if _, _, ok := parse(t, nil, "check_rdagent_cli.py", "rdagent", "data_science", "--competition", "x", "--data-dir", "/d"); ok {
		t.Error("--data-dir accepted")
	}
}

func TestDryRunsNeverShowKeys(t *testing.T) {
	for _, id := range []string{"aide", "ml-master", "rd-agent", "standin"} {
		for _, ep := range []string{"openai", "azure", "anthropic", "gemini", "openrouter", "openai-compatible"} {
			_, raw := dry(t, id, map[string]string{"REXMLE_ENDPOINT": ep, "REXMLE_API_KEY_ENV": "THE_KEY", "THE_KEY": secretValue,
				"REXMLE_BASE_URL_ENV": "THE_URL", "THE_URL": "https://gw.example/v1"}, "--challenge", "isles22")
			if strings.Contains(raw, secretValue) {
				t.Errorf("%s with endpoint %s: the dry run shows the key", id, ep)
			}
		}
	}
}

// --- the stand-in, end to end ----------------------------------------------------

type fakeLLM struct {
	mu   sync.Mutex
	reqs []map[string]any
	auth []string
}

const llmReply = "Plan: load the volumes, train a small U-Net, predict, then validate the submission."

func (f *fakeLLM) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
		http.Error(w, "not found", http.StatusNotFound)
		return
	}
	var body map[string]any
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	f.mu.Lock()
	f.reqs = append(f.reqs, body)
	f.auth = append(f.auth, r.Header.Get("Authorization"))
	f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"id": "x", "object": "chat.completion", "model": body["model"],
		"choices": []any{map[string]any{"index": 0, "finish_reason": "stop", "message": map[string]any{"role": "assistant", "content": llmReply}}}})
}

type world struct {
	id, public, private, runDir, sub, logs, ws, socket string
	ch                                                 challenge.Challenge
	llm                                                *fakeLLM
	llmURL                                             string
}

// newWorld prepares a challenge's synthetic data, a run folder, rexmle's
// validation endpoint on a Unix socket and a fake chat endpoint on loopback.
func newWorld(t *testing.T, id string) *world {
	t.Helper()
	ch, ok := challenge.Lookup(id)
	if !ok {
		t.Fatalf("no challenge %s", id)
	}
	dir := t.TempDir()
	data := syntheticData(t, ch, dir)
	w := &world{id: id, ch: ch, public: filepath.Join(data, "public"), private: filepath.Join(data, "private"), runDir: filepath.Join(dir, "run")}
	w.sub, w.logs, w.ws = filepath.Join(w.runDir, "submission"), filepath.Join(w.runDir, "logs"), filepath.Join(w.runDir, "workspace")
	for _, d := range []string{w.sub, w.logs, w.ws} {
		os.MkdirAll(d, 0o755)
	}
	// the runner's mounts, so folders named as a container sees them resolve too
	mounts := map[string]string{runner.ContainerSubmission: w.sub, runner.ContainerWorkspace: w.ws, runner.ContainerLogs: w.logs,
		w.sub: w.sub, w.ws: w.ws, w.logs: w.logs}
	h, err := validate.Handler(validate.Config{Check: validate.Check(ch, w.private, challenge.Reference), Folders: mounts,
		Default: runner.ContainerSubmission, Scratch: filepath.Join(w.runDir, ".validate")})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := validate.Listen(filepath.Join(w.runDir, "validate.sock"), h)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	w.socket = srv.Socket
	w.llm = &fakeLLM{}
	ts := httptest.NewServer(w.llm)
	t.Cleanup(ts.Close)
	w.llmURL = ts.URL + "/v1"
	return w
}

func (w *world) adapter(t *testing.T, timeLimit int, extra ...string) *exec.Cmd {
	cmd := exec.Command(python(t), append([]string{filepath.Join(agentsDir, "standin", "adapter.py"), "--data", w.public, "--submission", w.sub,
		"--logs", w.logs, "--workspace", w.ws, "--time-limit", strconv.Itoa(timeLimit), "--challenge", w.id,
		"--validate-socket", w.socket, "--hardware", "test machine"}, extra...)...)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "PYTHONDONTWRITEBYTECODE=1", "HOME=" + w.ws,
		"REXMLE_ENDPOINT=openai-compatible", "REXMLE_API_KEY_ENV=REXMLE_STANDIN_API_KEY", "REXMLE_STANDIN_API_KEY=" + secretValue,
		"REXMLE_BASE_URL_ENV=REXMLE_STANDIN_BASE_URL", "REXMLE_STANDIN_BASE_URL=" + w.llmURL, "REXMLE_MODEL=standin-model"}
	return cmd
}

func journal(t *testing.T, path string) []map[string]string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("journal: %v", err)
	}
	var out []map[string]string
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var m map[string]string
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("journal line %q: %v", l, err)
		}
		out = append(out, m)
	}
	return out
}

func find(entries []map[string]string, kind string) string {
	for _, e := range entries {
		if e["kind"] == kind {
			return e["text"]
		}
	}
	return ""
}

func (w *world) checkGraded(t *testing.T) {
	t.Helper()
	res, err := challenge.SafeGrade(context.Background(), w.ch, w.sub, w.private, challenge.Reference)
	if err != nil {
		t.Fatalf("the copied submission does not grade: %v", err)
	}
	if res == nil {
		t.Fatal("no grading result")
	}
}

func TestStandinEndToEnd(t *testing.T) {
	// ldct-iqa's submission is a CSV alone; isles22's sample submission names
	// masks the public data does not have, so the stand-in's submission is
	// invalid there, as a real agent's would be without predictions.
	for _, id := range []string{"ldct-iqa", "isles22"} {
		t.Run(id, func(t *testing.T) {
			w := newWorld(t, id)
			cmd := w.adapter(t, 600)
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("adapter: %v\n%s", err, out)
			}
			if strings.Contains(string(out), secretValue) {
				t.Error("the adapter printed the API key")
			}
			if len(w.llm.reqs) != 1 || w.llm.auth[0] != "Bearer "+secretValue || w.llm.reqs[0]["model"] != "standin-model" {
				t.Fatalf("chat requests %v (auth %v), want one, with the key and the model", w.llm.reqs, w.llm.auth)
			}
			msgs, _ := w.llm.reqs[0]["messages"].([]any)
			last, _ := msgs[len(msgs)-1].(map[string]any)
			prompt, _ := last["content"].(string)
			desc, _ := os.ReadFile(filepath.Join(w.public, "description.md"))
			if !strings.Contains(prompt, "NOTES ON YOUR BUDGET") || !strings.Contains(prompt, "test machine") ||
				!strings.Contains(prompt, strings.TrimSpace(string(desc))[:40]) {
				t.Errorf("the agent's task lacks the notes or the description:\n%.600s", prompt)
			}
			j := journal(t, filepath.Join(w.logs, "standin", "journal.jsonl"))
			if find(j, "plan") != llmReply {
				t.Errorf("journal plan %q, want the endpoint's reply", find(j, "plan"))
			}
			v := find(j, "validate")
			if id == "isles22" {
				if !strings.HasPrefix(v, "Submission is invalid: ") || !strings.Contains(v, "not found") {
					t.Errorf("validation through the bridge answered %q, want invalid: a mask file not found", v)
				}
				if _, err := challenge.SafeGrade(context.Background(), w.ch, w.sub, w.private, challenge.Reference); err == nil {
					t.Error("isles22: the CSV without its masks grades")
				}
				return
			}
			if v != "Submission is valid." {
				t.Errorf("validation through the bridge answered %q", v)
			}
			w.checkGraded(t)
		})
	}
}

func TestStandinSIGTERMCollects(t *testing.T) {
	w := newWorld(t, "ldct-iqa")
	cmd := w.adapter(t, 600)
	cmd.Env = append(cmd.Env, "REXMLE_STANDIN_HOLD=120")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	live := filepath.Join(w.ws, "standin", "out", "journal.jsonl")
	deadline := time.Now().Add(60 * time.Second)
	for !strings.Contains(readFile(live), `"wait"`) {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("the stand-in never reached its wait:\n%s", out.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	if _, err := os.Stat(filepath.Join(w.sub, "submission.csv")); err == nil {
		t.Fatal("submission copied before the stop")
	}
	start := time.Now()
	cmd.Process.Signal(syscall.SIGTERM)
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 143 {
		t.Fatalf("exit %v, want 143 after SIGTERM\n%s", err, out.String())
	}
	if el := time.Since(start); el > 20*time.Second {
		t.Errorf("took %v to stop", el)
	}
	if find(journal(t, filepath.Join(w.logs, "standin", "journal.jsonl")), "wait") == "" {
		t.Error("logs not collected")
	}
	w.checkGraded(t)
}

func TestStandinDeadlineStopsAndCollects(t *testing.T) {
	w := newWorld(t, "ldct-iqa")
	cmd := w.adapter(t, 8, "--copy-reserve", "3")
	cmd.Env = append(cmd.Env, "REXMLE_STANDIN_HOLD=120")
	start := time.Now()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("adapter: %v\n%s", err, out)
	}
	if el := time.Since(start); el < 4*time.Second || el > 30*time.Second {
		t.Errorf("ran %v, want about 5 s (8 s less the 3 s reserve)", el)
	}
	if !strings.Contains(string(out), "time limit reached") {
		t.Errorf("no deadline message:\n%s", out)
	}
	w.checkGraded(t)
}

func TestBridgeAcceptsThePapersUpload(t *testing.T) {
	// the paper's client posts submission.csv as a multipart "file"
	w := newWorld(t, "ldct-iqa")
	py := python(t)
	script := fmt.Sprintf(`
import sys, json, os, urllib.request
sys.path.insert(0, %q)
import adaptkit as ak
t = ak.parse(["--data", %q, "--workspace", %q, "--validate-socket", %q, "--time-limit", "60"])
live = os.path.join(t.workspace, "live")
os.makedirs(live)
b = ak.open_bridge(t, live, [t.workspace])
def post(body, ctype):
    req = urllib.request.Request(b.url + "/validate", body, {"Content-Type": ctype})
    return json.loads(urllib.request.urlopen(req).read())
health = json.loads(urllib.request.urlopen(b.url + "/health").read())
good = open(os.path.join(t.data, "sample_submission.csv"), "rb").read()
def multipart(data):
    return (b"--XX\r\nContent-Disposition: form-data; name=\"file\"; filename=\"submission.csv\"\r\n"
            b"Content-Type: text/csv\r\n\r\n" + data + b"\r\n--XX--\r\n")
ok = post(multipart(good), "multipart/form-data; boundary=XX")
bad = post(multipart(b"nope,column\n1,2\n"), "multipart/form-data; boundary=XX")
port = open(os.path.join(t.workspace, ".grading_port")).read()
b.close()
print(json.dumps({"health": health, "ok": ok, "bad": bad, "port": port, "url": b.url}))
`, agentsDir, w.public, w.ws, w.socket)
	cmd := exec.Command(py, "-c", script)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "PYTHONDONTWRITEBYTECODE=1"}
	var errb bytes.Buffer
	cmd.Stderr = &errb
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v\n%s%s", err, out, errb.String())
	}
	var r struct {
		Health    map[string]string
		OK, Bad   map[string]any
		Port, URL string
	}
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if r.Health["status"] != "running" || r.OK["valid"] != true || r.Bad["valid"] != false || r.Bad["reason"] == "" {
		t.Fatalf("health %v, valid upload %v, invalid upload %v", r.Health, r.OK, r.Bad)
	}
	if !strings.HasSuffix(r.URL, ":"+r.Port) {
		t.Errorf(".grading_port %q does not match %s", r.Port, r.URL)
	}
	for _, v := range []map[string]any{r.OK, r.Bad} {
		for k := range v {
			if strings.Contains(strings.ToLower(k), "score") {
				t.Errorf("answer has %q: the validation service must never score", k)
			}
		}
	}
}

func readFile(p string) string {
	b, _ := os.ReadFile(p)
	return string(b)
}
