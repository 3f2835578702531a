package judge

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io/fs"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rexmle/rexmle/pipeline/judge/judgetest"
	"github.com/rexmle/rexmle/pipeline/store"
)

// openDB opens a store (with the judge's tables, among the store's
// migrations) in dir.
func openDB(t *testing.T, dir string) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), filepath.Join(dir, "judge.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func openDBb(b *testing.B, dir string) *store.Store {
	b.Helper()
	st, err := store.Open(context.Background(), filepath.Join(dir, "judge.sqlite"))
	if err != nil {
		b.Fatal(err)
	}
	return st
}

// writeRun lays out root/<run>/<challenge>/<agent>/seed-<n>/logs/agent.jsonl
// with one plan step per text (each its own section) and run.json.
func writeRun(t testing.TB, root, runID, challenge, agent string, seed int, backend string, plans ...string) {
	t.Helper()
	seedDir := filepath.Join(root, runID, challenge, agent, fmt.Sprintf("seed-%d", seed))
	if err := os.MkdirAll(filepath.Join(seedDir, "logs"), 0o755); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for i, p := range plans {
		line, _ := json.Marshal(AgentStep{Step: i, Time: "2026-11-22T00:00:00Z", Kind: StepPlan, Text: p})
		b.Write(line)
		b.WriteByte('\n')
	}
	if err := os.WriteFile(filepath.Join(seedDir, "logs", "agent.jsonl"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if backend != "" {
		meta, _ := json.Marshal(map[string]string{"backend": backend})
		if err := os.WriteFile(filepath.Join(seedDir, "run.json"), meta, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func countRows(t *testing.T, st *store.Store, q string, args ...any) int {
	t.Helper()
	var n int
	if err := st.RawQueryRow(context.Background(), q, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}

func TestRunCachesDedupesAndForces(t *testing.T) {
	r := loadRepoRubric(t)
	dir := t.TempDir()
	root := filepath.Join(dir, "results", "runs")
	writeRun(t, root, "r1", "isles22", "baseline", 0, "gpt-5", "alpha plan", "beta plan")
	writeRun(t, root, "r1", "seg_a", "baseline", 0, "gpt-5", "alpha plan") // same text as r1/isles22 iter-1
	srv := judgetest.New(func(req judgetest.Request) judgetest.Reply {
		return judgetest.Reply{Content: judgetest.AnswerAll(r.IDs(), oddOnes), PromptTokens: 10, CompletionTokens: 5}
	})
	defer srv.Close()
	j, _ := newTestJudge(t, srv, nil)
	db := openDB(t, dir)
	runs, err := DiscoverRuns(root)
	if err != nil || len(runs) != 2 {
		t.Fatalf("discover: %v %d", err, len(runs))
	}
	var last Progress
	cfg := Config{RubricPath: repoRubric, Impl: j, Progress: func(p Progress) { last = p },
		Logger: slog.New(slog.NewTextHandler(&syncBuffer{}, nil))}
	rep, err := Run(context.Background(), db, cfg, runs)
	if err != nil {
		t.Fatal(err)
	}
	if srv.Calls() != 2 || rep.HTTPCalls != 2 || rep.Judged != 2 || rep.Sections != 3 || rep.CacheHits != 1 || rep.OK != 3 {
		t.Fatalf("first pass: calls %d report %+v", srv.Calls(), rep)
	}
	if last.Done != 3 || last.Total != 3 || last.CacheHits != 1 || last.Errors != 0 {
		t.Errorf("progress %+v", last)
	}
	if rep.Usage.TotalTokens != 30 {
		t.Errorf("tokens %d want 30", rep.Usage.TotalTokens)
	}
	if n := countRows(t, db, `SELECT COUNT(*) FROM capability_scores`); n != 39 {
		t.Errorf("capability_scores rows %d want 39", n)
	}
	if n := countRows(t, db, `SELECT COUNT(*) FROM judge_calls`); n != 2 {
		t.Errorf("judge_calls rows %d want 2", n)
	}
	if n := countRows(t, db, `SELECT COUNT(*) FROM judge_sections WHERE rubric_hash = ? AND judge_kind = 'llm'`, r.Hash); n != 3 {
		t.Errorf("judge_sections rows %d want 3", n)
	}

	if n := countRows(t, db, `SELECT SUM(prompt_tokens) FROM judge_sections`); n != 20 {
		t.Errorf("recorded prompt tokens %d want 20 (two calls of 10)", n)
	}

	// Second pass: everything from the cache, zero HTTP calls.
	rep2, err := Run(context.Background(), db, cfg, runs)
	if err != nil {
		t.Fatal(err)
	}
	if srv.Calls() != 2 || rep2.HTTPCalls != 0 || rep2.CacheHits != 3 || rep2.Judged != 0 {
		t.Fatalf("second pass made calls: %d, report %+v", srv.Calls(), rep2)
	}
	if n := countRows(t, db, `SELECT COUNT(*) FROM capability_scores`); n != 39 {
		t.Errorf("rows duplicated on re-run: %d", n)
	}
	if n := countRows(t, db, `SELECT COUNT(*) FROM judge_sections WHERE cache_hit = 1`); n != 3 {
		t.Errorf("cache_hit rows %d want 3", n)
	}
	if n := countRows(t, db, `SELECT SUM(prompt_tokens) + SUM(attempts) FROM judge_sections`); n != 0 {
		t.Errorf("cache hits recorded spending: %d", n)
	}
	// Force: judged again (identical texts still once).
	cfg.Force = true
	rep3, err := Run(context.Background(), db, cfg, runs)
	if err != nil {
		t.Fatal(err)
	}
	if srv.Calls() != 4 || rep3.Judged != 2 {
		t.Fatalf("force: calls %d report %+v", srv.Calls(), rep3)
	}
	// A changed rubric (different bytes) misses the cache.
	data, _ := os.ReadFile(repoRubric)
	other := filepath.Join(dir, "rubric.toml")
	if err := os.WriteFile(other, append(data, []byte("\n# edited\n")...), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg.Force, cfg.RubricPath = false, other
	if _, err := Run(context.Background(), db, cfg, runs); err != nil {
		t.Fatal(err)
	}
	if srv.Calls() != 6 {
		t.Fatalf("edited rubric: calls %d want 6", srv.Calls())
	}

	// Compare the fake LLM (odd ids 1) with the heuristic (all 0 on these
	// texts) under the committed rubric: 3 sections × 13 strategies.
	hcfg := Config{RubricPath: repoRubric, Judge: JudgeHeuristic, Logger: cfg.Logger}
	if _, err := Run(context.Background(), db, hcfg, runs); err != nil {
		t.Fatal(err)
	}
	ag, err := CompareJudges(context.Background(), db, "fake-gpt", HeuristicName, r.Hash)
	if err != nil {
		t.Fatal(err)
	}
	// Pooled: N10 = 7 odd strategies × 3 = 21, N00 = 18; Po = 18/39;
	// pA = 21/39, pB = 0, Pe = 18/39, κ = 0.
	p := ag.Pooled
	if p.N != 39 || p.N10 != 21 || p.N00 != 18 || math.Abs(p.Agreement-18.0/39) > 1e-12 || !p.KappaDefined || p.Kappa != 0 {
		t.Errorf("pooled %+v", p)
	}
	if len(ag.PerStrategy) != 13 || ag.PerStrategy[1].KappaDefined || ag.PerStrategy[0].Agreement != 0 {
		t.Errorf("per strategy %+v", ag.PerStrategy[:2])
	}
}

func TestRunCoverageAndNoKeyLeak(t *testing.T) {
	r := loadRepoRubric(t)
	dir := t.TempDir()
	root := filepath.Join(dir, "results", "runs")
	writeRun(t, root, "r1", "isles22", "baseline", 0, "gpt-5", "normal section", "PARTIAL section")
	writeRun(t, root, "r1", "isles22", "baseline", 1, "gpt-5", "BROKEN section", "DOWN section")
	srv := judgetest.New(func(req judgetest.Request) judgetest.Reply {
		switch {
		case strings.Contains(req.User, "BROKEN"):
			return judgetest.Reply{Content: "I think the agent did well!"}
		case strings.Contains(req.User, "DOWN"):
			return judgetest.Reply{Status: 503, Body: `{"error":{"message":"overloaded; got ` + req.Authorization + `"}}`}
		}
		ids := r.IDs()
		if strings.Contains(req.User, "PARTIAL") {
			ids = ids[:12]
		}
		items := []judgetest.Item{}
		for _, id := range ids {
			items = append(items, judgetest.Item{ID: id, Score: id % 2, Evidence: "saw " + req.Authorization})
		}
		return judgetest.Reply{Content: judgetest.Answer(items...)}
	})
	defer srv.Close()
	j, logs := newTestJudge(t, srv, func(c *OpenAIConfig) { c.MaxRetries = 1 })
	db := openDB(t, dir)
	runs, _ := DiscoverRuns(root)
	cfg := Config{RubricPath: repoRubric, Impl: j, Logger: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))}
	rep, err := Run(context.Background(), db, cfg, runs)
	if err != nil {
		t.Fatal(err)
	}
	// normal: 1 call; PARTIAL: 3 answers; BROKEN: 3 answers; DOWN: 2 requests (1 retry).
	if srv.Calls() != 9 || rep.HTTPCalls != 9 {
		t.Errorf("calls %d report %d want 9", srv.Calls(), rep.HTTPCalls)
	}
	if rep.OK != 1 || rep.Partial != 1 || rep.Errors != 2 || rep.MissingStrategies != 1+13+13 {
		t.Errorf("coverage %+v", rep)
	}
	if err := rep.Err(); err == nil || !strings.Contains(err.Error(), "failed on 2 of 4 sections") {
		t.Errorf("report error %v, want the 2 failed sections named", err)
	}
	if n := countRows(t, db, `SELECT COUNT(*) FROM capability_scores WHERE score IS NULL`); n != 27 {
		t.Errorf("NULL scores %d want 27", n)
	}
	if n := countRows(t, db, `SELECT COUNT(*) FROM capability_scores WHERE score = 0 AND section LIKE '%iter-1' AND run_key LIKE '%seed-1'`); n != 0 {
		t.Errorf("failed section stored as zeros: %d", n)
	}
	if n := countRows(t, db, `SELECT COUNT(*) FROM judge_sections WHERE status = 'error' AND error != ''`); n != 2 {
		t.Errorf("error sections %d want 2", n)
	}
	// CSV: strategy 1 decided in 2 sections (both 1), missing in 2; strategy 13 decided once.
	csvPath := filepath.Join(dir, "out", "capabilities.csv")
	if err := WriteCapabilitiesCSV(csvPath, rep.Profiles.ByAgent); err != nil {
		t.Fatal(err)
	}
	csv, _ := os.ReadFile(csvPath)
	for _, want := range []string{
		"agent,backend,strategy_id,strategy,mean_score,n_sections,n_missing,judge,judge_kind,n_runs,n_failed\n",
		"baseline,gpt-5,1,Analyzing and handling failure cases,1,2,2,fake-gpt,llm,2,0\n",
		"baseline,gpt-5,2,Knowing the state of the art,0,2,2,fake-gpt,llm,2,0\n",
		"baseline,gpt-5,13,Optimizing hyperparameters systematically,1,1,3,fake-gpt,llm,2,0\n",
	} {
		if !strings.Contains(string(csv), want) {
			t.Errorf("CSV lacks %q:\n%s", want, csv)
		}
	}
	// Incomplete answers are not cached: a second pass asks only for those.
	before := srv.Calls()
	rep2, err := Run(context.Background(), db, cfg, runs)
	if err != nil {
		t.Fatal(err)
	}
	if srv.Calls()-before != 8 || rep2.CacheHits != 1 {
		t.Errorf("second pass: %d calls, %d cache hits; want 8 and 1", srv.Calls()-before, rep2.CacheHits)
	}

	// The key appears nowhere: logs, every table's text, every file.
	if strings.Contains(logs.String(), testKey) {
		t.Error("API key in log output")
	}
	tables, err := db.RawQuery(context.Background(), `SELECT name FROM sqlite_master WHERE type = 'table'`)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for tables.Next() {
		var n string
		_ = tables.Scan(&n)
		names = append(names, n)
	}
	tables.Close()
	scanned := 0
	for _, n := range names {
		rows, err := db.RawQuery(context.Background(), `SELECT * FROM `+n)
		if err != nil {
			t.Fatal(err)
		}
		cols, _ := rows.Columns()
		for rows.Next() {
			vals := make([]sql.NullString, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			for i, v := range vals {
				scanned++
				if strings.Contains(v.String, testKey) {
					t.Errorf("API key in table %s column %s", n, cols[i])
				}
			}
		}
		rows.Close()
	}
	if scanned < 100 {
		t.Errorf("scanned only %d values", scanned)
	}
	if !strings.Contains(logs.String()+fmt.Sprint(rep2.Profiles.ByAgent), "[REDACTED]") {
		t.Error("echoed key was not seen redacted anywhere: the leak test is not exercising anything")
	}
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, _ := os.ReadFile(p)
		if strings.Contains(string(b), testKey) {
			t.Errorf("API key in file %s", p)
		}
		return nil
	})
}

func TestRunHeuristicPooledMeans(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "runs")
	writeRun(t, root, "r1", "c1", "a", 0, "", "ran an optuna study", "trained once")
	writeRun(t, root, "r1", "c2", "a", 0, "", "grid search over lr")
	// A run whose logs cannot be read: reported, others still judged.
	bad := filepath.Join(root, "r1", "c3", "a", "seed-0", "logs")
	if err := os.MkdirAll(bad, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bad, "journal.json"), []byte(`{"nodes": [`), 0o644); err != nil {
		t.Fatal(err)
	}
	db := openDB(t, dir)
	runs, _ := DiscoverRuns(root)
	rep, err := Run(context.Background(), db, Config{RubricPath: repoRubric, Judge: JudgeHeuristic,
		Logger: slog.New(slog.NewTextHandler(&syncBuffer{}, nil))}, runs)
	if err != nil {
		t.Fatal(err)
	}
	if rep.JudgeKind != KindHeuristic || rep.Judge != HeuristicName {
		t.Errorf("judge %s/%s", rep.Judge, rep.JudgeKind)
	}
	if len(rep.RunErrors) != 1 || rep.RunErrors["r1/c3/a/seed-0"] == "" {
		t.Errorf("run errors %v", rep.RunErrors)
	}
	find13 := func() (agent float64, byRun map[string]float64, byCh map[string]float64) {
		byRun, byCh = map[string]float64{}, map[string]float64{}
		for _, x := range rep.Profiles.ByAgent {
			if x.StrategyID == 13 {
				agent = x.Mean
			}
		}
		for _, x := range rep.Profiles.ByRun {
			if x.StrategyID == 13 {
				byRun[x.RunKey] = x.Mean
			}
		}
		for _, x := range rep.Profiles.ByChallenge {
			if x.StrategyID == 13 {
				byCh[x.Challenge] = x.Mean
			}
		}
		return
	}
	agent, byRun, byCh := find13()
	// Pooled over sections: 2 of 3 sections show a search → 2/3 (a mean of
	// run means would give 0.75).
	if agent != 2.0/3 {
		t.Errorf("agent mean %v want 2/3", agent)
	}
	if byRun["r1/c1/a/seed-0"] != 0.5 || byRun["r1/c2/a/seed-0"] != 1 {
		t.Errorf("run means %v", byRun)
	}
	if byCh["c1"] != 0.5 || byCh["c2"] != 1 {
		t.Errorf("challenge means %v", byCh)
	}
	path := filepath.Join(dir, "cap.csv")
	if err := WriteCapabilitiesCSV(path, rep.Profiles.ByAgent); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	if !strings.Contains(string(b), "a,,13,Optimizing hyperparameters systematically,0.666667,3,0,heuristic-v1,heuristic,2,0\n") {
		t.Errorf("CSV:\n%s", b)
	}
	if len(strings.Split(strings.TrimSpace(string(b)), "\n")) != 14 {
		t.Errorf("CSV should hold a header and 13 rows:\n%s", b)
	}
}

func TestRunRejectsBadConfig(t *testing.T) {
	db := openDB(t, t.TempDir())
	if _, err := Run(context.Background(), db, Config{RubricPath: "nope.toml"}, nil); err == nil {
		t.Error("missing rubric accepted")
	}
	if _, err := Run(context.Background(), db, Config{RubricPath: repoRubric, Judge: "oracle"}, nil); err == nil {
		t.Error("unknown judge accepted")
	}
}

func TestStoreHasJudgeTables(t *testing.T) {
	dir := t.TempDir()
	for i := 0; i < 2; i++ { // reopening migrates nothing twice
		st := openDB(t, dir)
		if n := countRows(t, st, `SELECT COUNT(*) FROM sqlite_master WHERE type='table' AND name IN ('judge_calls','judge_sections','capability_scores')`); n != 3 {
			t.Fatalf("open %d: judge tables %d, want 3", i+1, n)
		}
	}
}
