package challenge

import (
	"strings"
	"testing"
)

func TestParseSynthSize(t *testing.T) {
	for in, want := range map[string]SynthSize{"": {}, "default": {}, " Default ": {}, "full": {Full: true}, "FULL": {Full: true}, "10": {Cases: 10}, "100000": {Cases: 100000},
		"full:10": {Full: true, Cases: 10}, " FULL:40 ": {Full: true, Cases: 40}, "full:100000": {Full: true, Cases: 100000}} {
		got, err := ParseSynthSize(in)
		if err != nil || got != want {
			t.Errorf("ParseSynthSize(%q) = %+v, %v; want %+v", in, got, err, want)
		}
	}
	for _, in := range []string{"ful", "9", "0", "-5", "100001", "1e3", "20 cases", "full,40",
		"full:", "full:9", "full:0", "full:-3", "full:100001", "full:ten", "full:full", "full: 40", "40:full"} {
		_, err := ParseSynthSize(in)
		if err == nil || !strings.Contains(err.Error(), `"full"`) || !strings.Contains(err.Error(), `"full:N"`) || !strings.Contains(err.Error(), "REXMLE_SYNTH_CASES") {
			t.Errorf("ParseSynthSize(%q): error %v, want one naming the variable and the valid forms", in, err)
		}
	}
}

func TestSynthSizeCountAndString(t *testing.T) {
	for _, c := range []struct {
		s    SynthSize
		want int
		str  string
	}{{SynthSize{}, 15, "default"}, {SynthSize{Full: true}, 250, "full"}, {SynthSize{Cases: 40}, 40, "40"}, {SynthSize{Full: true, Cases: 12}, 12, "full:12"}} {
		if got := c.s.Count(15, 250); got != c.want || c.s.String() != c.str {
			t.Errorf("%+v: Count %d String %q, want %d %q", c.s, got, c.s.String(), c.want, c.str)
		}
		if back, err := ParseSynthSize(c.s.String()); err != nil || back != c.s {
			t.Errorf("%+v does not round-trip through its String: %+v %v", c.s, back, err)
		}
	}
}

func TestShareCases(t *testing.T) {
	for _, c := range []struct{ n, r0, r1, w0, w1 int }{
		{1300, 1000, 300, 1000, 300}, // the real counts come back
		{10, 1000, 300, 8, 2},
		{205, 103, 102, 103, 102},
		{10, 1000, 1, 9, 1}, // each group keeps a case
		{10, 1, 1000, 1, 9},
	} {
		if a, b := ShareCases(c.n, c.r0, c.r1); a != c.w0 || b != c.w1 {
			t.Errorf("ShareCases(%d, %d, %d) = %d, %d; want %d, %d", c.n, c.r0, c.r1, a, b, c.w0, c.w1)
		}
	}
}
