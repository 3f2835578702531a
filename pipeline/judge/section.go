package judge

import (
	"fmt"
	"strings"
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

// truncateText cuts text to at most max characters (code points) using mode.
// max <= 0 means no limit. It returns the kept text and whether it cut.
// The middle marker is "\n[... N characters omitted ...]\n"; when max is too
// small to hold the marker, middle mode falls back to head.
func truncateText(text string, max int, mode Truncation) (string, bool) {
	n := utf8.RuneCountInString(text)
	if max <= 0 || n <= max {
		return text, false
	}
	r := []rune(text)
	switch mode {
	case TruncateTail:
		return string(r[n-max:]), true
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
			head := (room + 1) / 2
			tail := room - head
			return string(r[:head]) + marker + string(r[n-tail:]), true
		}
		return string(r[:max]), true
	default:
		return string(r[:max]), true
	}
}

func middleMarker(omitted int) string {
	return fmt.Sprintf("\n[... %d characters omitted ...]\n", omitted)
}

// ParseTruncation converts a config string to a Truncation ("" → head).
func ParseTruncation(s string) (Truncation, error) {
	switch Truncation(strings.ToLower(strings.TrimSpace(s))) {
	case "", TruncateHead:
		return TruncateHead, nil
	case TruncateTail:
		return TruncateTail, nil
	case TruncateMiddle:
		return TruncateMiddle, nil
	}
	return "", fmt.Errorf("unknown truncation %q (want head, tail or middle)", s)
}
