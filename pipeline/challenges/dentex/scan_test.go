package dentex

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

func sameObject(o object, m map[string]json.RawMessage) bool {
	if (o == nil) != (m == nil) {
		return false
	}
	last := map[string]string{}
	for _, f := range o {
		last[string(f.key)] = string(f.val)
	}
	if len(last) != len(m) {
		return false
	}
	for k, v := range m {
		if w, ok := last[k]; !ok || w != string(v) {
			return false
		}
	}
	return true
}

// randJSON writes a random JSON value shaped like the grader's inputs.
func randJSON(r *rand.Rand, sb *strings.Builder, depth int) {
	ws := func() {
		if r.IntN(4) == 0 {
			sb.WriteString([]string{" ", "\n", "\t ", "\r\n"}[r.IntN(4)])
		}
	}
	switch k := r.IntN(10); {
	case k < 3:
		sb.WriteString([]string{"0", "-0", "1", "12.5", "-3e2", "1E-2", "0.30000000000000004", "1e400", "2744", "7"}[r.IntN(10)])
	case k < 5:
		sb.WriteString([]string{`"train_7"`, `"train_7.png"`, `"a\"b"`, `"é"`, `"\u00e9x"`, `""`, `"x\ny"`, `"\ud800"`, `"tab\tin"`, "\"\xff\""}[r.IntN(10)])
	case k < 6:
		sb.WriteString([]string{"null", "true", "false"}[r.IntN(3)])
	case k < 8 && depth < 4:
		sb.WriteByte('[')
		n := r.IntN(5)
		for i := 0; i < n; i++ {
			if i > 0 {
				sb.WriteByte(',')
			}
			ws()
			randJSON(r, sb, depth+1)
			ws()
		}
		sb.WriteByte(']')
	case depth < 4:
		randObject(r, sb, depth+1)
	default:
		sb.WriteString("4")
	}
}

var scanKeys = []string{"bbox", "score", "confidence", "image_id", "category_id_1", "category_id_2", "category_id_3", "quadrant_id", "enumeration_id", "diagnosis_id", "annotations", "segmentation", "id", "ID", "Id", "file_name", "FILE_NAME", "width", "height", "area", "iscrowd", "isCrowd", `\u0062box`, "bbox\u00e9", "images", "Bbox"}

func randObject(r *rand.Rand, sb *strings.Builder, depth int) {
	sb.WriteByte('{')
	n := r.IntN(7)
	for i := 0; i < n; i++ {
		if i > 0 {
			sb.WriteByte(',')
		}
		if r.IntN(3) == 0 {
			sb.WriteByte(' ')
		}
		sb.WriteString(`"` + scanKeys[r.IntN(len(scanKeys))] + `"`)
		sb.WriteString([]string{":", " : ", ":\n"}[r.IntN(3)])
		if r.IntN(3) == 0 {
			sb.WriteString([]string{"[1,2,3,4]", "[ 500.5, 400, 200 , 300 ]", "[1,2,3]", "0.9", "[[1,2],[3,4]]", "[1,null,3,4]", `"3"`, "[]"}[r.IntN(8)])
		} else {
			randJSON(r, sb, depth)
		}
	}
	sb.WriteByte('}')
}

// randDoc is a random prediction or truth file, sometimes mutated.
func randDoc(r *rand.Rand) []byte {
	var sb strings.Builder
	if r.IntN(5) == 0 {
		sb.WriteString(" \n")
	}
	switch r.IntN(6) {
	case 0, 1, 2:
		sb.WriteByte('[')
		n := r.IntN(4)
		for i := 0; i < n; i++ {
			if i > 0 {
				sb.WriteString(", ")
			}
			if r.IntN(10) == 0 {
				sb.WriteString("null")
			} else {
				randObject(r, &sb, 1)
			}
		}
		sb.WriteByte(']')
	case 3:
		sb.WriteString(`{"images": [`)
		randObject(r, &sb, 2)
		sb.WriteString(`], "annotations": [`)
		randObject(r, &sb, 2)
		sb.WriteString(`, `)
		randObject(r, &sb, 2)
		sb.WriteString(`]}`)
	case 4:
		randObject(r, &sb, 0)
	default:
		randJSON(r, &sb, 0)
	}
	if r.IntN(4) == 0 {
		sb.WriteString("\u00a0\n")
	}
	b := []byte(sb.String())
	const junk = `{}[],:"\ 0e.-n`
	for m := r.IntN(3); m > 0 && len(b) > 0 && r.IntN(3) == 0; m-- {
		i := r.IntN(len(b))
		switch r.IntN(3) {
		case 0:
			b = append(b[:i], b[i+1:]...)
		case 1:
			b = append(b[:i], append([]byte{junk[r.IntN(len(junk))]}, b[i:]...)...)
		default:
			b[i] = junk[r.IntN(len(junk))]
		}
	}
	return b
}

