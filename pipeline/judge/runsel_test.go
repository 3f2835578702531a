package judge

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/rexmle/rexmle/pipeline/judge/judgetest"
)

// setRunJSON writes run.json of a run laid out by writeRun.
func setRunJSON(t *testing.T, root, runID, challenge, agent string, seed int, meta map[string]any) {
	t.Helper()
	b, _ := json.Marshal(meta)
	p := filepath.Join(root, runID, challenge, agent, fmt.Sprintf("seed-%d", seed), "run.json")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// writeJournal puts an AIDE journal with one node per analysis into a run's logs/aide/.
func writeJournal(t *testing.T, root, runID, challenge, agent string, seed int, analyses ...string) {
	t.Helper()
	var nodes []map[string]any
	for i, a := range analyses {
		nodes = append(nodes, map[string]any{"step": i, "plan": "p", "code": "import x", "analysis": a, "metric": map[string]any{"value": 0.5}})
	}
	b, _ := json.Marshal(map[string]any{"nodes": nodes, "node2parent": map[string]string{}})
	d := filepath.Join(root, runID, challenge, agent, fmt.Sprintf("seed-%d", seed), "logs", "aide")
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(d, "journal.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// Failed, interrupted and unfinished runs are left out of the profiles and
// counted per agent (n_failed); only the profile's runs are judged.
func TestRunExcludesFailedRunsAndCountsThem(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "results", "runs")
	writeRun(t, root, "paper", "isles22", "aide", 0, "", "the step log is not what AIDE's judge reads")
	writeJournal(t, root, "paper", "isles22", "aide", 0, "we tuned hyperparameters with a grid search")
	setRunJSON(t, root, "paper", "isles22", "aide", 0, map[string]any{"group": "paper", "status": "done", "backend": "gpt-5", "exit_code": 0})
	writeRun(t, root, "paper", "seg_a", "aide", 0, "", "hyperparameter search over learning rates")
	setRunJSON(t, root, "paper", "seg_a", "aide", 0, map[string]any{"group": "paper", "status": "failed", "backend": "gpt-5", "error": `exec: "aide": executable file not found`})
	writeRun(t, root, "paper", "seg_a", "aide", 1, "", "interrupted search")
	setRunJSON(t, root, "paper", "seg_a", "aide", 1, map[string]any{"group": "paper", "status": "interrupted", "backend": "gpt-5"})
	writeRun(t, root, "paper", "dentex", "rd-agent", 0, "", "never started")
	setRunJSON(t, root, "paper", "dentex", "rd-agent", 0, map[string]any{"group": "paper", "status": "failed", "backend": "gpt-5"})
	writeRun(t, root, "demo", "isles22", "aide", 0, "", "a demo run with ensembling of seeds")
	setRunJSON(t, root, "demo", "isles22", "aide", 0, map[string]any{"group": "demo", "status": "done", "backend": "gpt-5"})

	all, err := DiscoverRuns(root)
	if err != nil {
		t.Fatal(err)
	}
	runs := FilterGroup(all, "paper")
	if len(all) != 5 || len(runs) != 4 {
		t.Fatalf("discovered %d runs, %d of group paper", len(all), len(runs))
	}
	for _, r := range runs {
		if r.Group != "paper" || r.Backend != "gpt-5" || r.Status == "" {
			t.Errorf("run.json not read: %+v", r)
		}
	}
	db := openDB(t, dir)
	rep, err := Run(context.Background(), db, Config{RubricPath: repoRubric, Logger: slog.New(slog.NewTextHandler(&syncBuffer{}, nil))}, runs)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Err() != nil {
		t.Errorf("report error %v", rep.Err())
	}
	wantExcluded := map[string]string{"paper/seg_a/aide/seed-0": "failed", "paper/seg_a/aide/seed-1": "interrupted", "paper/dentex/rd-agent/seed-0": "failed"}
	if !reflect.DeepEqual(rep.Excluded, wantExcluded) {
		t.Errorf("excluded %v want %v", rep.Excluded, wantExcluded)
	}
	if n := countRows(t, db, `SELECT COUNT(DISTINCT run_key) FROM capability_scores`); n != 1 {
		t.Errorf("%d runs scored, want only the done one", n)
	}
	csvPath := filepath.Join(dir, "capabilities.csv")
	if err := WriteCapabilitiesCSV(csvPath, rep.Profiles.ByAgent); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(csvPath)
	csv := string(b)
	// AIDE: one run pooled, two left out; R&D-Agent: none pooled, one left out, no means.
	if !strings.Contains(csv, "aide,gpt-5,13,Optimizing hyperparameters systematically,1,1,0,heuristic-v1,heuristic,1,2\n") {
		t.Errorf("AIDE row:\n%s", csv)
	}
	if !strings.Contains(csv, "rd-agent,gpt-5,1,Analyzing and handling failure cases,,0,0,heuristic-v1,heuristic,0,1\n") {
		t.Errorf("R&D-Agent row:\n%s", csv)
	}
	if strings.Contains(csv, "demo") || strings.Count(csv, "\n") != 1+2*13 {
		t.Errorf("CSV should hold 13 rows per agent:\n%s", csv)
	}

	// Scores stored while a run looked done are dropped once it is failed.
	writeJournal(t, root, "paper", "seg_a", "aide", 0, "a search that later turned out failed")
	setRunJSON(t, root, "paper", "seg_a", "aide", 0, map[string]any{"group": "paper", "status": "done", "backend": "gpt-5"})
	runs, _ = DiscoverRuns(root)
	if _, err := Run(context.Background(), db, Config{RubricPath: repoRubric}, FilterGroup(runs, "paper")); err != nil {
		t.Fatal(err)
	}
	if n := countRows(t, db, `SELECT COUNT(DISTINCT run_key) FROM capability_scores`); n != 2 {
		t.Fatalf("%d runs scored, want 2", n)
	}
	setRunJSON(t, root, "paper", "seg_a", "aide", 0, map[string]any{"group": "paper", "status": "failed", "backend": "gpt-5"})
	runs, _ = DiscoverRuns(root)
	if _, err := Run(context.Background(), db, Config{RubricPath: repoRubric}, FilterGroup(runs, "paper")); err != nil {
		t.Fatal(err)
	}
	if n := countRows(t, db, `SELECT COUNT(*) FROM capability_scores WHERE run_key = 'paper/seg_a/aide/seed-0'`); n != 0 {
		t.Errorf("a failed run keeps %d scores", n)
	}
}

// A failing LLM judge reports an error and leaves the earlier scores of a
// run in place; the complete answers it did get are cached.
func TestRunFailingJudgeKeepsEarlierScores(t *testing.T) {
	r := loadRepoRubric(t)
	dir := t.TempDir()
	root := filepath.Join(dir, "results", "runs")
	writeRun(t, root, "paper", "isles22", "baseline", 0, "gpt-5", "first section", "second section")
	var down atomic.Bool
	srv := judgetest.New(func(req judgetest.Request) judgetest.Reply {
		if down.Load() && strings.Contains(req.User, "second") {
			return judgetest.Reply{Status: 503, Body: `{"error":{"message":"overloaded"}}`}
		}
		return judgetest.Reply{Content: judgetest.AnswerAll(r.IDs(), oddOnes)}
	})
	defer srv.Close()
	j, _ := newTestJudge(t, srv, func(c *OpenAIConfig) { c.MaxRetries = 0 })
	db := openDB(t, dir)
	runs, _ := DiscoverRuns(root)
	cfg := Config{RubricPath: repoRubric, Impl: j, Logger: slog.New(slog.NewTextHandler(&syncBuffer{}, nil))}
	rep, err := Run(context.Background(), db, cfg, runs)
	if err != nil || rep.Err() != nil {
		t.Fatalf("first pass: %v / %v", err, rep.Err())
	}
	before, err := LoadScores(context.Background(), db, "", "")
	if err != nil || len(before) != 2*13 {
		t.Fatalf("stored %d scores: %v", len(before), err)
	}
	secsBefore := countRows(t, db, `SELECT COUNT(*) FROM judge_sections WHERE status = 'ok'`)

	// The judge now fails on one section; everything is judged again.
	down.Store(true)
	cfg.Force = true
	rep, err = Run(context.Background(), db, cfg, runs)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Errors != 1 || rep.Err() == nil || !strings.Contains(rep.Err().Error(), "failed on 1 of 2 sections") {
		t.Fatalf("failing pass: errors %d, Err %v", rep.Errors, rep.Err())
	}
	if !reflect.DeepEqual(rep.Unstored, []string{"paper/isles22/baseline/seed-0"}) {
		t.Errorf("unstored %v", rep.Unstored)
	}
	after, _ := LoadScores(context.Background(), db, "", "")
	if !reflect.DeepEqual(before, after) {
		t.Errorf("earlier scores changed by a failing judge")
	}
	if n := countRows(t, db, `SELECT COUNT(*) FROM judge_sections WHERE status = 'ok'`); n != secsBefore {
		t.Errorf("ok sections %d, want %d kept", n, secsBefore)
	}
	// The profile still reflects the kept scores (no empty means).
	for _, a := range rep.Profiles.ByAgent {
		if a.NSections != 2 {
			t.Errorf("strategy %d: %d sections in the profile, want 2", a.StrategyID, a.NSections)
		}
	}
}
