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
