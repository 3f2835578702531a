package report

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/rexmle/rexmle/pipeline/config"
	"github.com/rexmle/rexmle/pipeline/rankstage"
	"github.com/rexmle/rexmle/pipeline/report/reporttest"
	"github.com/rexmle/rexmle/pipeline/store"
)

// TestBuildFromStore builds the site from a store file opened afresh, as
// `mage report` does: by default one this test fills with synthetic runs
// (reporttest.Fill) in a temporary folder, so it runs anywhere, CI
// included; REXMLE_REPORT_STORE may name an existing store instead (a copy
// of results/rexmle.sqlite) and REXMLE_REPORT_OUT the output folder
// (default a temporary folder).
func TestBuildFromStore(t *testing.T) {
	ctx := context.Background()
	b, err := config.Load("../../benchmark.toml")
	if err != nil {
		t.Fatal(err)
	}
	path := os.Getenv("REXMLE_REPORT_STORE")
	dataDir := ""
	if path == "" {
		path = filepath.Join(t.TempDir(), "rexmle.sqlite")
		st, err := store.Open(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		err = reporttest.Fill(ctx, st, b, reporttest.Spec{Agents: 1, Seeds: 1, Cases: 2, Strategies: 2, GPUSamples: 2, RandSeed: 7})
		if err == nil {
			_, err = rankstage.Run(ctx, b, st)
		}
		st.Close()
		if err != nil {
			t.Fatal(err)
		}
	} else {
		dataDir = "../../data"
	}
	out := os.Getenv("REXMLE_REPORT_OUT")
	if out == "" {
		out = t.TempDir()
	}
	st, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	res, err := Build(ctx, Options{Store: st, Benchmark: b, OutDir: out, ResultsDir: "../../results", DataDir: dataDir})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %d pages, %d tables, %d files, %d disagreements into %s", len(res.Pages), res.Tables, res.Files, res.Disagreements, out)
	if len(res.Pages) == 0 {
		t.Error("no pages written")
	}
	if err := checkLinks(out); err != nil {
		t.Error(err)
	}
}
