package paper

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rexmle/rexmle/pipeline/config"
	"github.com/rexmle/rexmle/pipeline/store"
)

func benchmark(t *testing.T) *config.Benchmark {
	t.Helper()
	b, err := config.Load("../../benchmark.toml")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The eight capability scores the paper states in its text are loaded and
// imported, with the printed text kept.
func TestCapabilitiesImported(t *testing.T) {
	b := benchmark(t)
	rec, err := Load("../../results/paper", b)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(rec.Capabilities.Scores); n != 8 {
		t.Fatalf("capabilities.toml: %d scores, want the paper's 8", n)
	}
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "s.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.Update(ctx, func(tx *store.Tx) error {
		if err := tx.SyncChallenges(ctx, b.Challenges); err != nil {
			return err
		}
		_, err := Import(ctx, tx, rec, b)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	var printed string
	var v float64
	if err := st.RawQueryRow(ctx, `SELECT printed, value FROM paper_capabilities WHERE agent='rd-agent' AND strategy_id=4`).Scan(&printed, &v); err != nil {
		t.Fatal(err)
	}
	if printed != "0.663" || v != 0.663 {
		t.Errorf("R&D-Agent, Having domain knowledge: %q %v, want the paper's 0.663", printed, v)
	}
	// S2 prints an Overall row; it is kept as a print.
	var n int
	if err := st.RawQueryRow(ctx, `SELECT count(*) FROM printed WHERE tbl='S2' AND key='overall'`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 3 {
		t.Errorf("S2 overall prints: %d, want 3", n)
	}
	// The unranked rows keep the paper's order (PLCC, SROCC, KROCC in S3).
	var order string
	if err := st.RawQueryRow(ctx, `SELECT text FROM printed WHERE tbl='S3' AND key=? AND run_id=?`, OrderKey, RunID("24h", "gpt-5", "ldct-iqa", "aide")).Scan(&order); err != nil {
		t.Fatal(err)
	}
	if order != "PLCC\tSROCC\tKROCC" {
		t.Errorf("S3 unranked order %q", order)
	}
}

func TestCapabilitiesRejected(t *testing.T) {
	b := benchmark(t)
	for name, body := range map[string]string{
		"agent": "[[score]]\nagent = \"nobody\"\nstrategy_id = 1\nstrategy = \"x\"\nprinted = \"0.1\"\n",
		"range": "[[score]]\nagent = \"aide\"\nstrategy_id = 1\nstrategy = \"x\"\nprinted = \"1.5\"\n",
		"twice": "[[score]]\nagent = \"aide\"\nstrategy_id = 1\nstrategy = \"x\"\nprinted = \"0.1\"\n[[score]]\nagent = \"aide\"\nstrategy_id = 1\nstrategy = \"x\"\nprinted = \"0.2\"\n",
		"id":    "[[score]]\nagent = \"aide\"\nstrategy_id = 0\nstrategy = \"x\"\nprinted = \"0.1\"\n",
		"key":   "colour = \"red\"\n",
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			for _, f := range []string{"appendix.toml", "summary.toml"} {
				bs, err := os.ReadFile(filepath.Join("../../results/paper", f))
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, f), bs, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.WriteFile(filepath.Join(dir, "capabilities.toml"), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := Load(dir, b)
			if err == nil || !strings.Contains(err.Error(), "capabilities.toml") {
				t.Errorf("Load: %v, want an error naming capabilities.toml", err)
			}
		})
	}
}

// The human column of every S-table loads as printed (S2 prints an
// Overall of 2.0 for it); a column naming an unknown metric, or a position
// without its value, is rejected with the file and column named.
func TestHumanColumns(t *testing.T) {
	b := benchmark(t)
	rec, err := Load("../../results/paper", b)
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.Appendix.Human) != 20 {
		t.Fatalf("%d human columns, want one per S-table (20)", len(rec.Appendix.Human))
	}
	var s2 *AppendixHuman
	for i := range rec.Appendix.Human {
		if rec.Appendix.Human[i].Table == "S2" {
			s2 = &rec.Appendix.Human[i]
		}
	}
	if s2 == nil || s2.PrintedOverall != "2.0" || s2.PrintedMeanRank != "3.5" || s2.Values["dice"] != "0.7852" || s2.PrintedPositions["abs_volume_diff"] != 6 {
		t.Errorf("S2's human column: %+v, want dice 0.7852, abs_volume_diff at 6, mean rank 3.5, overall 2.0", s2)
	}
	src, err := os.ReadFile("../../results/paper/appendix.toml")
	if err != nil {
		t.Fatal(err)
	}
	for name, extra := range map[string]string{
		"metric":   "\n[[human]]\ntable = \"S2\"\nchallenge = \"isles22\"\nvalues = { nope = \"0.1\" }\n",
		"position": "\n[[human]]\ntable = \"S2\"\nchallenge = \"isles22\"\nvalues = { dice = \"0.1\" }\nprinted_positions = { lesion_f1 = 2 }\n",
		"value":    "\n[[human]]\ntable = \"S2\"\nchallenge = \"isles22\"\nvalues = { dice = \"x\" }\n",
		"rows":     "\n[[human]]\ntable = \"S2\"\nchallenge = \"isles22\"\nvalues = { dice = \"0.1\" }\nrows = [\"dice\", \"PLCC\"]\n",
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			sum, err := os.ReadFile("../../results/paper/summary.toml")
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "summary.toml"), sum, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "appendix.toml"), append(append([]byte(nil), src...), extra...), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err = Load(dir, b)
			if err == nil || !strings.Contains(err.Error(), "appendix.toml") || !strings.Contains(err.Error(), "human column 21 (S2)") {
				t.Errorf("Load: %v, want an error naming appendix.toml and human column 21 (S2)", err)
			}
		})
	}
}

// New runs of the profile "paper" (the paper's settings, run again) share
// the paper's setting, backend, challenge and agent with its recorded runs;
// importing the recorded results, which replaces them, keeps the new runs.
func TestImportKeepsThePaperProfilesRuns(t *testing.T) {
	b := benchmark(t)
	rec, err := Load("../../results/paper", b)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "s.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	newRun := store.Run{ID: "paper/ldct-iqa/aide/1", Source: "paper", Setting: "24h", Backend: "gpt-5",
		Challenge: "ldct-iqa", Agent: "aide", Seed: 1, Status: store.RunStatus("done")}
	for i := 0; i < 2; i++ { // the rank stage imports on every run
		if err := st.Update(ctx, func(tx *store.Tx) error {
			if err := tx.SyncChallenges(ctx, b.Challenges); err != nil {
				return err
			}
			if i == 0 {
				if err := tx.PutRun(ctx, newRun); err != nil {
					return err
				}
			}
			_, err := Import(ctx, tx, rec, b)
			return err
		}); err != nil {
			t.Fatalf("import %d: %v", i+1, err)
		}
	}
	var source string
	if err := st.RawQueryRow(ctx, `SELECT source FROM runs WHERE id=?`, newRun.ID).Scan(&source); err != nil {
		t.Fatalf("the paper profile's run is gone after the import: %v", err)
	}
	if source != "paper" {
		t.Errorf("the new run's source is %q, want the profile's name", source)
	}
	var printed int
	if err := st.RawQueryRow(ctx, `SELECT count(*) FROM runs WHERE source=? AND challenge_id='ldct-iqa' AND agent='aide'`, Source).Scan(&printed); err != nil {
		t.Fatal(err)
	}
	if printed == 0 || Source == "paper" {
		t.Errorf("recorded runs of AIDE on LDCT-IQA under %q: %d, want them apart from the profile's", Source, printed)
	}
}
