package stages

import (
	"bytes"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rexmle/rexmle/pipeline/config"
	"github.com/rexmle/rexmle/pipeline/store"
)

// The end-of-run summary never ranks unlike things together: the paper's
// 20-challenge configurations, new runs on real data over 20 challenges, a
// user's 2-challenge run and a synthetic demo run each sit under their own
// heading, with the number of challenges beside every rank. It reads the
// standings the rank stage stored, not the CSV exports.
func TestStandingsKeepWorldsApart(t *testing.T) {
	b, err := config.Load(filepath.Join("..", "..", "benchmark.toml"))
	if err != nil {
		t.Fatal(err)
	}
	n := len(b.Challenges)
	if n != 20 {
		t.Fatalf("benchmark has %d challenges, the test expects 20", n)
	}
	nan := math.NaN()
	ss := []store.Standing{
		{Source: config.PrintedSource, Setting: "24h", Backend: "gpt-5", Agent: "aide", NChallenges: 20, Overall: 0.0905},
		{Source: config.PrintedSource, Setting: "24h", Backend: "gpt-5", Agent: "rd-agent", NChallenges: 20, Overall: 0.1215},
		{Source: config.PrintedSource, Setting: "72h", Backend: "gpt-5", Agent: "aide", NChallenges: 4, Overall: 0.8},                  // a Table 4 ablation
		{Source: "paper-72h", Setting: "72h", Backend: "gpt-5", Agent: "ml-master", NChallenges: 2, Overall: 0.25},                     // a user's partial run on real data
		{Source: "paper-claude", Setting: "24h", Backend: "claude", Agent: "aide", NChallenges: 20, Overall: 0.05},                     // new runs on real data
		{Source: "demo", Setting: "24h", Backend: "test-llm", Agent: "agent-00", NChallenges: 20, Overall: 0.4586},                     // synthetic
		{Source: config.PrintedSource, Setting: "72h", Backend: "gpt-5", Agent: "rd-agent", NChallenges: 4, NPartial: 2, Overall: nan}, // primary metric only: skipped
	}
	aide := store.Run{Source: config.PrintedSource, Setting: "24h", Backend: "gpt-5", Agent: "aide"}
	runs := []store.RankedRun{
		{Run: aide, Ranked: true, RankStatus: "ok"},
		{Run: aide, Ranked: true, RankStatus: "fail"},
		{Run: aide}, // not ranked: not counted
	}
	var out bytes.Buffer
	if err := writeStandings(&out, b, ss, runs); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	heads := []string{"The paper's configurations, ranked on all 20 challenges:", "New runs on the real data, ranked on all 20 challenges",
		"Fewer challenges or partial runs", "On synthetic data"}
	var sections []string
	rest := text
	for i, h := range heads {
		at := strings.Index(rest, h)
		if at < 0 {
			t.Fatalf("no heading %q (in order) in:\n%s", h, text)
		}
		if i > 0 {
			sections = append(sections, rest[:at])
		}
		rest = rest[at:]
	}
	sections = append(sections, rest)
	want := [][]string{
		{"R&D-Agent", "12.15% over 20 challenge(s)", "AIDE", "9.05% over 20 challenge(s)  (1 of 2 runs ranked)"},
		{"paper-claude", "5.00% over 20 challenge(s)"},
		{"80.00% over  4 challenge(s)", "25.00% over  2 challenge(s)"},
		{"demo", "45.86% over 20 challenge(s)"},
	}
	for i, ws := range want {
		for _, w := range ws {
			if !strings.Contains(sections[i], w) {
				t.Errorf("section %q lacks %q:\n%s", heads[i], w, sections[i])
			}
		}
		if i != 2 && strings.Contains(sections[i], "over  4") || i != 2 && strings.Contains(sections[i], "over  2") {
			t.Errorf("section %q holds a run on fewer challenges:\n%s", heads[i], sections[i])
		}
	}
	// Best first within the paper's world.
	if strings.Index(sections[0], "R&D-Agent") > strings.Index(sections[0], "AIDE") {
		t.Errorf("paper's world not best first:\n%s", sections[0])
	}
	if strings.Count(text, "R&D-Agent") != 1 {
		t.Errorf("the primary-metric-only configuration is listed:\n%s", text)
	}
}
