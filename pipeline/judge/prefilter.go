package judge

import (
	"regexp/syntax"
	"strings"
	"unicode"
)

// lineLocal reports whether no match of the pattern can contain a newline
// or depend on text begin/end (\A, \z, or ^/$ without (?m)). For such a
// pattern, the leftmost match in a text is the leftmost match of the first
// line that has one, so matching line by line gives identical results.
func lineLocal(pattern string) bool {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return false
	}
	return !mayCrossLine(re)
}

func mayCrossLine(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpAnyChar, syntax.OpBeginText, syntax.OpEndText:
		return true
	case syntax.OpLiteral:
		for _, r := range re.Rune {
			if r == '\n' {
				return true
			}
		}
	case syntax.OpCharClass:
		for i := 0; i+1 < len(re.Rune); i += 2 {
			if re.Rune[i] <= '\n' && '\n' <= re.Rune[i+1] {
				return true
			}
		}
	}
	for _, sub := range re.Sub {
		if mayCrossLine(sub) {
			return true
		}
	}
	return false
}

// maxClassRunes bounds the character classes turned into prefilter literals.
const maxClassRunes = 16

// requiredLiterals returns strings, in folded form (foldString), such that
// any text the pattern matches contains at least one of them, folded; nil
// when no such set is found. It looks at how a match must begin: after
// leading empty-width assertions, a literal, a small character class, or an
// alternation/capture/repetition (at least once) of those. The heuristic judge
// runs a pattern's regular expression only when the folded text contains one
// of its literals, which skips most patterns at the cost of a substring
// search; results are unchanged because the test is necessary for a match.
func requiredLiterals(pattern string) []string {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return nil
	}
	lits, ok := leadLiterals(re)
	if !ok || len(lits) == 0 {
		return nil
	}
	return lits
}

func leadLiterals(re *syntax.Regexp) ([]string, bool) {
	switch re.Op {
	case syntax.OpLiteral:
		if len(re.Rune) == 0 {
			return nil, false
		}
		return []string{foldString(string(re.Rune))}, true
	case syntax.OpCharClass:
		var out []string
		seen := map[string]bool{}
		n := 0
		for i := 0; i+1 < len(re.Rune); i += 2 {
			for r := re.Rune[i]; r <= re.Rune[i+1]; r++ {
				if n++; n > maxClassRunes {
					return nil, false
				}
				f := foldString(string(r))
				if !seen[f] {
					seen[f] = true
					out = append(out, f)
				}
			}
		}
		return out, len(out) > 0
	case syntax.OpCapture, syntax.OpPlus:
		return leadLiterals(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return leadLiterals(re.Sub[0])
		}
		return nil, false
	case syntax.OpAlternate:
		var out []string
		for _, sub := range re.Sub {
			l, ok := leadLiterals(sub)
			if !ok {
				return nil, false
			}
			out = append(out, l...)
		}
		return out, len(out) > 0
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			switch sub.Op {
			case syntax.OpWordBoundary, syntax.OpNoWordBoundary, syntax.OpBeginLine,
				syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText, syntax.OpEmptyMatch:
				continue
			}
			return leadLiterals(sub)
		}
	}
	return nil, false
}

// foldRune maps r to the smallest rune of its simple case-folding orbit,
// the equivalence (?i) uses, so folded texts compare case-insensitively.
func foldRune(r rune) rune {
	m := r
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		if f < m {
			m = f
		}
	}
	return m
}

// foldString applies foldRune to every rune of s.
func foldString(s string) string {
	return strings.Map(foldRune, s)
}

// mayMatch reports whether folded text contains one of the literals (true
// when there are none).
func mayMatch(folded string, lits []string) bool {
	if lits == nil {
		return true
	}
	for _, l := range lits {
		if strings.Contains(folded, l) {
			return true
		}
	}
	return false
}
