package all

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/rexmle/rexmle/pipeline/challenge"
)

var update = flag.Bool("update", false, "rewrite the challenge table in ARCHITECTURE.md from the registry")

const (
	tableBegin = "<!-- challenge-table:begin -->"
	tableEnd   = "<!-- challenge-table:end -->"
	module     = "github.com/rexmle/rexmle/"
)

// challengeTable is the Markdown table from every registered challenge id
// to its family and the package that registers it.
func challengeTable() string {
	var b strings.Builder
	b.WriteString("| challenge id | family | package |\n| --- | --- | --- |\n")
	for _, id := range challenge.IDs() {
		c, _ := challenge.Lookup(id)
		t := reflect.TypeOf(c)
		if t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		fmt.Fprintf(&b, "| `%s` | %s | `%s` |\n", id, challenge.Family(id), strings.TrimPrefix(t.PkgPath(), module))
	}
	return b.String()
}

// TestChallengeTable keeps ARCHITECTURE.md's table from challenge id to
// package true to the registry (-update rewrites it).
func TestChallengeTable(t *testing.T) {
	if n := len(challenge.IDs()); n != 20 {
		t.Errorf("%d challenges registered, the benchmark has 20", n)
	}
	path := filepath.Join("..", "..", "..", "ARCHITECTURE.md")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	i, j := strings.Index(doc, tableBegin), strings.Index(doc, tableEnd)
	if i < 0 || j < i {
		t.Fatalf("%s: no %s … %s markers", path, tableBegin, tableEnd)
	}
	want := challengeTable()
	got := doc[i+len(tableBegin)+1 : j]
	if got == want {
		return
	}
	if *update {
		doc = doc[:i+len(tableBegin)] + "\n" + want + doc[j:]
		if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s's challenge table differs from the registry (go test ./pipeline/challenges/all -run ChallengeTable -update rewrites it); want:\n%s", path, want)
}

// TestDescriptionsAreEmbeddedMarkdown keeps one way to store a task
// description: every challenge package embeds its description.md (a family's
// may be description-<variant>.md, or a text/template its variants share);
// none is written as a Go string.
func TestDescriptionsAreEmbeddedMarkdown(t *testing.T) {
	seen := map[string]bool{}
	for _, id := range challenge.IDs() {
		c, _ := challenge.Lookup(id)
		pkg := strings.TrimPrefix(reflect.TypeOf(c).PkgPath(), module)
		if seen[pkg] {
			continue
		}
		seen[pkg] = true
		dir := filepath.Join("..", "..", "..", filepath.FromSlash(pkg))
		mds, _ := filepath.Glob(filepath.Join(dir, "description*.md"))
		if len(mds) == 0 {
			t.Errorf("%s (%s): no description.md", pkg, id)
		}
		gos, _ := filepath.Glob(filepath.Join(dir, "*.go"))
		embedded := false
		for _, f := range gos {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			src := string(b)
			if strings.Contains(src, "//go:embed description") {
				embedded = true
			}
			if strings.Contains(src, "const description") || strings.Contains(src, "description = `") {
				t.Errorf("%s: a description written as a Go string; put it in description.md and embed it", f)
			}
		}
		if !embedded {
			t.Errorf("%s (%s): no //go:embed of its description*.md", pkg, id)
		}
	}
	if len(seen) != 9 {
		t.Errorf("%d challenge packages, want 9", len(seen))
	}
}
