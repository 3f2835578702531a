// Package pyjson reads JSON as Python's json.load reads a file opened as
// UTF-8 text, and gives the values Python gets, with helpers for what
// Python then does with them (len, str, arithmetic on numbers and bools).
// The graders use it where the reference reads a submitted JSON file.
package pyjson

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"unicode/utf8"
)

// A JSON reader that accepts exactly what Python's json.load accepts from a
// file opened as UTF-8 text (the reference's and the organisers' way of
// reading the nuclei files), and gives the values Python gets:
//
//   - the file must be valid UTF-8 (UnicodeDecodeError otherwise), and a
//     leading BOM is an error ("Unexpected UTF-8 BOM");
//   - NaN, Infinity and -Infinity are numbers;
//   - a number with a fraction or exponent is float(literal): overflow gives
//     ±Inf, underflow 0; an integer is int(literal), refused beyond
//     Python 3.11's 4300-digit limit for int-from-string conversion;
//   - strings refuse raw control characters (strict mode) and keep lone
//     surrogate escapes (as their 3-byte WTF-8 form, so that distinct ones
//     stay distinct);
//   - duplicate keys: the last one wins (a dict);
//   - anything after the value but white space is "Extra data".
//
// Values: nil, bool, Num, string, []any, map[string]any.

// Num is a JSON number: its float64 value (an integer's exact value
// rounded to float64) and whether Python reads it as an int.
type Num struct {
	F     float64
	IsInt bool
	Lit   string // the literal (integers: what str() of the int prints, but "-0" for -0)
}

const (
	MaxIntDigits = 4300 // sys.get_int_max_str_digits() default, Python 3.11
	// MaxDepth is the deepest nesting of arrays and objects the reference's
	// json.load decodes: CPython 3.11's C decoder spends one unit of the
	// recursion limit (1000) per level, and the Python frames above it
	// spend the rest. Measured with Debian's Python 3.11: 992 levels decode
	// from a script's own function and 993 raise RecursionError; the
	// graders call json.load about six frames deeper (runpy, the CLI, the
	// grader wrapper, grade, json.load), so 986 decode there. The exact
	// bound moves by a level per frame of the caller's stack: documents
	// nested 980–995 deep are where this can differ from a given run.
	MaxDepth = 986
)

// ErrTooDeep is the error of a document nested deeper than MaxDepth (the
// reference's RecursionError).
var ErrTooDeep = errors.New("nested deeper than Python's json decodes under its recursion limit (RecursionError in the reference)")

type pyParser struct {
	b     []byte
	i     int
	depth int
}

var ErrSyntax = errors.New("not valid JSON")

func (p *pyParser) fail(format string, a ...any) error {
	return fmt.Errorf("%w (as Python's json reads it): %s at byte %d", ErrSyntax, fmt.Sprintf(format, a...), p.i)
}

// Load parses data as json.load does.
func Load(data []byte) (any, error) {
	if !utf8.Valid(data) {
		k := 0
		for k < len(data) {
			r, n := utf8.DecodeRune(data[k:])
			if r == utf8.RuneError && n <= 1 {
				break
			}
			k += n
		}
		return nil, fmt.Errorf("%w: byte %d is not valid UTF-8 (Python reads the file as UTF-8 text)", ErrSyntax, k)
	}
	p := &pyParser{b: data}
	if len(data) >= 3 && data[0] == 0xef && data[1] == 0xbb && data[2] == 0xbf {
		return nil, p.fail("unexpected UTF-8 BOM")
	}
	p.ws()
	v, err := p.value()
	if err != nil {
		return nil, err
	}
	p.ws()
	if p.i != len(p.b) {
		return nil, p.fail("extra data after the JSON value")
	}
	return v, nil
}

func (p *pyParser) ws() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *pyParser) lit(s string) bool {
	if len(p.b)-p.i >= len(s) && string(p.b[p.i:p.i+len(s)]) == s {
		p.i += len(s)
		return true
	}
	return false
}

func (p *pyParser) value() (any, error) {
	if p.i >= len(p.b) {
		return nil, p.fail("expecting value")
	}
	switch c := p.b[p.i]; {
	case c == '"':
		return p.str()
	case c == '{':
		return p.object()
	case c == '[':
		return p.array()
	case p.lit("null"):
		return nil, nil
	case p.lit("true"):
		return true, nil
	case p.lit("false"):
		return false, nil
	case p.lit("NaN"):
		return Num{F: math.NaN(), Lit: "nan"}, nil
	case p.lit("Infinity"):
		return Num{F: math.Inf(1), Lit: "inf"}, nil
	case p.lit("-Infinity"):
		return Num{F: math.Inf(-1), Lit: "-inf"}, nil
	case c == '-' || '0' <= c && c <= '9':
		return p.number()
	}
	return nil, p.fail("expecting value")
}

