package judgestage

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rexmle/rexmle/pipeline/config"
	"github.com/rexmle/rexmle/pipeline/store"
)

// checkout writes a temporary checkout with the repository's benchmark
// (its challenge files where they are) and rubric, and returns the options
// of a judge stage on the demo profile.
func checkout(t *testing.T) (Options, string) {
	t.Helper()
	repo, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	src, err := os.ReadFile(filepath.Join(repo, "benchmark.toml"))
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(string(src), `challenges_dir = "benchmark/challenges"`,
		`challenges_dir = "`+filepath.ToSlash(filepath.Join(repo, "benchmark", "challenges"))+`"`, 1)
	write := func(rel string, b []byte) {
		t.Helper()
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("benchmark.toml", []byte(text))
	rubric, err := os.ReadFile(filepath.Join(repo, "rubrics", "winning-strategies.toml"))
	if err != nil {
		t.Fatal(err)
	}
	write("rubrics/winning-strategies.toml", rubric)
	b, err := config.Load(filepath.Join(root, "benchmark.toml"))
	if err != nil {
		t.Fatal(err)
	}
	prof, err := b.Profile("demo")
	if err != nil {
		t.Fatal(err)
	}
	open := func(ctx context.Context) (*store.Store, error) {
		st, err := store.Open(ctx, b.Path(b.Paths.Database))
		if err != nil {
			return nil, err
		}
		return st, st.Update(ctx, func(tx *store.Tx) error { return tx.SyncChallenges(ctx, b.Challenges) })
	}
	return Options{Benchmark: b, ProfileName: "demo", Profile: prof, OpenStore: open}, root
}

// run lays out results/runs/<group>/<challenge>/<agent>/seed-0 with
// run.json and a step log of one plan.
func run(t *testing.T, root, group, challenge, agent, status, plan string) {
	t.Helper()
	d := filepath.Join(root, "results", "runs", group, challenge, agent, "seed-0")
	if err := os.MkdirAll(filepath.Join(d, "logs"), 0o755); err != nil {
		t.Fatal(err)
	}
	meta, _ := json.Marshal(map[string]any{"group": group, "challenge": challenge, "agent": agent, "backend": "none", "status": status})
	step, _ := json.Marshal(map[string]any{"step": 0, "kind": "plan", "text": plan, "tokens": 12})
	if err := os.WriteFile(filepath.Join(d, "run.json"), meta, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(d, "logs", "agent.jsonl"), append(step, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Run judges the profile's finished runs only, counts the failed one,
// leaves other profiles' runs alone, writes capabilities.csv and prints one
// summary line; with no run of the profile it fails naming the profile;
// Agreement with a single judge and no labels says there is nothing to
// compare.
func TestRunJudgesTheProfilesFinishedRuns(t *testing.T) {
	o, root := checkout(t)
	ctx := context.Background()
	run(t, root, "demo", "isles22", "baseline", "done", "grid search over learning rates")
	run(t, root, "demo", "ldct-iqa", "baseline", "failed", "this failed run must not be judged")
	run(t, root, "other", "isles22", "baseline", "done", "a run of another profile")
	var out strings.Builder
	o.Out = &out
	rep, err := Run(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Runs != 2 || len(rep.Excluded) != 1 || rep.Judged+rep.CacheHits != rep.Sections || rep.Errors != 0 {
		t.Fatalf("report: %d runs, %d left out, %d sections, %d judged, %d cached, %d errors", rep.Runs, len(rep.Excluded), rep.Sections, rep.Judged, rep.CacheHits, rep.Errors)
	}
	if got := out.String(); !strings.HasPrefix(got, "judge (heuristic, heuristic-v1, profile demo): 2 runs (1 left out") {
		t.Errorf("summary:\n%s", got)
	}
	csv, err := os.ReadFile(filepath.Join(root, "results", "capabilities.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(csv), "baseline,none,13,Optimizing hyperparameters systematically,1,1,0,heuristic-v1,heuristic,1,1\n") {
		t.Errorf("capabilities.csv:\n%s", csv)
	}
	err = Agreement(ctx, o.Benchmark, &out, nil)
	if err == nil || !strings.Contains(err.Error(), "nothing to compare") {
		t.Errorf("agreement with one judge: %v", err)
	}
	o.ProfileName = "paper"
	if _, err := Run(ctx, o); err == nil || !strings.Contains(err.Error(), `no runs of profile "paper"`) {
		t.Errorf("a profile with no runs: %v", err)
	}
}
