package judge

import (
	"math"
	"os"
	"path/filepath"
	"testing"
)

func TestAggregateAndCSV(t *testing.T) {
	r, err := ParseRubric("t", []byte(okRubric))
	if err != nil {
		t.Fatal(err)
	}
	one, zero := 1, 0
	row := func(run, ch, agent, backend, sec string, id int, score *int, ev string) ScoreRow {
		return ScoreRow{RunKey: run, RunID: "r", Challenge: ch, Agent: agent, Backend: backend, Section: sec,
			StrategyID: id, Score: score, Evidence: ev, JudgeName: "h", JudgeKind: KindHeuristic}
	}
	rows := []ScoreRow{
		row("k1", "c1", "x", "m", "s1", 1, &one, "e1"),
		row("k1", "c1", "x", "m", "s2", 1, &zero, ""),
		row("k1", "c1", "x", "m", "s3", 1, nil, ""), // missing: excluded from the mean
		row("k2", "c2", "x", "m", "s1", 1, &one, "e2"),
		row("k1", "c1", "x", "m", "s1", 2, &zero, ""),
		row("k3", "c1", "y", "", "s1", 9, &one, ""), // id not in rubric: ignored
	}
	p := Aggregate(rows, r)
	// agent x/m strategy 1: sections 1,0,1 decided → 2/3; missing 1; evidence e1,e2.
	got := map[int]AgentStrategy{}
	for _, a := range p.ByAgent {
		if a.Agent == "x" {
			got[a.StrategyID] = a
		}
	}
	if s := got[1]; s.Mean != 2.0/3 || s.NSections != 3 || s.NMissing != 1 || len(s.Evidence) != 2 || s.Evidence[1] != "e2" {
		t.Errorf("x/1 %+v", s)
	}
	if s := got[2]; s.Mean != 0 || s.NSections != 1 {
		t.Errorf("x/2 %+v", s)
	}
	// agent y has only a strategy id outside the rubric: it gets no profile rows.
	var y []AgentStrategy
	for _, a := range p.ByAgent {
		if a.Agent == "y" {
			y = append(y, a)
		}
	}
	if len(y) != 0 {
		t.Errorf("agent with only unknown ids should not appear: %+v", y)
	}
	// by run: k1 strategy 1 → 1/2.
	for _, x := range p.ByRun {
		if x.RunKey == "k1" && x.StrategyID == 1 && (x.Mean != 0.5 || x.NMissing != 1) {
			t.Errorf("k1/1 %+v", x)
		}
	}
	if len(p.ByChallenge) != 4 { // (c1,x) and (c2,x) × 2 strategies
		t.Errorf("by challenge %d rows", len(p.ByChallenge))
	}
	path := filepath.Join(t.TempDir(), "sub", "cap.csv")
	if err := WriteCapabilitiesCSV(path, p.ByAgent); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	want := "agent,backend,strategy_id,strategy,mean_score,n_sections,n_missing,judge,judge_kind,n_runs,n_failed\n" +
		"x,m,1,A,0.666667,3,1,h,heuristic,2,0\n" +
		"x,m,2,B,0,1,0,h,heuristic,2,0\n"
	if string(b) != want {
		t.Errorf("CSV\n%s\nwant\n%s", b, want)
	}
	// A strategy with no decided section has an empty mean.
	empty := []AgentStrategy{{Agent: "z", StrategyMean: StrategyMean{StrategyID: 1, Strategy: "A", Mean: math.NaN(), NMissing: 2}}}
	if err := WriteCapabilitiesCSV(path, empty); err != nil {
		t.Fatal(err)
	}
	b, _ = os.ReadFile(path)
	if string(b) != "agent,backend,strategy_id,strategy,mean_score,n_sections,n_missing,judge,judge_kind,n_runs,n_failed\nz,,1,A,,0,2,,,0,0\n" {
		t.Errorf("empty-mean CSV %q", b)
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("temporary files left: %v", entries)
	}
}
