package judge

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkHeuristicScore scores one full-size (15,000-character) section.
func BenchmarkHeuristicScore(b *testing.B) {
	r, err := LoadRubric(repoRubric)
	if err != nil {
		b.Fatal(err)
	}
	neg, _ := os.ReadFile(filepath.Join("testdata", "heuristic", "negative.txt"))
	text := strings.Repeat(string(neg), DefaultMaxChars/len(neg)+1)[:DefaultMaxChars]
	sec := Section{Label: "bench", Text: text}
	h := NewHeuristic()
	b.SetBytes(int64(len(text)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := h.Score(context.Background(), sec, r); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRunHeuristic judges 20 runs × 10 sections end to end (ingestion,
// heuristic judge, SQLite writes), with a fresh database each iteration.
func BenchmarkRunHeuristic(b *testing.B) {
	dir := b.TempDir()
	root := filepath.Join(dir, "runs")
	for run := 0; run < 20; run++ {
		plans := make([]string, 10)
		for k := range plans {
			plans[k] = fmt.Sprintf("run %d section %d: trained with DiceLoss, optuna study, albumentations %s", run, k, strings.Repeat("x", 2000))
		}
		writeRun(b, root, "r", fmt.Sprintf("c%02d", run), "a", 0, "", plans...)
	}
	runs, err := DiscoverRuns(root)
	if err != nil || len(runs) != 20 {
		b.Fatalf("discover: %v %d", err, len(runs))
	}
	cfg := Config{RubricPath: repoRubric, Judge: JudgeHeuristic, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		db := openDBb(b, filepath.Join(dir, fmt.Sprintf("db%d", i)))
		b.StartTimer()
		rep, err := Run(context.Background(), db, cfg, runs)
		if err != nil || rep.Sections != 200 {
			b.Fatalf("run: %v %+v", err, rep)
		}
		b.StopTimer()
		db.Close()
		b.StartTimer()
	}
}
