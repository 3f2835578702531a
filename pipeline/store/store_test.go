package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rexmle/rexmle/pipeline/rank"
)

func open(t *testing.T) *Store {
	t.Helper()
	s, err := Open(context.Background(), filepath.Join(t.TempDir(), "s.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestMigrateAndReopen(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "s.sqlite")
	ctx := context.Background()
	s, err := Open(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	v, _ := s.version(ctx)
	if v != newestVersion(t) {
		t.Fatalf("version %d, want %d", v, newestVersion(t))
	}
	var mode string
	s.db.QueryRow(`PRAGMA journal_mode`).Scan(&mode)
	var fk int
	s.db.QueryRow(`PRAGMA foreign_keys`).Scan(&fk)
	if mode != "wal" || fk != 1 {
		t.Errorf("journal_mode %s, foreign_keys %d", mode, fk)
	}
	s.Close()
	s, err = Open(ctx, p) // reopening migrates nothing and keeps the version
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if v2, _ := s.version(ctx); v2 != v {
		t.Fatalf("version changed on reopen: %d", v2)
	}
	if _, err := s.db.Exec(`PRAGMA user_version = 99`); err != nil {
		t.Fatal(err)
	}
	s.Close()
	_, err = Open(ctx, p)
	newest := loaded(t)[newestVersion(t)-1]
	want := fmt.Sprintf("open store %s: database schema version 99 is newer than this program knows (%d): its newest schema file is %s;", p, newest.version, newest.file)
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("a newer schema: %v\nwant an error with %q", err, want)
	}
}

func seed(t *testing.T, s *Store) {
	t.Helper()
	ctx := context.Background()
	err := s.rawTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.Exec(`INSERT INTO challenges(id, ord, name, short_name, category, modality, task_type, primary_metric, n_leaderboard) VALUES ('c',0,'C','C','segmentation','MRI','Seg','dice',1)`); err != nil {
			return err
		}
		return putRun(ctx, tx, Run{ID: "r1", Source: "s", Setting: "demo", Backend: "none", Challenge: "c", Agent: "a", Status: "done"})
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestValuesRanksAndCascade(t *testing.T) {
	s := open(t)
	seed(t, s)
	ctx := context.Background()
	err := s.rawTx(ctx, func(tx *sql.Tx) error {
		if err := putMetricValues(ctx, tx, "r1", map[string]float64{"dice": 0.123456789, "hd": math.NaN(), "psnr": math.Inf(1)}); err != nil {
			return err
		}
		return putRank(ctx, tx, "r1", rank.Result{Status: rank.OK, Positions: map[string]int{"dice": 3}, PosSum: 3, K: 1, N: 10, MeanRank: 3, Percentile: 0.8})
	})
	if err != nil {
		t.Fatal(err)
	}
	vals, err := metricValues(ctx, s.db, "r1")
	if err != nil || vals["dice"] != 0.123456789 || !math.IsNaN(vals["hd"]) || !math.IsInf(vals["psnr"], 1) {
		t.Fatalf("values %v %v", vals, err)
	}
	var rounded float64
	s.db.QueryRow(`SELECT rounded FROM metric_values WHERE run_id='r1' AND metric='dice'`).Scan(&rounded)
	if rounded != 0.12346 {
		t.Errorf("rounded %v", rounded)
	}
	if err := s.rawTx(ctx, func(tx *sql.Tx) error { return deleteSource(ctx, tx, "s") }); err != nil {
		t.Fatal(err)
	}
	var n int
	s.db.QueryRow(`SELECT (SELECT count(*) FROM metric_values) + (SELECT count(*) FROM positions) + (SELECT count(*) FROM ranks)`).Scan(&n)
	if n != 0 {
		t.Errorf("%d dependent rows left after deleting the run", n)
	}
}

func TestFailedTransactionLeavesNoTrace(t *testing.T) {
	s := open(t)
	seed(t, s)
	ctx := context.Background()
	boom := errors.New("interrupted")
	err := s.rawTx(ctx, func(tx *sql.Tx) error {
		if err := putMetricValues(ctx, tx, "r1", map[string]float64{"dice": 0.5}); err != nil {
			return err
		}
		return boom // the stage dies half-way
	})
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v", err)
	}
	vals, _ := metricValues(ctx, s.db, "r1")
	if len(vals) != 0 {
		t.Fatalf("a rolled-back stage left values: %v", vals)
	}
	// Foreign keys hold: a value for an unknown run is refused.
	err = s.rawTx(ctx, func(tx *sql.Tx) error { return putMetricValues(ctx, tx, "nope", map[string]float64{"x": 1}) })
	if err == nil {
		t.Fatal("value for an unknown run accepted")
	}
}

func TestOpenReadOnlyFolderSaysSo(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "results")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	os.Chmod(dir, 0o555)
	defer os.Chmod(dir, 0o755)
	if f, err := os.CreateTemp(dir, "probe"); err == nil {
		// Root ignores the mode bits; /proc takes no new files, even from root.
		f.Close()
		os.Remove(f.Name())
		dir = "/proc/self"
	}
	_, err := Open(context.Background(), filepath.Join(dir, "rexmle.sqlite"))
	if err == nil || !strings.Contains(err.Error(), "is not writable") || !strings.Contains(err.Error(), dir) {
		t.Fatalf("read-only folder: %v", err)
	}
}

// A store made before the judge's and the paper's tables became migrations
// already holds them (the judge created its own): opening it migrates
// without error and keeps their rows.
func TestMigrateOverOldJudgeTables(t *testing.T) {
	ctx := context.Background()
	p := filepath.Join(t.TempDir(), "old.sqlite")
	db, err := sql.Open("sqlite3", "file:"+p)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range loaded(t)[:5] {
		if _, err := db.Exec(m.sql); err != nil {
			t.Fatal(err)
		}
	}
	old := []string{
		`CREATE TABLE judge_calls (judge_name TEXT NOT NULL, judge_kind TEXT NOT NULL, rubric_hash TEXT NOT NULL, section_hash TEXT NOT NULL,
		  scores_json TEXT NOT NULL, raw_response TEXT NOT NULL DEFAULT '', attempts INTEGER NOT NULL DEFAULT 0, prompt_tokens INTEGER NOT NULL DEFAULT 0,
		  completion_tokens INTEGER NOT NULL DEFAULT 0, total_tokens INTEGER NOT NULL DEFAULT 0, cost_usd REAL NOT NULL DEFAULT 0, created_at TEXT NOT NULL,
		  PRIMARY KEY (judge_name, rubric_hash, section_hash))`,
		`INSERT INTO judge_calls(judge_name, judge_kind, rubric_hash, section_hash, scores_json, created_at) VALUES ('j','llm','r','s','[]','t')`,
		`PRAGMA user_version = 5`,
	}
	for _, q := range old {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	s, err := Open(ctx, p)
	if err != nil {
		t.Fatalf("open a version-5 store with the judge's own tables: %v", err)
	}
	defer s.Close()
	if v, _ := s.version(ctx); v != newestVersion(t) {
		t.Errorf("version %d, want %d", v, newestVersion(t))
	}
	c, ok, err := s.JudgeCall(ctx, "j", "r", "s")
	if err != nil || !ok || c.Kind != "llm" {
		t.Errorf("cached call after migration: %+v %v %v", c, ok, err)
	}
	if _, err := s.PaperCapabilities(ctx); err != nil {
		t.Errorf("paper_capabilities after migration: %v", err)
	}
	if _, err := s.AllJudgeSections(ctx); err != nil {
		t.Errorf("judge_sections after migration: %v", err)
	}
}

func TestRawQueryIsReadOnly(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "s.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var n int
	if err := s.RawQueryRow(ctx, " select count(*) from runs;").Scan(&n); err != nil {
		t.Fatalf("a SELECT was refused: %v", err)
	}
	var v int
	if err := s.RawQueryRow(ctx, "PRAGMA user_version").Scan(&v); err != nil || v != newestVersion(t) {
		t.Fatalf("PRAGMA user_version = %d, %v; want %d", v, err, newestVersion(t))
	}
	for _, q := range []string{
		"DELETE FROM runs",
		"INSERT INTO runs(id) VALUES ('x')",
		"SELECT 1; DELETE FROM runs",
		"PRAGMA user_version = 99",
		"PRAGMA journal_mode(DELETE)",
		"UPDATE runs SET status='done'",
		"",
	} {
		if rows, err := s.RawQuery(ctx, q); err == nil {
			rows.Close()
			t.Errorf("RawQuery(%q) ran", q)
		}
		if err := s.RawQueryRow(ctx, q).Scan(&n); err == nil {
			t.Errorf("RawQueryRow(%q) ran", q)
		}
	}
	if v, _ := s.version(ctx); v != newestVersion(t) {
		t.Errorf("schema version changed to %d", v)
	}
}

// Digest depends on the rows of the named tables, not on the order they
// were written in, and changes with any value; an unknown table is an error.
func TestDigestFollowsContentNotOrder(t *testing.T) {
	ctx := context.Background()
	open := func() *Store {
		st, err := Open(ctx, filepath.Join(t.TempDir(), "s.sqlite"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return st
	}
	put := func(st *Store, ids ...string) {
		err := st.Update(ctx, func(tx *Tx) error {
			if err := tx.SyncChallenges(ctx, nil); err != nil {
				return err
			}
			_, err := tx.tx.ExecContext(ctx, `INSERT INTO challenges(id, ord, name, short_name, category, modality, task_type, primary_metric, n_leaderboard) VALUES ('c',1,'C','C','seg','CT','seg','dice',3)`)
			if err != nil {
				return err
			}
			for _, id := range ids {
				if err := tx.PutRun(ctx, Run{ID: id, Source: "demo", Setting: "demo", Backend: "none", Challenge: "c", Agent: id, Seed: 1, Status: "done"}); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	a, b := open(), open()
	put(a, "r1", "r2")
	put(b, "r2", "r1")
	da, err := a.Digest(ctx, "runs", "challenges")
	if err != nil {
		t.Fatal(err)
	}
	db, err := b.Digest(ctx, "challenges", "runs")
	if err != nil {
		t.Fatal(err)
	}
	if da != db {
		t.Fatalf("same rows written in another order: digests %s and %s differ", da, db)
	}
	if err := b.Update(ctx, func(tx *Tx) error {
		return tx.PutRun(ctx, Run{ID: "r1", Source: "demo", Setting: "demo", Backend: "none", Challenge: "c", Agent: "r1", Seed: 1, Status: "failed"})
	}); err != nil {
		t.Fatal(err)
	}
	if db2, _ := b.Digest(ctx, "runs", "challenges"); db2 == da {
		t.Fatal("a changed status left the digest as it was")
	}
	if d, _ := b.Digest(ctx, "challenges"); d != func() string { d, _ := a.Digest(ctx, "challenges"); return d }() {
		t.Fatal("a table that did not change has another digest")
	}
	if _, err := a.Digest(ctx, "runs; DROP TABLE runs"); err == nil {
		t.Fatal("an unknown table was accepted")
	}
}
