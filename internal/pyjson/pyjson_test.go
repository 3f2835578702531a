package pyjson

import (
	"math"
	"strings"
	"testing"
)

// TestLoadAsPython: hand cases of what Python's json.load accepts and what
// it gives (checked against CPython 3.11).
func TestLoadAsPython(t *testing.T) {
	v, err := Load([]byte(` {"a": [1, 2.5, NaN, Infinity, -Infinity, 1e400, true, null, "x"], "a": {"k": -0}} `))
	if err != nil {
		t.Fatal(err)
	}
	m := v.(map[string]any)
	if len(m) != 1 {
		t.Fatalf("duplicate keys: %v, want the last one only", m)
	}
	inner := m["a"].(map[string]any)
	if n := inner["k"].(Num); !n.IsInt || Str(n) != "0" {
		t.Errorf("-0: %+v, str %q; want the int 0", n, Str(n))
	}
	v, _ = Load([]byte(`[1, 2.5, NaN, Infinity, -Infinity, 1e400, true, null, "x"]`))
	list := v.([]any)
	if n := list[0].(Num); !n.IsInt || n.F != 1 || TypeName(n) != "int" {
		t.Errorf("1: %+v", n)
	}
	if n := list[1].(Num); n.IsInt || n.F != 2.5 || TypeName(n) != "float" {
		t.Errorf("2.5: %+v", n)
	}
	if f, ok := Number(list[2]); !ok || !math.IsNaN(f) || Str(list[2]) != "nan" {
		t.Errorf("NaN: %v %v %q", f, ok, Str(list[2]))
	}
	for i, want := range map[int]float64{3: math.Inf(1), 4: math.Inf(-1), 5: math.Inf(1), 6: 1} {
		if f, ok := Number(list[i]); !ok || f != want {
			t.Errorf("element %d: %v %v, want %v", i, f, ok, want)
		}
	}
	if list[7] != nil || list[8] != "x" || Str(list[6]) != "True" || Str(nil) != "None" {
		t.Errorf("null, string, bool: %v %v %q", list[7], list[8], Str(list[6]))
	}
	if n, ok := Len("é€"); !ok || n != 2 {
		t.Errorf(`len("é€") = %d, %v; want 2 code points`, n, ok)
	}
	for _, bad := range []string{
		`[1] x`,                                 // extra data
		"\xef\xbb\xbf[]",                        // BOM
		`["caf` + "\xe9" + `"]`,                 // not UTF-8
		"\f[]",                                  // a blank Python does not skip
		`[nan]`, `[+1]`, `[01]`, `[1.]`, `[.5]`, // not Python's grammar
		"[\"a\tb\"]",                          // a raw control character in a string
		`[` + strings.Repeat("9", 4301) + `]`, // beyond the 4300-digit limit
		``, `[1,]`, `{"a" 1}`,
	} {
		if _, err := Load([]byte(bad)); err == nil {
			t.Errorf("Load(%q) accepted", bad)
		}
	}
	if _, err := Load([]byte(`"\ud800"`)); err != nil {
		t.Errorf("a lone surrogate escape: %v (Python keeps it)", err)
	}
}
