// Package store keeps the pipeline's state in one SQLite file: challenges,
// metrics and leaderboards, runs, metric values, positions and ranks, grades
// and per-case values, run events, GPU samples and summaries, the judge's
// cache, sections and capability scores, and the paper's capability scores.
// The schema is versioned: each version is one SQL file in schema/
// (see migrate.go), embedded in the program and applied in order when the
// store opens. Every stage writes in one transaction, so an interrupted
// stage leaves the database as it was.
package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	_ "github.com/mattn/go-sqlite3" // the SQLite driver
)

// Store is an open database. Every SQL statement of the pipeline lives in
// this package, behind typed methods (one file per area).
type Store struct {
	db   *sql.DB
	Path string
}

// Open opens (creating if needed) the database at path, with WAL, foreign
// keys and a busy timeout, and migrates the schema to the current version.
func Open(ctx context.Context, path string) (*Store, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("open store: %w", err)
	}
	if err := checkWritable(path); err != nil {
		return nil, err
	}
	dsn := "file:" + path + "?_journal_mode=WAL&_foreign_keys=on&_busy_timeout=10000&_synchronous=NORMAL"
	db, err := sql.Open("sqlite3", dsn)
	if err != nil {
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	db.SetMaxOpenConns(1) // one writer; SQLite serialises anyway
	s := &Store{db: db, Path: path}
	ms, err := migrations()
	if err == nil {
		err = s.migrate(ctx, ms)
	}
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	return s, nil
}

// checkWritable says plainly when the store cannot be written: SQLite itself
// reports a read-only folder as "unable to open database file: no such file
// or directory". The folder must take new files (SQLite's journal and WAL
// files live beside the database) and the database file, if there, must open
// for writing.
func checkWritable(path string) error {
	dir := filepath.Dir(path)
	st, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("open store %s: %w", path, err)
	}
	if !st.IsDir() {
		return fmt.Errorf("open store %s: %s is not a folder", path, dir)
	}
	f, err := os.CreateTemp(dir, ".rexmle-write-check-*")
	if err != nil {
		return fmt.Errorf("open store %s: the folder %s is not writable (the store keeps its journal beside the database; make the folder writable or set paths.database elsewhere): %w", path, dir, err)
	}
	f.Close()
	os.Remove(f.Name())
	if db, err := os.OpenFile(path, os.O_RDWR, 0); err == nil {
		db.Close()
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("open store %s: the database file cannot be opened for writing: %w", path, err)
	}
	return nil
}

// Close closes the database.
func (s *Store) Close() error { return s.db.Close() }

// version returns the schema version (PRAGMA user_version).
func (s *Store) version(ctx context.Context) (int, error) {
	var v int
	err := s.db.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&v)
	return v, err
}

// rawTx runs fn in a raw transaction, committing if it returns nil and
// rolling back otherwise (Update gives the typed methods of Tx).
func (s *Store) rawTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}
