package store

import (
	"bufio"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"testing/fstest"
)

// loaded returns the embedded schema versions.
func loaded(t *testing.T) []migration {
	t.Helper()
	ms, err := migrations()
	if err != nil {
		t.Fatal(err)
	}
	return ms
}

func newestVersion(t *testing.T) int { return len(loaded(t)) }

// A released schema file is never edited: each embedded file has the hash
// recorded when it was released (the first thirteen were recorded from the
// Go string literals the migrations were before they became files, so the
// SQL that runs is byte for byte what ran then). A new version adds its line
// to testdata/released-schema.sha256 (sha256sum's format) when it is released.
func TestSchemaFilesAreTheReleasedOnes(t *testing.T) {
	f, err := os.Open(filepath.Join("testdata", "released-schema.sha256"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	released := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		sum, name, ok := strings.Cut(sc.Text(), "  ")
		if !ok {
			t.Fatalf("released-schema.sha256: malformed line %q", sc.Text())
		}
		released["schema/"+name] = sum
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	ms := loaded(t)
	for _, m := range ms {
		sum := sha256.Sum256([]byte(m.sql))
		want, ok := released[m.file]
		switch {
		case !ok:
			t.Errorf("%s has no line in testdata/released-schema.sha256: add `sha256sum %s` (run in pipeline/store/schema) when it is released", m.file, filepath.Base(m.file))
		case hex.EncodeToString(sum[:]) != want:
			t.Errorf("%s was edited after its release (sha256 %x, released %s): put the change in a new version instead", m.file, sum, want)
		}
		delete(released, m.file)
	}
	for name := range released {
		t.Errorf("released schema file %s is gone", name)
	}
	if len(ms) < 13 {
		t.Errorf("%d schema versions, the store had 13 when they became files", len(ms))
	}
}

func TestLoadMigrationsChecksTheNumbering(t *testing.T) {
	file := func(s string) *fstest.MapFile { return &fstest.MapFile{Data: []byte(s)} }
	good := fstest.MapFS{
		"s/0001_first.sql":  file("CREATE TABLE a (x);"),
		"s/0002_second.sql": file("CREATE TABLE b (y);"),
	}
	ms, err := loadMigrations(good, "s")
	if err != nil {
		t.Fatal(err)
	}
	want := []migration{{1, "s/0001_first.sql", "CREATE TABLE a (x);"}, {2, "s/0002_second.sql", "CREATE TABLE b (y);"}}
	if !reflect.DeepEqual(ms, want) {
		t.Fatalf("loaded %+v, want %+v", ms, want)
	}
	for _, c := range []struct {
		name  string
		files []string
		want  string
	}{
		{"gap", []string{"0001_a.sql", "0002_b.sql", "0004_d.sql"}, "s/0004_d.sql is version 4, but version 3 is missing"},
		{"not from 1", []string{"0002_b.sql"}, "s/0002_b.sql is version 2, but version 1 is missing"},
		{"repeat", []string{"0001_a.sql", "0002_b.sql", "0002_c.sql"}, "s/0002_c.sql repeats version 2 (s/0002_b.sql)"},
		{"zero", []string{"0000_a.sql", "0001_b.sql"}, "s/0000_a.sql is version 0, the version of an empty database"},
		{"short number", []string{"0001_a.sql", "2_b.sql"}, "s/2_b.sql is not named NNNN_<what>.sql"},
		{"other file", []string{"0001_a.sql", "README.md"}, "s/README.md is not named NNNN_<what>.sql"},
		{"upper case", []string{"0001_Init.sql"}, "s/0001_Init.sql is not named NNNN_<what>.sql"},
		{"empty", nil, "no NNNN_<what>.sql files in s"},
	} {
		fsys := fstest.MapFS{"s": &fstest.MapFile{Mode: 0o755 | os.ModeDir}}
		for _, f := range c.files {
			fsys["s/"+f] = file("SELECT 1;")
		}
		_, err := loadMigrations(fsys, "s")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error with %q", c.name, err, c.want)
		}
	}
	if _, err := loadMigrations(fstest.MapFS{}, "schema"); err == nil {
		t.Error("a missing schema folder loaded")
	}
}

// schemaOf is the store's schema as SQLite records it: every table, index
// and trigger with the text of its definition.
func schemaOf(t *testing.T, db *sql.DB) []string {
	t.Helper()
	rows, err := db.Query(`SELECT type, name, tbl_name, coalesce(sql, '') FROM sqlite_master ORDER BY type, name`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var typ, name, tbl, text string
		if err := rows.Scan(&typ, &name, &tbl, &text); err != nil {
			t.Fatal(err)
		}
		out = append(out, typ+" "+name+" on "+tbl+"\n"+text)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func sameSchema(t *testing.T, what string, got, want []string) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d schema objects, want %d", what, len(got), len(want))
	}
	for i := range min(len(got), len(want)) {
		if got[i] != want[i] {
			t.Errorf("%s: schema object %d differs:\n%s\nwant\n%s", what, i, got[i], want[i])
			return
		}
	}
}

// A database at every older version, made from the schema files up to that
// version (as the program of that time made it), migrates to the same
// schema as a new store.
func TestEveryVersionMigratesToTheNewSchema(t *testing.T) {
	ctx := context.Background()
	fresh := open(t)
	want := schemaOf(t, fresh.db)
	ms := loaded(t)
	for n := 0; n < len(ms); n++ {
		p := filepath.Join(t.TempDir(), fmt.Sprintf("v%d.sqlite", n))
		db, err := sql.Open("sqlite3", "file:"+p+"?_foreign_keys=on")
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range ms[:n] {
			if _, err := db.Exec(m.sql); err != nil {
				t.Fatalf("%s: %v", m.file, err)
			}
		}
		if _, err := db.Exec(fmt.Sprintf("PRAGMA user_version = %d", n)); err != nil {
			t.Fatal(err)
		}
		db.Close()
		s, err := Open(ctx, p)
		if err != nil {
			t.Fatalf("open a version-%d store: %v", n, err)
		}
		if v, _ := s.version(ctx); v != len(ms) {
			t.Errorf("version %d migrated to %d, want %d", n, v, len(ms))
		}
		sameSchema(t, fmt.Sprintf("from version %d", n), schemaOf(t, s.db), want)
		s.Close()
	}
}

// unzipStore writes the gzipped database testdata/name.gz to a temporary
// folder and returns its path.
func unzipStore(t *testing.T, name string) string {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name+".gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), name)
	out, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, zr); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
	return p
}

