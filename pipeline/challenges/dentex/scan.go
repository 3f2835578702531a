package dentex

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/rexmle/rexmle/pipeline/jsonscan"
)

// A hand-written scanner for the two JSON shapes the grader reads in bulk —
// the per-image prediction files and the per-image ground-truth files — in
// place of encoding/json's reflection-driven decoding into maps. It is a
// fast path only: it accepts a document when it can tell that encoding/json
// would decode it without error and gives exactly what encoding/json would
// give (values as raw bytes, the last of duplicate keys winning), and
// declines everything else — any syntax error, escapes or non-ASCII bytes
// in keys, values of an unexpected type, nesting deeper than maxScanDepth.
// Declined documents go through the encoding/json path, so results and
// error messages are encoding/json's.

// field is one member of a JSON object: the key as written (plain ASCII, no
// escapes) and the value's raw bytes (what a json.RawMessage would hold).
type field struct {
	key []byte
	val []byte
}

// object is a decoded JSON object; nil stands for a JSON null where an
// object was expected (encoding/json's nil map).
type object []field

// get returns the value of key; with duplicate keys the last one, as
// encoding/json's map decoding keeps.
func (o object) get(key string) ([]byte, bool) {
	for i := len(o) - 1; i >= 0; i-- {
		if string(o[i].key) == key {
			return o[i].val, true
		}
	}
	return nil, false
}

// objectOf turns an encoding/json map into an object (order is irrelevant:
// map keys are unique).
func objectOf(m map[string]json.RawMessage) object {
	if m == nil {
		return nil
	}
	o := make(object, 0, len(m))
	for k, v := range m {
		o = append(o, field{[]byte(k), v})
	}
	return o
}

// maxScanDepth bounds the nesting the scanner follows (encoding/json's own
// limit, 10000, is reached only through the fallback).
const maxScanDepth = jsonscan.MaxDepth

type scanner struct {
	jsonscan.Lexer
	depth  int
	fields []field // arena the kept objects are cut from
}

// str consumes a string; plain is true when it holds no escape and no
// byte outside printable ASCII (so its bytes are its value).
func (s *scanner) str() (plain, ok bool) {
	raw, escaped, ok := s.Str()
	if !ok {
		return false, false
	}
	plain = !escaped
	for _, c := range raw {
		if c >= 0x80 {
			plain = false
			break
		}
	}
	return plain, true
}

// number consumes a number of the JSON grammar.
func (s *scanner) number() bool {
	_, ok := s.Number()
	return ok
}

// end reports whether only whitespace is left.
func (s *scanner) end() bool {
	s.WS()
	return s.I == len(s.B)
}

// value skips one JSON value (at a non-space byte), validating it, and
// returns its raw bytes.
func (s *scanner) value() ([]byte, bool) {
	start := s.I
	ok := false
	switch c := s.Peek(); {
	case c == '{':
		ok = s.skipObject()
	case c == '[':
		ok = s.skipArray()
	case c == '"':
		_, ok = s.str()
	case c == '-' && s.I+1 < len(s.B) && s.B[s.I+1] == 'I':
		ok = s.Lit("-Infinity") // Python's json: -inf
	case c == '-' || c >= '0' && c <= '9':
		ok = s.number()
	case c == 'N':
		ok = s.Lit("NaN") // Python's json: nan
	case c == 'I':
		ok = s.Lit("Infinity") // Python's json: inf
	case c == 't':
		ok = s.Lit("true")
	case c == 'f':
		ok = s.Lit("false")
	case c == 'n':
		ok = s.Lit("null")
	}
	return s.B[start:s.I], ok
}

func (s *scanner) enter() bool {
	s.depth++
	return s.depth <= maxScanDepth
}

func (s *scanner) skipArray() bool {
	if !s.enter() {
		return false
	}
	defer func() { s.depth-- }()
	s.I++ // [
	s.WS()
	if s.Peek() == ']' {
		s.I++
		return true
	}
	for {
		s.WS()
		if _, ok := s.value(); !ok {
			return false
		}
		s.WS()
		switch s.Peek() {
		case ',':
			s.I++
		case ']':
			s.I++
			return true
		default:
			return false
		}
	}
}

