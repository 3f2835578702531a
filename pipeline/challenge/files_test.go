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

// TestInnerMerge: pandas' inner merge order (test rows in order, each with
// its submission rows in order) and the reference's count rule.
func TestInnerMerge(t *testing.T) {
	ids := []string{"a", "b", "c"}
	// b twice makes up for c: three pairs for three test rows.
	pairs, repeated, err := InnerMerge("s.csv", "id", ids, ids, []string{"b", "a", "x", "b"})
	want := []MergePair{{0, 1}, {1, 0}, {1, 3}}
	if err != nil || !reflect.DeepEqual(pairs, want) || !reflect.DeepEqual(repeated, []string{"b (2 rows)"}) {
		t.Errorf("b twice, c missing: %v %v %v, want %v", pairs, repeated, err, want)
	}
	for _, c := range []struct {
		sub  []string
		want string
	}{
		{[]string{"b", "a", "x", "b", "b"}, "make 4 pairs, want one per test case (3); missing predictions for 1 test cases (first: c); duplicate id: b (3 rows)"},
		{[]string{"a", "b"}, "missing predictions for 1 test cases (first: c)"},
		{[]string{"c", "b", "a", "b"}, "duplicate id: b (2 rows)"},
	} {
		if _, _, err := InnerMerge("s.csv", "id", ids, ids, c.sub); !IsInvalid(err) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want an invalid submission saying %q", c.sub, err, c.want)
		}
	}
	if !PandasNA("NA") {
		t.Errorf("PandasNA(NA) = false")
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
