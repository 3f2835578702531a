package judge

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/rexmle/rexmle/pipeline/store"
)

// The judge's tables (judge_calls, the cache keyed by judge name, rubric
// hash and section hash; judge_sections; capability_scores) are part of the
// store's versioned schema; the functions below turn the judge's values into
// the store's rows and back.

// Records is what Run needs of the pipeline's store (*store.Store is it):
// the judge's cache, the judged runs' rows and their scores. Declared here,
// by its consumer, so that a test can hand Run a store that fails.
type Records interface {
	JudgeCall(ctx context.Context, judge, rubricHash, sectionHash string) (store.JudgeCall, bool, error)
	PutJudgeCalls(ctx context.Context, calls []store.JudgeCall) error
	PutJudgedRun(ctx context.Context, r store.JudgedRun) error
	HasJudgedRun(ctx context.Context, runKey, judge, rubricHash string) (bool, error)
	ForgetJudgedRun(ctx context.Context, runKey string) error
	CapabilityScores(ctx context.Context, judge, rubricHash string) ([]store.CapabilityScore, error)
}

// cachedCall reads a cached complete answer; ok is false when none exists.
func cachedCall(ctx context.Context, st Records, judgeName, rubricHash, sectionHash string) (SectionScore, bool, error) {
	var s SectionScore
	c, ok, err := st.JudgeCall(ctx, judgeName, rubricHash, sectionHash)
	if err != nil || !ok {
		return s, false, err
	}
	// Attempts and usage stay in the row: a cache hit costs nothing now.
	s.Kind, s.Raw = c.Kind, c.Raw
	if err := json.Unmarshal([]byte(c.ScoresJSON), &s.Scores); err != nil {
		return s, false, nil // unreadable cache row: judge again
	}
	s.Judge, s.RubricHash, s.SectionHash = judgeName, rubricHash, sectionHash
	s.CacheHit = true
	s.Status = StatusOK
	return s, true, nil
}

// judgedSection is one section's outcome, ready to store.
type judgedSection struct {
	Section Section
	Score   SectionScore
}

// newCalls returns the cache rows of the complete answers newly made among
// secs.
func newCalls(run RunLogs, judgeName, judgeKind string, rub *Rubric, secs []judgedSection, now string) ([]store.JudgeCall, error) {
	var out []store.JudgeCall
	for _, js := range secs {
		sc := js.Score
		if sc.Status != StatusOK || sc.CacheHit {
			continue
		}
		b, err := json.Marshal(sc.Scores)
		if err != nil {
			return nil, fmt.Errorf("store judge cache of %s: %w", run.Key(), err)
		}
		out = append(out, store.JudgeCall{Judge: judgeName, Kind: judgeKind, RubricHash: rub.Hash, SectionHash: sc.SectionHash,
			ScoresJSON: string(b), Raw: sc.Raw, Attempts: sc.Attempts, PromptTokens: sc.Usage.PromptTokens,
			CompletionTokens: sc.Usage.CompletionTokens, TotalTokens: sc.Usage.TotalTokens, CostUSD: sc.Usage.CostUSD, CreatedAt: now})
	}
	return out, nil
}

