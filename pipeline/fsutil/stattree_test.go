package fsutil

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

func writeAt(t *testing.T, path, body string, mod time.Time) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, mod, mod); err != nil {
		t.Fatal(err)
	}
}

func paths(s []FileStamp) []string {
	var out []string
	for _, f := range s {
		out = append(out, f.Path)
	}
	return out
}

func TestStatTree(t *testing.T) {
	dir := t.TempDir()
	t1 := time.Unix(1_700_000_000, 123)
	t2 := time.Unix(1_700_000_500, 0)
	writeAt(t, filepath.Join(dir, "a.txt"), "abc", t1)
	writeAt(t, filepath.Join(dir, "sub", "b.bin"), "hello!", t2)
	writeAt(t, filepath.Join(dir, "skip", "c"), "x", t1)
	outside := filepath.Join(t.TempDir(), "secret")
	writeAt(t, outside, "private", t1)
	if err := os.Symlink(outside, filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Dir(outside), filepath.Join(dir, "dirlink")); err != nil {
		t.Fatal(err)
	}

	got, err := StatTree(dir, StatOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := []FileStamp{
		{"a.txt", 3, t1.UnixNano()},
		{"skip/c", 1, t1.UnixNano()},
		{"sub/b.bin", 6, t2.UnixNano()},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("StatTree = %+v, want %+v (links must not be followed)", got, want)
	}

	flat, err := StatTree(dir, StatOptions{Flat: true})
	if err != nil {
		t.Fatal(err)
	}
	if p := paths(flat); !reflect.DeepEqual(p, []string{"a.txt"}) {
		t.Errorf("flat = %v, want [a.txt]", p)
	}

	var asked []string
	skipped, err := StatTree(dir, StatOptions{Skip: func(rel string, d fs.DirEntry) bool {
		asked = append(asked, rel)
		return rel == "skip" || rel == "a.txt"
	}})
	if err != nil {
		t.Fatal(err)
	}
	if p := paths(skipped); !reflect.DeepEqual(p, []string{"sub/b.bin"}) {
		t.Errorf("with skip = %v, want [sub/b.bin]", p)
	}
	wantAsked := []string{"a.txt", "dirlink", "link", "skip", "sub", "sub/b.bin"}
	if !reflect.DeepEqual(asked, wantAsked) {
		t.Errorf("skip asked about %v, want %v (not the root, nothing under a skipped folder)", asked, wantAsked)
	}
}

func TestStatTreeMissing(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nope")
	if _, err := StatTree(missing, StatOptions{}); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing folder: err = %v, want ErrNotExist", err)
	}
	got, err := StatTree(missing, StatOptions{MissingOK: true})
	if err != nil || len(got) != 0 {
		t.Errorf("missing folder with MissingOK = %v, %v; want empty, nil", got, err)
	}
}

func TestStatTreeRootFile(t *testing.T) {
	f := filepath.Join(t.TempDir(), "one")
	mod := time.Unix(1_600_000_000, 0)
	writeAt(t, f, "12345", mod)
	got, err := StatTree(f, StatOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if want := []FileStamp{{".", 5, mod.UnixNano()}}; !reflect.DeepEqual(got, want) {
		t.Errorf("StatTree(file) = %+v, want %+v", got, want)
	}
}
