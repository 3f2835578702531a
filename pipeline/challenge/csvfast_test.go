package challenge

import (
	"bytes"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// parseBoth parses data with ParseCSV (plain fast path where it applies)
// and with the full encoding/csv parser alone.
func parseBoth(data []byte) (fast, full *Table, fastErr, fullErr error) {
	fast, fastErr = ParseCSV(bytes.NewReader(data), "x.csv")
	full, fullErr = parseCSVStream(bytes.NewReader(crLines(data)), "x.csv")
	return
}

// sameTable compares two parses: the same error text, or the same header
// and rows (an empty row list equals none).
func sameTable(t *testing.T, data []byte, fast, full *Table, fastErr, fullErr error) {
	t.Helper()
	if (fastErr == nil) != (fullErr == nil) || (fastErr != nil && fastErr.Error() != fullErr.Error()) {
		t.Fatalf("%q: errors differ: fast %v, full %v", data, fastErr, fullErr)
	}
	if fastErr != nil {
		return
	}
	if !reflect.DeepEqual(fast.Header, full.Header) || len(fast.Rows) != len(full.Rows) {
		t.Fatalf("%q: fast %q %q, full %q %q", data, fast.Header, fast.Rows, full.Header, full.Rows)
	}
	for i := range fast.Rows {
		if !reflect.DeepEqual(fast.Rows[i], full.Rows[i]) {
			t.Fatalf("%q: row %d: fast %q, full %q", data, i, fast.Rows[i], full.Rows[i])
		}
	}
}

// TestPlainCSVMatchesEncodingCSV: the plain path reads random files built
// from the characters that matter (commas, CR, LF, blanks, a BOM, quotes
// that send the file to the full parser, ragged rows) exactly as
// encoding/csv with ParseCSV's rules does, including every error.
func TestPlainCSVMatchesEncodingCSV(t *testing.T) {
	pieces := []string{"a", "b", "7", "0.5", ",", ",", ",", "\n", "\n", "\r\n", "\r", " ", "\t", "\ufeff", "\"", "\"q\"", "é", ""}
	r := rand.New(rand.NewPCG(15, 1))
	plain := 0
	for n := 0; n < 30000; n++ {
		var b strings.Builder
		if r.IntN(3) == 0 {
			// A well-formed table: header and rows of equal width.
			cols := 1 + r.IntN(3)
			for row := 0; row < 1+r.IntN(4); row++ {
				for c := 0; c < cols; c++ {
					if c > 0 {
						b.WriteByte(',')
					}
					b.WriteString(pieces[r.IntN(4)])
					if r.IntN(6) == 0 {
						b.WriteString(pieces[8+r.IntN(len(pieces)-8)])
					}
				}
				b.WriteString([]string{"\n", "\r\n", "\n\n", "\r\n\r\n", " \n"}[r.IntN(5)])
			}
		} else {
			for k := 0; k < r.IntN(24); k++ {
				b.WriteString(pieces[r.IntN(len(pieces))])
			}
		}
		data := []byte(b.String())
		if _, ok := parsePlainCSV(data, "x.csv"); ok {
			plain++
		}
		fast, full, fe, se := parseBoth(data)
		sameTable(t, data, fast, full, fe, se)
	}
	if plain < 5000 {
		t.Fatalf("only %d of 30000 files took the plain path; the test does not exercise it", plain)
	}
}

// TestPlainCSVCaps: a line or field over its cap goes to the full parser,
// whose error names the cap.
func TestPlainCSVCaps(t *testing.T) {
	oldLine, oldField := MaxLineBytes, MaxFieldBytes
	defer func() { MaxLineBytes, MaxFieldBytes = oldLine, oldField }()
	MaxLineBytes, MaxFieldBytes = 40, 8
	for _, data := range []string{
		"id,v\n1,123456789\n",                       // long last field
		"id,v\n123456789,1\n",                       // long first field
		"id,v\n1," + strings.Repeat("x", 50) + "\n", // long line
		"id,123456789\n1,2\n",                       // long header field
	} {
		if _, ok := parsePlainCSV([]byte(data), "x.csv"); ok {
			t.Fatalf("%q: plain path took a file over a cap", data)
		}
		fast, full, fe, se := parseBoth([]byte(data))
		if fe == nil || !strings.Contains(fe.Error(), "too large") {
			t.Fatalf("%q: error %v, want a cap error", data, fe)
		}
		sameTable(t, []byte(data), fast, full, fe, se)
	}
}

// FuzzPlainCSV compares the two parsers on any input.
func FuzzPlainCSV(f *testing.F) {
	for _, s := range []string{"id,v\n1,2\n", "a\r\n\r\nb\r", "\ufeffx,y\n 1 ,2\n\n", "a,b\n1\n", "a\n\"x\"\n", " \n\t\na,b\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fast, full, fe, se := parseBoth(data)
		sameTable(t, data, fast, full, fe, se)
	})
}

