package agentrecipe

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rexmle/rexmle/internal/challenge"
)

// R&D-Agent's scenario for rexmle (agents/rd-agent/rexmle_scen.py) takes the
// metric direction from rexmle's own task descriptions, not from Kaggle's
// leaderboard: checked on the descriptions prepare writes, for the metric
// names a model would pick, and on hand-written cases.
func TestRDAgentScenarioReadsTheDirectionFromTheDescription(t *testing.T) {
	py := python(t)
	dir := t.TempDir()
	descs := map[string]string{}
	for _, id := range []string{"ldct-iqa", "isles22", "dentex"} {
		ch, ok := challenge.Lookup(id)
		if !ok {
			t.Fatalf("no challenge %s", id)
		}
		raw, data := filepath.Join(dir, id, "raw"), filepath.Join(dir, id, "data")
		if err := ch.Synthesize(context.Background(), raw, 1); err != nil {
			t.Fatal(err)
		}
		if err := ch.Prepare(context.Background(), raw, data); err != nil {
			t.Fatal(err)
		}
		descs[id] = filepath.Join(data, "public", "description.md")
	}
	hand := filepath.Join(dir, "hand.md")
	if err := os.WriteFile(hand, []byte("# T\n\n## Metric\nThe leaderboard ranks by\nRMSE; lower is\nbetter.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	both := filepath.Join(dir, "both.md")
	if err := os.WriteFile(both, []byte("- `a` (higher is better)\n- `b` (lower is better)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ file, metric, want string }{
		{descs["isles22"], "dice", "True"}, // "`dice` (higher is better)"
		{descs["isles22"], "Dice", "True"}, // names are matched without case
		{descs["isles22"], "lesion_count_diff", "False"},
		{descs["isles22"], "abs volume diff", "False"},  // words joined by _ or spaces
		{descs["isles22"], "mAP", "None"},               // both directions stated, none for this name: R&D-Agent's own reading
		{descs["dentex"], "AP50", "True"},               // "all are better when\nhigher" read across the line break
		{descs["ldct-iqa"], "PLCC+SROCC+KROCC", "None"}, // no direction stated
		{hand, "rmse", "False"},
		{both, "c", "None"},
		{both, "b", "False"},
	} {
		code := "import sys; sys.path.insert(0, sys.argv[1]); import rexmle_scen as r; " +
			"print(r.direction_from_description(open(sys.argv[2], encoding='utf-8').read(), sys.argv[3]))"
		out, err := exec.Command(py, "-c", code, filepath.Join(agentsDir, "rd-agent"), c.file, c.metric).CombinedOutput()
		if err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		if got := strings.TrimSpace(string(out)); got != c.want {
			t.Errorf("%s, metric %q: direction %s, want %s", filepath.Base(filepath.Dir(filepath.Dir(c.file))), c.metric, got, c.want)
		}
	}
	// The class itself needs R&D-Agent; without it the module still imports
	// (the rules above) and names what is missing only when the class is asked for.
	out, err := exec.Command(py, "-c", "import sys; sys.path.insert(0, sys.argv[1]); import rexmle_scen; rexmle_scen.RexmleScen",
		filepath.Join(agentsDir, "rd-agent")).CombinedOutput()
	if err == nil {
		t.Skip("R&D-Agent is importable here: the class builds")
	}
	if !strings.Contains(string(out), "rdagent") {
		t.Errorf("without R&D-Agent, RexmleScen fails with %s", out)
	}
}
