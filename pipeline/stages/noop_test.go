package stages

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rexmle/rexmle/pipeline/binaries"
	"github.com/rexmle/rexmle/pipeline/store"
)

const quietProfile = `
[[agent]]
id = "nosandbox"
name = "The sample agent without a sandbox (so the test needs no bwrap)"
backend = "none"
builtin = "sample"
sandbox = "none"
time_limit = "1m"

[profile.quiet]
description = "one agent, one challenge"
data = "synthetic"
agents = ["nosandbox"]
seeds = [1]
setting = "demo"
judge = "heuristic"
scheduler = "local"
`

// A second `all` over unchanged inputs does no work in any stage: each
// says it skipped, no file under data/, results/ or site/ and no row of the
// store changes, and the summary is one line. (What `mage all` runs:
// prepare, run, grade, rank, judge, report, summary.)
func TestSecondAllDoesNoWork(t *testing.T) {
	if testing.Short() {
		t.Skip("builds rexmle-agent and runs the whole pipeline on one challenge")
	}
	o := runBench(t, quietProfile)
	o.Profile = "quiet"
	root := filepath.Dir(o.Config)
	ctx := context.Background()
	if err := binaries.Build(ctx, root); err != nil {
		t.Fatal(err)
	}
	all := func() string {
		t.Helper()
		changedInThisProcess.Store(false) // as a new mage process starts
		out, err := stdoutOf(func() error {
			for _, stage := range []func(context.Context, Options) error{Prepare, Run, Grade, Rank, Judge, Report, Summary} {
				if err := stage(ctx, o); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatalf("all: %v\n%s", err, out)
		}
		return out
	}
	snapshot := func() map[string]string {
		t.Helper()
		files := map[string]string{}
		for _, dir := range []string{"data", "results", "site"} {
			filepath.WalkDir(filepath.Join(root, dir), func(p string, d fs.DirEntry, err error) error {
				if err != nil || !d.Type().IsRegular() || strings.HasPrefix(d.Name(), "rexmle.sqlite") {
					return nil
				}
				info, err := d.Info()
				if err == nil {
					files[p] = fmt.Sprintf("%d %d", info.Size(), info.ModTime().UnixNano())
				}
				return nil
			})
		}
		st, err := store.Open(ctx, filepath.Join(root, "results", "rexmle.sqlite"))
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		tables, err := st.Tables(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, tb := range tables {
			d, err := st.Digest(ctx, tb)
			if err != nil {
				t.Fatal(err)
			}
			files["table "+tb] = d
		}
		return files
	}
	first := all()
	for _, want := range []string{"prepare: 1 prepared", "run: 1 run(s)", "grade: 1 graded", "rank: ", "judge (heuristic", "report: ", "Done (profile quiet)."} {
		if !strings.Contains(first, want) {
			t.Errorf("first all: no %q in:\n%s", want, first)
		}
	}
	before := snapshot()
	second := all()
	want := []string{
		"prepare: 1 challenge(s) up to date, skipped",
		"run: up to date, nothing to run (1 finished runs kept)",
		"grade: nothing to grade (1 submissions, all graded)",
		"rank: up to date (store, settings and exports unchanged since ",
		"judge: up to date (runs, rubric and scores unchanged since ",
		"report: up to date (store, exports and site unchanged since ",
		"Done (profile quiet): nothing changed;",
	}
	lines := strings.Split(strings.TrimSpace(second), "\n")
	if len(lines) != len(want) {
		t.Errorf("second all printed %d lines, want %d (one per stage and the summary):\n%s", len(lines), len(want), second)
	}
	for i, w := range want {
		if i >= len(lines) || !strings.HasPrefix(lines[i], w) {
			t.Errorf("second all, line %d: want it to start %q in:\n%s", i+1, w, second)
		}
	}
	after := snapshot()
	for k, v := range before {
		if after[k] != v {
			t.Errorf("the second all changed %s", k)
		}
	}
	for k := range after {
		if _, ok := before[k]; !ok {
			t.Errorf("the second all wrote %s", k)
		}
	}
	// A changed output is noticed: with an export gone, rank writes it again
	// and report, whose inputs changed with it, builds again.
	if err := os.Remove(filepath.Join(root, "results", "overall.csv")); err != nil {
		t.Fatal(err)
	}
	third := all()
	if !strings.Contains(third, " runs ranked in ") {
		t.Errorf("rank skipped though overall.csv was removed:\n%s", third)
	}
	if _, err := os.Stat(filepath.Join(root, "results", "overall.csv")); err != nil {
		t.Errorf("rank did not write overall.csv again: %v", err)
	}
	if !strings.Contains(third, "report: ") || strings.Contains(third, "report: up to date") {
		t.Errorf("report skipped though rank wrote new exports:\n%s", third)
	}
}
