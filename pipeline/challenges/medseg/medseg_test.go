package medseg

import (
	"archive/zip"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rexmle/rexmle/metrics/imageio/metaimage"
	"github.com/rexmle/rexmle/metrics/imageio/nifti"
	"github.com/rexmle/rexmle/metrics/volume"
	"github.com/rexmle/rexmle/pipeline/challenge"
)

func TestIDKeys(t *testing.T) {
	tests := []struct {
		in, want []string
	}{
		{[]string{"10303", "010303", "10303.0"}, []string{"10303", "10303", "10303"}},
		{[]string{"10000_0001", "10001_0001"}, []string{"10000_0001", "10001_0001"}}, // underscores: text
		{[]string{"D1", "12"}, []string{"D1", "12"}},                                 // one text value: the column is text
		{[]string{" 7", "8"}, []string{"7", "8"}},
		{[]string{"nan", "1"}, []string{"nan", "1"}},
		{nil, []string{}},
	}
	for _, tc := range tests {
		if got := IDKeys(tc.in); fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("IDKeys(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func writeCSV(t *testing.T, dir string, header []string, rows [][]string) {
	t.Helper()
	if err := challenge.WriteCSV(filepath.Join(dir, SubmissionFile), header, rows); err != nil {
		t.Fatal(err)
	}
}

func TestReadSubmission(t *testing.T) {
	answers := []string{"a", "b"}
	h := []string{"id", "path", "extra"}
	tests := []struct {
		name    string
		header  []string
		rows    [][]string
		wantErr string
		wantN   int
	}{
		{"ok", h, [][]string{{"b", "pb", "x"}, {"a", "pa", "y"}}, "", 2},
		{"duplicate counts twice", h, [][]string{{"a", "pa", ""}, {"a", "pa", ""}, {"b", "pb", ""}}, "", 3},
		{"missing", h, [][]string{{"a", "pa", ""}}, "missing ids", 0},
		{"extra", h, [][]string{{"a", "pa", ""}, {"b", "pb", ""}, {"c", "pc", ""}}, "unexpected ids", 0},
		{"no path column", []string{"id", "file"}, [][]string{{"a", "pa"}, {"b", "pb"}}, "path", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writeCSV(t, dir, tc.header, tc.rows)
			rows, err := ReadSubmission(dir, "id", "path", answers, Verbatim)
			if tc.wantErr != "" {
				if !challenge.IsInvalid(err) || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("got %v, want invalid mentioning %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(rows) != tc.wantN {
				t.Errorf("%d rows, want %d", len(rows), tc.wantN)
			}
		})
	}
	if _, err := ReadSubmission(t.TempDir(), "id", "path", answers, Verbatim); !challenge.IsInvalid(err) {
		t.Errorf("missing submission.csv: %v", err)
	}
}

func TestSwapXY(t *testing.T) {
	g := volume.NewGrid(2, 3, 2)
	g.Spacing = [3]float64{1, 2, 3}
	v := volume.New(g, volume.Float64)
	for i := range v.Data {
		v.Data[i] = float64(i)
	}
	s := SwapXY(v)
	if s.Shape != [3]int{3, 2, 2} || s.Spacing != [3]float64{2, 1, 3} {
		t.Fatalf("shape %v spacing %v", s.Shape, s.Spacing)
	}
	for k := 0; k < 2; k++ {
		for j := 0; j < 3; j++ {
			for i := 0; i < 2; i++ {
				if s.Data[s.Index(j, i, k)] != v.Data[v.Index(i, j, k)] {
					t.Fatalf("(%d,%d,%d) not transposed", i, j, k)
				}
			}
		}
	}
}

// TestLoadConventions checks the reference loader's axis and spacing
// conventions: MetaImage keeps the array and swaps the in-plane spacings,
// NIfTI exchanges axes 0 and 1 (numpy [Z,X,Y]) with the spacing following.
func TestLoadConventions(t *testing.T) {
	dir := t.TempDir()
	g := volume.NewGrid(3, 2, 2)
	g.Spacing = [3]float64{0.5, 2, 1}
	v := volume.New(g, volume.Uint8)
	v.Data[g.Index(2, 0, 1)] = 1
	if err := metaimage.WriteFile(filepath.Join(dir, "m.mha"), v, volume.Uint8, true); err != nil {
		t.Fatal(err)
	}
	if err := nifti.WriteFile(filepath.Join(dir, "n.nii.gz"), v, volume.Uint8); err != nil {
		t.Fatal(err)
	}
	m, err := Load(dir, "m.mha", "f", 1<<20, true)
	if err != nil {
		t.Fatal(err)
	}
	if m.Shape != g.Shape || m.Spacing != [3]float64{2, 0.5, 1} || m.Bytes[g.Index(2, 0, 1)] != 1 || m.Data != nil {
		t.Errorf("mha: shape %v spacing %v", m.Shape, m.Spacing)
	}
	n, err := Load(dir, "n.nii.gz", "f", 1<<20, true)
	if err != nil {
		t.Fatal(err)
	}
	if n.Shape != [3]int{2, 3, 2} || n.Spacing != [3]float64{2, 0.5, 1} || n.Data[n.Index(0, 2, 1)] != 1 {
		t.Errorf("nifti: shape %v spacing %v", n.Shape, n.Spacing)
	}
	raw, err := Load(dir, "m.mha", "f", 1<<20, false)
	if err != nil {
		t.Fatal(err)
	}
	if raw.Spacing != g.Spacing {
		t.Errorf("as decoded: spacing %v, want %v", raw.Spacing, g.Spacing)
	}
	if _, err := Load(dir, "x.dcm", "f", 1<<20, true); !challenge.IsInvalid(err) {
		t.Errorf("DICOM: %v", err)
	}
	if _, err := Load(dir, "m.mha", "f", 8, true); !challenge.IsInvalid(err) {
		t.Errorf("over the size limit: %v", err)
	}
}

func TestExtractZipRefusesTraversal(t *testing.T) {
	dir := t.TempDir()
	zp := filepath.Join(dir, "a.zip")
	f, err := os.Create(zp)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	w, _ := zw.Create("ok/file.txt")
	w.Write([]byte("hi"))
	w, _ = zw.Create("../evil.txt")
	w.Write([]byte("bad"))
	zw.Close()
	f.Close()
	dest := filepath.Join(dir, "out")
	if err := ExtractZip(zp, dest); err == nil || !strings.Contains(err.Error(), "leaves") {
		t.Errorf("traversal entry: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "evil.txt")); err == nil {
		t.Error("file written outside the destination")
	}
	if b, err := os.ReadFile(filepath.Join(dest, "ok", "file.txt")); err != nil || string(b) != "hi" {
		t.Errorf("regular entry: %q %v", b, err)
	}
}

func TestCaseIDsKeepEveryRepeatedRow(t *testing.T) {
	rows := []Row{{ID: "a"}, {ID: "b"}, {ID: "a"}, {ID: "a"}}
	got := CaseIDs(rows)
	want := []string{"a", "b", "a#2", "a#3"}
	if len(got) != len(want) {
		t.Fatalf("CaseIDs = %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("CaseIDs = %v, want %v", got, want)
		}
	}
	if got := CaseIDs(rows[:2]); got[0] != "a" || got[1] != "b" {
		t.Errorf("without repeats the ids stay: %v", got)
	}
}
