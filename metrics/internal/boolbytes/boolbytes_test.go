package boolbytes

import "testing"

// TestOf: true is byte 1, false byte 0, and the view follows the slice.
func TestOf(t *testing.T) {
	m := []bool{true, false, false, true, true}
	b := Of(m)
	want := []byte{1, 0, 0, 1, 1}
	if string(b) != string(want) {
		t.Fatalf("Of(%v) = %v, want %v", m, b, want)
	}
	m[1] = true
	if b[1] != 1 {
		t.Fatal("the view does not share the mask's memory")
	}
	if Of(nil) != nil || len(Of(m[:0])) != 0 {
		t.Fatal("empty masks")
	}
}
