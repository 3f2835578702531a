package judge

import (
	"context"
	"fmt"
	"regexp"
	"sort"
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
	lines := newLineIndex(sec.Text, folded)
	for _, s := range r.Strategies {
		sc := StrategyScore{ID: s.ID, Name: s.Name}
		for k, re := range s.compiled {
			loc := findMatch(re, sec.Text, folded, lines, s.prefilter[k], s.local[k])
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

// findMatch returns the leftmost match of re in text, like
// re.FindStringIndex, faster: patterns whose required literals (lits, see
// requiredLiterals) are absent from the folded text are skipped, and
// line-local patterns are run only on the lines holding such a literal.
func findMatch(re *regexp.Regexp, text, folded string, lines *lineIndex, lits []string, local bool) []int {
	if lits == nil {
		return re.FindStringIndex(text)
	}
	if !local {
		if !mayMatch(folded, lits) {
			return nil
		}
		return re.FindStringIndex(text)
	}
	// Lines (by number) of the folded text holding a literal. Folding keeps
	// newlines, so line numbers agree between folded and original text.
	var cand []int
	for _, l := range lits {
		for off := 0; ; {
			i := strings.Index(folded[off:], l)
			if i < 0 {
				break
			}
			ln := lines.lineOf(off + i)
			cand = append(cand, ln)
			// Skip to the next line: one candidate per line is enough.
			next := strings.IndexByte(folded[off+i:], '\n')
			if next < 0 {
				break
			}
			off += i + next + 1
		}
	}
	if len(cand) == 0 {
		return nil
	}
	sort.Ints(cand)
	prev := -1
	for _, ln := range cand {
		if ln == prev {
			continue
		}
		prev = ln
		start, end := lines.bounds(text, ln)
		if loc := re.FindStringIndex(text[start:end]); loc != nil {
			return []int{start + loc[0], start + loc[1]}
		}
	}
	return nil
}

// lineIndex locates lines in a text and in its folded copy.
type lineIndex struct {
	starts       []int // byte offset of each line in the original text
	foldedStarts []int // same in the folded text
}

func lineStarts(s string) []int {
	starts := []int{0}
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			starts = append(starts, i+1)
		}
	}
	return starts
}

func newLineIndex(text, folded string) *lineIndex {
	return &lineIndex{starts: lineStarts(text), foldedStarts: lineStarts(folded)}
}

// lineOf returns the line number of byte offset off in the folded text.
func (li *lineIndex) lineOf(off int) int {
	return sort.SearchInts(li.foldedStarts, off+1) - 1
}

// bounds returns the byte range of line ln in text, without its newline.
func (li *lineIndex) bounds(text string, ln int) (int, int) {
	start := li.starts[ln]
	end := len(text)
	if ln+1 < len(li.starts) {
		end = li.starts[ln+1] - 1
	}
	return start, end
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