func BenchmarkParseCSV300(b *testing.B) {
	var buf bytes.Buffer
	buf.WriteString("image_id,quality_score\n")
	for i := 0; i < 300; i++ {
		buf.WriteString("0123,2.3456789012345678\n")
	}
	data := buf.Bytes()
	b.Run("plain", func(b *testing.B) {
		for b.Loop() {
			if _, err := ParseCSV(bytes.NewReader(data), "x.csv"); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encoding-csv", func(b *testing.B) {
		for b.Loop() {
			if _, err := parseCSVStream(bytes.NewReader(data), "x.csv"); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestShortRowsArePadded: a row with fewer fields than the header gets
// empty ones (pandas reads NaN there), e.g. under a header that ends in a
// comma; a row with more fields is an error, as pandas raises.
func TestShortRowsArePadded(t *testing.T) {
	for _, c := range []struct {
		data   string
		header []string
		rows   [][]string
	}{
		{"a,b,c\n1,2\n3,4,5\n", []string{"a", "b", "c"}, [][]string{{"1", "2", ""}, {"3", "4", "5"}}},
		{"image_id,path,\n1,x.png\n2,y.png\n", []string{"image_id", "path", ""}, [][]string{{"1", "x.png", ""}, {"2", "y.png", ""}}},
		{"a,b\n\"q\"\n", []string{"a", "b"}, [][]string{{"q", ""}}},
		// Lines ended by a lone CR, as pandas reads them.
		{"a,b\r1,2\r3,4\r", []string{"a", "b"}, [][]string{{"1", "2"}, {"3", "4"}}},
	} {
		tab, err := ParseCSV(strings.NewReader(c.data), "x.csv")
		if err != nil {
			t.Fatalf("%q: %v", c.data, err)
		}
		if !reflect.DeepEqual(tab.Header, c.header) || !reflect.DeepEqual(tab.Rows, c.rows) {
			t.Errorf("%q: header %q rows %q, want %q %q", c.data, tab.Header, tab.Rows, c.header, c.rows)
		}
	}
	if _, err := ParseCSV(strings.NewReader("a,b\n1,2,3\n"), "x.csv"); err == nil || !strings.Contains(err.Error(), "line 2 has 3 fields") {
		t.Errorf("a long row: %v, want an error naming line 2", err)
	}
}

// TestCSVMustBeUTF8: pandas decodes a CSV as strict UTF-8, so a Latin-1
// byte makes the reference fail; the error names the line.
func TestCSVMustBeUTF8(t *testing.T) {
	_, err := ParseCSV(strings.NewReader("image_id,path\nx,pr\xe9d.png\n"), "submission.csv")
	if err == nil || !strings.Contains(err.Error(), "line 2") || !strings.Contains(err.Error(), "not UTF-8") {
		t.Errorf("Latin-1 byte: %v, want an error naming line 2", err)
	}
	if _, err := ParseCSV(strings.NewReader("image_id,path\nx,préd.png\n"), "submission.csv"); err != nil {
		t.Errorf("UTF-8 text: %v", err)
	}
}
