package stages

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rexmle/rexmle/pipeline/judge"
	"github.com/rexmle/rexmle/pipeline/store"
)

// writeJudgeRun lays out results/runs/<group>/<challenge>/<agent>/seed-0
// with run.json and a step log of one plan.
func writeJudgeRun(t *testing.T, root, group, challenge, agent, status, plan string) {
	t.Helper()
	d := filepath.Join(root, "results", "runs", group, challenge, agent, "seed-0")
	if err := os.MkdirAll(filepath.Join(d, "logs"), 0o755); err != nil {
		t.Fatal(err)
	}
	meta, _ := json.Marshal(map[string]any{"group": group, "challenge": challenge, "agent": agent, "backend": "none", "status": status})
	os.WriteFile(filepath.Join(d, "run.json"), meta, 0o644)
	step, _ := json.Marshal(map[string]any{"step": 0, "kind": "plan", "text": plan, "tokens": 12})
	os.WriteFile(filepath.Join(d, "logs", "agent.jsonl"), append(step, '\n'), 0o644)
}

// The judge stage judges only the profile's finished runs, counts the
// failed ones, and on a failure exits non-zero leaving capabilities.csv.
func TestJudgeStageProfileFailuresAndNoOverwrite(t *testing.T) {
	o := testBench(t)
	root := filepath.Dir(o.Config)
	rubric, err := os.ReadFile(filepath.Join("..", "..", "rubrics", "winning-strategies.toml"))
	if err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(root, "rubrics"), 0o755)
	if err := os.WriteFile(filepath.Join(root, "rubrics", "winning-strategies.toml"), rubric, 0o644); err != nil {
		t.Fatal(err)
	}
	writeJudgeRun(t, root, "demo", "isles22", "baseline", "done", "grid search over learning rates")
	writeJudgeRun(t, root, "demo", "ldct-iqa", "baseline", "failed", "this failed run must not be judged")
	writeJudgeRun(t, root, "other", "isles22", "baseline", "done", "a run of another profile")
	ctx := context.Background()
	if err := Judge(ctx, o); err != nil {
		t.Fatal(err)
	}
	csvPath := filepath.Join(root, "results", "capabilities.csv")
	var first []byte
	first, err = os.ReadFile(csvPath)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(first), "agent,backend,strategy_id,strategy,mean_score,n_sections,n_missing,judge,judge_kind,n_runs,n_failed\n") ||
		!strings.Contains(string(first), "baseline,none,13,Optimizing hyperparameters systematically,1,1,0,heuristic-v1,heuristic,1,1\n") {
		t.Fatalf("capabilities.csv:\n%s", first)
	}
	// The same profile is in the store, under the profile's run group only.
	st, err := store.Open(ctx, filepath.Join(root, "results", "rexmle.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	profiles, err := st.CapabilityProfiles(ctx)
	st.Close()
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, p := range profiles {
		if p.Source != "demo" || p.Agent != "baseline" || p.JudgeName != "heuristic-v1" {
			t.Errorf("stored profile row %+v: want only demo's baseline under heuristic-v1", p)
		}
		if p.StrategyID == 13 {
			found = p.Mean == 1 && p.NSections == 1 && p.NMissing == 0 && p.NRuns == 1 && p.NFailed == 1
		}
	}
	if !found {
		t.Errorf("stored profiles %+v lack strategy 13 as capabilities.csv has it", profiles)
	}

	// Human labels beside the results: the agreement report is written.
	labels := "run_id,section,strategy_id,label\n" +
		"demo/isles22/baseline/seed-0,agent.jsonl#iter-1,13,1\n" +
		"demo/isles22/baseline/seed-0,agent.jsonl#iter-1,6,1\n"
	os.WriteFile(filepath.Join(root, "results", "judge-labels.csv"), []byte(labels), 0o644)
	if err := Judge(ctx, o); err != nil {
		t.Fatal(err)
	}
	ag, err := os.ReadFile(filepath.Join(root, "results", "judge-agreement.csv"))
	if err != nil {
		t.Fatal(err)
	}
	// The heuristic judge agrees on strategy 13 (both 1) and not on 6 (no
	// augmentation in the log: heuristic 0, human 1).
	for _, want := range []string{
		"rater_a,rater_b,strategy_id,strategy,n,n11,n10,n01,n00,agreement,kappa\n",
		"heuristic-v1,human,13,Optimizing hyperparameters systematically,1,1,0,0,0,1.000000,\n",
		"heuristic-v1,human,6,Optimizing the augmentation method,1,0,0,1,0,0.000000,",
		"heuristic-v1,human,all,(pooled),2,1,0,1,0,0.500000,",
	} {
		if !strings.Contains(string(ag), want) {
			t.Errorf("judge-agreement.csv lacks %q:\n%s", want, ag)
		}
	}

	// A run whose log cannot be read: non-zero, capabilities.csv kept.
	bad := filepath.Join(root, "results", "runs", "demo", "isles22", "sample", "seed-0")
	os.MkdirAll(filepath.Join(bad, "logs"), 0o755)
	os.WriteFile(filepath.Join(bad, "run.json"), []byte(`{"group":"demo","status":"done"}`), 0o644)
	os.WriteFile(filepath.Join(bad, "logs", "agent.jsonl"), []byte("not json\n"), 0o644)
	err = Judge(ctx, o)
	if err == nil || !strings.Contains(err.Error(), "could not be read") || !strings.Contains(err.Error(), "capabilities.csv left as it was") {
		t.Fatalf("unreadable log: %v", err)
	}
	if now, _ := os.ReadFile(csvPath); string(now) != string(first) {
		t.Errorf("capabilities.csv rewritten by a failed judge:\n%s", now)
	}

	// No run of the profile: an error naming the profile.
	o.Profile = "paper"
	if err := Judge(ctx, o); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("no runs of profile %q", "paper")) {
		t.Errorf("empty profile: %v", err)
	}
}

