package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// The results bundle (pipeline/bundle) is a text export of the rows that
// the rank stage and the site take as inputs: runs and their grades, metric
// values, per-case values and details, GPU telemetry, and the judge's
// scores. What the rank stage computes from them (positions, ranks,
// standings, bootstrap intervals, the reproduction check) and what it
// imports from the committed results/paper (the paper's recorded runs and
// printed numbers) is left out: a site built from a bundle ranks again.

// ColumnKind is the type of a bundled column.
type ColumnKind int

// The kinds of bundled columns.
const (
	Text ColumnKind = iota // TEXT
	Int                    // INTEGER
	Real                   // REAL (±Inf kept)
	Blob                   // BLOB
)

func (k ColumnKind) String() string {
	return [...]string{"text", "integer", "number", "blob"}[k]
}

// BundleColumn is one column of a bundled table.
type BundleColumn struct {
	Name     string
	Kind     ColumnKind
	Nullable bool
}

// BundleTable is one table of the bundle: the columns kept, the rows kept
// (Where, "" for all) and their order.
type BundleTable struct {
	Name    string
	Columns []BundleColumn
	where   string
	order   string
	// Omitted names the table's columns left out of the bundle, each with
	// why; the store's tests check that Columns and Omitted cover the table.
	Omitted map[string]string
}

func cols(k ColumnKind, names ...string) []BundleColumn     { return colsOf(k, false, names) }
func nullCols(k ColumnKind, names ...string) []BundleColumn { return colsOf(k, true, names) }

func colsOf(k ColumnKind, null bool, names []string) []BundleColumn {
	out := make([]BundleColumn, len(names))
	for i, n := range names {
		out[i] = BundleColumn{Name: n, Kind: k, Nullable: null}
	}
	return out
}

func join(parts ...[]BundleColumn) []BundleColumn {
	var out []BundleColumn
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// ofBundledRuns keeps the rows of the runs the bundle holds.
const (
	notRecorded   = `status <> '` + string(RunRecorded) + `'`
	ofBundledRuns = `run_id IN (SELECT id FROM runs WHERE ` + notRecorded + `)`
)

// BundleTables are the bundled tables, parents before children.
var BundleTables = []BundleTable{
	{Name: "runs", Columns: join(cols(Text, "id", "source", "setting", "backend", "challenge_id", "agent"), cols(Int, "seed"),
		cols(Text, "status", "detail", "started_at", "ended_at")),
		where: notRecorded, order: "id",
		Omitted: map[string]string{"submission_dir": "a path on the machine that ran the pipeline"}},
	{Name: "grades", Columns: join(cols(Text, "run_id", "mode"), cols(Int, "valid"), cols(Text, "error", "submission_hash"), cols(Real, "grader_ms"),
		cols(Text, "graded_at", "notes", "grader_version")),
		where: ofBundledRuns, order: "run_id",
		Omitted: map[string]string{"answers_hash": "a hash of the private answers"}},
	{Name: "metric_values", Columns: join(cols(Text, "run_id", "metric"), nullCols(Real, "value", "rounded")),
		where: ofBundledRuns, order: "run_id, metric"},
	{Name: "mode_values", Columns: join(cols(Text, "run_id", "mode", "metric"), nullCols(Real, "value")),
		where: ofBundledRuns, order: "run_id, mode, metric"},
	{Name: "case_values", Columns: join(cols(Text, "run_id", "case_id", "metric"), nullCols(Real, "value")),
		where: ofBundledRuns, order: "run_id, case_id, metric"},
	{Name: "case_details", Columns: join(cols(Text, "run_id", "case_id"), cols(Blob, "detail")),
		where: ofBundledRuns, order: "run_id, case_id"},
	{Name: "gpu_summaries", Columns: join(cols(Text, "run_id", "telemetry"), cols(Int, "gpus", "samples"), cols(Real, "wall_seconds"),
		nullCols(Real, "working_seconds"), cols(Real, "gpu_hours"), nullCols(Real, "energy_kwh", "sm_util_median", "sm_util_p95", "peak_mem_fraction", "peak_proc_mem_fraction")),
		where: ofBundledRuns, order: "run_id"},
	// No key: kept in the order written, which the site's ties follow.
	{Name: "gpu_samples", Columns: join(cols(Text, "run_id", "at"), cols(Int, "gpu"), nullCols(Real, "sm_util"), nullCols(Int, "mem_used_bytes", "mem_total_bytes"),
		nullCols(Real, "power_w"), nullCols(Int, "energy_mj"), nullCols(Real, "temp_c"), nullCols(Int, "proc_mem_bytes"), nullCols(Real, "elapsed_s"), nullCols(Text, "device")),
		where: ofBundledRuns, order: "rowid"},
	{Name: "judge_sections", Columns: join(cols(Text, "run_key", "run_id", "challenge", "agent", "backend"), cols(Int, "seed"),
		cols(Text, "section", "source", "format", "judge_name", "judge_kind", "rubric_hash", "section_hash"), cols(Int, "orig_chars", "sent_chars", "truncated"),
		cols(Text, "status"), cols(Int, "n_missing"), cols(Text, "error"), cols(Int, "cache_hit", "attempts", "prompt_tokens", "completion_tokens"),
		cols(Real, "cost_usd"), cols(Text, "judged_at")),
		order: "run_key, section, judge_name, rubric_hash"},
	{Name: "capability_scores", Columns: join(cols(Text, "run_key", "run_id", "challenge", "agent", "backend"), cols(Int, "seed"),
		cols(Text, "section", "judge_name", "judge_kind", "rubric_hash"), cols(Int, "strategy_id"), cols(Text, "strategy"), nullCols(Int, "score"), cols(Text, "evidence")),
		order: "run_key, section, judge_name, rubric_hash, strategy_id"},
	{Name: "capability_profiles", Columns: join(cols(Text, "source", "judge_name", "judge_kind", "rubric_hash", "agent", "backend"), cols(Int, "strategy_id"),
		cols(Text, "strategy"), nullCols(Real, "mean"), cols(Int, "n_sections", "n_missing", "n_runs", "n_failed"), cols(Text, "evidence")),
		order: "source, judge_name, rubric_hash, agent, backend, strategy_id"},
}

// BundleRows calls fn with every bundled row of t, in the bundle's order:
// each value a string, int64, float64, []byte or nil (NULL).
func (s *Store) BundleRows(ctx context.Context, t BundleTable, fn func(vals []any) error) error {
	names := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		names[i] = c.Name
	}
	q := `SELECT ` + strings.Join(names, ", ") + ` FROM ` + t.Name
	if t.where != "" {
		q += ` WHERE ` + t.where
	}
	q += ` ORDER BY ` + t.order
	rows, err := s.db.QueryContext(ctx, q)
	if err != nil {
		return fmt.Errorf("read %s: %w", t.Name, err)
	}
	defer rows.Close()
	for rows.Next() {
		vals := make([]any, len(t.Columns))
		ptrs := make([]any, len(t.Columns))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return fmt.Errorf("read %s: %w", t.Name, err)
		}
		for i, c := range t.Columns {
			v, err := asKind(vals[i], c)
			if err != nil {
				return fmt.Errorf("read %s: column %s: %w", t.Name, c.Name, err)
			}
			vals[i] = v
		}
		if err := fn(vals); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read %s: %w", t.Name, err)
	}
	return nil
}

