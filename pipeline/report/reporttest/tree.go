package reporttest

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"testing"
)

// ReadTree reads every file under dir, by slash-separated relative path.
func ReadTree(t testing.TB, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		b, err := os.ReadFile(p)
		out[filepath.ToSlash(rel)] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// SameTree fails t unless the sites in dirs a and b hold the same files
// with the same bytes, naming each file that is missing, extra or
// different; it fails on empty trees too (nothing was compared). It
// returns the number of files compared.
func SameTree(t testing.TB, a, b string) int {
	t.Helper()
	ta, tb := ReadTree(t, a), ReadTree(t, b)
	if len(ta) == 0 {
		t.Fatalf("%s holds no files", a)
	}
	var names []string
	for k := range ta {
		names = append(names, k)
	}
	for k := range tb {
		if _, ok := ta[k]; !ok {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	bad := 0
	for _, k := range names {
		x, okA := ta[k]
		y, okB := tb[k]
		switch {
		case !okA:
			t.Errorf("%s: only in %s", k, b)
		case !okB:
			t.Errorf("%s: only in %s", k, a)
		case !bytes.Equal(x, y):
			t.Errorf("%s differs (%d vs %d bytes)", k, len(x), len(y))
		default:
			continue
		}
		if bad++; bad >= 20 {
			t.Fatalf("20 files differ; stopped")
		}
	}
	return len(names)
}
