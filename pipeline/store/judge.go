package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
)

// JudgeCall is one cached complete answer of a judge (table judge_calls).
type JudgeCall struct {
	Judge, Kind, RubricHash, SectionHash string
	ScoresJSON                           string // the section's strategy scores, as the judge package encodes them
	Raw                                  string // the judge's raw answer
	Attempts                             int
	PromptTokens, CompletionTokens       int64
	TotalTokens                          int64
	CostUSD                              float64
	CreatedAt                            string
}

// JudgeSection is one judged section of a run (table judge_sections).
type JudgeSection struct {
	RunKey, RunID, Challenge, Agent, Backend string
	Seed                                     int
	Section, Source, Format                  string
	Judge, Kind, RubricHash, SectionHash     string
	OrigChars, SentChars                     int
	Truncated                                bool
	Status                                   string
	NMissing                                 int
	Error                                    string
	CacheHit                                 bool
	Attempts                                 int
	PromptTokens, CompletionTokens           int64
	CostUSD                                  float64
	JudgedAt                                 string
}

// CapabilityScore is one stored capability score (table capability_scores);
// Score nil is missing coverage (the judge left the strategy undecided).
type CapabilityScore struct {
	RunKey, RunID, Challenge, Agent, Backend string
	Seed                                     int
	Section                                  string
	JudgeName, JudgeKind, RubricHash         string
	StrategyID                               int
	Strategy                                 string
	Score                                    *int
	Evidence                                 string
}

