package dentex

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/rexmle/rexmle/pipeline/jsonscan"
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

// pyNumber parses raw when it is a number as Python's json reads one in a
// prediction file: a JSON number (one too large for a float64 is ±Inf, as
// float() makes it) or one of the words NaN, Infinity and -Infinity, which
// json.dump writes for non-finite floats; true and false too, which Python
// computes with as 1 and 0 (a bool is an int there: a category true is
// category 1).
func pyNumber(raw []byte) (float64, bool) {
	switch string(raw) {
	case "true":
		return 1, true
	case "false":
		return 0, true
	case "NaN":
		return math.NaN(), true
	case "Infinity":
		return math.Inf(1), true
	case "-Infinity":
		return math.Inf(-1), true
	}
	if f, ok := jsonNumber(raw); ok {
		return f, true
	}
	if len(raw) == 0 || len(raw) > 64 {
		return 0, false
	}
	l := jsonscan.Lexer{B: raw}
	if lit, ok := l.Number(); ok && l.I == len(raw) {
		f, err := strconv.ParseFloat(string(lit), 64) // out of range: ±Inf
		return f, math.IsInf(f, 0) && errors.Is(err, strconv.ErrRange)
	}
	return 0, false
}

// decodeFloat reads a number of a prediction file (pyNumber), else is
// json.Unmarshal(raw, f) (for its error).
func decodeFloat(raw []byte, f *float64) error {
	if v, ok := pyNumber(raw); ok {
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
// (encoding/json would leave 0 there; Python has None, on which the
// reference fails).
func decodeFloats(raw []byte, list *[]float64) error {
	return floatList(raw, list, jsonNumber)
}

// decodePyFloats is decodeFloats for a prediction file's list, whose
// numbers Python's json reads (pyNumber).
func decodePyFloats(raw []byte, list *[]float64) error {
	return floatList(raw, list, pyNumber)
}

func floatList(raw []byte, list *[]float64, number func([]byte) (float64, bool)) error {
	if out, ok := plainFloats(raw, number); ok {
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

// plainFloats parses raw when it is a list of numbers (number reads each;
// whitespace allowed around them).
func plainFloats(raw []byte, number func([]byte) (float64, bool)) ([]float64, bool) {
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
		v, ok := number(bytes.TrimSpace(part))
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