// Stores written by the program before the schema became files (main at
// db16a85, the migrations then Go string literals): main-v13.sqlite.gz was
// made by its Open (version 13) and a few rows in most areas;
// main-v12.sqlite.gz by its first twelve migrations, the same rows, and one
// recorded run of the old source 'paper' with a metric value. Both open
// with the schema of a new store; the version-12 store migrates to exactly
// the rows of the version-13 one: 0013 drops the old 'paper' run and its
// values and keeps everything else.
func TestStoresOfTheLiteralMigrationsOpen(t *testing.T) {
	ctx := context.Background()
	want := schemaOf(t, open(t).db)
	digest := func(s *Store) string {
		t.Helper()
		tables, err := s.Tables(ctx)
		if err != nil {
			t.Fatal(err)
		}
		d, err := s.Digest(ctx, tables...)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	count := func(s *Store, q string) int {
		t.Helper()
		var n int
		if err := s.db.QueryRowContext(ctx, q).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}

	v13, err := Open(ctx, unzipStore(t, "main-v13.sqlite"))
	if err != nil {
		t.Fatalf("open the version-13 store of the literal migrations: %v", err)
	}
	defer v13.Close()
	if v, _ := v13.version(ctx); v != newestVersion(t) {
		t.Errorf("main's version-13 store is at version %d after opening, want %d", v, newestVersion(t))
	}
	sameSchema(t, "main's version-13 store", schemaOf(t, v13.db), want)
	if n := count(v13, `SELECT count(*) FROM runs`); n != 2 {
		t.Errorf("%d runs in main's version-13 store, want its 2", n)
	}

	v12, err := Open(ctx, unzipStore(t, "main-v12.sqlite"))
	if err != nil {
		t.Fatalf("open the version-12 store of the literal migrations: %v", err)
	}
	defer v12.Close()
	if v, _ := v12.version(ctx); v != newestVersion(t) {
		t.Errorf("main's version-12 store migrated to version %d, want %d", v, newestVersion(t))
	}
	sameSchema(t, "main's version-12 store, migrated", schemaOf(t, v12.db), want)
	if n := count(v12, `SELECT count(*) FROM runs WHERE source='paper'`) + count(v12, `SELECT count(*) FROM metric_values WHERE run_id='old-paper-1'`); n != 0 {
		t.Errorf("%d rows of the old 'paper' recorded run left after migrating", n)
	}
	if d12, d13 := digest(v12), digest(v13); d12 != d13 {
		t.Errorf("the migrated version-12 store holds other rows than the version-13 one (digest %s, want %s)", d12, d13)
	}
	if n := count(v12, `SELECT count(*) FROM grades WHERE answers_hash='ans' AND grader_version='v1'`); n != 1 {
		t.Errorf("%d grades with their hashes kept, want 1", n)
	}
}

// A version that fails rolls back alone: the error names its file and
// version, and the database stays at the version before it.
func TestFailedMigrationNamesItsFile(t *testing.T) {
	ctx := context.Background()
	s := open(t)
	ms := append(loaded(t)[:len(loaded(t)):len(loaded(t))],
		migration{version: newestVersion(t) + 1, file: "schema/9999_broken.sql", sql: "CREATE TABLE broken_one (x); CREATE TABLE runs (y);"})
	err := s.migrate(ctx, ms)
	want := fmt.Sprintf("migration %d (schema/9999_broken.sql): ", newestVersion(t)+1)
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("broken migration: %v, want an error with %q", err, want)
	}
	if v, _ := s.version(ctx); v != newestVersion(t) {
		t.Errorf("version %d after a failed migration, want %d", v, newestVersion(t))
	}
	var n int
	s.db.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE name='broken_one'`).Scan(&n)
	if n != 0 {
		t.Error("a failed migration left its first table")
	}
}
