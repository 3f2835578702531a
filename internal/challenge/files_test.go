package challenge

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestReadWriteColumns(t *testing.T) {
	p := filepath.Join(t.TempDir(), "s.csv")
	if err := WriteColumns(p, []string{"id", "path"}, []string{"a", "b"}, []string{"a.nii", "b,c.nii"}); err != nil {
		t.Fatal(err)
	}
	cols, err := ReadColumns(p, "path", "id")
	if err != nil || !reflect.DeepEqual(cols, [][]string{{"a.nii", "b,c.nii"}, {"a", "b"}}) {
		t.Fatalf("got %v, %v", cols, err)
	}
	if _, err := ReadColumns(p, "score"); err == nil || !strings.Contains(err.Error(), `no column "score"`) {
		t.Errorf("missing column: %v", err)
	}
	if err := WriteColumns(p, []string{"id", "path"}, []string{"a"}, []string{"x", "y"}); err == nil {
		t.Error("columns of different lengths accepted")
	}
}

func TestResolveInside(t *testing.T) {
	root := t.TempDir()
	for _, bad := range []string{"/etc/passwd", "../x", "a/../../x", ""} {
		if _, err := ResolveInside(root, bad, "path"); !IsInvalid(err) {
			t.Errorf("%q: %v", bad, err)
		}
	}
	if p, err := ResolveInside(root, "a/b.nii", "path"); err != nil || p != filepath.Join(root, "a", "b.nii") {
		t.Errorf("a/b.nii: %q %v", p, err)
	}
}

func TestPandasIDs(t *testing.T) {
	if got := PandasIDs([]string{"0007", " 10"}); !reflect.DeepEqual(got, []string{"7", "10"}) {
		t.Errorf("integer ids: %v", got)
	}
	if got := PandasIDs([]string{"0007", "x"}); !reflect.DeepEqual(got, []string{"0007", "x"}) {
		t.Errorf("text ids: %v", got)
	}
	// pandas keeps the blanks of a text field; missing values (its NA
	// strings) are NaN in either kind of column and match nothing.
	if got := PandasIDs([]string{" a ", "b"}); !reflect.DeepEqual(got, []string{" a ", "b"}) {
		t.Errorf("text ids with blanks: %q", got)
	}
	if got := PandasIDs([]string{"7", "", "NA", "null", " 8"}); !reflect.DeepEqual(got, []string{"7", PandasNAKey, PandasNAKey, PandasNAKey, "8"}) {
		t.Errorf("integer ids with missing values: %q", got)
	}
	if got := PandasIDs([]string{"x", "NA"}); !reflect.DeepEqual(got, []string{"x", PandasNAKey}) {
		t.Errorf("text ids with a missing value: %q", got)
	}
	if PandasNA("NAN") || PandasNA(" NA") || !PandasNA("<NA>") || !PandasNA("") {
		t.Errorf("PandasNA: pandas' default NA strings match exactly as written")
	}
}

func TestWriteFileAtomicMode(t *testing.T) {
	p := filepath.Join(t.TempDir(), "r", "positions.csv")
	if err := WriteCSV(p, []string{"a"}, [][]string{{"1"}}); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(p)
	if err != nil || st.Mode().Perm() != 0o644 {
		t.Fatalf("mode %v, %v; want 0644", st.Mode(), err)
	}
}

// TestRowIndex: every row of a key, in row order; none for a missing key.
func TestRowIndex(t *testing.T) {
	x := NewRowIndex([]string{"a", "b", "a", "c", "a"})
	rows := func(key string) []int {
		var out []int
		for k := x.First(key); k >= 0; k = x.Next(k) {
			out = append(out, k)
		}
		return out
	}
	for key, want := range map[string][]int{"a": {0, 2, 4}, "b": {1}, "c": {3}, "d": nil} {
		if got := rows(key); !reflect.DeepEqual(got, want) {
			t.Errorf("rows of %q: %v, want %v", key, got, want)
		}
	}
	for _, v := range []string{"", "#N/A N/A", "-1.#QNAN", "1.#IND", "<NA>", "None", "null"} {
		if !PandasNA(v) {
			t.Errorf("PandasNA(%q) = false", v)
		}
	}
	for _, v := range []string{"1", "1000", "Nan", "NONE", "#N/A N/AX", "x"} {
		if PandasNA(v) {
			t.Errorf("PandasNA(%q) = true", v)
		}
	}
}
