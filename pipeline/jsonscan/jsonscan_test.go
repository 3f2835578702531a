package jsonscan

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
)

// TestFloatMatchesParseFloat compares Float, and its exact path, with
// strconv.ParseFloat on random JSON number literals; most take the exact
// path.
func TestFloatMatchesParseFloat(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 7))
	digits := func(n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte('0' + r.IntN(10))
		}
		return string(b)
	}
	taken := 0
	for i := 0; i < 200000; i++ {
		lit := ""
		if r.IntN(2) == 0 {
			lit = "-"
		}
		if r.IntN(5) == 0 {
			lit += "0"
		} else {
			lit += string(byte('1'+r.IntN(9))) + digits(r.IntN(17))
		}
		if r.IntN(2) == 0 {
			lit += "." + digits(1+r.IntN(17))
		}
		if r.IntN(4) == 0 {
			lit += []string{"e", "E"}[r.IntN(2)] + []string{"", "+", "-"}[r.IntN(3)] + fmt.Sprint(r.IntN(40))
		}
		want, err := strconv.ParseFloat(lit, 64)
		if err != nil {
			t.Fatalf("generator wrote %q: %v", lit, err)
		}
		if got, ok := Float([]byte(lit)); !ok || math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("%s: Float %v (ok %v), ParseFloat %v", lit, got, ok, want)
		}
		got, ok := exactDecimal([]byte(lit))
		if !ok {
			continue
		}
		taken++
		if math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("%s: exactDecimal %v, ParseFloat %v", lit, got, want)
		}
	}
	if taken < 50000 {
		t.Fatalf("fast conversion took only %d literals", taken)
	}
	for _, lit := range []string{"0", "-0", "9007199254740991", "9007199254740992", "1e22", "1e23", "123456789012345678", "0.1", "-0.0", "4.35", "1023.99"} {
		want, _ := strconv.ParseFloat(lit, 64)
		if got, ok := exactDecimal([]byte(lit)); ok && math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("%s: exactDecimal %v, ParseFloat %v", lit, got, want)
		}
	}
	if _, ok := Float([]byte("1e400")); ok {
		t.Error("1e400 is out of range: want ok false, as ParseFloat fails")
	}
}

// TestSkipAgreesWithEncodingJSON: Skip accepts a whole document exactly
// when encoding/json finds it valid (documents shallower than MaxDepth).
func TestSkipAgreesWithEncodingJSON(t *testing.T) {
	docs := []string{
		`{}`, `[]`, ` {"a": [1, -2.5e3, "x\u00e9\n", true, false, null]} `, `"\ud800"`, `0`, `-0.0E+1`,
		`{"a":}`, `[1,]`, `01`, `1.`, `.5`, `-`, `"\x"`, `"\u12g4"`, "\"a\x01\"", `tru`, `nul`, `{"a" 1}`,
		`{"a":1,}`, `[1 2]`, `1e`, `1e+`, `"abc`, `{"k":{"k":[{"k":null}]}}`, "\t[\r\n1 ]\n",
	}
	for _, d := range docs {
		l := Lexer{B: []byte(d)}
		got := l.Skip(0)
		l.WS()
		got = got && l.I == len(d)
		if want := json.Valid([]byte(d)); got != want {
			t.Errorf("%q: Skip %v, json.Valid %v", d, got, want)
		}
	}
	deep := ""
	for i := 0; i <= MaxDepth+1; i++ {
		deep += "["
	}
	if (&Lexer{B: []byte(deep)}).Skip(0) {
		t.Error("nesting beyond MaxDepth accepted")
	}
}

// TestStrReportsEscapes: Str gives the raw bytes between the quotes and
// whether they hold an escape.
func TestStrReportsEscapes(t *testing.T) {
	for _, c := range []struct {
		in, raw string
		esc, ok bool
	}{
		{`"abc"`, "abc", false, true},
		{`"a\"b"`, `a\"b`, true, true},
		{`"é"`, "é", false, true},
		{`abc`, "", false, false},
		{"\"a\tb\"", "", false, false},
	} {
		l := Lexer{B: []byte(c.in)}
		raw, esc, ok := l.Str()
		if string(raw) != c.raw || esc != c.esc || ok != c.ok {
			t.Errorf("Str(%q) = %q, %v, %v; want %q, %v, %v", c.in, raw, esc, ok, c.raw, c.esc, c.ok)
		}
	}
}

// TestWSMatchesByteLoop: WS stops where a one-byte-at-a-time loop stops,
// from every start of random mixtures of white space and other bytes
// (control bytes, UTF-8, the white-space bytes' neighbours).
func TestWSMatchesByteLoop(t *testing.T) {
	r := rand.New(rand.NewPCG(6, 9))
	alphabet := []byte{' ', ' ', ' ', ' ', '\t', '\n', '\n', '\r', 0x0b, 0x0c, 0x1f, '!', 0x00, 0x80, 0xa0, 0xff, '"', '1', 0x8a, 0x89}
	for trial := 0; trial < 3000; trial++ {
		b := make([]byte, r.IntN(40))
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
			if r.IntN(3) > 0 {
				b[i] = ' '
			}
		}
		for start := 0; start <= len(b); start++ {
			want := start
			for want < len(b) && (b[want] == ' ' || b[want] == '\t' || b[want] == '\n' || b[want] == '\r') {
				want++
			}
			l := Lexer{B: b, I: start}
			l.WS()
			if l.I != want {
				t.Fatalf("%q from %d: WS stopped at %d, want %d", b, start, l.I, want)
			}
		}
	}
}
