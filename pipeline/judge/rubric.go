package judge

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"
)

// DefaultRubricPath is the rubric file, relative to the repository root, used
// when a Config names none.
const DefaultRubricPath = "rubrics/winning-strategies.toml"

// Rubric is a validated capability rubric: the strategies a judge scores, the
// instructions for LLM judges, and the evidence patterns of the heuristic judge.
type Rubric struct {
	// Path is the file the rubric was read from (as given to LoadRubric).
	Path string
	// Hash is the hex SHA-256 of the file's bytes; it is stored with every
	// score and is part of the judge cache key.
	Hash string
	// Version is the rubric format version (always 1).
	Version int
	// Name and Description identify the rubric.
	Name, Description string
	// SystemPrompt is the system message sent to LLM judges.
	SystemPrompt string
	// Strategies are sorted by ID.
	Strategies []Strategy
}

// Strategy is one capability of the rubric.
type Strategy struct {
	ID       int
	Key      string
	Name     string
	Criteria string
	// Patterns are the raw evidence regular expressions of the heuristic judge.
	Patterns []string
	// compiled holds Patterns compiled case-insensitively, same order.
	compiled []*regexp.Regexp
	// prefilter[k] lists case-folded literals of which at least one must
	// occur in a text that compiled[k] matches; nil when none is known.
	prefilter [][]string
	// local[k] reports that compiled[k] can be matched line by line.
	local []bool
}

// rubricFile mirrors the TOML layout; pointers tell "missing" from "empty".
type rubricFile struct {
	Version      *int           `toml:"version"`
	Name         *string        `toml:"name"`
	Description  *string        `toml:"description"`
	SystemPrompt *string        `toml:"system_prompt"`
	Strategy     []strategyFile `toml:"strategy"`
}

type strategyFile struct {
	ID       *int      `toml:"id"`
	Key      *string   `toml:"key"`
	Name     *string   `toml:"name"`
	Criteria *string   `toml:"criteria"`
	Patterns *[]string `toml:"patterns"`
}

// LoadRubric reads and validates the rubric TOML file at path (see
// ParseRubric for the rules).
func LoadRubric(path string) (*Rubric, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read rubric %s: %w", path, err)
	}
	return ParseRubric(path, data)
}

// ParseRubric validates rubric TOML bytes; name is used in error messages
// and kept as Rubric.Path. Validation is strict: unknown keys, missing or
// empty required fields, a version other than 1, non-positive or duplicate
// strategy ids, duplicate keys or names, and patterns that do not compile
// are errors naming the file and the field. An empty patterns list is allowed
// (the heuristic judge then never finds evidence for that strategy).
func ParseRubric(name string, data []byte) (*Rubric, error) {
	var f rubricFile
	md, err := toml.NewDecoder(bytes.NewReader(data)).Decode(&f)
	if err != nil {
		return nil, fmt.Errorf("rubric %s: %w", name, err)
	}
	if und := md.Undecoded(); len(und) > 0 {
		keys := make([]string, len(und))
		for i, k := range und {
			keys[i] = k.String()
		}
		return nil, fmt.Errorf("rubric %s: unknown field(s) %s", name, strings.Join(keys, ", "))
	}
	r := &Rubric{Path: name, Hash: HashBytes(data)}
	need := func(field string, s *string) (string, error) {
		if s == nil {
			return "", fmt.Errorf("rubric %s: missing field %q", name, field)
		}
		if strings.TrimSpace(*s) == "" {
			return "", fmt.Errorf("rubric %s: field %q is empty", name, field)
		}
		return strings.TrimSpace(*s), nil
	}
	if f.Version == nil {
		return nil, fmt.Errorf("rubric %s: missing field %q", name, "version")
	}
	if *f.Version != 1 {
		return nil, fmt.Errorf("rubric %s: field %q: unsupported version %d (want 1)", name, "version", *f.Version)
	}
	r.Version = *f.Version
	if r.Name, err = need("name", f.Name); err != nil {
		return nil, err
	}
	if r.Description, err = need("description", f.Description); err != nil {
		return nil, err
	}
	if r.SystemPrompt, err = need("system_prompt", f.SystemPrompt); err != nil {
		return nil, err
	}
	if len(f.Strategy) == 0 {
		return nil, fmt.Errorf("rubric %s: missing field %q (no strategies)", name, "strategy")
	}
	seen := strategiesSeen{id: map[int]int{}, key: map[string]int{}, name: map[string]int{}}
	for i, sf := range f.Strategy {
		st, err := seen.parse(name, i, sf)
		if err != nil {
			return nil, err
		}
		r.Strategies = append(r.Strategies, st)
	}
	sort.Slice(r.Strategies, func(i, j int) bool { return r.Strategies[i].ID < r.Strategies[j].ID })
	return r, nil
}

