package store

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// sqlImports are the packages through which code reaches SQL.
var sqlImports = map[string]bool{
	"database/sql":                true,
	"database/sql/driver":         true,
	"github.com/mattn/go-sqlite3": true,
}

// sqlOutsideStore parses the imports of every non-test Go file under root
// (testdata and hidden folders left out, build tags ignored) and returns
// "file: import" for each SQL import outside root's pipeline/store.
func sqlOutsideStore(t *testing.T, root string) (found []string, files int) {
	t.Helper()
	store := filepath.Join(root, "pipeline", "store")
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p == store || d.Name() == "testdata" || (p != root && strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		files++
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if sqlImports[path] {
				rel, _ := filepath.Rel(root, p)
				found = append(found, filepath.ToSlash(rel)+": "+path)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return found, files
}

// SQL lives only in the store: no program of the module outside
// pipeline/store imports database/sql or the SQLite driver (tests may, to
// set up what they check).
func TestSQLOnlyInTheStore(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("module root: %v", err)
	}
	found, files := sqlOutsideStore(t, root)
	if files < 100 {
		t.Fatalf("only %d Go files parsed under %s: the scan is looking in the wrong place", files, root)
	}
	t.Logf("%d Go files outside pipeline/store parsed", files)
	for _, f := range found {
		t.Errorf("%s: SQL outside pipeline/store (add a typed method to the store instead)", f)
	}
}

// The scan finds an SQL import planted outside the store, in a file with a
// build tag too, and leaves the store's own and tests' imports alone.
func TestSQLOnlyScanCatchesAnInjectedImport(t *testing.T) {
	root := t.TempDir()
	write := func(rel, src string) {
		t.Helper()
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("pipeline/store/store.go", "package store\nimport \"database/sql\"\nvar _ sql.DB\n")
	write("pipeline/report/report_test.go", "package report\nimport \"database/sql\"\nvar _ sql.DB\n")
	write("pipeline/report/query.go", "package report\nimport (\n\t\"fmt\"\n\tdbsql \"database/sql\"\n)\nvar _ dbsql.DB\nvar _ = fmt.Sprint\n")
	write("magefile.go", "//go:build mage\n\npackage main\nimport _ \"github.com/mattn/go-sqlite3\"\n")
	write("pipeline/report/testdata/x.go", "package x\nimport \"database/sql\"\n")
	found, files := sqlOutsideStore(t, root)
	want := []string{"magefile.go: github.com/mattn/go-sqlite3", "pipeline/report/query.go: database/sql"}
	if files != 2 || strings.Join(found, "|") != strings.Join(want, "|") {
		t.Fatalf("found %q in %d files, want %q in 2", found, files, want)
	}
}
