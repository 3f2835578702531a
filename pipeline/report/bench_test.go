package report

import (
	"context"
	"io"
	"log/slog"
	"testing"

	"github.com/rexmle/rexmle/pipeline/rankstage"

	"github.com/rexmle/rexmle/pipeline/report/reporttest"
)

// BenchmarkBuild builds the site of a store with 20 challenges × 10 agents ×
// 3 seeds of synthetic runs (10 per-case values and 12 capability
// strategies per run, 30 GPU samples per run on the first challenge).
func BenchmarkBuild(b *testing.B) {
	ctx := context.Background()
	bm := reporttest.Benchmark(b)
	st := reporttest.Store(b)
	if err := reporttest.Fill(ctx, st, bm, reporttest.Spec{Agents: 10, Seeds: 3, Cases: 10, Strategies: 12, GPUSamples: 30, RandSeed: 1}); err != nil {
		b.Fatal(err)
	}
	if _, err := rankstage.Run(ctx, bm, st); err != nil {
		b.Fatal(err)
	}
	out := b.TempDir()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	b.ResetTimer()
	for b.Loop() {
		if _, err := Build(ctx, Options{Store: st, Benchmark: bm, OutDir: out, GitCommit: "bench", Logger: log}); err != nil {
			b.Fatal(err)
		}
	}
}