// strategiesSeen is what a rubric's earlier strategies used: ids, keys
// and names, each with the index of the strategy that used it first.
type strategiesSeen struct {
	id        map[int]int
	key, name map[string]int
}

// parse validates strategy i of rubric name and compiles its patterns.
func (sn strategiesSeen) parse(name string, i int, sf strategyFile) (Strategy, error) {
	where := fmt.Sprintf("strategy[%d]", i)
	if sf.ID == nil {
		return Strategy{}, fmt.Errorf("rubric %s: %s: missing field %q", name, where, "id")
	}
	id := *sf.ID
	if id <= 0 {
		return Strategy{}, fmt.Errorf("rubric %s: %s: field %q must be positive, got %d", name, where, "id", id)
	}
	where = fmt.Sprintf("strategy[%d] (id %d)", i, id)
	if j, dup := sn.id[id]; dup {
		return Strategy{}, fmt.Errorf("rubric %s: %s: duplicate field %q: id %d also used by strategy[%d]", name, where, "id", id, j)
	}
	sn.id[id] = i
	s := Strategy{ID: id}
	for _, fld := range []struct {
		field string
		src   *string
		dst   *string
	}{{"key", sf.Key, &s.Key}, {"name", sf.Name, &s.Name}, {"criteria", sf.Criteria, &s.Criteria}} {
		if fld.src == nil {
			return Strategy{}, fmt.Errorf("rubric %s: %s: missing field %q", name, where, fld.field)
		}
		v := strings.TrimSpace(*fld.src)
		if v == "" {
			return Strategy{}, fmt.Errorf("rubric %s: %s: field %q is empty", name, where, fld.field)
		}
		*fld.dst = v
	}
	if j, dup := sn.key[s.Key]; dup {
		return Strategy{}, fmt.Errorf("rubric %s: %s: duplicate field %q: %q also used by strategy[%d]", name, where, "key", s.Key, j)
	}
	sn.key[s.Key] = i
	if j, dup := sn.name[s.Name]; dup {
		return Strategy{}, fmt.Errorf("rubric %s: %s: duplicate field %q: %q also used by strategy[%d]", name, where, "name", s.Name, j)
	}
	sn.name[s.Name] = i
	if sf.Patterns == nil {
		return Strategy{}, fmt.Errorf("rubric %s: %s: missing field %q", name, where, "patterns")
	}
	for k, p := range *sf.Patterns {
		if strings.TrimSpace(p) == "" {
			return Strategy{}, fmt.Errorf("rubric %s: %s: field \"patterns[%d]\" is empty", name, where, k)
		}
		re, err := regexp.Compile("(?i)" + p)
		if err != nil {
			return Strategy{}, fmt.Errorf("rubric %s: %s: field \"patterns[%d]\": %w", name, where, k, err)
		}
		s.Patterns = append(s.Patterns, p)
		s.compiled = append(s.compiled, re)
		s.prefilter = append(s.prefilter, requiredLiterals("(?i)"+p))
		s.local = append(s.local, lineLocal("(?i)"+p))
	}
	return s, nil
}

// Strategy returns the strategy with the given id.
func (r *Rubric) Strategy(id int) (Strategy, bool) {
	for _, s := range r.Strategies {
		if s.ID == id {
			return s, true
		}
	}
	return Strategy{}, false
}

// IDs returns the strategy ids in ascending order.
func (r *Rubric) IDs() []int {
	ids := make([]int, len(r.Strategies))
	for i, s := range r.Strategies {
		ids[i] = s.ID
	}
	return ids
}

// HashBytes returns the lower-case hex SHA-256 of b.
func HashBytes(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}
