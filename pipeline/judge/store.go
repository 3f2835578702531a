package judge

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// schema is created idempotently by Migrate. Times are RFC 3339 UTC text.
//
//   - judge_calls: the cache, one row per (judge, rubric hash, section hash)
//     with a complete answer (status ok). Re-running finds it and makes no call.
//   - judge_sections: one row per judged section of a run (latest judging),
//     with its status, coverage, whether it came from the cache, and the
//     requests, tokens and cost this judging spent (0 for a cache hit).
//   - capability_scores: one row per run × section × strategy; score is NULL
//     when the judge left the strategy undecided (missing coverage), never 0.
var schema = []string{
	`CREATE TABLE IF NOT EXISTS judge_calls (
		judge_name        TEXT NOT NULL,
		judge_kind        TEXT NOT NULL,
		rubric_hash       TEXT NOT NULL,
		section_hash      TEXT NOT NULL,
		scores_json       TEXT NOT NULL,
		raw_response      TEXT NOT NULL DEFAULT '',
		attempts          INTEGER NOT NULL DEFAULT 0,
		prompt_tokens     INTEGER NOT NULL DEFAULT 0,
		completion_tokens INTEGER NOT NULL DEFAULT 0,
		total_tokens      INTEGER NOT NULL DEFAULT 0,
		cost_usd          REAL NOT NULL DEFAULT 0,
		created_at        TEXT NOT NULL,
		PRIMARY KEY (judge_name, rubric_hash, section_hash)
	)`,
	`CREATE TABLE IF NOT EXISTS judge_sections (
		run_key       TEXT NOT NULL,
		run_id        TEXT NOT NULL,
		challenge     TEXT NOT NULL,
		agent         TEXT NOT NULL,
		backend       TEXT NOT NULL,
		seed          INTEGER NOT NULL,
		section       TEXT NOT NULL,
		source        TEXT NOT NULL,
		format        TEXT NOT NULL,
		judge_name    TEXT NOT NULL,
		judge_kind    TEXT NOT NULL,
		rubric_hash   TEXT NOT NULL,
		section_hash  TEXT NOT NULL,
		orig_chars    INTEGER NOT NULL,
		sent_chars    INTEGER NOT NULL,
		truncated     INTEGER NOT NULL,
		status        TEXT NOT NULL,
		n_missing     INTEGER NOT NULL,
		error         TEXT NOT NULL DEFAULT '',
		cache_hit     INTEGER NOT NULL,
		attempts      INTEGER NOT NULL,
		prompt_tokens     INTEGER NOT NULL DEFAULT 0,
		completion_tokens INTEGER NOT NULL DEFAULT 0,
		cost_usd          REAL NOT NULL DEFAULT 0,
		judged_at     TEXT NOT NULL,
		PRIMARY KEY (run_key, section, judge_name, rubric_hash)
	)`,
	`CREATE TABLE IF NOT EXISTS capability_scores (
		run_key      TEXT NOT NULL,
		run_id       TEXT NOT NULL,
		challenge    TEXT NOT NULL,
		agent        TEXT NOT NULL,
		backend      TEXT NOT NULL,
		seed         INTEGER NOT NULL,
		section      TEXT NOT NULL,
		judge_name   TEXT NOT NULL,
		judge_kind   TEXT NOT NULL,
		rubric_hash  TEXT NOT NULL,
		strategy_id  INTEGER NOT NULL,
		strategy     TEXT NOT NULL,
		score        INTEGER CHECK (score IS NULL OR score IN (0, 1)),
		evidence     TEXT NOT NULL DEFAULT '',
		PRIMARY KEY (run_key, section, judge_name, rubric_hash, strategy_id)
	)`,
	`CREATE INDEX IF NOT EXISTS capability_scores_judge ON capability_scores (judge_name, rubric_hash)`,
}

// Migrate creates the judge tables and indexes if they do not exist, in one
// transaction. It is safe to call on every start.
func Migrate(ctx context.Context, db *sql.DB) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("judge migrate: %w", err)
	}
	defer tx.Rollback() //nolint:errcheck // no-op after commit
	for _, stmt := range schema {
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("judge migrate: %w", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("judge migrate: %w", err)
	}
	return nil
}

