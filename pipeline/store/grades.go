package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// Grade is one row of the grades table: how a run's submission was graded.
type Grade struct {
	RunID          string
	Mode           string // the grading mode of the stored values
	Valid          bool
	Error          string
	SubmissionHash string
	GraderMS       float64
	GradedAt       string
	Notes          string
	AnswersHash    string // the private answers the grade used
	GraderVersion  string
}

// GradeKey is what decides whether a stored grade is still current.
type GradeKey struct{ Mode, SubmissionHash, AnswersHash, GraderVersion string }

// GradeKeyOf returns the key of run's stored grade; ok is false when the
// run has no grade.
func (s *Store) GradeKeyOf(ctx context.Context, runID string) (k GradeKey, ok bool, err error) {
	err = s.db.QueryRowContext(ctx, `SELECT mode, submission_hash, answers_hash, grader_version FROM grades WHERE run_id=?`, runID).
		Scan(&k.Mode, &k.SubmissionHash, &k.AnswersHash, &k.GraderVersion)
	if errors.Is(err, sql.ErrNoRows) {
		return k, false, nil
	}
	if err != nil {
		return k, false, fmt.Errorf("read grade of %s: %w", runID, err)
	}
	return k, true, nil
}

// CaseValues is one case's per-metric values (NaN stored as NULL) and its
// grader-defined detail (challenge.Case.Detail; nil: none).
type CaseValues struct {
	Case   string
	Values map[string]float64
	Detail []byte
}

// PutGrade replaces a run's grades row.
func (t *Tx) PutGrade(ctx context.Context, g Grade) error {
	valid := 0
	if g.Valid {
		valid = 1
	}
	if _, err := t.tx.ExecContext(ctx, `INSERT OR REPLACE INTO grades(run_id, mode, valid, error, submission_hash, grader_ms, graded_at, notes, answers_hash, grader_version) VALUES (?,?,?,?,?,?,?,?,?,?)`,
		g.RunID, g.Mode, valid, g.Error, g.SubmissionHash, g.GraderMS, g.GradedAt, g.Notes, g.AnswersHash, g.GraderVersion); err != nil {
		return fmt.Errorf("store grade of %s: %w", g.RunID, err)
	}
	return nil
}

// PutCaseValues replaces a run's per-case values and details.
func (t *Tx) PutCaseValues(ctx context.Context, runID string, cases []CaseValues) error {
	if _, err := t.tx.ExecContext(ctx, `DELETE FROM case_values WHERE run_id=?`, runID); err != nil {
		return fmt.Errorf("drop case values of %s: %w", runID, err)
	}
	if _, err := t.tx.ExecContext(ctx, `DELETE FROM case_details WHERE run_id=?`, runID); err != nil {
		return fmt.Errorf("drop case details of %s: %w", runID, err)
	}
	for _, cs := range cases {
		if cs.Detail != nil {
			if _, err := t.tx.ExecContext(ctx, `INSERT OR REPLACE INTO case_details(run_id, case_id, detail) VALUES (?,?,?)`,
				runID, cs.Case, cs.Detail); err != nil {
				return fmt.Errorf("store case detail %s/%s: %w", runID, cs.Case, err)
			}
		}
		for k, v := range cs.Values {
			if _, err := t.tx.ExecContext(ctx, `INSERT OR REPLACE INTO case_values(run_id, case_id, metric, value) VALUES (?,?,?,?)`,
				runID, cs.Case, k, nullable(v)); err != nil {
				return fmt.Errorf("store case value %s/%s/%s: %w", runID, cs.Case, k, err)
			}
		}
	}
	return nil
}

// PutModeValues replaces a run's values in the other grading mode (empty
// values: none differ).
func (t *Tx) PutModeValues(ctx context.Context, runID, mode string, values map[string]float64) error {
	if _, err := t.tx.ExecContext(ctx, `DELETE FROM mode_values WHERE run_id=?`, runID); err != nil {
		return fmt.Errorf("drop mode values of %s: %w", runID, err)
	}
	for k, v := range values {
		if _, err := t.tx.ExecContext(ctx, `INSERT INTO mode_values(run_id, mode, metric, value) VALUES (?,?,?,?)`, runID, mode, k, nullable(v)); err != nil {
			return fmt.Errorf("store %s value %s/%s: %w", mode, runID, k, err)
		}
	}
	return nil
}