func (p *pyParser) number() (any, error) {
	start := p.i
	if p.b[p.i] == '-' {
		p.i++
	}
	digits := func() int {
		k := p.i
		for p.i < len(p.b) && '0' <= p.b[p.i] && p.b[p.i] <= '9' {
			p.i++
		}
		return p.i - k
	}
	switch {
	case p.i < len(p.b) && p.b[p.i] == '0':
		p.i++
	case p.i < len(p.b) && '1' <= p.b[p.i] && p.b[p.i] <= '9':
		digits()
	default:
		return nil, p.fail("expecting value")
	}
	isInt := true
	if p.i+1 < len(p.b) && p.b[p.i] == '.' && '0' <= p.b[p.i+1] && p.b[p.i+1] <= '9' {
		p.i++
		digits()
		isInt = false
	}
	if p.i < len(p.b) && (p.b[p.i] == 'e' || p.b[p.i] == 'E') {
		e := p.i
		p.i++
		if p.i < len(p.b) && (p.b[p.i] == '+' || p.b[p.i] == '-') {
			p.i++
		}
		if digits() == 0 {
			p.i = e // not part of the number: the next token is an error
		} else {
			isInt = false
		}
	}
	lit := string(p.b[start:p.i])
	if isInt {
		n := len(lit)
		if lit[0] == '-' {
			n--
		}
		if n > MaxIntDigits {
			return nil, p.fail("integer of %d digits exceeds Python's 4300-digit limit", n)
		}
	}
	f, err := strconv.ParseFloat(lit, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return nil, p.fail("bad number %q", lit)
	}
	return Num{F: f, IsInt: isInt, Lit: lit}, nil
}

func (p *pyParser) enter() error {
	p.depth++
	if p.depth > MaxDepth {
		return fmt.Errorf("%w: more than %d levels of arrays and objects at byte %d", ErrTooDeep, MaxDepth, p.i)
	}
	return nil
}

func (p *pyParser) object() (any, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer func() { p.depth-- }()
	p.i++ // {
	m := map[string]any{}
	p.ws()
	if p.i < len(p.b) && p.b[p.i] == '}' {
		p.i++
		return m, nil
	}
	for {
		if p.i >= len(p.b) || p.b[p.i] != '"' {
			return nil, p.fail("expecting property name enclosed in double quotes")
		}
		k, err := p.str()
		if err != nil {
			return nil, err
		}
		p.ws()
		if p.i >= len(p.b) || p.b[p.i] != ':' {
			return nil, p.fail("expecting ':' delimiter")
		}
		p.i++
		p.ws()
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		m[k] = v
		p.ws()
		if p.i < len(p.b) && p.b[p.i] == '}' {
			p.i++
			return m, nil
		}
		if p.i >= len(p.b) || p.b[p.i] != ',' {
			return nil, p.fail("expecting ',' delimiter")
		}
		p.i++
		p.ws()
	}
}

func (p *pyParser) array() (any, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer func() { p.depth-- }()
	p.i++ // [
	out := []any{}
	p.ws()
	if p.i < len(p.b) && p.b[p.i] == ']' {
		p.i++
		return out, nil
	}
	for {
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		out = append(out, v)
		p.ws()
		if p.i < len(p.b) && p.b[p.i] == ']' {
			p.i++
			return out, nil
		}
		if p.i >= len(p.b) || p.b[p.i] != ',' {
			return nil, p.fail("expecting ',' delimiter")
		}
		p.i++
		p.ws()
	}
}

