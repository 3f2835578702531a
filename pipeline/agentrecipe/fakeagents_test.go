package agentrecipe

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Fake agents that write their outputs where the real ones do (read from
// their sources: ML-Master in rajpurkarlab/ReX-MLE@6492376 utils/config_mcts.py and
// agent/mcts_agent.py's best_submission folder; rdagent v0.8.0's
// git_ignore_folder/RD-Agent_workspace and the log trace's
// Loop_N/record/sota_exp_to_submit pickles), so the adapters' copy-out is
// checked against those layouts. AIDE has no fake here: its adapter's
// collect is checked by replaying recordings of aideml 0.2.2 itself
// (replay_aide_test.go, recorded by aide_live_test.go).
const fakeCommon = `
import os, shutil, sys, json, pickle
def kv(args):
    return dict(a.split("=", 1) for a in args if "=" in a and not a.startswith("-"))
def submit(folder, data):
    os.makedirs(folder, exist_ok=True)
    shutil.copyfile(os.path.join(data, "sample_submission.csv"), os.path.join(folder, "submission.csv"))
`

const fakeMLMaster = fakeCommon + `
c = kv(sys.argv[1:])
ws = os.path.join(c["workspace_dir"], c["exp_name"])
logs = os.path.join(c["log_dir"], c["exp_name"])
submit(os.path.join(ws, "best_submission"), c["data_dir"])
os.makedirs(logs, exist_ok=True)
open(os.path.join(logs, "ml-master.log"), "w").write("fake search log\n")
assert os.environ["ML_MASTER_VALIDATE_URL"].startswith("http://127.0.0.1:")
assert open(os.path.join(os.environ["WORKSPACE_DIR"], ".grading_port")).read().strip() == os.environ["ML_MASTER_VALIDATE_URL"].rsplit(":", 1)[1]
`

const fakeRDAgent = fakeCommon + `
args = sys.argv[1:]
comp = args[args.index("--competition") + 1]
data = os.path.join(os.environ["DS_LOCAL_DATA_PATH"], comp)
assert "NOTES ON YOUR BUDGET" in open(os.path.join(data, "description.md")).read()
old = os.path.join("git_ignore_folder", "RD-Agent_workspace", "0" * 32)
best = os.path.join("git_ignore_folder", "RD-Agent_workspace", "ab" * 16)
submit(best, data)
open(os.path.join(best, "main.py"), "w").write("print('best')\n")
import time; time.sleep(0.05)
submit(old, data)  # newer, but not the SOTA experiment
rec = os.path.join(os.environ["LOG_TRACE_PATH"], "Loop_1", "record", "sota_exp_to_submit", "7")
os.makedirs(rec, exist_ok=True)
pickle.dump({"note": "sota", "path": os.path.abspath(best)}, open(os.path.join(rec, "2025-01-01.pkl"), "wb"))
open(os.path.join(os.environ["LOG_TRACE_PATH"], "common_logs.log"), "w").write("fake rdagent log\n")
`

func fakeBin(t *testing.T, name, body string) string {
	t.Helper()
	dir := t.TempDir()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte("#!"+python(t)+"\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestRecipesCollectWhereTheAgentsWrite(t *testing.T) {
	cases := []struct {
		id, exe, body string
		env           []string
		logs          []string // files expected under logs/<id>/
	}{
		{"ml-master", "main_mcts.py", fakeMLMaster, nil, []string{"ml-master.log"}},
		{"rd-agent", "rdagent", fakeRDAgent, nil, []string{"run/common_logs.log", "run/Loop_1/record/sota_exp_to_submit/7/2025-01-01.txt"}},
	}
	for _, c := range cases {
		t.Run(c.id, func(t *testing.T) {
			w := newWorld(t, "ldct-iqa")
			bin := fakeBin(t, c.exe, c.body)
			cmd := exec.Command(python(t), filepath.Join(agentsDir, c.id, "adapter.py"), "--data", w.public, "--submission", w.sub,
				"--logs", w.logs, "--workspace", w.ws, "--time-limit", "120", "--challenge", w.id, "--validate-socket", w.socket,
				"--hardware", "test machine")
			cmd.Env = []string{"PATH=" + bin + ":" + filepath.Dir(python(t)) + ":/usr/bin:/bin", "PYTHONDONTWRITEBYTECODE=1",
				"ML_MASTER_HOME=" + bin, "REXMLE_ENDPOINT=openai", "REXMLE_API_KEY_ENV=K", "K=" + secretValue}
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("adapter: %v\n%s", err, out)
			}
			w.checkGraded(t)
			for _, f := range c.logs {
				if _, err := os.Stat(filepath.Join(w.logs, c.id, f)); err != nil {
					t.Errorf("log %s not collected: %v", f, err)
				}
			}
			switch c.id {
			case "rd-agent":
				// the SOTA workspace, not the other one, is the submission
				if _, err := os.Stat(filepath.Join(w.sub, "main.py")); err != nil {
					t.Errorf("submission is not the SOTA workspace: %v", err)
				}
				txt := readFile(filepath.Join(w.logs, "rd-agent", "run", "Loop_1", "record", "sota_exp_to_submit", "7", "2025-01-01.txt"))
				if !strings.Contains(txt, `"note": "sota"`) {
					t.Errorf("pickle converted to %q", txt)
				}
				// One trace of every pickled record, as the paper's judge read it.
				trace := readFile(filepath.Join(w.logs, "rdagent-trace.txt"))
				if !strings.Contains(trace, "sota_exp_to_submit") || !strings.Contains(trace, "sota") {
					t.Errorf("rdagent-trace.txt = %q", trace)
				}
			}
		})
	}
}
