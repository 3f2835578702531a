package report

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rexmle/rexmle/pipeline/fetch"
	"github.com/rexmle/rexmle/pipeline/rankstage"
	"github.com/rexmle/rexmle/pipeline/report/reporttest"
)

// The provenance page's datasets table says where each challenge's raw data
// came from: placed by hand and verified (fetchVerify's record), placed by
// hand and not checked, or nothing there.
func TestProvenanceSaysHowRawDataCame(t *testing.T) {
	ctx := context.Background()
	b := reporttest.Benchmark(t)
	st := reporttest.Store(t)
	if _, err := rankstage.Run(ctx, b, st); err != nil {
		t.Fatal(err)
	}
	data := t.TempDir()
	isles := filepath.Join(data, "raw", "isles22")
	if err := os.MkdirAll(isles, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(isles, "ISLES-2022.zip"), []byte("zip"), 0o644)
	hand := []fetch.HandFile{{Name: "ISLES-2022.zip", Status: fetch.HandVerified, Why: "md5 and size as published", Files: 1}}
	if err := fetch.WriteHandRecord(isles, hand, time.Date(2026, 11, 28, 1, 0, 0, 0, time.UTC)); err != nil {
		t.Fatal(err)
	}
	dentex := filepath.Join(data, "raw", "dentex")
	os.MkdirAll(dentex, 0o755)
	os.WriteFile(filepath.Join(dentex, "training_data.zip"), []byte("zip"), 0o644)
	dir := t.TempDir()
	if _, err := Build(ctx, Options{Store: st, Benchmark: b, OutDir: dir, GitCommit: "x", Profile: "paper", DataDir: data}); err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(filepath.Join(dir, "provenance.html"))
	if err != nil {
		t.Fatal(err)
	}
	s := string(page)
	for _, want := range []string{">Raw data<", "placed by hand, verified on 2026-11-28T01:00:00Z against the published checksums: ISLES-2022.zip",
		"placed by hand, not checked (run mage fetchVerify)"} {
		if !strings.Contains(s, want) {
			t.Errorf("provenance page lacks %q", want)
		}
	}
}
