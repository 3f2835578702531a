package puma

import (
	"unicode/utf8"

	"github.com/rexmle/rexmle/pipeline/challenge"
	"github.com/rexmle/rexmle/pipeline/jsonscan"
)

// A one-pass reader of the nuclei JSON files for the shape that nearly all
// of them have: {"polygons": [{"name": "…", "path_points": [[x, y], …],
// "score": s}, …]} (in reference mode also "nuclei", "class",
// "confidence", "centroid"), any other members skipped. It validates the
// whole document with the JSON grammar (a subset of what Python's json
// accepts: no NaN or Infinity), and gives up (ok = false) on anything it
// does not handle exactly as parseNucleiJSON does — invalid UTF-8, an
// escape in a key or a class name, a class name that is not a string or
// null, a score or point that is not a number, a number out of float64
// range, an unexpected type, a null list, an item the organisers' code
// fails on (official mode), deep nesting, trailing bytes, any syntax
// error — so that the caller then runs parseNucleiJSON, which gives the
// result or the error. Where it answers, its detections are
// parseNucleiJSON's, bit for bit.

type nucleiScanner struct {
	jsonscan.Lexer
}

// str reads a string after white space and returns its raw bytes between
// the quotes; plain says they are the decoded value (no escape, valid
// UTF-8).
func (s *nucleiScanner) str() (raw []byte, plain, ok bool) {
	s.WS()
	raw, escaped, ok := s.Str()
	return raw, ok && !escaped && utf8.Valid(raw), ok
}

// number reads a JSON number after white space and returns its literal.
func (s *nucleiScanner) number() ([]byte, bool) {
	s.WS()
	return s.Number()
}

func (s *nucleiScanner) parse(lit []byte) (float64, bool) { return jsonscan.Float(lit) }

// peek returns the next byte after white space, or 0 at the end.
func (s *nucleiScanner) peek() byte {
	s.WS()
	return s.Peek()
}

// eat consumes c (after white space) and reports whether it was there.
func (s *nucleiScanner) eat(c byte) bool {
	if s.peek() == c {
		s.I++
		return true
	}
	return false
}

// float reads a number and converts it as json.Number.Float64 does, in one
// pass over the literal where exactDecimal's rule applies.
func (s *nucleiScanner) float() (float64, bool) {
	s.WS()
	start := s.I
	b := s.B
	i := s.I
	neg := i < len(b) && b[i] == '-'
	if neg {
		i++
	}
	var m uint64
	digits, e := 0, 0
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && '1' <= b[i] && b[i] <= '9':
		for ; i < len(b) && '0' <= b[i] && b[i] <= '9'; i++ {
			m = m*10 + uint64(b[i]-'0')
			digits++
		}
	default:
		return 0, false
	}
	if i < len(b) && b[i] == '.' {
		i++
		k := i
		for ; i < len(b) && '0' <= b[i] && b[i] <= '9'; i++ {
			m = m*10 + uint64(b[i]-'0')
		}
		if i == k {
			return 0, false
		}
		digits += i - k
		e = k - i
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		// Rare: the general path.
		s.I = start
		return s.floatSlow()
	}
	s.I = i
	// m is exact while at most 18 digits were read (leading zeros count).
	if digits > 18 || m >= 1<<53 || e < -22 {
		return s.parse(b[start:i])
	}
	f := float64(m)
	if e < 0 {
		f /= jsonscan.Pow10(-e)
	}
	if neg {
		f = -f
	}
	return f, true
}

// floatSlow reads a number with number and converts it.
func (s *nucleiScanner) floatSlow() (float64, bool) {
	lit, ok := s.number()
	if !ok {
		return 0, false
	}
	return jsonscan.Float(lit)
}

// members walks an object's members (the opening brace already eaten),
// calling member with each key (plain: no escapes, valid UTF-8) and s at
// its value, which member must consume.
func (s *nucleiScanner) members(member func(key []byte) bool) bool {
	if s.eat('}') {
		return true
	}
	for {
		key, plain, ok := s.str()
		if !ok || !plain || !s.eat(':') || !member(key) {
			return false
		}
		if s.eat('}') {
			return true
		}
		if !s.eat(',') {
			return false
		}
	}
}

// elements walks an array's elements (the opening bracket already eaten),
// calling elem at each, which must consume it.
func (s *nucleiScanner) elements(elem func(k int) bool) bool {
	if s.eat(']') {
		return true
	}
	for k := 0; ; k++ {
		if !elem(k) {
			return false
		}
		if s.eat(']') {
			return true
		}
		if !s.eat(',') {
			return false
		}
	}
}

// pair reads a list whose first two elements are numbers ([x, y, …]).
func (s *nucleiScanner) pair() (x, y float64, ok bool) {
	if !s.eat('[') {
		return 0, 0, false
	}
	if x, ok = s.float(); !ok || !s.eat(',') {
		return 0, 0, false
	}
	if y, ok = s.float(); !ok {
		return 0, 0, false
	}
	for !s.eat(']') {
		if !s.eat(',') || !s.Skip(3) {
			return 0, 0, false
		}
	}
	return x, y, true
}

// scannedItem is what one list item says, its duplicate keys resolved as a
// Go map does (the last one wins).
type scannedItem struct {
	name, class         optString
	score, confidence   optFloat
	hasPoints           bool
	nPoints             int
	sumX, sumY          float64
	hasCentroid         bool
	centroidX, centroid float64
}

