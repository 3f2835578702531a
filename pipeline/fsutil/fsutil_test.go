package fsutil

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCopyFile(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "src.bin")
	data := bytes.Repeat([]byte{0, 1, 2, 255}, 100_000)
	if err := os.WriteFile(src, data, 0o600); err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(dir, "a", "b", "dst.bin")
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, []byte("an older, longer file that must be replaced entirely........"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := CopyFile(src, dst); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(dst)
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("copy differs (%d bytes, err %v), want %d bytes", len(got), err, len(data))
	}
	if err := Sync(dst); err != nil {
		t.Errorf("sync: %v", err)
	}
	fresh := filepath.Join(dir, "new", "deeper", "x")
	if err := CopyFile(src, fresh); err != nil {
		t.Fatalf("copy into missing folders: %v", err)
	}
	err = CopyFile(filepath.Join(dir, "missing"), filepath.Join(dir, "y"))
	if err == nil || !strings.Contains(err.Error(), "missing") {
		t.Errorf("copy of a missing file: %v, want an error naming it", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "y")); !os.IsNotExist(err) {
		t.Errorf("a failed copy left its destination: %v", err)
	}
	if err := Sync(filepath.Join(dir, "missing")); err == nil {
		t.Error("sync of a missing file: no error")
	}
}