var scanCases = []string{
	`[]`, `[{}]`, `[null]`, `null`, `{}`, ` [ { "bbox" : [1,2,3,4] } ] `, `[{"bbox":[1,2,3,4]},]`, `[{"bbox":[1,2,3,4]}`,
	`{"annotations": null}`, `{"annotations": [{"bbox":[1,2,3,4]}], "annotations": []}`, `{"annotations": 5}`, `{"annotations": [5]}`,
	`[{"bbox": [1,2,3,4], "bbox": [5,6,7,8]}]`, `[{"\u0062box": [1,2,3,4]}]`, `[{"b\u00e9": 1}]`, "[{\"b\xff\": 1}]", `[1]`, `["x"]`, `[[]]`,
	`[{"score": NaN}]`, `[{"score": 01}]`, `[{"score": 1.}]`, `[{"score": -}]`, `[{"score": tru}]`, `[{"score": "\x"}]`, `[{"score": "\u12G4"}]`,
	"[{\"s\": \"a\x01b\"}]", `{"a":1} x`, `[] []`, "\ufeff[]", "\u00a0[]\u00a0", ``, ` `, `"x"`, `{"a" 1}`, `{"a":1,}`, `{,}`, `{"a":1 "b":2}`,
	strings.Repeat("[", 600) + strings.Repeat("]", 600), `[{"x": ` + strings.Repeat("[", 600) + strings.Repeat("]", 600) + `}]`,
	`{"images": [{"id": 3, "file_name": "train_7.png", "width": 2744, "height": 1316}], "annotations": [{"id": 1, "image_id": 3, "bbox": [1,2,3,4], "area": 12, "iscrowd": 0, "category_id_1": 1}]}`,
	`{"images": [{"ID": 3, "File_Name": "a.png", "id": null}], "annotations": [{"Id": 1, "IMAGE_ID": 3, "bbox": [1,2,3,4], "bbox": null, "area": null, "iscrowd": null}]}`,
	`{"images": [{"id": 3.0}]}`, `{"images": [{"id": "3"}]}`, `{"images": [{"id": 99999999999999999999}]}`, `{"images": [null]}`, `{"images": null, "annotations": null}`,
	`{"images": [{"file_name": "a\"b"}]}`, `{"images": [{"file_name": 7}]}`, `{"annotations": [{"bbox": [1, null, 3, 4]}]}`, `{"annotations": [{"bbox": ["1", 2, 3, 4]}]}`,
	`{"annotations": [{"area": "5"}]}`, `{"annotations": [{"area": 1e400}]}`, `{"annotations": [{"iscrowd": [1]}]}`, `{"annotations": [{"id": -0}]}`, `[{"image_id": "train_7"}]`,
}

// The prediction scanner accepts only what encoding/json decodes, and gives
// the same objects; what it declines gets encoding/json's result and error.
// pyEquivalent replaces the words Python's json reads as numbers (NaN,
// Infinity, -Infinity) outside strings by JSON numbers of the same length,
// so that encoding/json can stand for Python's reader in the comparisons.
func pyEquivalent(b []byte) []byte {
	out := bytes.Clone(b)
	in := false
	for i := 0; i < len(out); i++ {
		c := out[i]
		switch {
		case in && c == '\\':
			i++
		case c == '"':
			in = !in
		case in:
		case bytes.HasPrefix(out[i:], []byte("-Infinity")):
			copy(out[i:], "-1.0e+300")
			i += 8
		case bytes.HasPrefix(out[i:], []byte("Infinity")):
			copy(out[i:], "1.0e+300")
			i += 7
		case bytes.HasPrefix(out[i:], []byte("NaN")):
			copy(out[i:], "0e0")
			i += 2
		}
	}
	return out
}

// pyObject maps an object's values through pyEquivalent.
func pyObject(o object) object {
	if o == nil {
		return nil
	}
	out := make(object, len(o))
	for i, f := range o {
		out[i] = field{key: f.key, val: pyEquivalent(f.val)}
	}
	return out
}

