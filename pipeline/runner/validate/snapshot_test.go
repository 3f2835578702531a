package validate

import (
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestSnapshotKeepsOnlyRegularFiles: links (to a secret outside, to a file
// inside, to a folder outside), a FIFO with no writer and a socket are left
// out without blocking; regular files and folders are copied, mode 0600
// and 0700; a file over the per-file cap is left out, as the seal leaves it.
func TestSnapshotKeepsOnlyRegularFiles(t *testing.T) {
	root := t.TempDir()
	secret := filepath.Join(root, "secret")
	os.WriteFile(secret, []byte("SECRET"), 0o600)
	src := filepath.Join(root, "run", "submission")
	os.MkdirAll(filepath.Join(src, "a", "b"), 0o755)
	os.WriteFile(filepath.Join(src, "submission.csv"), []byte("id\n1\n"), 0o644)
	os.WriteFile(filepath.Join(src, "a", "b", "m.png"), []byte("png"), 0o644)
	os.WriteFile(filepath.Join(src, "big.bin"), make([]byte, 2048), 0o644)
	os.Symlink(secret, filepath.Join(src, "out.csv"))
	os.Symlink("submission.csv", filepath.Join(src, "in.csv"))
	os.Symlink(root, filepath.Join(src, "outdir"))
	if err := syscall.Mkfifo(filepath.Join(src, "fifo.csv"), 0o644); err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(root, "scratch", "snap")
	os.MkdirAll(dst, 0o700)
	done := make(chan error, 1)
	go func() { done <- Snapshot(filepath.Join(root, "run"), "submission", dst, Limits{MaxFile: 1024}) }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the snapshot blocked (on the FIFO?)")
	}
	var got []string
	filepath.Walk(dst, func(p string, fi os.FileInfo, err error) error {
		if err != nil || p == dst {
			return err
		}
		rel, _ := filepath.Rel(dst, p)
		got = append(got, rel+" "+fi.Mode().String())
		return nil
	})
	sort.Strings(got)
	want := []string{"a drwx------", "a/b drwx------", "a/b/m.png -rw-------", "submission.csv -rw-------"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("snapshot holds %q, want %q", got, want)
	}
	if b, _ := os.ReadFile(filepath.Join(dst, "submission.csv")); string(b) != "id\n1\n" {
		t.Errorf("copied %q", b)
	}
}

// TestSnapshotNames: the named folder may not lead out of its base, and
// the caps on entries and depth refuse the validation.
func TestSnapshotNames(t *testing.T) {
	root := t.TempDir()
	base := filepath.Join(root, "run", "workspace")
	os.MkdirAll(filepath.Join(base, "deep", "1", "2", "3"), 0o755)
	for i := 0; i < 5; i++ {
		os.WriteFile(filepath.Join(base, "deep", string(rune('a'+i))), nil, 0o644)
	}
	os.Symlink(root, filepath.Join(base, "up"))
	for _, rel := range []string{"up", "../..", "missing", "deep/a"} {
		dst := t.TempDir()
		if err := Snapshot(base, rel, dst, Limits{}); !errors.Is(err, errNotFolder) {
			t.Errorf("folder %s: %v, want errNotFolder", rel, err)
		}
	}
	if err := Snapshot(base, "deep", t.TempDir(), Limits{MaxEntries: 3}); err == nil || !strings.Contains(err.Error(), "more than 3 files") {
		t.Errorf("entries cap: %v", err)
	}
	if err := Snapshot(base, "deep", t.TempDir(), Limits{MaxDepth: 2}); err == nil || !strings.Contains(err.Error(), "deeper than 2") {
		t.Errorf("depth cap: %v", err)
	}
	if err := Snapshot(base, "deep", t.TempDir(), Limits{}); err != nil {
		t.Errorf("within the caps: %v", err)
	}
}
