package puma

import (
	"fmt"
	"strings"
	"testing"
)

// TestDescriptionEveryVariant renders each task's description.md for both
// tracks: the heading names the track and task, the track's own sentence is
// there and the other track's is not.
func TestDescriptionEveryVariant(t *testing.T) {
	own := map[Task][2]string{
		Tissue: {"Only the first channel of a multi-channel mask is read", "The mask is used exactly as decoded"},
		Nuclei: {"Three classes: `tumor`", "Ten classes, written exactly so"},
	}
	for _, c := range Variants {
		d := c.description()
		head := fmt.Sprintf("# PUMA Track %d, Task %d:", c.track, c.task)
		mine, other := own[c.task][c.track-1], own[c.task][2-c.track]
		if !strings.HasPrefix(d, head) || !strings.Contains(d, mine) || strings.Contains(d, other) || strings.Contains(d, "{{") {
			t.Errorf("%s: description wrong (want %q, %q, not %q):\n%s", c.id, head, mine, other, d)
		}
	}
}
