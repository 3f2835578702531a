package report

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rexmle/rexmle/pipeline/config"
	"github.com/rexmle/rexmle/pipeline/rankstage"
	"github.com/rexmle/rexmle/pipeline/report/reporttest"
	"github.com/rexmle/rexmle/pipeline/store"
)

// Issue 14: a run of a Table 5 configuration made with the paper-claude
// profile (fetched data) appears on the ablations page beside the paper's
// printed row for the same challenge and agent.
func TestAblationsShowNewRunsBesideThePaper(t *testing.T) {
	ctx := context.Background()
	b, err := config.Load("../../benchmark.toml")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	st, err := store.Open(ctx, filepath.Join(dir, "store.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := rankstage.Run(ctx, b, st); err != nil {
		t.Fatal(err)
	}
	c, _ := b.Challenge("dentex")
	vals := map[string]float64{}
	for _, m := range c.Metrics {
		vals[m.Name] = c.Leaderboard[len(c.Leaderboard)-1].Values[m.Name]
	}
	id := "paper-claude/dentex/aide/seed-1"
	err = st.Update(ctx, func(tx *store.Tx) error {
		if err := tx.PutRun(ctx, store.Run{ID: id, Source: "paper-claude", Setting: "24h", Backend: "claude-sonnet-4.5",
			Challenge: "dentex", Agent: "aide", Seed: 1, Status: "done", StartedAt: "2026-01-01T00:00:00Z", EndedAt: "2026-01-02T00:00:00Z"}); err != nil {
			return err
		}
		return tx.PutMetricValues(ctx, id, vals)
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rankstage.Run(ctx, b, st); err != nil {
		t.Fatal(err)
	}
	site := filepath.Join(dir, "site")
	if _, err := Build(ctx, Options{Store: st, Benchmark: b, OutDir: site, GitCommit: "test", Profile: "paper-claude"}); err != nil {
		t.Fatal(err)
	}
	tj := readTable(t, site, "table5")
	found := false
	for _, r := range tj.Rows {
		if str(r["challenge"]) == "dentex" && str(r["agent"]) == "aide@paper-claude" {
			found = true
			if str(r["24h:claude-sonnet-4.5:value"]) == "" {
				t.Errorf("the new run's cell is empty: %v", r)
			}
		}
	}
	if !found {
		t.Fatalf("no row for the paper-claude run in Table 5: %d rows", len(tj.Rows))
	}
}

// Issue 14: the known-issues page lists where the paper's harness departs
// from the paper (benchmark/known-issues.toml), every entry of it.
func TestKnownIssuesListTheHarness(t *testing.T) {
	site := filepath.Join(paperSite(t), "site")
	b := reporttest.Benchmark(t)
	issues, err := config.LoadKnownIssues(b.Path(knownIssuesFile))
	if err != nil {
		t.Fatal(err)
	}
	tj := readTable(t, site, "harness-issues")
	if len(tj.Rows) != len(issues) || len(issues) == 0 {
		t.Fatalf("%d rows, want the %d entries of %s", len(tj.Rows), len(issues), knownIssuesFile)
	}
	for i, k := range issues {
		if str(tj.Rows[i]["id"]) != k.ID || str(tj.Rows[i]["rexmle"]) != k.Rexmle {
			t.Errorf("row %d = %v, want %s", i, tj.Rows[i], k.ID)
		}
	}
}

// The ablations page carries Table 5 as the paper prints it: challenge ×
// model rows, the agents' value and rank side by side, the human value.
// The expected rows are the paper's Table 5, typed from its text.
func TestTable5AsPrinted(t *testing.T) {
	site := filepath.Join(paperSite(t), "site")
	tj := readTable(t, site, "table5-printed")
	want := []string{
		"isles22 GPT 0.04 0% 0.00 0% 0.79",
		"isles22 Gemini FAIL – 0.46 25% 0.79",
		"isles22 Claude 0.45 5% 0.65 25% 0.79",
		"dentex GPT 0.09 0% 0.08 0% 0.40",
		"dentex Gemini 0.20 8% 0.19 1% 0.40",
		"dentex Claude 0.02 0% 0.12 0% 0.40",
		"topcow-track1-task3 GPT 0.33 33% 0.10 0% 0.73",
		"topcow-track1-task3 Gemini 0.35 25% 0.33 25% 0.73",
		"topcow-track1-task3 Claude 0.33 25% 0.33 25% 0.73",
		"ldct-iqa GPT 2.62 33% 2.50 0% 2.74",
		"ldct-iqa Gemini 2.70 83% 2.62 17% 2.74",
		"ldct-iqa Claude 1.12 0% FAIL – 2.74",
	}
	var got []string
	for _, r := range tj.Rows {
		hv, _ := r["human_value"].(float64)
		got = append(got, fmt.Sprintf("%v %s %v %v %v %v %.2f", r["challenge"], modelName(str(r["backend"])),
			r["aide:value"], r["aide:rank"], r["ml-master:value"], r["ml-master:rank"], hv))
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("Table 5 as printed:\n%s\nwant the paper's:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