func hexVal(c byte) int {
	switch {
	case '0' <= c && c <= '9':
		return int(c - '0')
	case 'a' <= c && c <= 'f':
		return int(c-'a') + 10
	case 'A' <= c && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

// u4 reads the 4 hex digits after "\u" at p.i.
func (p *pyParser) u4() (rune, bool) {
	if len(p.b)-p.i < 4 {
		return 0, false
	}
	r := rune(0)
	for k := 0; k < 4; k++ {
		h := hexVal(p.b[p.i+k])
		if h < 0 {
			return 0, false
		}
		r = r<<4 | rune(h)
	}
	p.i += 4
	return r, true
}

func (p *pyParser) str() (string, error) {
	p.i++ // opening quote
	start := p.i
	// Fast path: no escape.
	for p.i < len(p.b) {
		c := p.b[p.i]
		if c == '"' {
			s := string(p.b[start:p.i])
			p.i++
			return s, nil
		}
		if c == '\\' {
			break
		}
		if c < 0x20 {
			return "", p.fail("invalid control character in a string")
		}
		p.i++
	}
	buf := append([]byte(nil), p.b[start:p.i]...)
	for {
		if p.i >= len(p.b) {
			return "", p.fail("unterminated string")
		}
		c := p.b[p.i]
		switch {
		case c == '"':
			p.i++
			return string(buf), nil
		case c < 0x20:
			return "", p.fail("invalid control character in a string")
		case c != '\\':
			buf = append(buf, c)
			p.i++
			continue
		}
		p.i++ // backslash
		if p.i >= len(p.b) {
			return "", p.fail("unterminated string")
		}
		e := p.b[p.i]
		p.i++
		switch e {
		case '"', '\\', '/':
			buf = append(buf, e)
		case 'b':
			buf = append(buf, '\b')
		case 'f':
			buf = append(buf, '\f')
		case 'n':
			buf = append(buf, '\n')
		case 'r':
			buf = append(buf, '\r')
		case 't':
			buf = append(buf, '\t')
		case 'u':
			r, ok := p.u4()
			if !ok {
				return "", p.fail("invalid \\uXXXX escape")
			}
			if 0xd800 <= r && r <= 0xdbff && len(p.b)-p.i >= 6 && p.b[p.i] == '\\' && p.b[p.i+1] == 'u' {
				save := p.i
				p.i += 2
				if r2, ok := p.u4(); ok && 0xdc00 <= r2 && r2 <= 0xdfff {
					r = 0x10000 + (r-0xd800)<<10 + (r2 - 0xdc00)
				} else {
					p.i = save
				}
			}
			buf = appendWTF8(buf, r)
		default:
			return "", p.fail("invalid \\escape")
		}
	}
}

// appendWTF8 appends r as UTF-8, a lone surrogate in its 3-byte form.
func appendWTF8(b []byte, r rune) []byte {
	if 0xd800 <= r && r <= 0xdfff {
		return append(b, byte(0xe0|r>>12), byte(0x80|(r>>6)&0x3f), byte(0x80|r&0x3f))
	}
	return utf8.AppendRune(b, r)
}

// Len is Python's len() of a JSON value; ok = false where len() raises
// (numbers, bools, None).
func Len(v any) (int, bool) {
	switch x := v.(type) {
	case []any:
		return len(x), true
	case map[string]any:
		return len(x), true
	case string:
		return utf8.RuneCountInString(x), true // code points (a WTF-8 surrogate is one)
	}
	return 0, false
}

// TypeName is the Python type name of a JSON value, for messages.
func TypeName(v any) string {
	switch x := v.(type) {
	case nil:
		return "NoneType"
	case bool:
		return "bool"
	case Num:
		if x.IsInt {
			return "int"
		}
		return "float"
	case string:
		return "str"
	case []any:
		return "list"
	case map[string]any:
		return "dict"
	}
	return fmt.Sprintf("%T", v)
}

// Number is the numeric value numpy and Python arithmetic give a JSON
// value: numbers, and bools as 1 and 0.
func Number(v any) (float64, bool) {
	switch x := v.(type) {
	case Num:
		return x.F, true
	case bool:
		if x {
			return 1, true
		}
		return 0, true
	}
	return 0, false
}

// Str is Python's str() of a JSON scalar (numbers: ints as their
// digits, floats in Go's shortest form, which equals Python's repr for the
// values that matter here).
func Str(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case bool:
		if x {
			return "True"
		}
		return "False"
	case nil:
		return "None"
	case Num:
		if x.IsInt {
			if x.Lit == "-0" {
				return "0"
			}
			return x.Lit
		}
		switch {
		case x.F != x.F:
			return "nan"
		case math.IsInf(x.F, 1):
			return "inf"
		case math.IsInf(x.F, -1):
			return "-inf"
		}
		s := strconv.FormatFloat(x.F, 'g', -1, 64)
		if f := x.F; f == float64(int64(f)) && f < 1e16 && f > -1e16 {
			s = strconv.FormatFloat(f, 'f', 1, 64)
		}
		return s
	}
	return fmt.Sprint(v)
}

// Depth is the deepest nesting of arrays and objects in data, counted as
// Python's decoder enters them (brackets inside strings do not count;
// data need not be valid JSON). A document deeper than MaxDepth fails in
// the reference whatever else it holds.
func Depth(data []byte) int {
	depth, deepest, inString := 0, 0, false
	for i := 0; i < len(data); i++ {
		c := data[i]
		if inString {
			switch c {
			case '\\':
				i++
			case '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '[', '{':
			depth++
			deepest = max(deepest, depth)
		case ']', '}':
			depth--
		}
	}
	return deepest
}
