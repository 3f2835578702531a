package fsutil

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// bareWriteAllowed lists the folders (slash-separated, relative to the
// module root) whose code may write files without WriteFile/WriteWith, and
// why. Everything else under pipeline/, cmd/ and the magefile writes a
// result through this package.
var bareWriteAllowed = map[string]string{
	"pipeline/fsutil":                               "the one implementation",
	"pipeline/runner/internal":                      "agent-side probe programs run inside the sandbox in the runner's tests; they write the agent's own files",
	"pipeline/podmantest":                           "test helper: writes podman's configuration for a test's temporary folder",
	"pipeline/checkouttest":                         "test helper: copies the checkout into a test's temporary folder",
	"pipeline/challenges/panthercommon/panthertest": "test helper: writes broken submissions on purpose",
	"pipeline/challenges/topcowcommon/topcowtest":   "test helper: writes broken submissions on purpose",
}

// bareWrite is one place that writes a file outside the one atomic write.
type bareWrite struct {
	pos  string
	what string
}

// scanBareWrites parses every non-test Go file under root's pipeline/ and
// cmd/ folders and root's magefile.go (testdata folders left out) and
// reports each os.WriteFile call and each function that both creates a
// temporary file (os.CreateTemp) and renames (os.Rename): the hand-made
// "atomic write" this package replaces.
func scanBareWrites(t *testing.T, root string, allowed map[string]string) (found []bareWrite, files int) {
	t.Helper()
	var paths []string
	for _, top := range []string{"pipeline", "cmd"} {
		err := filepath.WalkDir(filepath.Join(root, top), func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			rel := filepath.ToSlash(strings.TrimPrefix(p, root+string(filepath.Separator)))
			if d.IsDir() {
				if d.Name() == "testdata" {
					return filepath.SkipDir
				}
				if _, ok := allowed[rel]; ok {
					return filepath.SkipDir
				}
				return nil
			}
			if strings.HasSuffix(p, ".go") && !strings.HasSuffix(p, "_test.go") {
				paths = append(paths, p)
			}
			return nil
		})
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
	}
	if _, err := os.Stat(filepath.Join(root, "magefile.go")); err == nil {
		paths = append(paths, filepath.Join(root, "magefile.go"))
	}
	fset := token.NewFileSet()
	for _, p := range paths {
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatalf("parse %s: %v", p, err)
		}
		files++
		osName := ""
		for _, imp := range f.Imports {
			if v, _ := strconv.Unquote(imp.Path.Value); v == "os" {
				osName = "os"
				if imp.Name != nil {
					osName = imp.Name.Name
				}
			}
		}
		if osName == "" || osName == "_" {
			continue
		}
		isOS := func(n ast.Node, fn string) bool {
			c, ok := n.(*ast.CallExpr)
			if !ok {
				return false
			}
			s, ok := c.Fun.(*ast.SelectorExpr)
			if !ok || s.Sel.Name != fn {
				return false
			}
			x, ok := s.X.(*ast.Ident)
			return ok && x.Name == osName
		}
		for _, decl := range f.Decls {
			var temp, rename token.Pos
			ast.Inspect(decl, func(n ast.Node) bool {
				switch {
				case isOS(n, "WriteFile"):
					found = append(found, bareWrite{fset.Position(n.Pos()).String(), "os.WriteFile"})
				case isOS(n, "CreateTemp"):
					temp = n.Pos()
				case isOS(n, "Rename"):
					rename = n.Pos()
				}
				return true
			})
			if temp.IsValid() && rename.IsValid() {
				found = append(found, bareWrite{fset.Position(temp).String(), "os.CreateTemp and os.Rename (a hand-made atomic write)"})
			}
		}
	}
	sort.Slice(found, func(i, j int) bool { return found[i].pos < found[j].pos })
	return found, files
}

// TestResultsAreWrittenThroughFsutil keeps WriteFile/WriteWith the one way
// the pipeline writes a file: a new os.WriteFile or temp-file-and-rename
// outside the allowed folders fails here, naming the line.
func TestResultsAreWrittenThroughFsutil(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	for dir := range bareWriteAllowed {
		if st, err := os.Stat(filepath.Join(root, filepath.FromSlash(dir))); err != nil || !st.IsDir() {
			t.Errorf("allow-list names %s, which is not a folder any more: remove it", dir)
		}
	}
	found, files := scanBareWrites(t, root, bareWriteAllowed)
	if files < 200 {
		t.Fatalf("read only %d Go files: the walk is broken", files)
	}
	for _, f := range found {
		t.Errorf("%s: %s; write results with fsutil.WriteFile or fsutil.WriteWith (atomic and durable)", f.pos, f.what)
	}
}

// TestScanCatchesAnInjectedCopy proves the scan finds the patterns it is
// for, under an import alias too, and leaves test files and allowed folders
// alone.
func TestScanCatchesAnInjectedCopy(t *testing.T) {
	root := t.TempDir()
	write := func(rel, src string) {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("pipeline/newstage/save.go", `package newstage

import "os"

func save(path string, b []byte) error {
	tmp, err := os.CreateTemp(".", "x")
	if err != nil {
		return err
	}
	tmp.Write(b)
	tmp.Close()
	return os.Rename(tmp.Name(), path)
}
`)
	write("cmd/tool/main.go", `package main

import sys "os"

func main() { sys.WriteFile("out.csv", nil, 0o644) }
`)
	write("magefile.go", `package main

import "os"

func Write() error { return os.WriteFile("x", nil, 0o644) }
`)
	write("pipeline/newstage/save_test.go", `package newstage

import "os"

func helper() { os.WriteFile("x", nil, 0o644) }
`)
	write("pipeline/newstage/testdata/agent/main.go", `package main

import "os"

func main() { os.WriteFile("x", nil, 0o644) }
`)
	write("pipeline/allowed/w.go", `package allowed

import "os"

func w() { os.WriteFile("x", nil, 0o644) }
`)
	write("pipeline/fine/fine.go", `package fine

import "os"

func rename(a, b string) error { return os.Rename(a, b) } // a move, not a write
`)
	found, files := scanBareWrites(t, root, map[string]string{"pipeline/allowed": "test"})
	if files != 4 {
		t.Errorf("scanned %d files, want 4 (tests, testdata and allowed folders left out)", files)
	}
	want := []string{
		filepath.Join(root, "cmd/tool/main.go") + ":5:15: os.WriteFile",
		filepath.Join(root, "magefile.go") + ":5:29: os.WriteFile",
		filepath.Join(root, "pipeline/newstage/save.go") + ":6:14: os.CreateTemp and os.Rename (a hand-made atomic write)",
	}
	var got []string
	for _, f := range found {
		got = append(got, f.pos+": "+f.what)
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("found\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
