package judge

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// repoRubric is the committed rubric, relative to this package.
var repoRubric = filepath.Join("..", "..", DefaultRubricPath)

// paperNames are the strategy names of the paper's Appendix B.4, by id.
var paperNames = map[int]string{
	1:  "Analyzing and handling failure cases",
	2:  "Knowing the state of the art",
	3:  "Reflecting metrics in method design",
	4:  "Having domain knowledge",
	5:  "Rapid experiment iteration pipeline",
	6:  "Optimizing the augmentation method",
	7:  "Incorporating domain expert priors",
	8:  "Data curation and cleaning",
	9:  "Postprocessing results",
	10: "Ensembling heterogeneous models",
	11: "Leveraging external data",
	12: "Ensembling via seeds/folds",
	13: "Optimizing hyperparameters systematically",
}

func loadRepoRubric(t *testing.T) *Rubric {
	t.Helper()
	r, err := LoadRubric(repoRubric)
	if err != nil {
		t.Fatalf("load committed rubric: %v", err)
	}
	return r
}

func TestCommittedRubric(t *testing.T) {
	r := loadRepoRubric(t)
	if len(r.Strategies) != 13 {
		t.Fatalf("got %d strategies, want 13", len(r.Strategies))
	}
	for i, s := range r.Strategies {
		if s.ID != i+1 {
			t.Errorf("strategy %d has id %d", i, s.ID)
		}
		if s.Name != paperNames[s.ID] {
			t.Errorf("id %d name %q, want %q", s.ID, s.Name, paperNames[s.ID])
		}
		if len(s.Patterns) == 0 {
			t.Errorf("id %d has no heuristic patterns", s.ID)
		}
		if len(s.Criteria) < 80 {
			t.Errorf("id %d criteria too short: %q", s.ID, s.Criteria)
		}
	}
	data, _ := os.ReadFile(repoRubric)
	sum := sha256.Sum256(data)
	if r.Hash != hex.EncodeToString(sum[:]) {
		t.Errorf("hash %s is not sha256 of the file bytes", r.Hash)
	}
	if !strings.Contains(r.SystemPrompt, `"results"`) {
		t.Errorf("system prompt does not describe the answer shape")
	}
}

// The names in the paper's capability_scores.csv must match the rubric.
func TestRubricNamesMatchPaperCSV(t *testing.T) {
	r := loadRepoRubric(t)
	path := filepath.Join("..", "..", "..", "shared", "reference", "paper", "capability_scores.csv")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Skipf("paper CSV not available: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	for _, l := range lines[1:] {
		f := strings.Split(l, ",")
		var id int
		for _, c := range f[1] {
			id = id*10 + int(c-'0')
		}
		s, ok := r.Strategy(id)
		if !ok || s.Name != f[2] {
			t.Errorf("paper CSV id %d name %q; rubric has %q", id, f[2], s.Name)
		}
	}
}

const okRubric = `
version = 1
name = "t"
description = "d"
system_prompt = "p"

[[strategy]]
id = 1
key = "a"
name = "A"
criteria = "ca"
patterns = ['foo']

[[strategy]]
id = 2
key = "b"
name = "B"
criteria = "cb"
patterns = []
`

func TestParseRubricStrict(t *testing.T) {
	r, err := ParseRubric("ok.toml", []byte(okRubric))
	if err != nil {
		t.Fatalf("valid rubric rejected: %v", err)
	}
	if len(r.Strategies) != 2 || r.Strategies[1].Key != "b" {
		t.Fatalf("parsed %+v", r.Strategies)
	}
	cases := []struct {
		name, edit string // edit: old→new replacement "old|new"
		want       []string
	}{
		{"unknown top key", "version = 1|version = 1\ncolour = \"red\"", []string{"bad.toml", "colour"}},
		{"unknown strategy key", "key = \"a\"|key = \"a\"\nweight = 2", []string{"bad.toml", "weight"}},
		{"missing criteria", "criteria = \"ca\"|", []string{"bad.toml", "strategy[0]", `"criteria"`}},
		{"missing patterns", "patterns = []|", []string{"bad.toml", "strategy[1]", `"patterns"`}},
		{"missing id", "id = 2|", []string{"bad.toml", "strategy[1]", `"id"`}},
		{"duplicate id", "id = 2|id = 1", []string{"bad.toml", "duplicate", `"id"`}},
		{"duplicate key", "key = \"b\"|key = \"a\"", []string{"bad.toml", "duplicate", `"key"`}},
		{"duplicate name", "name = \"B\"|name = \"A\"", []string{"bad.toml", "duplicate", `"name"`}},
		{"zero id", "id = 2|id = 0", []string{"bad.toml", `"id"`, "positive"}},
		{"bad regex", "patterns = ['foo']|patterns = ['foo(']", []string{"bad.toml", "patterns[0]"}},
		{"empty name", "name = \"t\"|name = \"  \"", []string{"bad.toml", `"name"`, "empty"}},
		{"missing system prompt", "system_prompt = \"p\"|", []string{"bad.toml", `"system_prompt"`}},
		{"wrong version", "version = 1|version = 2", []string{"bad.toml", `"version"`}},
		{"no strategies", "[[strategy]]|[[nostrategy]]", []string{"bad.toml"}},
		{"not toml", "version = 1|version = = 1", []string{"bad.toml"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			parts := strings.SplitN(c.edit, "|", 2)
			if !strings.Contains(okRubric, parts[0]) {
				t.Fatalf("edit %q does not apply", parts[0])
			}
			src := strings.Replace(okRubric, parts[0], parts[1], 1)
			_, err := ParseRubric("bad.toml", []byte(src))
			if err == nil {
				t.Fatalf("accepted invalid rubric")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
}

func TestRubricHashChangesWithBytes(t *testing.T) {
	a, _ := ParseRubric("a", []byte(okRubric))
	b, _ := ParseRubric("b", []byte(okRubric+"\n# comment\n"))
	if a.Hash == b.Hash {
		t.Fatal("hash ignores file bytes")
	}
	// sha256("abc") is a published test vector.
	if got := HashBytes([]byte("abc")); got != "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" {
		t.Fatalf("HashBytes(abc) = %s", got)
	}
}
