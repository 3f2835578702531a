package bundle

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/rexmle/rexmle/pipeline/report"
	"github.com/rexmle/rexmle/pipeline/report/reporttest"
	"github.com/rexmle/rexmle/pipeline/store"
)

// rows is every bundled row of st, by table.
func rows(t *testing.T, st *store.Store) map[string][][]any {
	t.Helper()
	out := map[string][][]any{}
	for _, tb := range store.BundleTables {
		err := st.BundleRows(context.Background(), tb, func(v []any) error {
			out[tb.Name] = append(out[tb.Name], v)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// written is a bundle of a store with every bundled table filled.
func written(t *testing.T) (st *store.Store, dir string) {
	t.Helper()
	ctx := context.Background()
	b := reporttest.Benchmark(t)
	st = reporttest.Store(t)
	if err := reporttest.Fill(ctx, st, b, reporttest.Spec{Source: "standin", Agents: 1, Seeds: 1, Cases: 3, MeanCases: true, Strategies: 2, GPUSamples: 2, RandSeed: 4}); err != nil {
		t.Fatal(err)
	}
	// A graded run with a per-case detail, an infinite value and HTML in its text.
	err := st.Update(ctx, func(tx *store.Tx) error {
		id := "standin/isles22/extra/seed-1"
		if err := tx.PutRun(ctx, store.Run{ID: id, Source: "standin", Setting: "24h", Backend: "b", Challenge: "isles22", Agent: "extra", Seed: 1,
			Status: store.RunDone, Detail: "<b>&</b> \u2028 é", SubmissionDir: "/home/someone/runs/x"}); err != nil {
			return err
		}
		if err := tx.PutGrade(ctx, store.Grade{RunID: id, Mode: "reference", Valid: true, GradedAt: "t", AnswersHash: "secret", GraderMS: 1.5}); err != nil {
			return err
		}
		if err := tx.PutMetricValues(ctx, id, map[string]float64{"dice": 0.1 + 0.2, "hd95": math.Inf(1)}); err != nil {
			return err
		}
		return tx.PutCaseValues(ctx, id, []store.CaseValues{{Case: "c1", Values: map[string]float64{"dice": 0.3}, Detail: []byte{0, 1, 255}}})
	})
	if err != nil {
		t.Fatal(err)
	}
	sec := store.JudgeSection{RunKey: "standin/isles22/extra/seed-1", RunID: "standin", Challenge: "isles22", Agent: "extra", Backend: "b", Seed: 1,
		Section: "log#1", Source: "log", Format: "text", Judge: "heuristic-v1", Kind: "heuristic", RubricHash: "r", SectionHash: "s", Status: "ok", JudgedAt: "t"}
	if err := st.PutJudgedRun(ctx, store.JudgedRun{RunKey: sec.RunKey, Judge: sec.Judge, RubricHash: sec.RubricHash, Sections: []store.JudgeSection{sec}}); err != nil {
		t.Fatal(err)
	}
	exp := filepath.Join(t.TempDir(), "capabilities.csv")
	os.WriteFile(exp, []byte("agent,strategy\nx,y\n"), 0o644)
	dir = filepath.Join(t.TempDir(), "results", Folder, "paper")
	_, err = Write(ctx, st, dir, WriteOptions{Profile: "paper", ToolCommit: "abc", Boot: 10, BootSeed: 7,
		Datasets: []report.Dataset{{Challenge: "isles22", InputHash: "h", Files: "3", AlsoSaw: "data only", ManifestSHA256: "m"}}, Exports: []string{exp}})
	if err != nil {
		t.Fatal(err)
	}
	return st, dir
}

// A bundle written from a store and restored into an empty one gives the
// same rows, its datasets and exports, and the same files when written
// again; Find sees it.
func TestWriteOpenRestore(t *testing.T) {
	ctx := context.Background()
	st, dir := written(t)
	orig := rows(t, st)
	for _, tb := range store.BundleTables {
		if len(orig[tb.Name]) == 0 {
			t.Errorf("the test store has no %s rows", tb.Name)
		}
	}
	if d, ok := Find(filepath.Dir(filepath.Dir(dir)), "paper"); !ok || d != dir {
		t.Errorf("Find = %s, %v", d, ok)
	}
	if _, ok := Find(filepath.Dir(filepath.Dir(dir)), "demo"); ok {
		t.Error("Find found a demo bundle")
	}
	bd, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if bd.Manifest.Boot != 10 || bd.Manifest.BootSeed != 7 || bd.Manifest.ToolCommit != "abc" || !reflect.DeepEqual(bd.Manifest.Sources, []string{"standin"}) {
		t.Errorf("manifest %+v", bd.Manifest)
	}
	if len(bd.Datasets) != 1 || bd.Datasets[0].InputHash != "h" {
		t.Errorf("datasets %+v", bd.Datasets)
	}
	if ex := bd.Exports(); len(ex) != 1 || filepath.Base(ex[0]) != "capabilities.csv" {
		t.Errorf("exports %v", ex)
	}
	fresh := reporttest.Store(t)
	if err := bd.Restore(ctx, fresh, reporttest.Benchmark(t)); err != nil {
		t.Fatal(err)
	}
	if got := rows(t, fresh); !reflect.DeepEqual(got, orig) {
		t.Error("restored rows differ from the store's")
	}
	if err := bd.Restore(ctx, fresh, reporttest.Benchmark(t)); err == nil || !strings.Contains(err.Error(), "already holds runs") {
		t.Errorf("restoring twice: %v", err)
	}
	// Written again from the restored store: the same bytes.
	dir2 := filepath.Join(t.TempDir(), "paper")
	if _, err := Write(ctx, fresh, dir2, WriteOptions{Profile: "paper", ToolCommit: "abc", Boot: 10, BootSeed: 7, Datasets: bd.Datasets, Exports: bd.Exports()}); err != nil {
		t.Fatal(err)
	}
	for _, f := range append(bd.Manifest.Files, File{Name: ManifestFile}) {
		a, _ := os.ReadFile(filepath.Join(dir, f.Name))
		b, _ := os.ReadFile(filepath.Join(dir2, f.Name))
		if !bytes.Equal(a, b) {
			t.Errorf("%s differs when written again", f.Name)
		}
	}
	// What a killed Write leaves is cleared by the next one.
	os.MkdirAll(filepath.Join(filepath.Dir(dir2), ".paper.writing-123", "x"), 0o755)
	os.MkdirAll(dir2+".old", 0o755)
	if _, err := Write(ctx, fresh, dir2, WriteOptions{Profile: "paper"}); err != nil {
		t.Fatal(err)
	}
	if left, _ := filepath.Glob(filepath.Join(filepath.Dir(dir2), ".paper.*")); len(left) > 0 {
		t.Errorf("left behind: %v", left)
	}
	if _, err := os.Stat(dir2 + ".old"); err == nil {
		t.Error("paper.old left behind")
	}
	if st, err := os.Stat(dir); err != nil || st.Mode().Perm() != 0o755 {
		t.Errorf("bundle folder mode %v, %v", st.Mode(), err)
	}
}

// Bad bundles are refused with the file, the field or line, and what was
// expected.
func TestOpenRefuses(t *testing.T) {
	ctx := context.Background()
	var edit func(t *testing.T, dir, name string, fn func(string) string, fixSum bool)
	edit = func(t *testing.T, dir, name string, fn func(string) string, fixSum bool) {
		t.Helper()
		p := filepath.Join(dir, name)
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		nb := fn(string(b))
		if nb == string(b) {
			t.Fatalf("%s: the edit changed nothing", name)
		}
		os.WriteFile(p, []byte(nb), 0o644)
		if fixSum {
			old := sha256.Sum256(b)
			sum := sha256.Sum256([]byte(nb))
			edit(t, dir, ManifestFile, func(s string) string {
				return strings.Replace(s, hex.EncodeToString(old[:]), hex.EncodeToString(sum[:]), 1)
			}, false)
		}
	}
	firstLine := func(s string) string { return s[:strings.Index(s, "\n")+1] }
	cases := []struct {
		name string
		bad  func(t *testing.T, dir string)
		want []string // in the error
	}{
		{"newer schema", func(t *testing.T, dir string) {
			edit(t, dir, ManifestFile, func(s string) string { return strings.Replace(s, "schema = 1", "schema = 2", 1) }, false)
		}, []string{ManifestFile, "field schema", "newer", "update rexmle"}},
		{"older schema", func(t *testing.T, dir string) {
			edit(t, dir, ManifestFile, func(s string) string { return strings.Replace(s, "schema = 1", "schema = 0", 1) }, false)
		}, []string{ManifestFile, "field schema", "older", "mage.go publish"}},
		{"no schema", func(t *testing.T, dir string) {
			edit(t, dir, ManifestFile, func(s string) string { return strings.Replace(s, "schema = 1\n", "", 1) }, false)
		}, []string{ManifestFile, "field schema missing"}},
		{"unknown manifest field", func(t *testing.T, dir string) {
			edit(t, dir, ManifestFile, func(s string) string { return strings.Replace(s, "schema = 1", "schema = 1\nsecret = \"x\"", 1) }, false)
		}, []string{ManifestFile, "unknown field secret"}},
		{"changed file", func(t *testing.T, dir string) {
			edit(t, dir, "runs.jsonl", func(s string) string { return strings.Replace(s, `"seed":1`, `"seed":2`, 1) }, false)
		}, []string{ManifestFile, "sha256", "runs.jsonl", "changed after it was written"}},
		{"unlisted file", func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, "rexmle.sqlite"), []byte("x"), 0o644)
		}, []string{"rexmle.sqlite", "not listed"}},
		{"path outside", func(t *testing.T, dir string) {
			edit(t, dir, ManifestFile, func(s string) string {
				return strings.Replace(s, `"exports/capabilities.csv"`, `"../capabilities.csv"`, 1)
			}, false)
		}, []string{ManifestFile, "field name", "../capabilities.csv"}},
		{"unknown row field", func(t *testing.T, dir string) {
			edit(t, dir, "runs.jsonl", func(s string) string { return strings.Replace(s, `"seed":1`, `"seed":1,"submission_dir":"/x"`, 1) }, true)
		}, []string{"runs.jsonl line 1", `unknown field "submission_dir"`}},
		{"missing row field", func(t *testing.T, dir string) {
			edit(t, dir, "metric_values.jsonl", func(s string) string { return strings.Replace(s, `,"rounded":`, `,"x":`, 1) }, true)
		}, []string{"metric_values.jsonl line 1", `field "rounded" missing`}},
		{"wrong type", func(t *testing.T, dir string) {
			edit(t, dir, "runs.jsonl", func(s string) string { return strings.Replace(s, `"seed":1`, `"seed":"one"`, 1) }, true)
		}, []string{"runs.jsonl line 1", `field "seed"`, "want an integer", `"one"`}},
		{"null where none", func(t *testing.T, dir string) {
			edit(t, dir, "runs.jsonl", func(s string) string { return strings.Replace(s, `"agent":"agent-00"`, `"agent":null`, 1) }, true)
		}, []string{"runs.jsonl line 1", `field "agent"`, "null where a text is required"}},
		{"not json", func(t *testing.T, dir string) {
			edit(t, dir, "case_values.jsonl", func(s string) string { return "{oops\n" + s }, true)
		}, []string{"case_values.jsonl line 1", "one JSON object per line"}},
		{"unknown challenge", func(t *testing.T, dir string) {
			edit(t, dir, "runs.jsonl", func(s string) string {
				l := firstLine(s)
				return strings.Replace(s, l, strings.Replace(l, `"challenge_id":"`, `"challenge_id":"nope-`, 1), 1)
			}, true)
		}, []string{"runs.jsonl line 1", `field "challenge_id"`, "nope-", "benchmark.toml"}},
		{"bad blob", func(t *testing.T, dir string) {
			edit(t, dir, "case_details.jsonl", func(s string) string { return strings.Replace(s, `"detail":"`, `"detail":"!!`, 1) }, true)
		}, []string{"case_details.jsonl line 1", `field "detail"`, "base64"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, dir := written(t)
			c.bad(t, dir)
			bd, err := Open(dir)
			if err == nil {
				err = bd.Restore(ctx, reporttest.Store(t), reporttest.Benchmark(t))
			}
			if err == nil {
				t.Fatal("accepted")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}
