// Package jsonscan holds the JSON lexing the graders' fast file readers
// share (DENTEX's COCO files, PUMA's nuclei files): white space, strings,
// numbers, literals and whole values, validated by the grammar
// encoding/json uses, and the exact conversion of number literals. The
// readers built on it decline (ok = false) anything they do not decode
// exactly as encoding/json does and hand the file to encoding/json.
package jsonscan

import (
	"encoding/binary"
	"strconv"
)

// MaxDepth bounds the nesting Skip follows (encoding/json allows 10000;
// deeper documents go to it).
const MaxDepth = 512

// Lexer reads B from offset I.
type Lexer struct {
	B []byte
	I int
}

// WS skips JSON white space (space, tab, newline, carriage return).
func (l *Lexer) WS() {
	b, i := l.B, l.I
	for i < len(b) && b[i] <= ' ' {
		switch b[i] {
		case ' ':
			i++
			// Indented files: runs of spaces, eight at a time.
			for i+8 <= len(b) && binary.LittleEndian.Uint64(b[i:]) == 0x2020202020202020 {
				i += 8
			}
		case '\t', '\n', '\r':
			i++
		default:
			l.I = i
			return
		}
	}
	l.I = i
}

// Peek returns the byte at I, or 0 at the end.
func (l *Lexer) Peek() byte {
	if l.I < len(l.B) {
		return l.B[l.I]
	}
	return 0
}

func isHex(c byte) bool { return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }

// Str consumes the string at I (which must be '"') and returns its raw
// bytes between the quotes; escaped reports a backslash escape in it.
func (l *Lexer) Str() (raw []byte, escaped, ok bool) {
	if l.Peek() != '"' {
		return nil, false, false
	}
	l.I++
	start := l.I
	for l.I < len(l.B) {
		c := l.B[l.I]
		switch {
		case c == '"':
			raw = l.B[start:l.I]
			l.I++
			return raw, escaped, true
		case c == '\\':
			escaped = true
			if l.I+1 >= len(l.B) {
				return nil, false, false
			}
			switch l.B[l.I+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				l.I += 2
			case 'u':
				if l.I+6 > len(l.B) || !isHex(l.B[l.I+2]) || !isHex(l.B[l.I+3]) || !isHex(l.B[l.I+4]) || !isHex(l.B[l.I+5]) {
					return nil, false, false
				}
				l.I += 6
			default:
				return nil, false, false
			}
		case c < 0x20:
			return nil, false, false
		default:
			l.I++
		}
	}
	return nil, false, false
}

func (l *Lexer) digits() int {
	n := 0
	for l.I < len(l.B) && '0' <= l.B[l.I] && l.B[l.I] <= '9' {
		l.I++
		n++
	}
	return n
}

// Number consumes a number of the JSON grammar at I and returns its literal.
func (l *Lexer) Number() ([]byte, bool) {
	start := l.I
	if l.Peek() == '-' {
		l.I++
	}
	switch c := l.Peek(); {
	case c == '0':
		l.I++
	case c >= '1' && c <= '9':
		l.digits()
	default:
		return nil, false
	}
	if l.Peek() == '.' {
		l.I++
		if l.digits() == 0 {
			return nil, false
		}
	}
	if c := l.Peek(); c == 'e' || c == 'E' {
		l.I++
		if c := l.Peek(); c == '+' || c == '-' {
			l.I++
		}
		if l.digits() == 0 {
			return nil, false
		}
	}
	return l.B[start:l.I], true
}

// Lit consumes the word w (true, false, null) at I.
func (l *Lexer) Lit(w string) bool {
	if len(l.B)-l.I >= len(w) && string(l.B[l.I:l.I+len(w)]) == w {
		l.I += len(w)
		return true
	}
	return false
}

// eat consumes c after white space and reports whether it was there.
func (l *Lexer) eat(c byte) bool {
	l.WS()
	if l.Peek() == c {
		l.I++
		return true
	}
	return false
}

// Skip validates and passes over one value (after white space) nested
// depth deep; false on a syntax error or nesting beyond MaxDepth.
func (l *Lexer) Skip(depth int) bool {
	if depth > MaxDepth {
		return false
	}
	l.WS()
	switch l.Peek() {
	case '{':
		l.I++
		if l.eat('}') {
			return true
		}
		for {
			l.WS()
			if _, _, ok := l.Str(); !ok || !l.eat(':') || !l.Skip(depth+1) {
				return false
			}
			if l.eat('}') {
				return true
			}
			if !l.eat(',') {
				return false
			}
		}
	case '[':
		l.I++
		if l.eat(']') {
			return true
		}
		for {
			if !l.Skip(depth + 1) {
				return false
			}
			if l.eat(']') {
				return true
			}
			if !l.eat(',') {
				return false
			}
		}
	case '"':
		_, _, ok := l.Str()
		return ok
	case 't':
		return l.Lit("true")
	case 'f':
		return l.Lit("false")
	case 'n':
		return l.Lit("null")
	}
	_, ok := l.Number()
	return ok
}

// pow10 holds the powers of ten that float64 represents exactly.
var pow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// Pow10 is 10^k for 0 ≤ k ≤ 22 (exact in float64).
func Pow10(k int) float64 { return pow10[k] }

// Float converts a valid JSON number literal as strconv.ParseFloat does
// (and so as encoding/json does); ok is false when ParseFloat fails (out of
// range). A literal m × 10^e with m < 2^53 and |e| ≤ 22 takes the exact
// path: m and 10^|e| are exact float64s, so one correctly rounded
// multiplication or division gives ParseFloat's value.
func Float(lit []byte) (float64, bool) {
	if f, ok := exactDecimal(lit); ok {
		return f, true
	}
	f, err := strconv.ParseFloat(string(lit), 64)
	return f, err == nil
}

func exactDecimal(lit []byte) (float64, bool) {
	if len(lit) == 0 {
		return 0, false
	}
	i, neg := 0, false
	if lit[0] == '-' {
		neg, i = true, 1
	}
	var m uint64
	e, digits := 0, 0
	for ; i < len(lit) && '0' <= lit[i] && lit[i] <= '9'; i++ {
		if digits++; digits > 18 {
			return 0, false
		}
		m = m*10 + uint64(lit[i]-'0')
	}
	if i < len(lit) && lit[i] == '.' {
		for i++; i < len(lit) && '0' <= lit[i] && lit[i] <= '9'; i++ {
			if digits++; digits > 18 {
				return 0, false
			}
			m = m*10 + uint64(lit[i]-'0')
			e--
		}
	}
	if i < len(lit) { // exponent
		i++
		eneg := false
		if i < len(lit) && (lit[i] == '+' || lit[i] == '-') {
			eneg = lit[i] == '-'
			i++
		}
		x := 0
		for ; i < len(lit); i++ {
			if x = x*10 + int(lit[i]-'0'); x > 1000 {
				return 0, false
			}
		}
		if eneg {
			x = -x
		}
		e += x
	}
	if m >= 1<<53 || e < -22 || e > 22 {
		return 0, false
	}
	f := float64(m)
	if e >= 0 {
		f *= pow10[e]
	} else {
		f /= pow10[-e]
	}
	if neg {
		f = -f
	}
	return f, true
}
