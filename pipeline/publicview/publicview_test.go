package publicview_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rexmle/rexmle/pipeline/challenge"
	_ "github.com/rexmle/rexmle/pipeline/challenges/all"
	"github.com/rexmle/rexmle/pipeline/config"
	"github.com/rexmle/rexmle/pipeline/publicview"
)

func prepared(t *testing.T, id string) (string, *config.Challenge, challenge.Challenge) {
	t.Helper()
	b, err := config.Load(filepath.Join("..", "..", "benchmark.toml"))
	if err != nil {
		t.Fatal(err)
	}
	cc, ok := b.Challenge(id)
	if !ok {
		t.Fatalf("no %s in benchmark.toml", id)
	}
	c, ok := challenge.Lookup(id)
	if !ok {
		t.Fatalf("no grader for %s", id)
	}
	raw, data := t.TempDir(), t.TempDir()
	ctx := context.Background()
	if err := c.Synthesize(ctx, raw, 3, challenge.SynthSize{}); err != nil {
		t.Fatal(err)
	}
	if err := c.Prepare(ctx, raw, data); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(data, "public"), cc, c
}

func TestWriteTopCoW(t *testing.T) {
	pub, cc, c := prepared(t, "topcow-track1-task1")
	if err := publicview.Write(pub, cc, c, challenge.Reference); err != nil {
		t.Fatal(err)
	}
	for _, f := range publicview.Files(cc.ID) {
		if _, err := os.Stat(filepath.Join(pub, f)); err != nil {
			t.Errorf("%s not written: %v", f, err)
		}
	}
	// The leaderboard holds every human team with the configured values.
	tab, err := challenge.ReadCSV(filepath.Join(pub, publicview.LeaderboardFile))
	if err != nil {
		t.Fatal(err)
	}
	if len(tab.Rows) != len(cc.Leaderboard) {
		t.Fatalf("%d leaderboard rows, want %d", len(tab.Rows), len(cc.Leaderboard))
	}
	col := map[string]int{}
	for i, h := range tab.Header {
		col[h] = i
	}
	for _, e := range cc.Leaderboard {
		var row []string
		for _, r := range tab.Rows {
			if r[col["team"]] == e.Team {
				row = r
			}
		}
		if row == nil {
			t.Fatalf("team %q missing", e.Team)
		}
		for _, m := range cc.Metrics {
			v, err := strconv.ParseFloat(row[col[m.Name]], 64)
			if err != nil || v != e.Values[m.Name] {
				t.Errorf("%s %s = %q, want %v", e.Team, m.Name, row[col[m.Name]], e.Values[m.Name])
			}
		}
	}
	// The grading description names every metric the grader returns.
	g, _ := os.ReadFile(filepath.Join(pub, publicview.GradingFile))
	for _, m := range c.Metrics() {
		if !strings.Contains(string(g), "`"+m.Name+"`") {
			t.Errorf("grading.md does not describe %s", m.Name)
		}
	}
	// The README counts what is in the folder.
	imgs, _ := filepath.Glob(filepath.Join(pub, "test", "images", "*"))
	readme, _ := os.ReadFile(filepath.Join(pub, publicview.ReadmeFile))
	if want := "`test/images/`: " + strconv.Itoa(len(imgs)) + " test images"; !strings.Contains(string(readme), want) {
		t.Errorf("README lacks %q:\n%s", want, readme)
	}
}

// ISLES'22's public folder had no leaderboard in the paper, and nothing
// written ever mentions a private file.
func TestWriteISLESHasNoLeaderboard(t *testing.T) {
	pub, cc, c := prepared(t, "isles22")
	before, _ := os.ReadFile(filepath.Join(pub, publicview.ReadmeFile))
	if err := publicview.Write(pub, cc, c, challenge.Official); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(pub, publicview.LeaderboardFile)); err == nil {
		t.Error("isles22 got a leaderboard.csv")
	}
	if after, _ := os.ReadFile(filepath.Join(pub, publicview.ReadmeFile)); string(after) != string(before) {
		t.Error("isles22's own README was changed (the paper wrote none for it)")
	}
	g, err := os.ReadFile(filepath.Join(pub, publicview.GradingFile))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(g), "official mode") || strings.Contains(string(g), "private") {
		t.Errorf("grading.md:\n%s", g)
	}
}
