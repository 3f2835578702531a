package dentex

import (
	"bytes"
	"encoding/json"
	"fmt"
	"unicode/utf8"

	"github.com/rexmle/rexmle/internal/jsonscan"
)

// The prediction fields are raw JSON values cut from an already validated
// document; most are plain numbers or plain strings. These helpers decode
// those directly and hand anything else (null, escapes, nested values) to
// encoding/json, so the results and errors are encoding/json's.

// jsonNumber parses raw when it is a JSON number (RFC 8259 grammar) that
// fits a float64, as encoding/json would.
func jsonNumber(raw []byte) (float64, bool) {
	if len(raw) == 0 || len(raw) > 64 {
		return 0, false
	}
	l := jsonscan.Lexer{B: raw}
	lit, ok := l.Number()
	if !ok || l.I != len(raw) {
		return 0, false
	}
	return jsonscan.Float(lit)
}

// decodeFloat is json.Unmarshal(raw, f) with a fast path for numbers.
func decodeFloat(raw []byte, f *float64) error {
	if v, ok := jsonNumber(raw); ok {
		*f = v
		return nil
	}
	return json.Unmarshal(raw, f)
}

// decodeString is json.Unmarshal(raw, s) with a fast path for strings
// without escapes.
func decodeString(raw []byte, s *string) error {
	if n := len(raw); n >= 2 && raw[0] == '"' && raw[n-1] == '"' && bytes.IndexByte(raw[1:n-1], '\\') < 0 && bytes.IndexByte(raw[1:n-1], '"') < 0 && utf8.Valid(raw) {
		*s = string(raw[1 : n-1])
		return nil
	}
	return json.Unmarshal(raw, s)
}

// decodeFloats is json.Unmarshal(raw, list) for a list of numbers, with a
// fast path for a flat list of plain numbers; a null element is an error
// (encoding/json would leave 0 there; Python gets None and the reference
// fails on it).
func decodeFloats(raw []byte, list *[]float64) error {
	if out, ok := plainFloats(raw); ok {
		*list = out
		return nil
	}
	var ptrs []*float64
	if json.Unmarshal(raw, &ptrs) != nil {
		return json.Unmarshal(raw, list) // its partial result and error
	}
	if ptrs == nil {
		*list = nil
		return nil
	}
	out := make([]float64, len(ptrs))
	for i, p := range ptrs {
		if p == nil {
			return fmt.Errorf("element %d is null, want a number", i)
		}
		out[i] = *p
	}
	*list = out
	return nil
}

// plainFloats parses raw when it is a list of JSON numbers (whitespace
// allowed around them) that fit float64s.
func plainFloats(raw []byte) ([]float64, bool) {
	n := len(raw)
	if n < 2 || raw[0] != '[' || raw[n-1] != ']' {
		return nil, false
	}
	body := bytes.TrimSpace(raw[1 : n-1])
	if len(body) == 0 {
		return []float64{}, true
	}
	out := make([]float64, 0, 4)
	for {
		part := body
		i := bytes.IndexByte(body, ',')
		if i >= 0 {
			part = body[:i]
		}
		v, ok := jsonNumber(bytes.TrimSpace(part))
		if !ok {
			return nil, false
		}
		out = append(out, v)
		if i < 0 {
			return out, true
		}
		body = body[i+1:]
	}
}
