package settings

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// repoRoot is the checkout's root, two folders up.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "magefile.go")); err != nil {
		t.Fatalf("no magefile.go at %s: %v", root, err)
	}
	return root
}

// envReaders are the functions of package os that read the environment.
var envReaders = map[string]bool{"Getenv": true, "LookupEnv": true, "Environ": true, "ExpandEnv": true}

// allowedReads are the files, besides this package, that may read the
// environment, and why. Each stays free of REXMLE_* names (checked).
var allowedReads = map[string]string{
	"magefile.go":                         "the targets' one settings.Load",
	"cmd/rexmle-agent/main.go":            "the command's one read: the agent contract, or the Slurm task's environment",
	"pipeline/runner/launch.go":           "a sandbox = \"none\" agent is a child of the pipeline: its base environment (PATH, HOME) is the pipeline's",
	"pipeline/runner/launch_container.go": "the engine client (docker, podman, apptainer) is a child of the pipeline: its PATH, HOME and client variables (DOCKER_HOST, CONTAINERS_CONF, …) are the pipeline's",
	"pipeline/runner/sandbox/limits.go":   "the sandbox's first process executes the agent in its place, keeping the environment the runner gave it",
	"pipeline/binaries/binaries.go":       "go build runs with the pipeline's environment (GOPATH, GOCACHE, GOFLAGS) plus its own",
	// Agents' own programs, run inside the sandbox as the agent: they read
	// the contract the runner set (and the hostile ones probe what leaks).
	"pipeline/runner/internal/hostileagent/hostileagent.go": "a test agent's own process",
	"pipeline/runner/internal/swaprace/swaprace.go":         "a test agent's own process",
	"pipeline/runner/internal/egressprobe/egressprobe.go":   "a test agent's own process",
	// Test helpers (not _test files, but only tests import them).
	"pipeline/challenge/challengetest/benchdir.go": "test helper: the benchmarks' REXMLE_BENCH_KEEP knob",
	"pipeline/checkouttest/checkouttest.go":        "test helper: starts go with the test's environment",
	"pipeline/runner/slurm/slurmtest/slurmtest.go": "test helper: the real-Slurm tests' REXMLE_SLURM_TEST knob and the SLURM_CONF of a cluster already running",
}

