package topcowcommon

import (
	"strings"
	"testing"
)

// TestDescriptionEveryVariant renders the shared description.md for every
// variant: its name, the split's sizes, its modality, submission column and
// every metric appear, and no template action is left in the text.
func TestDescriptionEveryVariant(t *testing.T) {
	for _, cfg := range Variants {
		c := New(cfg)
		d := c.description(7, 3)
		want := []string{"# " + cfg.Name + "\n", "7 training and 3 test cases", "(`<m>` is `" + cfg.Modality + "`)", "`" + c.pathColumn() + "`"}
		for _, m := range c.Metrics() {
			want = append(want, "- `"+m.Name+"` (")
		}
		for _, w := range want {
			if !strings.Contains(d, w) {
				t.Errorf("%s: description lacks %q", cfg.ID, w)
			}
		}
		if strings.Contains(d, "{{") || strings.Contains(d, "\n\n\n") {
			t.Errorf("%s: template action or blank-line run left:\n%s", cfg.ID, d)
		}
	}
}
