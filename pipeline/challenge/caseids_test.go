package challenge

import (
	"reflect"
	"testing"
)

func TestDistinctCaseIDs(t *testing.T) {
	for _, tc := range []struct{ in, want []string }{
		{nil, nil},
		{[]string{"a", "b"}, []string{"a", "b"}},
		{[]string{"a", "b", "a", "a"}, []string{"a", "b", "a#2", "a#3"}},
		// A renaming never takes an id a row already has, nor another renaming.
		{[]string{"a", "a#2", "a", "a#2"}, []string{"a", "a#2", "a#2#2", "a#2#2#2"}},
		{[]string{"x", "x", "x#2#2", "x#2"}, []string{"x", "x#2#2#2", "x#2#2", "x#2"}},
	} {
		got := DistinctCaseIDs(tc.in)
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("DistinctCaseIDs(%q) = %q, want %q", tc.in, got, tc.want)
		}
		seen := map[string]bool{}
		for _, id := range got {
			if seen[id] {
				t.Errorf("DistinctCaseIDs(%q): %q twice", tc.in, id)
			}
			seen[id] = true
		}
	}
}