// TestNoEnvironmentReadsOutsideSettings parses every non-test Go file of
// the pipeline, the commands, the metrics and the magefile and fails on a
// read of the environment outside the allowed files, or on a REXMLE_*
// name read anywhere but here.
func TestNoEnvironmentReadsOutsideSettings(t *testing.T) {
	root := repoRoot(t)
	var files []string
	for _, dir := range []string{"pipeline", "cmd", "metrics"} {
		err := filepath.WalkDir(filepath.Join(root, dir), func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			if !d.IsDir() && strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, "_test.go") {
				files = append(files, path)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	files = append(files, filepath.Join(root, "magefile.go"))
	if len(files) < 200 {
		t.Fatalf("found only %d Go files: the walk is broken", len(files))
	}
	reads := 0
	for _, path := range files {
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range envReads(t, rel, src) {
			reads++
			switch {
			case strings.HasPrefix(rel, "pipeline/settings/") && !strings.HasPrefix(rel, "pipeline/settings/cmd/"):
			case allowedReads[rel] != "" && !strings.Contains(r.arg, "REXMLE_"):
			default:
				t.Errorf("%s:%d reads the environment (os.%s(%s)): read it through pipeline/settings (Load, Environ) and pass the value down", rel, r.line, r.fn, r.arg)
			}
		}
	}
	if reads == 0 {
		t.Fatal("no environment read found anywhere, not even in package settings: the check is broken")
	}
	for f := range allowedReads {
		if _, err := os.Stat(filepath.Join(root, f)); err != nil {
			t.Errorf("allowedReads names %s, which is gone: remove it", f)
		}
	}
}

// TestEnvReadCheckCatchesAnInjectedRead checks the check itself.
func TestEnvReadCheckCatchesAnInjectedRead(t *testing.T) {
	for _, src := range []string{
		"package x\nimport \"os\"\nfunc f() string { return os.Getenv(\"REXMLE_X\") }\n",
		"package x\nimport \"os\"\nvar look = os.LookupEnv\n",
		"package x\nimport o \"os\"\nfunc f() []string { return o.Environ() }\n",
	} {
		if rs := envReads(t, "x.go", []byte(src)); len(rs) != 1 {
			t.Errorf("%q: found %d reads, want 1", src, len(rs))
		}
	}
	if rs := envReads(t, "x.go", []byte("package x\nimport \"os\"\nfunc f() { os.Setenv(\"A\", \"b\"); _ = os.Getpid() }\n")); len(rs) != 0 {
		t.Errorf("Setenv and Getpid counted as reads: %+v", rs)
	}
}

type envRead struct {
	line    int
	fn, arg string
}

// envReads lists the uses of os.Getenv, LookupEnv, Environ and ExpandEnv
// in src (calls and function values), under whatever name os is imported.
func envReads(t *testing.T, name string, src []byte) []envRead {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, 0)
	if err != nil {
		t.Fatalf("parse %s: %v", name, err)
	}
	osName := ""
	for _, imp := range f.Imports {
		if p, _ := strconv.Unquote(imp.Path.Value); p == "os" {
			osName = "os"
			if imp.Name != nil {
				osName = imp.Name.Name
			}
		}
	}
	if osName == "" {
		return nil
	}
	args := map[*ast.SelectorExpr]string{}
	var out []envRead
	ast.Inspect(f, func(n ast.Node) bool {
		if c, ok := n.(*ast.CallExpr); ok {
			if sel, ok := c.Fun.(*ast.SelectorExpr); ok && len(c.Args) > 0 {
				var b bytes.Buffer
				b.Write(src[fset.Position(c.Args[0].Pos()).Offset:fset.Position(c.Args[0].End()).Offset])
				args[sel] = b.String()
			}
		}
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		if id, ok := sel.X.(*ast.Ident); ok && id.Name == osName && envReaders[sel.Sel.Name] {
			out = append(out, envRead{line: fset.Position(sel.Pos()).Line, fn: sel.Sel.Name, arg: args[sel]})
		}
		return true
	})
	return out
}

// TestEveryNameDeclared: every REXMLE_* name in the checkout's sources,
// scripts, recipes and documents is a declared setting, a name the runner
// sets for agents (Child), or a test's scratch name (TestPrefix); and every
// declaration is used somewhere.
func TestEveryNameDeclared(t *testing.T) {
	root := repoRoot(t)
	name := regexp.MustCompile(`REXMLE_[A-Z0-9_]*[A-Z0-9]`)
	seen := map[string][]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			if strings.HasPrefix(d.Name(), ".") && rel != "." && d.Name() != ".ci" && d.Name() != ".github" || d.Name() == "results" || d.Name() == "site" || d.Name() == "third_party" || d.Name() == "data" {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasPrefix(rel, filepath.Join("pipeline", "settings")+string(filepath.Separator)) {
			return nil
		}
		info, err := d.Info()
		if err != nil || info.Size() > 4<<20 {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if bytes.IndexByte(b, 0) >= 0 {
			return nil // binary
		}
		for _, n := range name.FindAllString(string(b), -1) {
			seen[n] = append(seen[n], filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(seen) < 20 {
		t.Fatalf("found only %d REXMLE_* names: the walk is broken", len(seen))
	}
	var names []string
	for n := range seen {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		_, declared := Lookup(n)
		if declared || Child[n] != "" || strings.HasPrefix(n, TestPrefix) || refused[n] {
			continue
		}
		t.Errorf("%s (in %s) is not declared in pipeline/settings (Vars for a setting or a test knob, Child for a name the pipeline sets for agents)", n, strings.Join(uniq(seen[n]), ", "))
	}
	for _, v := range Vars {
		if len(seen[v.Name]) == 0 {
			t.Errorf("%s is declared but nothing uses it", v.Name)
		}
	}
	for n := range Child {
		if _, ok := Lookup(n); ok {
			t.Errorf("%s is both a setting and a name set for agents", n)
		}
	}
}

// refused are the undeclared names the documents and tests show being
// refused.
var refused = map[string]bool{"REXMLE_DRYRUN": true, "REXMLE_PROFLE": true, "REXMLE_MY_KEY": true}

func uniq(s []string) []string {
	sort.Strings(s)
	out := s[:0]
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}

// TestREADMETable: README's table is the one the declarations generate.
func TestREADMETable(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(repoRoot(t), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	want, err := ReplaceTable(string(b))
	if err != nil {
		t.Fatal(err)
	}
	if want != string(b) {
		t.Error("README.md's settings table differs from pipeline/settings: run `go run ./pipeline/settings/cmd/readme`")
	}
	if _, err := ReplaceTable("no markers"); err == nil {
		t.Error("a README without the markers was accepted")
	}
	for _, v := range Vars {
		if strings.Contains(Table(), "`"+v.Name+"`") != (v.Kind != Test) {
			t.Errorf("%s: in the table %v, kind %d", v.Name, strings.Contains(Table(), v.Name), v.Kind)
		}
	}
}

// TestMagefileDocs: every target's doc comment (what `mage -h <target>`
// prints) ends with the settings the declarations say it reads, and every
// target named in a declaration exists.
func TestMagefileDocs(t *testing.T) {
	path := filepath.Join(repoRoot(t), "magefile.go")
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	targets := map[string]bool{}
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Recv != nil || !ast.IsExported(fn.Name.Name) {
			continue
		}
		r := []rune(fn.Name.Name)
		r[0] = unicode.ToLower(r[0])
		target := string(r)
		targets[target] = true
		doc := strings.TrimSpace(fn.Doc.Text())
		lines := strings.Split(doc, "\n")
		last := lines[len(lines)-1]
		want := TargetDoc(target)
		switch {
		case want == "" && strings.HasPrefix(last, "Settings:"):
			t.Errorf("magefile.go %s: its doc lists settings, the declarations none", fn.Name.Name)
		case want != "" && last != want:
			t.Errorf("magefile.go %s: the doc comment's last line is %q, want\n// %s", fn.Name.Name, last, want)
		}
	}
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if ReplaceTargetDocs(string(src)) != string(src) {
		t.Error("magefile.go's Settings lines differ from pipeline/settings: run `go run ./pipeline/settings/cmd/readme`")
	}
	fetchDoc := "// " + TargetDoc("fetch") + "\n"
	for _, drifted := range []string{
		strings.Replace(string(src), fetchDoc, "", 1),                              // lost
		strings.Replace(string(src), fetchDoc, "// Settings: REXMLE_CONFIG.\n", 1), // stale
	} {
		if drifted == string(src) || ReplaceTargetDocs(drifted) != string(src) {
			t.Error("ReplaceTargetDocs does not restore a lost or stale Settings line")
		}
	}
	if len(targets) < 10 {
		t.Fatalf("found %d targets in magefile.go", len(targets))
	}
	for _, v := range Vars {
		if v.Kind != User {
			continue
		}
		for _, tg := range v.Targets {
			if !targets[tg] {
				t.Errorf("%s names target %q, which magefile.go does not define", v.Name, tg)
			}
		}
	}
}