// The prediction scanner accepts only what Python's json reads (encoding/json
// on the document with Python's number words replaced), and gives the same
// objects; what it declines gets encoding/json's result and error.
func TestScanPredictionFileMatchesJSON(t *testing.T) {
	check := func(b []byte) {
		t.Helper()
		fast, ok := scanPredictionFile(b)
		if ok {
			old, oldErr := parsePredictionFile(pyEquivalent(b))
			if oldErr != nil {
				t.Fatalf("scanner accepted %q, encoding/json: %v", b, oldErr)
			}
			if len(fast) != len(old) || (fast == nil) != (old == nil) {
				t.Fatalf("%q: scanner %d objects (nil %v), encoding/json %d (nil %v)", b, len(fast), fast == nil, len(old), old == nil)
			}
			for i := range old {
				if !sameObject(pyObject(fast[i]), old[i]) {
					t.Fatalf("%q: object %d: scanner %q, encoding/json %v", b, i, fast[i], old[i])
				}
			}
		}
		got, err := parsePredictions(b)
		if !utf8.Valid(b) {
			// The reference fails on bytes that are not UTF-8, before JSON.
			if err == nil || !strings.Contains(err.Error(), "UTF-8") {
				t.Fatalf("%q: parsePredictions %v, want the UTF-8 error", b, err)
			}
			return
		}
		if ok {
			if err != nil || len(got) != len(fast) {
				t.Fatalf("%q: parsePredictions %d, %v; scanner %d", b, len(got), err, len(fast))
			}
			return
		}
		old, oldErr := parsePredictionFile(b)
		if fmt.Sprint(err) != fmt.Sprint(oldErr) || len(got) != len(old) {
			t.Fatalf("%q: parsePredictions %d, %v; encoding/json %d, %v", b, len(got), err, len(old), oldErr)
		}
		for i := range old {
			if !sameObject(got[i], old[i]) {
				t.Fatalf("%q: parsePredictions object %d differs", b, i)
			}
		}
	}
	for _, c := range scanCases {
		check([]byte(c))
	}
	r := rand.New(rand.NewPCG(15, 1))
	accepted := 0
	for n := 0; n < 20000; n++ {
		b := randDoc(r)
		if _, ok := scanPredictionFile(b); ok {
			accepted++
		}
		check(b)
	}
	if accepted < 5000 {
		t.Errorf("the scanner accepted only %d of 20000 random documents", accepted)
	}
}

// The truth scanner likewise, against readCOCO + encoding/json.
func TestScanTruthFileMatchesJSON(t *testing.T) {
	check := func(b []byte) bool {
		t.Helper()
		want, wantErr := decodeTruthFile(b, "x.json", "x.json")
		imgs, gts, objs, ok := scanTruthFile(b)
		if !ok {
			return false
		}
		// decodeTruthFile also rejects bboxes of other than 4 numbers (loadTruth checks that after either path).
		if wantErr != nil && !strings.Contains(wantErr.Error(), "has bbox") {
			t.Fatalf("scanner accepted %q, encoding/json: %v", b, wantErr)
		}
		if wantErr != nil {
			return true
		}
		if !reflect.DeepEqual(imgs, want.imgs) || !reflect.DeepEqual(gts, want.gts) || len(objs) != len(want.objs) {
			t.Fatalf("%q: scanner %+v %+v, encoding/json %+v %+v", b, imgs, gts, want.imgs, want.gts)
		}
		for i := range objs {
			m := map[string]json.RawMessage{}
			for _, f := range want.objs[i] {
				m[string(f.key)] = f.val
			}
			if !sameObject(objs[i], m) {
				t.Fatalf("%q: annotation %d differs", b, i)
			}
		}
		return true
	}
	for _, c := range scanCases {
		check([]byte(c))
	}
	r := rand.New(rand.NewPCG(16, 1))
	accepted := 0
	for n := 0; n < 20000; n++ {
		if check(randDoc(r)) {
			accepted++
		}
	}
	if accepted < 1000 {
		t.Errorf("the scanner accepted only %d of 20000 random documents", accepted)
	}
}

func FuzzScanPredictionFile(f *testing.F) {
	for _, c := range scanCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		fast, ok := scanPredictionFile(b)
		if !ok {
			return
		}
		old, oldErr := parsePredictionFile(pyEquivalent(b))
		if oldErr != nil || len(fast) != len(old) {
			t.Fatalf("scanner accepted %q: %d objects; encoding/json %d, %v", b, len(fast), len(old), oldErr)
		}
		for i := range old {
			if !sameObject(pyObject(fast[i]), old[i]) {
				t.Fatalf("%q: object %d differs", b, i)
			}
		}
	})
}
