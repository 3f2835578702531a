package judge

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"
)

// HeuristicName is the Name of the heuristic judge; bump the suffix when its
// matching logic (not the rubric, which is hashed separately) changes.
const HeuristicName = "heuristic-v1"

// snippetRadius is how many characters of context each side of a match the
// heuristic evidence keeps.
const snippetRadius = 60

// Heuristic is the offline, deterministic judge: a strategy scores 1 when any
// of its rubric patterns matches the section text (case-insensitively), and
// the evidence is the matched text with up to 60 characters of context each
// side plus the pattern index. It never makes a network call, never leaves a
// strategy missing, and its scores are labelled KindHeuristic. It only sees
// words, so it cannot tell planned from executed work: treat its profile as
// an approximation of an LLM judge's.
type Heuristic struct{}

// NewHeuristic returns the heuristic judge.
func NewHeuristic() *Heuristic { return &Heuristic{} }

// Name implements Judge.
func (*Heuristic) Name() string { return HeuristicName }

// Kind implements Judge.
func (*Heuristic) Kind() string { return KindHeuristic }

// Score implements Judge.
func (h *Heuristic) Score(ctx context.Context, sec Section, r *Rubric) (SectionScore, error) {
	out := SectionScore{Judge: h.Name(), Kind: h.Kind(), RubricHash: r.Hash, SectionHash: sec.Hash()}
	if err := ctx.Err(); err != nil {
		out.Missing = allMissing(r)
		out.Error = err.Error()
		out.setStatus()
		return out, err
	}
	folded := foldString(sec.Text)
	for _, s := range r.Strategies {
		sc := StrategyScore{ID: s.ID, Name: s.Name}
		for k, re := range s.compiled {
			if !mayMatch(folded, s.prefilter[k]) {
				continue
			}
			loc := re.FindStringIndex(sec.Text)
			if loc == nil {
				continue
			}
			sc.Score = 1
			sc.Evidence = fmt.Sprintf("pattern %d: %s", k, snippet(sec.Text, loc[0], loc[1]))
			break
		}
		out.Scores = append(out.Scores, sc)
	}
	out.setStatus()
	return out, nil
}

// snippet returns text[start:end] with snippetRadius characters of context
// each side, on one line, with "…" where it was cut.
func snippet(text string, start, end int) string {
	lo := start
	for i := 0; i < snippetRadius && lo > 0; i++ {
		_, w := utf8.DecodeLastRuneInString(text[:lo])
		lo -= w
	}
	hi := end
	for i := 0; i < snippetRadius && hi < len(text); i++ {
		_, w := utf8.DecodeRuneInString(text[hi:])
		hi += w
	}
	s := strings.Join(strings.Fields(text[lo:hi]), " ")
	if lo > 0 {
		s = "…" + s
	}
	if hi < len(text) {
		s += "…"
	}
	return s
}
