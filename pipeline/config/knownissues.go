package config

import (
	"fmt"
	"os"
	"strings"
)

// KnownIssue is one place where the paper's reference harness departs from
// the paper or from the agents it launches, and what rexmle does instead
// (benchmark/known-issues.toml).
type KnownIssue struct {
	ID      string   `toml:"id"`
	Agents  []string `toml:"agents"` // empty: every agent
	Title   string   `toml:"title"`
	Paper   string   `toml:"paper"`
	Harness string   `toml:"harness"`
	Rexmle  string   `toml:"rexmle"`
	Sources []string `toml:"sources"`
}

// LoadKnownIssues reads and checks a known-issues file: unknown keys, and
// entries without id, title, harness or rexmle, or with a duplicate id, are
// errors naming the line.
func LoadKnownIssues(path string) ([]KnownIssue, error) {
	text, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("known issues: %w", err)
	}
	var problems []Problem
	ck := newChecker(path, text, &problems)
	var f struct {
		Issue []KnownIssue `toml:"issue"`
	}
	if ck.decode(text, &f) {
		seen := map[string]bool{}
		for i, is := range f.Issue {
			line := ck.table("issue", i)
			for _, r := range []struct{ v, name string }{{is.ID, "id"}, {is.Title, "title"}, {is.Harness, "harness"}, {is.Rexmle, "rexmle"}} {
				if strings.TrimSpace(r.v) == "" {
					ck.addf(line, "issue %d: %s is missing", i+1, r.name)
				}
			}
			if seen[is.ID] && is.ID != "" {
				ck.addf(line, "issue %q is listed twice", is.ID)
			}
			seen[is.ID] = true
		}
	}
	if len(problems) > 0 {
		return nil, &Error{problems}
	}
	return f.Issue, nil
}