// asKind converts what the driver scanned to the column's Go type (SQLite
// keeps each value's own storage class: an integral REAL may come back as
// an integer, a TEXT blob as bytes).
func asKind(v any, c BundleColumn) (any, error) {
	if v == nil {
		if !c.Nullable {
			return nil, fmt.Errorf("NULL in a column that holds none")
		}
		return nil, nil
	}
	switch c.Kind {
	case Text:
		switch x := v.(type) {
		case string:
			return x, nil
		case []byte:
			return string(x), nil
		}
	case Int:
		if x, ok := v.(int64); ok {
			return x, nil
		}
	case Real:
		switch x := v.(type) {
		case float64:
			return x, nil
		case int64:
			return float64(x), nil
		}
	case Blob:
		switch x := v.(type) {
		case []byte:
			return x, nil
		case string:
			return []byte(x), nil
		}
	}
	return nil, fmt.Errorf("a %T where a %s was expected", v, c.Kind)
}

// PutBundleRows inserts rows (values as BundleRows gives them) into t.
func (t *Tx) PutBundleRows(ctx context.Context, tb BundleTable, rows [][]any) error {
	names := make([]string, len(tb.Columns))
	for i, c := range tb.Columns {
		names[i] = c.Name
	}
	q := `INSERT INTO ` + tb.Name + `(` + strings.Join(names, ", ") + `) VALUES (?` + strings.Repeat(",?", len(names)-1) + `)`
	stmt, err := t.tx.PrepareContext(ctx, q)
	if err != nil {
		return fmt.Errorf("store %s: %w", tb.Name, err)
	}
	defer stmt.Close()
	for i, r := range rows {
		if _, err := stmt.ExecContext(ctx, r...); err != nil {
			return fmt.Errorf("store %s row %d: %w", tb.Name, i+1, err)
		}
	}
	return nil
}

// HoldsRuns reports whether the store holds any run besides the paper's
// recorded ones (a bundle is restored only into a store that holds none).
func (s *Store) HoldsRuns(ctx context.Context) (bool, error) {
	var n int
	err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM runs WHERE `+notRecorded).Scan(&n)
	if err != nil && err != sql.ErrNoRows {
		return false, fmt.Errorf("count runs: %w", err)
	}
	return n > 0, nil
}
