package stages

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rexmle/rexmle/pipeline/binaries"
	"github.com/rexmle/rexmle/pipeline/store"
)

// ownAgent is a newcomer's own local agent, as README "Bring your own
// agent" shows it: its code in a folder of its own, bound read-only at
// /agent in the bubblewrap sandbox, a command with placeholders, and a
// profile with its setting.
const ownAgent = `
[[agent]]
id = "mine"
name = "My agent"
backend = "my-llm"
executor = "local"
code = "my-agent"
command = ["sh", "/agent/run.sh", "{data}", "{submission}", "{logs}", "{time_limit}"]
time_limit = "2m"

[profile.mine]
description = "My agent on the demo data"
data = "synthetic"
agents = ["mine"]
seeds = [1]
setting = "mine"
judge = "heuristic"
scheduler = "local"
`

// The journey of README "Bring your own agent": an agent of one's own in
// the local sandbox goes through prepare, run, grade, rank, judge and
// report, and its run is ranked and shown on the site, in the sections
// marked as synthetic and never in the paper's tables.
func TestJourneyOwnLocalAgentRankedOnTheSite(t *testing.T) {
	if testing.Short() {
		t.Skip("builds rexmle-agent and runs every stage")
	}
	if _, err := exec.LookPath("bwrap"); err != nil {
		t.Skip("bubblewrap not installed: the local sandbox")
	}
	o := runBench(t, ownAgent)
	root := filepath.Dir(o.Config)
	// As root, bwrap runs the agent as nobody, who must reach the code folder.
	for _, d := range []string{filepath.Dir(root), root} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	code := filepath.Join(root, "my-agent")
	if err := os.MkdirAll(code, 0o755); err != nil {
		t.Fatal(err)
	}
	// A real if simple agent: read the task's sample submission, predict the
	// training set's mean score for every test slice, log what it did.
	script := `set -eu
data=$1 out=$2 logs=$3
echo "my agent: $4 s to go, logs in $logs"
mean=$(awk -F, 'NR>1 {s+=$2; n++} END {printf "%.6f", s/n}' "$data/train_labels.csv")
awk -F, -v m="$mean" 'NR==1 {print; next} {print $1 "," m + (NR % 7) * 0.01}' "$data/sample_submission.csv" > "$out/submission.csv"
echo "predicted the training mean $mean"
`
	if err := os.WriteFile(filepath.Join(code, "run.sh"), []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	o.Profile = "mine"
	if err := binaries.Build(ctx, root); err != nil {
		t.Fatal(err)
	}
	for _, stage := range []struct {
		name string
		f    func(context.Context, Options) error
	}{{"prepare", Prepare}, {"run", Run}, {"grade", Grade}, {"rank", Rank}, {"judge", Judge}, {"report", Report}} {
		if err := stage.f(ctx, o); err != nil {
			log, _ := os.ReadFile(filepath.Join(root, "results", "runs", "mine", "ldct-iqa", "mine", "seed-1", "logs", "console.log"))
			t.Fatalf("%s: %v\nagent's console.log:\n%s", stage.name, err, log)
		}
	}
	st, err := store.Open(ctx, filepath.Join(root, "results", "rexmle.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var status, setting string
	var graded int
	if err := st.RawQueryRow(ctx, `SELECT status, setting FROM runs WHERE source = 'mine' AND agent = 'mine'`).Scan(&status, &setting); err != nil {
		t.Fatalf("no run of my agent in the store: %v", err)
	}
	if status != "done" || setting != "mine" {
		t.Fatalf("run %s, setting %q", status, setting)
	}
	if err := st.RawQueryRow(ctx, `SELECT count(*) FROM grades g JOIN runs r ON r.id = g.run_id WHERE r.agent = 'mine'`).Scan(&graded); err != nil || graded == 0 {
		t.Fatalf("my run is not graded: %d %v", graded, err)
	}
	// Ranked (a rank, no reason why not) beside the paper's runs.
	f, err := os.Open(filepath.Join(root, "results", "ranks.csv"))
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(f).ReadAll()
	f.Close()
	if err != nil || len(recs) < 2 {
		t.Fatalf("ranks.csv: %v", err)
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	ranked := false
	for _, r := range recs[1:] {
		if r[col["source"]] == "mine" {
			if reason := r[col["reason"]]; reason != "" {
				t.Fatalf("my run is not ranked: %s", reason)
			}
			ranked = true
		}
	}
	if !ranked {
		t.Fatalf("no row of my run in ranks.csv (columns %v)", recs[0])
	}
	// The site shows it, in tables of its own world, marked synthetic.
	site := filepath.Join(root, "site")
	tables, _ := filepath.Glob(filepath.Join(site, "data", "*.json"))
	var mine []string
	for _, p := range tables {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var tj struct {
			Rows []map[string]any `json:"rows"`
		}
		if json.Unmarshal(b, &tj) != nil {
			continue
		}
		for _, r := range tj.Rows {
			if r["agent"] == "mine" || r["source"] == "mine" {
				mine = append(mine, strings.TrimSuffix(filepath.Base(p), ".json"))
				break
			}
		}
	}
	if len(mine) == 0 {
		t.Fatal("no table of the site holds my agent's run")
	}
	if !contains(mine, "synthetic-overall") {
		t.Errorf("my run is not in the synthetic world's overall ranking: %v", mine)
	}
	for _, id := range mine {
		if id == "overall" || strings.HasSuffix(id, "-paper") || strings.HasPrefix(id, "table3") {
			t.Errorf("my synthetic run is in the paper's table %s", id)
		}
	}
	t.Logf("tables with my run: %v", mine)
	idx, err := os.ReadFile(filepath.Join(site, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(idx), `id="data-banner"`) || !strings.Contains(string(idx), "mine") {
		t.Error("the site's front page does not say it shows the mine profile's synthetic runs")
	}
}
