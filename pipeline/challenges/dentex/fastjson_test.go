package dentex

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestPyNumber: Python's json reads NaN, Infinity and -Infinity, and an
// out-of-range literal as an infinity; nothing else beyond JSON numbers.
func TestPyNumber(t *testing.T) {
	for raw, want := range map[string]float64{"true": 1, "false": 0, "Infinity": math.Inf(1), "-Infinity": math.Inf(-1), "1e400": math.Inf(1), "-1e400": math.Inf(-1), "1e-400": 0, "2.5": 2.5} {
		var f float64
		if err := decodeFloat([]byte(raw), &f); err != nil || f != want {
			t.Errorf("decodeFloat(%s) = %v, %v; want %v", raw, f, err, want)
		}
	}
	var f float64
	if err := decodeFloat([]byte("NaN"), &f); err != nil || !math.IsNaN(f) {
		t.Errorf("decodeFloat(NaN) = %v, %v", f, err)
	}
	for _, raw := range []string{"nan", "inf", "-NaN", "+Infinity", "Infinity1", "1e4000000000000000000000"} {
		if _, ok := pyNumber([]byte(raw)); ok && raw != "1e4000000000000000000000" {
			t.Errorf("pyNumber(%s) accepted", raw)
		}
	}
	var bb []float64
	if err := decodePyFloats([]byte("[NaN, 1, Infinity, 1e400]"), &bb); err != nil || !math.IsNaN(bb[0]) || bb[1] != 1 || !math.IsInf(bb[2], 1) || !math.IsInf(bb[3], 1) {
		t.Errorf("decodePyFloats = %v, %v", bb, err)
	}
	if err := decodeFloats([]byte("[NaN, 1]"), &bb); err == nil {
		t.Errorf("decodeFloats (the answers' strict reader) accepted NaN")
	}
}

// The fast decoders agree with encoding/json on values and on failure
// (decodeFloat apart from Python's number words and out-of-range literals,
// TestPyNumber).
func TestFastJSONMatchesEncodingJSON(t *testing.T) {
	nums := []string{"0", "-0", "1", "-12.5", "1e3", "1E-2", "2.5e+10", "01", "1.", ".5", "+1", "-", "null", `"3"`, "[1]", "0x10", "1_0", "123456789012345678901234567890"}
	for _, n := range nums {
		var a, b float64
		ea := decodeFloat([]byte(n), &a)
		eb := json.Unmarshal([]byte(n), &b)
		if (ea == nil) != (eb == nil) || (ea == nil && math.Float64bits(a) != math.Float64bits(b)) {
			t.Errorf("decodeFloat(%s) = %v, %v; encoding/json %v, %v", n, a, ea, b, eb)
		}
	}
	r := rand.New(rand.NewPCG(3, 3))
	for k := 0; k < 20000; k++ {
		digits := 1 + r.IntN(18)
		n := fmt.Sprint(r.Int64N(int64(math.Pow10(min(digits, 18)))))
		if r.IntN(2) == 0 {
			n = "-" + n
		}
		nums = append(nums, n, n+".5", n+"e1")
	}
	nums = append(nums, "999999999999999", "-999999999999999", "1000000000000000", "9007199254740993", "-0.0", "0e0")
	for _, n := range nums {
		var a, b float64
		ea := decodeFloat([]byte(n), &a)
		eb := json.Unmarshal([]byte(n), &b)
		if (ea == nil) != (eb == nil) || (ea == nil && math.Float64bits(a) != math.Float64bits(b)) {
			t.Errorf("decodeFloat(%s) = %v, %v; encoding/json %v, %v", n, a, ea, b, eb)
		}
	}
	strs := []string{`"train_7"`, `"a\"b"`, `"é"`, `"\u00e9"`, `""`, "7", "null", `"x\ny"`}
	for _, s := range strs {
		var a, b string
		ea := decodeString([]byte(s), &a)
		eb := json.Unmarshal([]byte(s), &b)
		if (ea == nil) != (eb == nil) || a != b {
			t.Errorf("decodeString(%s) = %q, %v; encoding/json %q, %v", s, a, ea, b, eb)
		}
	}
	lists := []string{"[1,2,3,4]", "[ 1 , 2.5 ,3e1, -4 ]", "[]", "[1,,2]", "[1,\"2\"]", "[[1]]", "null", "[01]", "{}"}
	for _, l := range lists {
		var a, b []float64
		ea := decodeFloats([]byte(l), &a)
		eb := json.Unmarshal([]byte(l), &b)
		if (ea == nil) != (eb == nil) || fmt.Sprint(a) != fmt.Sprint(b) || (a == nil) != (b == nil) {
			t.Errorf("decodeFloats(%s) = %v, %v; encoding/json %v, %v", l, a, ea, b, eb)
		}
	}
	// A null element: encoding/json leaves 0, Python has None and the
	// reference fails on it.
	var a []float64
	if err := decodeFloats([]byte("[50, null, 60, 80]"), &a); err == nil || !strings.Contains(err.Error(), "element 1 is null") {
		t.Errorf("decodeFloats with a null: %v, %v; want an error naming element 1", a, err)
	}
}