// judgeAgreement prints one table per pair of stored judges under the
// current rubric and per judge against the human labels, from the store
// alone; with nothing to compare it fails saying so.
func TestJudgeAgreementStage(t *testing.T) {
	o := testBench(t)
	root := filepath.Dir(o.Config)
	rubric, err := os.ReadFile(filepath.Join("..", "..", "rubrics", "winning-strategies.toml"))
	if err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(root, "rubrics"), 0o755)
	if err := os.WriteFile(filepath.Join(root, "rubrics", "winning-strategies.toml"), rubric, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var out strings.Builder
	if err := judgeAgreement(ctx, o, &out); err == nil || !strings.Contains(err.Error(), "no store") {
		t.Fatalf("before any judge: %v", err)
	}

	writeJudgeRun(t, root, "demo", "isles22", "baseline", "done", "grid search over learning rates")
	if err := Judge(ctx, o); err != nil {
		t.Fatal(err)
	}
	// One judge and no labels: nothing to compare.
	if err := judgeAgreement(ctx, o, &out); err == nil || !strings.Contains(err.Error(), "nothing to compare") ||
		!strings.Contains(err.Error(), "1 judge(s)") {
		t.Fatalf("one judge: %v", err)
	}

	// A second judge ("llm") agreeing with the heuristic one except on
	// strategies 1 and 13, where it says the opposite.
	st, err := store.Open(ctx, filepath.Join(root, "results", "rexmle.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	heur, err := st.CapabilityScores(ctx, "heuristic-v1", "")
	if err != nil || len(heur) != 13 {
		st.Close()
		t.Fatalf("heuristic scores: %d rows, %v", len(heur), err)
	}
	llm := make([]store.CapabilityScore, len(heur))
	for i, s := range heur {
		v := *s.Score
		if s.StrategyID == 1 || s.StrategyID == 13 {
			v = 1 - v
		}
		s.Score, s.JudgeName, s.JudgeKind = &v, "llm", "openai"
		llm[i] = s
	}
	err = st.Update(ctx, func(tx *store.Tx) error { return tx.PutCapabilityScores(ctx, llm) })
	st.Close()
	if err != nil {
		t.Fatal(err)
	}
	labels := "run_id,section,strategy_id,label\n" +
		"demo/isles22/baseline/seed-0,agent.jsonl#iter-1,13,1\n" +
		"demo/isles22/baseline/seed-0,agent.jsonl#iter-1,6,1\n"
	os.WriteFile(filepath.Join(root, "results", "judge-labels.csv"), []byte(labels), 0o644)

	out.Reset()
	if err := judgeAgreement(ctx, o, &out); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	// Pairs: heuristic-v1 vs llm on 13 strategies (the heuristic finds 13
	// only; llm finds 1 only): N11 0, N10 1, N01 1, N00 11, Po = 11/13,
	// Pe = (1/13)² + (12/13)² = 145/169, κ = (143−145)/(169−145) = −1/12.
	// heuristic-v1 vs human on 6 (0/1) and 13 (1/1): Po = 1/2, Pe = 1/2,
	// κ = 0. llm vs human on 6 (0/1) and 13 (0/1): Po = 0, Pe = 0, κ = 0.
	// One pair per strategy: equal labels give Pe = 1 (undefined κ),
	// different ones κ = 0.
	tables := strings.Split(strings.TrimSuffix(got, "\n"), "\n\n")
	row := func(cells ...string) *regexp.Regexp {
		for i, c := range cells {
			cells[i] = regexp.QuoteMeta(c)
		}
		return regexp.MustCompile(`(?m)^` + strings.Join(cells, `\s+`) + `\s*$`)
	}
	name := func(id int) string { return mustStrategyName(t, rubric, id) }
	want := [][]*regexp.Regexp{{
		row("agreement: heuristic-v1 vs llm (unpaired: 0 only in heuristic-v1, 0 only in llm)"),
		row("1", name(1), "1", "0.000", "0.000"),
		row("2", name(2), "1", "1.000", "undef (constant)"),
		row("13", name(13), "1", "0.000", "0.000"),
		row("all", "(pooled)", "13", "0.846", "-0.083"),
	}, {
		row("agreement: heuristic-v1 vs human (unpaired: 11 only in heuristic-v1, 0 only in human)"),
		row("6", name(6), "1", "0.000", "0.000"),
		row("13", name(13), "1", "1.000", "undef (constant)"),
		row("all", "(pooled)", "2", "0.500", "0.000"),
	}, {
		row("agreement: llm vs human (unpaired: 11 only in llm, 0 only in human)"),
		row("6", name(6), "1", "0.000", "0.000"),
		row("13", name(13), "1", "0.000", "0.000"),
		row("all", "(pooled)", "2", "0.000", "0.000"),
	}}
	if len(tables) != len(want) {
		t.Fatalf("%d tables, want %d:\n%s", len(tables), len(want), got)
	}
	for i, tbl := range tables {
		if n := strings.Count(tbl, "\n") + 1; (i == 0 && n != 16) || (i > 0 && n != 5) {
			t.Errorf("table %d has %d lines:\n%s", i, n, tbl)
		}
		for _, re := range want[i] {
			if !re.MatchString(tbl) {
				t.Errorf("table %d lacks a line matching %s:\n%s", i, re, tbl)
			}
		}
	}
}

// mustStrategyName is the name of strategy id in the rubric bytes.
func mustStrategyName(t *testing.T, rubric []byte, id int) string {
	t.Helper()
	r, err := judge.ParseRubric("rubric", rubric)
	if err != nil {
		t.Fatal(err)
	}
	s, ok := r.Strategy(id)
	if !ok {
		t.Fatalf("rubric has no strategy %d", id)
	}
	return s.Name
}