func (s *scanner) skipObject() bool {
	_, ok := s.object(false)
	return ok
}

// object consumes an object (at '{'); with keep it returns its members,
// and declines keys that are not plain.
func (s *scanner) object(keep bool) (object, bool) {
	if !s.enter() {
		return nil, false
	}
	defer func() { s.depth-- }()
	s.I++ // {
	start := len(s.fields)
	if keep && s.fields == nil {
		s.fields = make([]field, 0, len(s.B)/24+1) // about one member per 24 bytes
	}
	cut := func() object { // the members kept; a new object{} when none
		out := s.fields[start:len(s.fields):len(s.fields)]
		if out == nil {
			out = object{}
		}
		return out
	}
	s.WS()
	if s.Peek() == '}' {
		s.I++
		return cut(), true
	}
	for {
		s.WS()
		if s.Peek() != '"' {
			return nil, false
		}
		ks := s.I
		plain, ok := s.str()
		if !ok || keep && !plain {
			return nil, false
		}
		key := s.B[ks+1 : s.I-1]
		s.WS()
		if s.Peek() != ':' {
			return nil, false
		}
		s.I++
		s.WS()
		v, ok := s.value()
		if !ok {
			return nil, false
		}
		if keep {
			s.fields = append(s.fields, field{key, v})
		}
		s.WS()
		switch s.Peek() {
		case ',':
			s.I++
		case '}':
			s.I++
			if !keep {
				return nil, true
			}
			return cut(), true
		default:
			return nil, false
		}
	}
}

// objectList consumes a list (at '[') whose elements are objects or null.
func (s *scanner) objectList() ([]object, bool) {
	s.I++ // [
	out := []object{}
	s.WS()
	if s.Peek() == ']' {
		s.I++
		return out, true
	}
	for {
		s.WS()
		switch s.Peek() {
		case '{':
			o, ok := s.object(true)
			if !ok {
				return nil, false
			}
			out = append(out, o)
		case 'n':
			if !s.Lit("null") {
				return nil, false
			}
			out = append(out, nil)
		default:
			return nil, false
		}
		s.WS()
		switch s.Peek() {
		case ',':
			s.I++
		case ']':
			s.I++
			return out, true
		default:
			return nil, false
		}
	}
}

// trimJSONSpace drops the whitespace JSON allows around a value (space,
// tab, line feed, carriage return: Python's json too), and no other.
func trimJSONSpace(b []byte) []byte { return bytes.Trim(b, " \t\n\r") }

// scanObjectList reads raw as a JSON list of objects (json.Unmarshal into
// []map[string]json.RawMessage); anything else, null included, it declines.
func scanObjectList(raw []byte) ([]object, bool) {
	s := scanner{Lexer: jsonscan.Lexer{B: raw}}
	if s.Peek() != '[' {
		return nil, false
	}
	list, ok := s.objectList()
	return list, ok && s.end()
}

// scanPredictionFile is parsePredictionFile's fast path (ok false: declined).
func scanPredictionFile(b []byte) ([]object, bool) {
	b = trimJSONSpace(b)
	s := scanner{Lexer: jsonscan.Lexer{B: b}}
	switch s.Peek() {
	case '[':
		list, ok := s.objectList()
		return list, ok && s.end()
	case '{':
		obj, ok := s.object(true)
		if !ok || !s.end() {
			return nil, false
		}
		if a, has := obj.get("annotations"); has {
			return scanObjectList(a)
		}
		return []object{obj}, true
	}
	return nil, false
}

// parsePredictions parses a prediction file: a list of objects, an object
// with an "annotations" list, or a single object.
func parsePredictions(b []byte) ([]object, error) {
	if !utf8.Valid(b) {
		// The reference reads the file as UTF-8 text and fails.
		return nil, fmt.Errorf("not UTF-8 text: save the file as UTF-8")
	}
	if objs, ok := scanPredictionFile(b); ok {
		return objs, nil
	}
	maps, err := parsePredictionFile(b)
	if err != nil {
		return nil, err
	}
	objs := make([]object, len(maps))
	for i, m := range maps {
		objs[i] = objectOf(m)
	}
	return objs, nil
}

