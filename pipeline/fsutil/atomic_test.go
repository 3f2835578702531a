package fsutil

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestWriteFileCreatesReplacesAndSetsMode(t *testing.T) {
	old := syscall.Umask(0o077) // the mode asked for must win over the umask
	defer syscall.Umask(old)
	dir := t.TempDir()
	path := filepath.Join(dir, "a", "b", "out.csv")
	if err := WriteFile(path, []byte("first, longer content\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(path, []byte("x\n"), 0o640); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil || string(got) != "x\n" {
		t.Fatalf("content %q (err %v), want %q", got, err, "x\n")
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o640 {
		t.Errorf("mode %v, want 0640", st.Mode().Perm())
	}
	if err := WriteFile(filepath.Join(dir, "script.sh"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(filepath.Join(dir, "script.sh")); st.Mode().Perm() != 0o755 {
		t.Errorf("script mode %v, want 0755", st.Mode().Perm())
	}
	assertNoTemp(t, filepath.Dir(path))
}

func TestWriteWithStreamsAndKeepsOldContentOnFailure(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "rows.csv")
	err := WriteWith(path, 0o644, func(w io.Writer) error {
		for i := range 3 {
			if _, err := fmt.Fprintf(w, "row %d\n", i); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := "row 0\nrow 1\nrow 2\n"
	if got, _ := os.ReadFile(path); string(got) != want {
		t.Fatalf("content %q, want %q", got, want)
	}
	boom := errors.New("encoder failed half-way")
	err = WriteWith(path, 0o644, func(w io.Writer) error {
		io.WriteString(w, "half a ro")
		return boom
	})
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), path) {
		t.Fatalf("error %v: want the writer's error, naming %s", err, path)
	}
	if got, _ := os.ReadFile(path); string(got) != want {
		t.Errorf("a failed write changed the file: %q", got)
	}
	assertNoTemp(t, dir)
}

func TestWriteFileErrorsNamePath(t *testing.T) {
	dir := t.TempDir()
	blocker := filepath.Join(dir, "file")
	if err := os.WriteFile(blocker, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(blocker, "under-a-file.json") // its "folder" is a file
	err := WriteFile(path, []byte("{}"), 0o644)
	if err == nil || !strings.Contains(err.Error(), path) {
		t.Fatalf("error %v, want one naming %s", err, path)
	}
	// A folder where the file should go: the rename fails, nothing is left behind.
	target := filepath.Join(dir, "taken")
	if err := os.MkdirAll(filepath.Join(target, "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(target, []byte("a"), 0o644); err == nil {
		t.Fatal("replacing a non-empty folder succeeded")
	}
	assertNoTemp(t, dir)
}

func TestSyncDir(t *testing.T) {
	if err := SyncDir(t.TempDir()); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(t.TempDir(), "gone")
	if err := SyncDir(missing); !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), missing) {
		t.Fatalf("error %v, want not-exist naming %s", err, missing)
	}
}

func assertNoTemp(t *testing.T, dir string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("temporary file %s left behind", e.Name())
		}
	}
}
