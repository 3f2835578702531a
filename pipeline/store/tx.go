package store

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/rexmle/rexmle/pipeline/config"
	"github.com/rexmle/rexmle/pipeline/rank"
)

// Tx is one write transaction of the store: every write method of the
// pipeline lives on it, so callers group writes without touching SQL.
type Tx struct{ tx *sql.Tx }

// Update runs fn in one transaction, committing if it returns nil and
// rolling back otherwise: an interrupted stage leaves the store as it was.
func (s *Store) Update(ctx context.Context, fn func(tx *Tx) error) error {
	return s.rawTx(ctx, func(tx *sql.Tx) error { return fn(&Tx{tx: tx}) })
}

// SyncChallenges writes the challenges, their ranked metrics and
// leaderboards (see syncChallenges).
func (t *Tx) SyncChallenges(ctx context.Context, cs []*config.Challenge) error {
	return syncChallenges(ctx, t.tx, cs)
}

// PutRun inserts or replaces a run row (dependent rows are kept).
func (t *Tx) PutRun(ctx context.Context, r Run) error { return putRun(ctx, t.tx, r) }

// DeleteSource removes every run of a source with its dependent rows.
func (t *Tx) DeleteSource(ctx context.Context, source string) error {
	if err := deleteSource(ctx, t.tx, source); err != nil {
		return fmt.Errorf("delete runs of %s: %w", source, err)
	}
	return nil
}

// PutMetricValues replaces a run's metric values.
func (t *Tx) PutMetricValues(ctx context.Context, runID string, values map[string]float64) error {
	return putMetricValues(ctx, t.tx, runID, values)
}

// PutRank replaces a run's positions and rank.
func (t *Tx) PutRank(ctx context.Context, runID string, r rank.Result) error {
	if err := putRank(ctx, t.tx, runID, r); err != nil {
		return fmt.Errorf("store rank of %s: %w", runID, err)
	}
	return nil
}

// DeleteRank drops a run's rank (its positions stay until the rank stage
// replaces them): a regraded run is ranked again.
func (t *Tx) DeleteRank(ctx context.Context, runID string) error {
	if _, err := t.tx.ExecContext(ctx, `DELETE FROM ranks WHERE run_id=?`, runID); err != nil {
		return fmt.Errorf("drop rank of %s: %w", runID, err)
	}
	return nil
}

// PutPrinted records what the paper printed for a run.
func (t *Tx) PutPrinted(ctx context.Context, runID, table, key, text string) error {
	if err := putPrinted(ctx, t.tx, runID, table, key, text); err != nil {
		return fmt.Errorf("store printed %s/%s of %s: %w", table, key, runID, err)
	}
	return nil
}