// scanTruthFile is the fast path of reading a ground-truth file (its
// "images" and "annotations" lists as readCOCO, cocoFile.list and
// json.Unmarshal into imageEntry and truthAnn give them).
func scanTruthFile(b []byte) (imgs []imageEntry, anns []truthAnn, objs []object, ok bool) {
	s := scanner{Lexer: jsonscan.Lexer{B: b}}
	s.WS()
	if s.Peek() != '{' {
		return nil, nil, nil, false
	}
	top, ok := s.object(true)
	if !ok || !s.end() {
		return nil, nil, nil, false
	}
	if raw, has := top.get("images"); has {
		list, ok := scanObjectList(raw)
		if !ok {
			return nil, nil, nil, false
		}
		for _, o := range list {
			var e imageEntry
			if o == nil || !e.scan(o) {
				return nil, nil, nil, false
			}
			imgs = append(imgs, e)
		}
	}
	if raw, has := top.get("annotations"); has {
		list, ok := scanObjectList(raw)
		if !ok {
			return nil, nil, nil, false
		}
		for _, o := range list {
			var a truthAnn
			if o == nil || !a.scan(o) {
				return nil, nil, nil, false
			}
			anns = append(anns, a)
			objs = append(objs, o)
		}
	}
	return imgs, anns, objs, true
}

// asciiFold reports whether key equals the lower-case ASCII name up to
// ASCII case (encoding/json's field matching, for plain ASCII keys).
func asciiFold(key []byte, name string) bool {
	if len(key) != len(name) {
		return false
	}
	for i, c := range key {
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != name[i] {
			return false
		}
	}
	return true
}

// scanInt is json.Unmarshal of raw into an int64 that is already set: null
// leaves it, a plain integer sets it; anything else declines.
func scanInt(raw []byte, v *int64) bool {
	if string(raw) == "null" {
		return true
	}
	if len(raw) == 0 || !(raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9') || bytes.ContainsAny(raw, ".eE") {
		return false
	}
	n, err := strconv.ParseInt(string(raw), 10, 64)
	if err != nil {
		return false
	}
	*v = n
	return true
}

// scanIntTo is scanInt for an int.
func scanIntTo(raw []byte, v *int) bool {
	n := int64(*v)
	if !scanInt(raw, &n) || int64(int(n)) != n {
		return false
	}
	*v = int(n)
	return true
}

func (e *imageEntry) scan(o object) bool {
	for _, f := range o {
		switch {
		case asciiFold(f.key, "id"):
			if !scanInt(f.val, &e.ID) {
				return false
			}
		case asciiFold(f.key, "file_name"):
			if string(f.val) == "null" {
				continue
			}
			v := f.val
			if len(v) < 2 || v[0] != '"' || bytes.IndexByte(v[1:len(v)-1], '\\') >= 0 || !utf8.Valid(v) {
				return false
			}
			e.FileName = string(v[1 : len(v)-1])
		case asciiFold(f.key, "width"):
			if !scanIntTo(f.val, &e.Width) {
				return false
			}
		case asciiFold(f.key, "height"):
			if !scanIntTo(f.val, &e.Height) {
				return false
			}
		}
	}
	return true
}

func (a *truthAnn) scan(o object) bool {
	for _, f := range o {
		switch {
		case asciiFold(f.key, "id"):
			if !scanInt(f.val, &a.ID) {
				return false
			}
		case asciiFold(f.key, "image_id"):
			if !scanInt(f.val, &a.ImageID) {
				return false
			}
		case asciiFold(f.key, "bbox"):
			if string(f.val) == "null" {
				a.BBox = nil
				continue
			}
			if len(f.val) == 0 || f.val[0] != '[' {
				return false
			}
			var bb []float64
			if decodeFloats(f.val, &bb) != nil {
				return false
			}
			a.BBox = bb
		case asciiFold(f.key, "area"):
			if string(f.val) == "null" {
				a.Area = nil
				continue
			}
			v, ok := jsonNumber(f.val)
			if !ok {
				return false
			}
			a.Area = &v
		case asciiFold(f.key, "iscrowd"):
			a.IsCrowd = json.RawMessage(f.val)
		}
	}
	return true
}