// cachedCall reads a cached complete answer; ok is false when none exists.
func cachedCall(ctx context.Context, db *sql.DB, judgeName, rubricHash, sectionHash string) (SectionScore, bool, error) {
	var s SectionScore
	var scoresJSON string
	// Attempts and usage stay in the row: a cache hit costs nothing now.
	err := db.QueryRowContext(ctx, `SELECT judge_kind, scores_json, raw_response
		FROM judge_calls WHERE judge_name = ? AND rubric_hash = ? AND section_hash = ?`,
		judgeName, rubricHash, sectionHash).Scan(&s.Kind, &scoresJSON, &s.Raw)
	if errors.Is(err, sql.ErrNoRows) {
		return s, false, nil
	}
	if err != nil {
		return s, false, fmt.Errorf("read judge cache: %w", err)
	}
	if err := json.Unmarshal([]byte(scoresJSON), &s.Scores); err != nil {
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

// storeRun writes one run's sections and scores, and the cache rows of
// newly made complete answers, in one transaction. Rows of the same run,
// judge and rubric from an earlier pass are replaced.
func storeRun(ctx context.Context, db *sql.DB, run RunLogs, judgeName, judgeKind string, rub *Rubric, secs []judgedSection) error {
	rubricHash := rub.Hash
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("store judge results of %s: %w", run.Key(), err)
	}
	defer tx.Rollback() //nolint:errcheck // no-op after commit
	now := time.Now().UTC().Format(time.RFC3339)
	key := run.Key()
	for _, q := range []string{
		`DELETE FROM judge_sections WHERE run_key = ? AND judge_name = ? AND rubric_hash = ?`,
		`DELETE FROM capability_scores WHERE run_key = ? AND judge_name = ? AND rubric_hash = ?`,
	} {
		if _, err := tx.ExecContext(ctx, q, key, judgeName, rubricHash); err != nil {
			return fmt.Errorf("store judge results of %s: %w", key, err)
		}
	}
	insCall, err := tx.PrepareContext(ctx, `INSERT OR REPLACE INTO judge_calls
		(judge_name, judge_kind, rubric_hash, section_hash, scores_json, raw_response, attempts,
		 prompt_tokens, completion_tokens, total_tokens, cost_usd, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return fmt.Errorf("store judge results of %s: %w", key, err)
	}
	defer insCall.Close()
	insSec, err := tx.PrepareContext(ctx, `INSERT OR REPLACE INTO judge_sections
		(run_key, run_id, challenge, agent, backend, seed, section, source, format, judge_name,
		 judge_kind, rubric_hash, section_hash, orig_chars, sent_chars, truncated, status,
		 n_missing, error, cache_hit, attempts, prompt_tokens, completion_tokens, cost_usd, judged_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return fmt.Errorf("store judge results of %s: %w", key, err)
	}
	defer insSec.Close()
	insScore, err := tx.PrepareContext(ctx, `INSERT OR REPLACE INTO capability_scores
		(run_key, run_id, challenge, agent, backend, seed, section, judge_name, judge_kind,
		 rubric_hash, strategy_id, strategy, score, evidence)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return fmt.Errorf("store judge results of %s: %w", key, err)
	}
	defer insScore.Close()
	for _, js := range secs {
		sc := js.Score
		if sc.Status == StatusOK && !sc.CacheHit {
			b, err := json.Marshal(sc.Scores)
			if err != nil {
				return fmt.Errorf("store judge results of %s: %w", key, err)
			}
			if _, err := insCall.ExecContext(ctx, judgeName, judgeKind, rubricHash, sc.SectionHash,
				string(b), sc.Raw, sc.Attempts, sc.Usage.PromptTokens, sc.Usage.CompletionTokens,
				sc.Usage.TotalTokens, sc.Usage.CostUSD, now); err != nil {
				return fmt.Errorf("store judge cache of %s: %w", key, err)
			}
		}
		sec := js.Section
		if _, err := insSec.ExecContext(ctx, key, run.RunID, run.Challenge, run.Agent, run.Backend,
			run.Seed, sec.Label, sec.Source, string(sec.Format), judgeName, judgeKind, rubricHash,
			sc.SectionHash, sec.OrigChars, len([]rune(sec.Text)), boolInt(sec.Truncated), sc.Status,
			len(sc.Missing), sc.Error, boolInt(sc.CacheHit), sc.Attempts, sc.Usage.PromptTokens,
			sc.Usage.CompletionTokens, sc.Usage.CostUSD, now); err != nil {
			return fmt.Errorf("store judge section %s of %s: %w", sec.Label, key, err)
		}
		for _, s := range sc.Scores {
			if _, err := insScore.ExecContext(ctx, key, run.RunID, run.Challenge, run.Agent,
				run.Backend, run.Seed, sec.Label, judgeName, judgeKind, rubricHash, s.ID, s.Name,
				s.Score, s.Evidence); err != nil {
				return fmt.Errorf("store judge score of %s: %w", key, err)
			}
		}
		for _, id := range sc.Missing {
			name := ""
			if st, ok := rub.Strategy(id); ok {
				name = st.Name
			}
			if _, err := insScore.ExecContext(ctx, key, run.RunID, run.Challenge, run.Agent,
				run.Backend, run.Seed, sec.Label, judgeName, judgeKind, rubricHash, id, name,
				nil, ""); err != nil {
				return fmt.Errorf("store judge score of %s: %w", key, err)
			}
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("store judge results of %s: %w", key, err)
	}
	return nil
}

// storeCalls caches the complete answers among secs (judge_calls rows)
// without touching the run's stored sections and scores: used for a run
// whose judging failed in part, so its earlier scores stay.
func storeCalls(ctx context.Context, db *sql.DB, run RunLogs, judgeName, judgeKind string, rub *Rubric, secs []judgedSection) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("store judge cache of %s: %w", run.Key(), err)
	}
	defer tx.Rollback() //nolint:errcheck // no-op after commit
	now := time.Now().UTC().Format(time.RFC3339)
	for _, js := range secs {
		sc := js.Score
		if sc.Status != StatusOK || sc.CacheHit {
			continue
		}
		b, err := json.Marshal(sc.Scores)
		if err != nil {
			return fmt.Errorf("store judge cache of %s: %w", run.Key(), err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO judge_calls
			(judge_name, judge_kind, rubric_hash, section_hash, scores_json, raw_response, attempts,
			 prompt_tokens, completion_tokens, total_tokens, cost_usd, created_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			judgeName, judgeKind, rub.Hash, sc.SectionHash, string(b), sc.Raw, sc.Attempts,
			sc.Usage.PromptTokens, sc.Usage.CompletionTokens, sc.Usage.TotalTokens, sc.Usage.CostUSD, now); err != nil {
			return fmt.Errorf("store judge cache of %s: %w", run.Key(), err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("store judge cache of %s: %w", run.Key(), err)
	}
	return nil
}

// forgetRun deletes every judge's sections and scores of run key (a run
// that failed has no capability profile; the cache is kept).
func forgetRun(ctx context.Context, db *sql.DB, key string) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("drop judge results of %s: %w", key, err)
	}
	defer tx.Rollback() //nolint:errcheck // no-op after commit
	for _, q := range []string{`DELETE FROM judge_sections WHERE run_key = ?`, `DELETE FROM capability_scores WHERE run_key = ?`} {
		if _, err := tx.ExecContext(ctx, q, key); err != nil {
			return fmt.Errorf("drop judge results of %s: %w", key, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("drop judge results of %s: %w", key, err)
	}
	return nil
}

// hasStoredRun reports whether run key holds scores of judge and rubric.
func hasStoredRun(ctx context.Context, db *sql.DB, key, judgeName, rubricHash string) (bool, error) {
	var n int
	err := db.QueryRowContext(ctx, `SELECT COUNT(*) FROM judge_sections
		WHERE run_key = ? AND judge_name = ? AND rubric_hash = ?`, key, judgeName, rubricHash).Scan(&n)
	if err != nil {
		return false, fmt.Errorf("read judge results of %s: %w", key, err)
	}
	return n > 0, nil
}

// StoredJudges lists the judge names that hold capability scores under
// rubricHash ("" = any), sorted.
func StoredJudges(ctx context.Context, db *sql.DB, rubricHash string) ([]string, error) {
	rows, err := db.QueryContext(ctx, `SELECT DISTINCT judge_name FROM capability_scores
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

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// ScoreRow is one stored capability score (score nil = missing coverage).
type ScoreRow struct {
	RunKey, RunID, Challenge, Agent, Backend string
	Seed                                     int
	Section                                  string
	JudgeName, JudgeKind, RubricHash         string
	StrategyID                               int
	Strategy                                 string
	Score                                    *int
	Evidence                                 string
}

// LoadScores reads every capability score of one judge and rubric hash,
// ordered by run, section and strategy. Empty judgeName or rubricHash match
// any.
func LoadScores(ctx context.Context, db *sql.DB, judgeName, rubricHash string) ([]ScoreRow, error) {
	rows, err := db.QueryContext(ctx, `SELECT run_key, run_id, challenge, agent, backend, seed,
		section, judge_name, judge_kind, rubric_hash, strategy_id, strategy, score, evidence
		FROM capability_scores
		WHERE (? = '' OR judge_name = ?) AND (? = '' OR rubric_hash = ?)
		ORDER BY run_key, section, strategy_id`, judgeName, judgeName, rubricHash, rubricHash)
	if err != nil {
		return nil, fmt.Errorf("load capability scores: %w", err)
	}
	defer rows.Close()
	var out []ScoreRow
	for rows.Next() {
		var r ScoreRow
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
