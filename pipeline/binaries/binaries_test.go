package binaries

import (
	"context"
	"github.com/rexmle/rexmle/pipeline/checkouttest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// checkout links the module's files into a temporary folder, so the
// binaries go to its bin/ and not the real checkout's.
func checkout(t *testing.T) string {
	t.Helper()
	repo, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	checkouttest.Link(t, repo, root)
	return root
}

func TestBuildAndCheck(t *testing.T) {
	if testing.Short() {
		t.Skip("builds rexmle-agent and rexmle-bridge")
	}
	ctx := context.Background()
	root := checkout(t)
	err := Check(ctx, root)
	if err == nil || !strings.Contains(err.Error(), "rexmle-agent is missing") || !strings.Contains(err.Error(), "go run mage.go binaries") {
		t.Fatalf("check before building: %v, want both missing and the fix", err)
	}
	if err := Build(ctx, root); err != nil {
		t.Fatal(err)
	}
	if err := Check(ctx, root); err != nil {
		t.Fatalf("check after building: %v", err)
	}
	// The same, as another process sees it (no record of the build): the
	// sources are looked at and are older.
	builtAt.Range(func(k, _ any) bool { builtAt.Delete(k); return true })
	if err := Check(ctx, root); err != nil {
		t.Fatalf("check after building, from another process: %v", err)
	}
	// A binary older than its sources is out of date.
	old := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	if err := os.Chtimes(Bridge(root), old, old); err != nil {
		t.Fatal(err)
	}
	err = Check(ctx, root)
	if err == nil || !strings.Contains(err.Error(), "rexmle-bridge is older than the source") || strings.Contains(err.Error(), "rexmle-agent is") {
		t.Fatalf("check with an old bridge: %v, want only the bridge out of date", err)
	}
	// Building again (nothing changed, so go build rewrites nothing) makes it
	// current.
	if err := Build(ctx, root); err != nil {
		t.Fatal(err)
	}
	if err := Check(ctx, root); err != nil {
		t.Fatalf("check after rebuilding: %v", err)
	}
}

// writeModule writes a small module with the two binaries' package paths:
// rexmle-agent imports a library package, rexmle-bridge does not.
func writeModule(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	files := map[string]string{
		"go.mod":                     "module example.com/m\n\ngo 1.22\n",
		"lib/lib.go":                 "package lib\n\nfunc Hello() string { return \"hello\" }\n",
		"cmd/rexmle-agent/main.go":   "package main\n\nimport \"example.com/m/lib\"\n\nfunc main() { println(lib.Hello()) }\n",
		"cmd/rexmle-bridge/main.go":  "package main\n\nfunc main() {}\n",
		"unrelated/unrelated.go":     "package unrelated\n",
		"lib/lib_test.go":            "package lib\n",
		"cmd/rexmle-agent/README.md": "notes\n",
	}
	for name, text := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// A build leaves a stamp; while nothing the binaries are built from
// changes, Build runs no compiler (the binaries keep their times) and
// Check says they are current; a changed or new file of a package they
// import, a missing binary, or a changed go.mod makes Build compile again.
// Files of packages they do not import, and tests, change nothing.
func TestBuildStampSkipsAnUnchangedBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the Go toolchain")
	}
	ctx := context.Background()
	root := writeModule(t)
	if fresh(ctx, root) {
		t.Fatal("fresh before any build")
	}
	if err := Build(ctx, root); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stampPath(root)); err != nil {
		t.Fatalf("no stamp after a build: %v", err)
	}
	builtAt.Range(func(k, _ any) bool { builtAt.Delete(k); return true }) // as another process
	modTime := func() time.Time {
		st, err := os.Stat(Agent(root))
		if err != nil {
			t.Fatal(err)
		}
		return st.ModTime()
	}
	// Build's own touch after compiling must be older than what comes next.
	old := time.Now().Add(-time.Hour)
	for _, p := range []string{Agent(root), Bridge(root)} {
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
	}
	if err := writeStamp(ctx, root); err != nil {
		t.Fatal(err)
	}
	rebuilt := func(what string, want bool) {
		t.Helper()
		before := modTime()
		if err := Build(ctx, root); err != nil {
			t.Fatal(err)
		}
		if got := !modTime().Equal(before); got != want {
			t.Fatalf("%s: rebuilt %v, want %v", what, got, want)
		}
		if err := Check(ctx, root); err != nil {
			t.Fatalf("%s: check after Build: %v", what, err)
		}
		for _, p := range []string{Agent(root), Bridge(root)} {
			if err := os.Chtimes(p, old, old); err != nil {
				t.Fatal(err)
			}
		}
		if err := writeStamp(ctx, root); err != nil {
			t.Fatal(err)
		}
	}
	rebuilt("nothing changed", false)
	later := time.Now().Add(time.Minute)
	touch := func(rel string) {
		if err := os.Chtimes(filepath.Join(root, rel), later, later); err != nil {
			t.Fatal(err)
		}
		later = later.Add(time.Second)
	}
	touch("unrelated/unrelated.go")
	touch("lib/lib_test.go")
	rebuilt("a package the binaries do not import, and a test file, changed", false)
	touch("lib/lib.go")
	rebuilt("an imported package changed", true)
	if err := os.WriteFile(filepath.Join(root, "lib", "extra.go"), []byte("package lib\n\nvar Extra = 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rebuilt("a file added to an imported package", true)
	touch("go.mod")
	rebuilt("go.mod changed", true)
	if err := os.Remove(Bridge(root)); err != nil {
		t.Fatal(err)
	}
	rebuilt("a binary removed", true)
	if _, err := os.Stat(Bridge(root)); err != nil {
		t.Fatalf("the removed binary was not rebuilt: %v", err)
	}
}

// On a machine without Go (a GPU node handed a checkout whose bin/ was built
// elsewhere), Build uses the binaries that are there, Check accepts them
// even when the copied sources look newer, and a missing binary is an error
// that says to build it where Go is.
func TestBuildWithoutToolchain(t *testing.T) {
	ctx := context.Background()
	root := writeModule(t)
	t.Setenv("PATH", t.TempDir()) // no go on it
	err := Build(ctx, root)
	if err == nil || !strings.Contains(err.Error(), "no Go toolchain") || !strings.Contains(err.Error(), "bin/rexmle-agent and bin/rexmle-bridge missing") {
		t.Fatalf("build without Go or binaries: %v", err)
	}
	if err := os.MkdirAll(filepath.Join(root, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	old := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, p := range []string{Agent(root), Bridge(root)} {
		if err := os.WriteFile(p, []byte("built elsewhere"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
	}
	if err := Build(ctx, root); err != nil {
		t.Fatalf("build without Go, binaries present: %v", err)
	}
	if b, _ := os.ReadFile(Agent(root)); string(b) != "built elsewhere" {
		t.Fatalf("the agent binary was rewritten: %q", b)
	}
	if err := Check(ctx, root); err != nil {
		t.Fatalf("check without Go, binaries older than the sources: %v", err)
	}
	if err := os.Remove(Bridge(root)); err != nil {
		t.Fatal(err)
	}
	if err := Check(ctx, root); err == nil || !strings.Contains(err.Error(), "rexmle-bridge is missing") {
		t.Fatalf("check without Go, bridge missing: %v", err)
	}
}
