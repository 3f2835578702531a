package judge

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// DefaultMaxChars is the default size cap of one log section, in characters
// (Unicode code points), as in the reference scorer (15,000).
const DefaultMaxChars = 15000

// Truncation says which part of an over-long section is kept.
type Truncation string

const (
	// TruncateHead keeps the first MaxChars characters. This is what the
	// reference scorer does for plain-text logs (a Python slice text[:n]).
	TruncateHead Truncation = "head"
	// TruncateTail keeps the last MaxChars characters.
	TruncateTail Truncation = "tail"
	// TruncateMiddle keeps the beginning and the end (half each) and drops
	// the middle, inserting a one-line marker that counts toward the cap.
	TruncateMiddle Truncation = "middle"
)

// Section is one labelled piece of an agent log, the unit a judge scores.
type Section struct {
	// Label names the section within its run, unique per run, e.g.
	// "journal.json#node-12" or "agent.jsonl#iter-3".
	Label string
	// Source is the log file the section came from, relative to the log dir.
	Source string
	// Format is the reader that produced it (see the Format constants).
	Format Format
	// Text is the (possibly truncated) content sent to the judge.
	Text string
	// OrigChars is the length of the content before truncation, in characters.
	OrigChars int
	// Truncated reports whether Text is shorter than the original content.
	Truncated bool
}

// Hash is the hex SHA-256 of the section text actually judged (after
// truncation). Together with the judge model and the rubric hash it keys the
// judge cache, so the same text in two runs is judged once.
func (s Section) Hash() string { return HashBytes([]byte(s.Text)) }

// truncateParts cuts a text of n > max characters, known only by its
// beginning (head: at least its first max characters) and its end (tail: at
// least its last max characters), which is all a streamed section keeps, to
// max characters using mode. The middle marker is
// "\n[... N characters omitted ...]\n"; when max is too small to hold the
// marker, middle mode falls back to head.
func truncateParts(n int, head, tail []rune, max int, mode Truncation) string {
	first := func(k int) string { return string(head[:min(k, len(head))]) }
	last := func(k int) string { return string(tail[len(tail)-min(k, len(tail)):]) }
	switch mode {
	case TruncateTail:
		return last(max)
	case TruncateMiddle:
		// Find room (content characters kept) such that the marker naming
		// n-room omitted characters plus room characters fill exactly max.
		room := max
		for i := 0; i < 4; i++ {
			next := max - utf8.RuneCountInString(middleMarker(n-room))
			if next == room {
				break
			}
			room = next
		}
		marker := middleMarker(n - room)
		if room >= 2 && room+utf8.RuneCountInString(marker) == max {
			h := (room + 1) / 2
			return first(h) + marker + last(room-h)
		}
		return first(max)
	default:
		return first(max)
	}
}

// capBuilder collects one section's text as it streams by, keeping only
// what truncation can use: the first max characters and the last max
// characters (as up to 4·max+4 bytes), plus the total count. Leading and
// trailing white space is dropped, as strings.TrimSpace would. Memory is
// O(max) however much is written; max <= 0 keeps everything.
type capBuilder struct {
	max       int
	head      []byte // the first max characters (everything when max <= 0)
	headRunes int
	tail      []byte // the last bytes written, at most 2·tailCap
	n         int    // characters written (after leading space)
	started   bool
}

func newCapBuilder(max int) *capBuilder { return &capBuilder{max: max} }

func (b *capBuilder) tailCap() int { return 4*b.max + 4 }

// WriteString appends s (whole characters).
func (b *capBuilder) WriteString(s string) {
	if !b.started {
		s = strings.TrimLeftFunc(s, unicode.IsSpace)
		if s == "" {
			return
		}
		b.started = true
	}
	if b.max <= 0 {
		b.head = append(b.head, s...)
		return
	}
	c := utf8.RuneCountInString(s)
	if b.headRunes < b.max {
		take := len(s)
		if b.headRunes+c > b.max {
			take, k := 0, 0
			for i := range s {
				if b.headRunes+k == b.max {
					take = i
					break
				}
				k++
			}
			b.head = append(b.head, s[:take]...)
			b.headRunes = b.max
		} else {
			b.head = append(b.head, s[:take]...)
			b.headRunes += c
		}
	}
	tc := b.tailCap()
	if len(s) >= tc {
		b.tail = append(b.tail[:0], s[len(s)-tc:]...)
	} else {
		b.tail = append(b.tail, s...)
		if len(b.tail) > 2*tc {
			b.tail = append(b.tail[:0], b.tail[len(b.tail)-tc:]...)
		}
	}
	b.n += c
}

// Empty reports whether nothing but white space was written.
func (b *capBuilder) Empty() bool { return !b.started }

// Finish returns the (truncated) text, its length before truncation in
// characters, and whether it was cut.
func (b *capBuilder) Finish(mode Truncation) (string, int, bool) {
	if b.max <= 0 || b.n <= b.max {
		t := strings.TrimRightFunc(string(b.head), unicode.IsSpace)
		return t, utf8.RuneCountInString(t), false
	}
	tail := b.tail
	for len(tail) > 0 && !utf8.RuneStart(tail[0]) {
		tail = tail[1:] // a character cut by the window
	}
	ts := string(tail)
	tt := strings.TrimRightFunc(ts, unicode.IsSpace)
	n := b.n - (utf8.RuneCountInString(ts) - utf8.RuneCountInString(tt))
	if n <= b.max {
		r := []rune(string(b.head))
		return strings.TrimRightFunc(string(r[:min(n, len(r))]), unicode.IsSpace), n, false
	}
	return truncateParts(n, []rune(string(b.head)), []rune(tt), b.max, mode), n, true
}

func middleMarker(omitted int) string {
	return fmt.Sprintf("\n[... %d characters omitted ...]\n", omitted)
}