// JudgedRun is one run's judging under one judge and rubric: its sections
// and scores, and the cache rows of answers newly made.
type JudgedRun struct {
	RunKey, Judge, RubricHash string
	Calls                     []JudgeCall
	Sections                  []JudgeSection
	Scores                    []CapabilityScore
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// JudgeCall reads a cached answer; ok is false when none exists.
func (s *Store) JudgeCall(ctx context.Context, judge, rubricHash, sectionHash string) (c JudgeCall, ok bool, err error) {
	err = s.db.QueryRowContext(ctx, `SELECT judge_kind, scores_json, raw_response, attempts, prompt_tokens, completion_tokens, total_tokens, cost_usd, created_at
		FROM judge_calls WHERE judge_name = ? AND rubric_hash = ? AND section_hash = ?`,
		judge, rubricHash, sectionHash).Scan(&c.Kind, &c.ScoresJSON, &c.Raw, &c.Attempts, &c.PromptTokens, &c.CompletionTokens, &c.TotalTokens, &c.CostUSD, &c.CreatedAt)
	if errors.Is(err, sql.ErrNoRows) {
		return c, false, nil
	}
	if err != nil {
		return c, false, fmt.Errorf("read judge cache: %w", err)
	}
	c.Judge, c.RubricHash, c.SectionHash = judge, rubricHash, sectionHash
	return c, true, nil
}

// PutJudgedRun replaces, in one transaction, the run's sections and scores
// of the same judge and rubric, and adds the new cache rows.
func (s *Store) PutJudgedRun(ctx context.Context, r JudgedRun) error {
	err := s.Update(ctx, func(tx *Tx) error {
		for _, q := range []string{
			`DELETE FROM judge_sections WHERE run_key = ? AND judge_name = ? AND rubric_hash = ?`,
			`DELETE FROM capability_scores WHERE run_key = ? AND judge_name = ? AND rubric_hash = ?`,
		} {
			if _, err := tx.tx.ExecContext(ctx, q, r.RunKey, r.Judge, r.RubricHash); err != nil {
				return err
			}
		}
		if err := tx.putJudgeCalls(ctx, r.Calls); err != nil {
			return err
		}
		if err := tx.putJudgeSections(ctx, r.Sections); err != nil {
			return err
		}
		return tx.PutCapabilityScores(ctx, r.Scores)
	})
	if err != nil {
		return fmt.Errorf("store judge results of %s: %w", r.RunKey, err)
	}
	return nil
}

// putJudgeCalls adds or replaces cache rows.
func (t *Tx) putJudgeCalls(ctx context.Context, calls []JudgeCall) error {
	if len(calls) == 0 {
		return nil
	}
	ins, err := t.tx.PrepareContext(ctx, `INSERT OR REPLACE INTO judge_calls
		(judge_name, judge_kind, rubric_hash, section_hash, scores_json, raw_response, attempts,
		 prompt_tokens, completion_tokens, total_tokens, cost_usd, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return fmt.Errorf("store judge cache: %w", err)
	}
	defer ins.Close()
	for _, c := range calls {
		if _, err := ins.ExecContext(ctx, c.Judge, c.Kind, c.RubricHash, c.SectionHash, c.ScoresJSON, c.Raw, c.Attempts,
			c.PromptTokens, c.CompletionTokens, c.TotalTokens, c.CostUSD, c.CreatedAt); err != nil {
			return fmt.Errorf("store judge cache: %w", err)
		}
	}
	return nil
}

// putJudgeSections adds or replaces judged sections.
func (t *Tx) putJudgeSections(ctx context.Context, secs []JudgeSection) error {
	if len(secs) == 0 {
		return nil
	}
	ins, err := t.tx.PrepareContext(ctx, `INSERT OR REPLACE INTO judge_sections
		(run_key, run_id, challenge, agent, backend, seed, section, source, format, judge_name,
		 judge_kind, rubric_hash, section_hash, orig_chars, sent_chars, truncated, status,
		 n_missing, error, cache_hit, attempts, prompt_tokens, completion_tokens, cost_usd, judged_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return fmt.Errorf("store judge sections: %w", err)
	}
	defer ins.Close()
	for _, x := range secs {
		if _, err := ins.ExecContext(ctx, x.RunKey, x.RunID, x.Challenge, x.Agent, x.Backend, x.Seed, x.Section, x.Source,
			x.Format, x.Judge, x.Kind, x.RubricHash, x.SectionHash, x.OrigChars, x.SentChars, boolInt(x.Truncated), x.Status,
			x.NMissing, x.Error, boolInt(x.CacheHit), x.Attempts, x.PromptTokens, x.CompletionTokens, x.CostUSD, x.JudgedAt); err != nil {
			return fmt.Errorf("store judge section %s of %s: %w", x.Section, x.RunKey, err)
		}
	}
	return nil
}

// PutCapabilityScores adds or replaces capability scores.
func (t *Tx) PutCapabilityScores(ctx context.Context, scores []CapabilityScore) error {
	if len(scores) == 0 {
		return nil
	}
	ins, err := t.tx.PrepareContext(ctx, `INSERT OR REPLACE INTO capability_scores
		(run_key, run_id, challenge, agent, backend, seed, section, judge_name, judge_kind,
		 rubric_hash, strategy_id, strategy, score, evidence)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return fmt.Errorf("store capability scores: %w", err)
	}
	defer ins.Close()
	for _, x := range scores {
		var score any
		if x.Score != nil {
			score = *x.Score
		}
		if _, err := ins.ExecContext(ctx, x.RunKey, x.RunID, x.Challenge, x.Agent, x.Backend, x.Seed, x.Section,
			x.JudgeName, x.JudgeKind, x.RubricHash, x.StrategyID, x.Strategy, score, x.Evidence); err != nil {
			return fmt.Errorf("store capability score %d of %s: %w", x.StrategyID, x.RunKey, err)
		}
	}
	return nil
}

// PutJudgeCalls adds cache rows in their own transaction (a run whose
// judging failed in part keeps its earlier sections and scores).
func (s *Store) PutJudgeCalls(ctx context.Context, calls []JudgeCall) error {
	return s.Update(ctx, func(tx *Tx) error { return tx.putJudgeCalls(ctx, calls) })
}

// ForgetJudgedRun deletes every judge's sections and scores of a run key
// (a failed run has no capability profile); the cache is kept.
func (s *Store) ForgetJudgedRun(ctx context.Context, runKey string) error {
	err := s.Update(ctx, func(tx *Tx) error {
		for _, q := range []string{`DELETE FROM judge_sections WHERE run_key = ?`, `DELETE FROM capability_scores WHERE run_key = ?`} {
			if _, err := tx.tx.ExecContext(ctx, q, runKey); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("drop judge results of %s: %w", runKey, err)
	}
	return nil
}

// HasJudgedRun reports whether a run key holds sections of judge and rubric.
func (s *Store) HasJudgedRun(ctx context.Context, runKey, judge, rubricHash string) (bool, error) {
	var n int
	err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM judge_sections
		WHERE run_key = ? AND judge_name = ? AND rubric_hash = ?`, runKey, judge, rubricHash).Scan(&n)
	if err != nil {
		return false, fmt.Errorf("read judge results of %s: %w", runKey, err)
	}
	return n > 0, nil
}

// StoredJudges lists the judge names that hold capability scores under
// rubricHash ("" = any), sorted.
func (s *Store) StoredJudges(ctx context.Context, rubricHash string) ([]string, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT DISTINCT judge_name FROM capability_scores
		WHERE (? = '' OR rubric_hash = ?) ORDER BY judge_name`, rubricHash, rubricHash)
	if err != nil {
		return nil, fmt.Errorf("list judges: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, fmt.Errorf("list judges: %w", err)
		}
		out = append(out, n)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list judges: %w", err)
	}
	return out, nil
}

// CapabilityScores reads every capability score of one judge and rubric
// hash, ordered by run key, section and strategy. Empty judge or rubricHash
// match any.
func (s *Store) CapabilityScores(ctx context.Context, judge, rubricHash string) ([]CapabilityScore, error) {
	return s.capabilityScores(ctx, `WHERE (? = '' OR judge_name = ?) AND (? = '' OR rubric_hash = ?)
		ORDER BY run_key, section, strategy_id`, judge, judge, rubricHash, rubricHash)
}

func (s *Store) capabilityScores(ctx context.Context, tail string, args ...any) ([]CapabilityScore, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT run_key, run_id, challenge, agent, backend, seed,
		section, judge_name, judge_kind, rubric_hash, strategy_id, strategy, score, evidence
		FROM capability_scores `+tail, args...)
	if err != nil {
		return nil, fmt.Errorf("load capability scores: %w", err)
	}
	defer rows.Close()
	var out []CapabilityScore
	for rows.Next() {
		var r CapabilityScore
		var score sql.NullInt64
		if err := rows.Scan(&r.RunKey, &r.RunID, &r.Challenge, &r.Agent, &r.Backend, &r.Seed,
			&r.Section, &r.JudgeName, &r.JudgeKind, &r.RubricHash, &r.StrategyID, &r.Strategy,
			&score, &r.Evidence); err != nil {
			return nil, fmt.Errorf("load capability scores: %w", err)
		}
		if score.Valid {
			v := int(score.Int64)
			r.Score = &v
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("load capability scores: %w", err)
	}
	return out, nil
}

// CapabilityProfile is one strategy of one agent configuration's capability
// profile (table capability_profiles), as the judge stage computed it over a
// run group's judged runs.
type CapabilityProfile struct {
	Source                           string // the run group (profile)
	JudgeName, JudgeKind, RubricHash string
	Agent, Backend                   string
	StrategyID                       int
	Strategy                         string
	Mean                             float64 // NaN when no section decided it
	NSections, NMissing              int
	NRuns, NFailed                   int
	Evidence                         []string
}

// ReplaceCapabilityProfiles replaces the profiles of a run group under one
// judge and rubric with ps, in one transaction.
func (s *Store) ReplaceCapabilityProfiles(ctx context.Context, source, judge, rubricHash string, ps []CapabilityProfile) error {
	err := s.Update(ctx, func(tx *Tx) error {
		if _, err := tx.tx.ExecContext(ctx, `DELETE FROM capability_profiles WHERE source = ? AND judge_name = ? AND rubric_hash = ?`, source, judge, rubricHash); err != nil {
			return err
		}
		for _, p := range ps {
			ev := p.Evidence
			if ev == nil {
				ev = []string{}
			}
			b, err := json.Marshal(ev)
			if err != nil {
				return err
			}
			if _, err := tx.tx.ExecContext(ctx, `INSERT INTO capability_profiles(source, judge_name, judge_kind, rubric_hash, agent, backend, strategy_id,
				strategy, mean, n_sections, n_missing, n_runs, n_failed, evidence) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)`,
				source, judge, p.JudgeKind, rubricHash, p.Agent, p.Backend, p.StrategyID, p.Strategy, nullF(p.Mean),
				p.NSections, p.NMissing, p.NRuns, p.NFailed, string(b)); err != nil {
				return fmt.Errorf("%s/%s strategy %d: %w", p.Agent, p.Backend, p.StrategyID, err)
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("store capability profiles of %s (%s): %w", source, judge, err)
	}
	return nil
}

// CapabilityProfiles returns every stored profile row, by run group, agent,
// backend, judge, rubric and strategy.
func (s *Store) CapabilityProfiles(ctx context.Context) ([]CapabilityProfile, error) {
	return list(ctx, s.db, "capability profiles", `SELECT source, judge_name, judge_kind, rubric_hash, agent, backend, strategy_id, strategy,
		mean, n_sections, n_missing, n_runs, n_failed, evidence FROM capability_profiles
		ORDER BY source, agent, backend, judge_name, rubric_hash, strategy_id`,
		func(rows *sql.Rows) (CapabilityProfile, error) {
			var p CapabilityProfile
			var mean sql.NullFloat64
			var ev string
			if err := rows.Scan(&p.Source, &p.JudgeName, &p.JudgeKind, &p.RubricHash, &p.Agent, &p.Backend, &p.StrategyID, &p.Strategy,
				&mean, &p.NSections, &p.NMissing, &p.NRuns, &p.NFailed, &ev); err != nil {
				return p, err
			}
			p.Mean = nf(mean)
			if err := json.Unmarshal([]byte(ev), &p.Evidence); err != nil {
				return p, fmt.Errorf("evidence of %s/%s strategy %d: %w", p.Agent, p.Backend, p.StrategyID, err)
			}
			return p, nil
		})
}
