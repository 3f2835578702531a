package pyjson

import (
	"errors"
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

// TestDepthLimit: MaxDepth levels of arrays and objects load, one more is
// the reference's RecursionError (ErrTooDeep), however the levels mix and
// whatever brackets strings hold; Depth counts them the same way.
func TestDepthLimit(t *testing.T) {
	nest := func(n int) string {
		var b strings.Builder
		for i := 0; i < n; i++ {
			if i%2 == 0 {
				b.WriteString(`{"k[": `)
			} else {
				b.WriteString(`["]\"", `)
			}
		}
		b.WriteString("1")
		for i := n - 1; i >= 0; i-- {
			if i%2 == 0 {
				b.WriteString("}")
			} else {
				b.WriteString("]")
			}
		}
		return b.String()
	}
	for _, n := range []int{1, 2, 50, MaxDepth, MaxDepth + 1, 5000} {
		doc := []byte(nest(n))
		if d := Depth(doc); d != n {
			t.Errorf("Depth of %d levels = %d", n, d)
		}
		_, err := Load(doc)
		if n <= MaxDepth && err != nil {
			t.Errorf("%d levels: %v", n, err)
		}
		if n > MaxDepth && !errors.Is(err, ErrTooDeep) {
			t.Errorf("%d levels: %v, want ErrTooDeep", n, err)
		}
	}
	if d := Depth([]byte(`"[[[" []`)); d != 1 {
		t.Errorf(`Depth("[[[" []) = %d, want 1`, d)
	}
}