type optString struct {
	set, null bool
	raw       []byte // the name, undecoded (plain)
}

type optFloat struct {
	set bool
	v   float64
}

// className reads a class name: a plain string or null.
func (s *nucleiScanner) className(o *optString) bool {
	*o = optString{set: true}
	if s.peek() == 'n' {
		o.null = true
		return s.Lit("null")
	}
	raw, plain, ok := s.str()
	o.raw = raw
	return ok && plain
}

func (s *nucleiScanner) item(it *scannedItem, official bool) bool {
	*it = scannedItem{}
	if !s.eat('{') {
		return false
	}
	return s.members(func(key []byte) bool {
		k := string(key)
		if official && (k == "class" || k == "confidence" || k == "centroid") {
			return s.Skip(1) // not read by the organisers
		}
		switch k {
		case "name":
			return s.className(&it.name)
		case "class":
			return s.className(&it.class)
		case "score", "confidence":
			v, ok := s.float()
			if key[0] == 's' {
				it.score = optFloat{true, v}
			} else {
				it.confidence = optFloat{true, v}
			}
			return ok
		case "path_points":
			it.hasPoints, it.nPoints, it.sumX, it.sumY = true, 0, 0, 0
			if !s.eat('[') {
				return false
			}
			if s.eat(']') {
				return true
			}
			for {
				x, y, ok := s.pair()
				if !ok {
					return false
				}
				it.nPoints++
				it.sumX += x
				it.sumY += y
				if s.eat(']') {
					return true
				}
				if !s.eat(',') {
					return false
				}
			}
		case "centroid":
			it.hasCentroid = true
			var ok bool
			it.centroidX, it.centroid, ok = s.pair()
			return ok
		}
		return s.Skip(1)
	})
}

// parseNucleiFast is parseNucleiJSON for the files the scanner handles;
// ok = false sends the file to parseNucleiJSON.
func (c Challenge) parseNucleiFast(data []byte, mode challenge.Mode) (out []detection, ok bool) {
	if !utf8.Valid(data) {
		return nil, false // Python fails to read it as text: parseNucleiJSON says so
	}
	s := &nucleiScanner{jsonscan.Lexer{B: data}}
	if !s.eat('{') {
		return nil, false
	}
	var polygons, nuclei []detection
	var hasPolygons, polygonsNull, nucleiNull bool
	var it scannedItem
	names := map[string]normalised{} // class names met, normalised
	official := mode == challenge.Official
	list := func(dst *[]detection, null *bool) bool {
		*dst, *null = nil, false
		if s.peek() == 'n' {
			*null = true
			return s.Lit("null")
		}
		if !s.eat('[') {
			return false
		}
		return s.elements(func(int) bool {
			if !s.item(&it, official) {
				return false
			}
			p, keep, ok := c.scannedPoint(&it, mode, names)
			if keep {
				*dst = append(*dst, p)
			}
			return ok
		})
	}
	if !s.members(func(key []byte) bool {
		switch string(key) {
		case "polygons":
			hasPolygons = true
			return list(&polygons, &polygonsNull)
		case "nuclei":
			if official {
				return s.Skip(1) // not read by the organisers
			}
			return list(&nuclei, &nucleiNull)
		}
		return s.Skip(1)
	}) {
		return nil, false
	}
	if s.peek() != 0 || s.I != len(s.B) {
		return nil, false // trailing bytes: left to encoding/json
	}
	// A null list fails in Python (None is not iterable): left to
	// parseNucleiJSON for the error.
	if hasPolygons {
		return polygons, !polygonsNull
	}
	return nuclei, !nucleiNull
}

// normalised is the class normalisation's answer for one class name.
type normalised struct {
	cls  string
	keep bool
	err  error
}

// scannedPoint turns an item into a detection as parseNucleiJSON does;
// keep says whether it is one, ok = false that the item needs
// parseNucleiJSON.
func (c Challenge) scannedPoint(it *scannedItem, mode challenge.Mode, names map[string]normalised) (p detection, keep, ok bool) {
	official := mode == challenge.Official
	cv := it.name
	if !cv.set && !official {
		cv = it.class
	}
	if official && (!cv.set || cv.null || !it.hasPoints) {
		return p, false, false // an error or a null name: parseNucleiJSON
	}
	var cls string
	if cv.set && !cv.null {
		n, seen := names[string(cv.raw)]
		if !seen {
			if official {
				n.cls, n.err = c.normaliseOfficial(string(cv.raw))
				n.keep = n.err == nil
			} else {
				n.cls, n.keep, n.err = c.normaliseReference(string(cv.raw))
			}
			names[string(cv.raw)] = n
		}
		if n.err != nil {
			return p, false, false
		}
		cls, keep = n.cls, n.keep
	}
	score := 1.0
	if it.score.set {
		score = it.score.v
	} else if it.confidence.set {
		score = it.confidence.v
	}
	var x, y float64
	switch {
	case it.hasPoints:
		if it.nPoints < 3 {
			return p, false, true
		}
		x, y = it.sumX/float64(it.nPoints), it.sumY/float64(it.nPoints)
	case it.hasCentroid:
		x, y = it.centroidX, it.centroid
	default:
		return p, false, true
	}
	if !keep {
		return p, false, true
	}
	return detection{X: x, Y: y, Class: cls, Score: score}, true, true
}
