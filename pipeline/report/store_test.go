package report

import (
	"context"
	"os"
	"testing"

	"github.com/rexmle/rexmle/pipeline/config"
	"github.com/rexmle/rexmle/pipeline/judge"
	"github.com/rexmle/rexmle/pipeline/store"
)

// TestBuildFromStore builds the site from an existing store when
// REXMLE_REPORT_STORE names one (a copy of results/rexmle.sqlite), into
// REXMLE_REPORT_OUT (default a temporary folder). Skipped otherwise.
func TestBuildFromStore(t *testing.T) {
	path := os.Getenv("REXMLE_REPORT_STORE")
	if path == "" {
		t.Skip("REXMLE_REPORT_STORE not set: no existing store to build from")
	}
	out := os.Getenv("REXMLE_REPORT_OUT")
	if out == "" {
		out = t.TempDir()
	}
	ctx := context.Background()
	st, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := judge.Migrate(ctx, st.DB); err != nil {
		t.Fatal(err)
	}
	b, err := config.Load("../../benchmark.toml")
	if err != nil {
		t.Fatal(err)
	}
	res, err := Build(ctx, Options{DB: st.DB, Benchmark: b, OutDir: out, ResultsDir: "../../results", DataDir: "../../data"})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %d pages, %d tables, %d files, %d disagreements into %s", len(res.Pages), res.Tables, res.Files, res.Disagreements, out)
	if err := checkLinks(out); err != nil {
		t.Error(err)
	}
}
