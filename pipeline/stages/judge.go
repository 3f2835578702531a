package stages

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/rexmle/rexmle/pipeline/judge"
)

// Judge scores every run's logs with the configured judge (heuristic on the
// demo profile) and writes results/capabilities.csv.
func Judge(ctx context.Context, o Options) error {
	e, err := load(o)
	if err != nil {
		return err
	}
	runs, err := judge.DiscoverRuns(e.b.Path(e.b.Paths.Runs))
	if err != nil {
		return fmt.Errorf("judge: no runs to judge (run `go run mage.go run` first): %w", err)
	}
	kind := e.b.Judge.Kind
	if e.profile.Judge != "" {
		kind = e.profile.Judge
	}
	st, err := e.open(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	cfg := judge.Config{
		RubricPath: e.b.Path(e.b.Judge.Rubric),
		Judge:      kind,
		OpenAI: judge.OpenAIConfig{Model: e.b.Judge.Model, BaseURL: e.b.Judge.BaseURL, APIKeyEnv: e.b.Judge.APIKeyEnv,
			Timeout: e.b.Judge.Timeout.Duration, Concurrency: e.b.Judge.Concurrency, AnswerRetries: e.b.Judge.Retries},
		Ingest: judge.IngestOptions{MaxChars: e.b.Judge.MaxChars},
		Force:  o.Force,
	}
	var bar *progress
	cfg.Progress = func(p judge.Progress) {
		if bar == nil {
			bar = newProgress("judge", p.Total)
		}
		bar.step(fmt.Sprintf("%s (cache hits %d, errors %d)", p.Run, p.CacheHits, p.Errors), true)
	}
	rep, err := judge.Run(ctx, st.DB, cfg, runs)
	if bar != nil {
		bar.finish()
	}
	if err != nil {
		return fmt.Errorf("judge: %w", err)
	}
	out := filepath.Join(e.b.Path(e.b.Paths.Results), "capabilities.csv")
	if err := judge.WriteCapabilitiesCSV(out, rep.Profiles.ByAgent); err != nil {
		return fmt.Errorf("judge: %w", err)
	}
	fmt.Printf("judge (%s, %s): %d runs, %d sections, %d judged, %d from cache, %d errors, %d strategies undecided; wrote %s\n",
		rep.JudgeKind, rep.Judge, rep.Runs, rep.Sections, rep.Judged, rep.CacheHits, rep.Errors, rep.MissingStrategies, rel(out))
	for k, v := range rep.RunErrors {
		fmt.Printf("  %s: %s\n", k, v)
	}
	return nil
}
