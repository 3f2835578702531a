package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"sort"
	"strings"
)

// Tables returns the names of the store's tables, sorted.
func (s *Store) Tables(ctx context.Context) ([]string, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%' ORDER BY name`)
	if err != nil {
		return nil, fmt.Errorf("list tables: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, fmt.Errorf("list tables: %w", err)
		}
		out = append(out, n)
	}
	return out, rows.Err()
}

// Digest is a hash of the content of the named tables: every row, ordered
// by all its columns, so it does not depend on row ids or the order rows
// were written in. Two stores with the same rows in these tables have the
// same digest. A name that is not a table of the store is an error. The
// stages use it to tell whether their inputs changed since they last ran.
func (s *Store) Digest(ctx context.Context, tables ...string) (string, error) {
	known, err := s.Tables(ctx)
	if err != nil {
		return "", err
	}
	have := map[string]bool{}
	for _, t := range known {
		have[t] = true
	}
	names := append([]string(nil), tables...)
	sort.Strings(names)
	h := sha256.New()
	for _, t := range names {
		if !have[t] {
			return "", fmt.Errorf("digest: no table %q in the store", t)
		}
		if err := digestTable(ctx, s.db, t, h); err != nil {
			return "", err
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func digestTable(ctx context.Context, db *sql.DB, table string, h interface{ Write([]byte) (int, error) }) error {
	// The table name comes from sqlite_master (checked above); quoted as an identifier.
	q := `"` + strings.ReplaceAll(table, `"`, `""`) + `"`
	cols, err := db.QueryContext(ctx, `SELECT * FROM `+q+` LIMIT 0`)
	if err != nil {
		return fmt.Errorf("digest %s: %w", table, err)
	}
	names, err := cols.Columns()
	cols.Close()
	if err != nil {
		return fmt.Errorf("digest %s: %w", table, err)
	}
	order := make([]string, len(names))
	for i := range names {
		order[i] = fmt.Sprint(i + 1)
	}
	rows, err := db.QueryContext(ctx, `SELECT * FROM `+q+` ORDER BY `+strings.Join(order, ","))
	if err != nil {
		return fmt.Errorf("digest %s: %w", table, err)
	}
	defer rows.Close()
	fmt.Fprintf(h, "table %s %s\n", table, strings.Join(names, ","))
	vals := make([]any, len(names))
	ptrs := make([]any, len(names))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return fmt.Errorf("digest %s: %w", table, err)
		}
		for _, v := range vals {
			switch v := v.(type) {
			case nil:
				h.Write([]byte("\x00N"))
			case []byte:
				fmt.Fprintf(h, "\x00B%d:", len(v))
				h.Write(v)
			case string:
				fmt.Fprintf(h, "\x00S%d:", len(v))
				h.Write([]byte(v))
			default:
				fmt.Fprintf(h, "\x00%T:%v", v, v)
			}
		}
		h.Write([]byte{'\n'})
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("digest %s: %w", table, err)
	}
	return nil
}
