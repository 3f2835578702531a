package store

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"strconv"
	"sync"
)

// The schema's versions, one file each: schema/NNNN_<what>.sql brings the
// database from version NNNN-1 to NNNN (PRAGMA user_version). A released file
// is never edited: a change is a new file with the next number
// (testdata/released-schema.sha256 holds the released files' hashes, and a
// test compares them). Notes on particular versions:
//
//   - 0007_judge_tables.sql and 0008_paper_capabilities.sql create their
//     tables IF NOT EXISTS: stores made before these versions already hold
//     them, created by the judge and the rank stage themselves.
//   - 0013_paper_recorded_source.sql deletes the paper's recorded runs of
//     source 'paper' (the name of a profile, whose new runs the rank stage's
//     import then deleted); the rank stage imports them again under
//     'paper-printed' (config.PrintedSource).
//
//go:embed schema/*.sql
var schemaFiles embed.FS

// migration is one version of the schema.
type migration struct {
	version int
	file    string // as embedded, e.g. "schema/0001_initial.sql"
	sql     string
}

var migrationName = regexp.MustCompile(`^([0-9]{4})_[a-z0-9_]+\.sql$`)

// loadMigrations reads the schema files of dir in fsys, in version order.
// The names must be NNNN_<what>.sql (lower case, digits and underscores)
// and the versions gapless from 1, each once.
func loadMigrations(fsys fs.FS, dir string) ([]migration, error) {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil, fmt.Errorf("schema: %w", err)
	}
	var out []migration
	for _, e := range entries { // ReadDir sorts by name, so by version
		file := path.Join(dir, e.Name())
		m := migrationName.FindStringSubmatch(e.Name())
		if m == nil || e.IsDir() {
			return nil, fmt.Errorf("schema: %s is not named NNNN_<what>.sql (four digits, then lower-case letters, digits and underscores)", file)
		}
		v, _ := strconv.Atoi(m[1])
		if want := len(out) + 1; v != want {
			if v == 0 {
				return nil, fmt.Errorf("schema: %s is version 0, the version of an empty database: the versions start at 1", file)
			}
			if v < want {
				return nil, fmt.Errorf("schema: %s repeats version %d (%s)", file, v, out[v-1].file)
			}
			return nil, fmt.Errorf("schema: %s is version %d, but version %d is missing: the versions must run 1, 2, 3, … without gaps", file, v, want)
		}
		b, err := fs.ReadFile(fsys, file)
		if err != nil {
			return nil, fmt.Errorf("schema: %w", err)
		}
		out = append(out, migration{version: v, file: file, sql: string(b)})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("schema: no NNNN_<what>.sql files in %s", dir)
	}
	return out, nil
}

// migrations returns the embedded schema versions (read and checked once).
var migrations = sync.OnceValues(func() ([]migration, error) {
	return loadMigrations(schemaFiles, "schema")
})

// migrate brings the database to the newest version of ms (as
// loadMigrations returns them), one transaction per version, and refuses a
// database newer than this program.
func (s *Store) migrate(ctx context.Context, ms []migration) error {
	v, err := s.version(ctx)
	if err != nil {
		return err
	}
	if newest := ms[len(ms)-1]; v > newest.version {
		return fmt.Errorf("database schema version %d is newer than this program knows (%d): its newest schema file is %s; open the database with the rexmle that wrote it, or a newer one", v, newest.version, newest.file)
	}
	for _, m := range ms[v:] {
		err := s.rawTx(ctx, func(tx *sql.Tx) error {
			if _, err := tx.ExecContext(ctx, m.sql); err != nil {
				return fmt.Errorf("migration %d (%s): %w", m.version, m.file, err)
			}
			_, err := tx.ExecContext(ctx, fmt.Sprintf(`PRAGMA user_version = %d`, m.version))
			return err
		})
		if err != nil {
			return err
		}
	}
	return nil
}
