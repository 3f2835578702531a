package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// RawQuery runs a read-only statement against the database: for tests and
// diagnostics only (the pipeline reads through the typed methods). It
// accepts one SELECT statement or a PRAGMA without argument, and rejects
// anything else — a write, a PRAGMA with a value or argument, or a second
// statement after a semicolon (a semicolon inside a string literal is
// rejected too).
func (s *Store) RawQuery(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	if err := readOnly(q); err != nil {
		return nil, err
	}
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("raw query %q: %w", q, err)
	}
	return rows, nil
}

// Row is the first row of a RawQueryRow, or the error that prevented it.
type Row struct {
	row *sql.Row
	err error
}

// Scan copies the row's columns into dest; sql.ErrNoRows when the query
// returned no row.
func (r *Row) Scan(dest ...any) error {
	if r.err != nil {
		return r.err
	}
	return r.row.Scan(dest...)
}

// RawQueryRow is RawQuery for a query of one row (same rules).
func (s *Store) RawQueryRow(ctx context.Context, q string, args ...any) *Row {
	if err := readOnly(q); err != nil {
		return &Row{err: err}
	}
	return &Row{row: s.db.QueryRowContext(ctx, q, args...)}
}

// readOnly rejects a statement RawQuery must not run.
func readOnly(q string) error {
	t := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(q), ";"))
	if strings.Contains(t, ";") {
		return fmt.Errorf("raw query %q: one statement only", q)
	}
	word, rest, _ := strings.Cut(strings.Join(strings.Fields(t), " "), " ")
	switch strings.ToUpper(word) {
	case "SELECT":
		return nil
	case "PRAGMA":
		if strings.ContainsAny(rest, "=(") {
			return fmt.Errorf("raw query %q: a PRAGMA with an argument may write", q)
		}
		return nil
	}
	return fmt.Errorf("raw query %q: only SELECT and argument-less PRAGMA statements are allowed", q)
}