// storeRun writes one run's sections and scores, and the cache rows of
// newly made complete answers, in one transaction. Rows of the same run,
// judge and rubric from an earlier pass are replaced.
func storeRun(ctx context.Context, st Records, run RunLogs, judgeName, judgeKind string, rub *Rubric, secs []judgedSection) error {
	now := time.Now().UTC().Format(time.RFC3339)
	key := run.Key()
	calls, err := newCalls(run, judgeName, judgeKind, rub, secs, now)
	if err != nil {
		return err
	}
	jr := store.JudgedRun{RunKey: key, Judge: judgeName, RubricHash: rub.Hash, Calls: calls}
	score := func(sec string, id int, name string, v *int, evidence string) store.CapabilityScore {
		return store.CapabilityScore{RunKey: key, RunID: run.RunID, Challenge: run.Challenge, Agent: run.Agent,
			Backend: run.Backend, Seed: run.Seed, Section: sec, JudgeName: judgeName, JudgeKind: judgeKind,
			RubricHash: rub.Hash, StrategyID: id, Strategy: name, Score: v, Evidence: evidence}
	}
	for _, js := range secs {
		sc, sec := js.Score, js.Section
		jr.Sections = append(jr.Sections, store.JudgeSection{RunKey: key, RunID: run.RunID, Challenge: run.Challenge,
			Agent: run.Agent, Backend: run.Backend, Seed: run.Seed, Section: sec.Label, Source: sec.Source,
			Format: string(sec.Format), Judge: judgeName, Kind: judgeKind, RubricHash: rub.Hash, SectionHash: sc.SectionHash,
			OrigChars: sec.OrigChars, SentChars: len([]rune(sec.Text)), Truncated: sec.Truncated, Status: sc.Status,
			NMissing: len(sc.Missing), Error: sc.Error, CacheHit: sc.CacheHit, Attempts: sc.Attempts,
			PromptTokens: sc.Usage.PromptTokens, CompletionTokens: sc.Usage.CompletionTokens, CostUSD: sc.Usage.CostUSD, JudgedAt: now})
		for _, s := range sc.Scores {
			v := s.Score
			jr.Scores = append(jr.Scores, score(sec.Label, s.ID, s.Name, &v, s.Evidence))
		}
		for _, id := range sc.Missing {
			name := ""
			if st, ok := rub.Strategy(id); ok {
				name = st.Name
			}
			jr.Scores = append(jr.Scores, score(sec.Label, id, name, nil, ""))
		}
	}
	return st.PutJudgedRun(ctx, jr)
}

// storeCalls caches the complete answers among secs (judge_calls rows)
// without touching the run's stored sections and scores: used for a run
// whose judging failed in part, so its earlier scores stay.
func storeCalls(ctx context.Context, st Records, run RunLogs, judgeName, judgeKind string, rub *Rubric, secs []judgedSection) error {
	calls, err := newCalls(run, judgeName, judgeKind, rub, secs, time.Now().UTC().Format(time.RFC3339))
	if err != nil {
		return err
	}
	if err := st.PutJudgeCalls(ctx, calls); err != nil {
		return fmt.Errorf("store judge cache of %s: %w", run.Key(), err)
	}
	return nil
}

// ScoreRow is one stored capability score (score nil = missing coverage).
type ScoreRow = store.CapabilityScore

// LoadScores reads every capability score of one judge and rubric hash,
// ordered by run, section and strategy. Empty judgeName or rubricHash match
// any.
func LoadScores(ctx context.Context, st Records, judgeName, rubricHash string) ([]ScoreRow, error) {
	return st.CapabilityScores(ctx, judgeName, rubricHash)
}

// StoreProfiles replaces the stored capability profiles of run group
// source under rep's judge and rubric with rep's per-agent profiles: the
// one computation the results site reads.
func StoreProfiles(ctx context.Context, st *store.Store, source string, rep *Report) error {
	rows := make([]store.CapabilityProfile, 0, len(rep.Profiles.ByAgent))
	for _, a := range rep.Profiles.ByAgent {
		if a.Judge != rep.Judge {
			continue
		}
		rows = append(rows, store.CapabilityProfile{Source: source, JudgeName: a.Judge, JudgeKind: a.JudgeKind, RubricHash: rep.RubricHash,
			Agent: a.Agent, Backend: a.Backend, StrategyID: a.StrategyID, Strategy: a.Strategy, Mean: a.Mean,
			NSections: a.NSections, NMissing: a.NMissing, NRuns: a.NRuns, NFailed: a.NFailed, Evidence: a.Evidence})
	}
	return st.ReplaceCapabilityProfiles(ctx, source, rep.Judge, rep.RubricHash, rows)
}
