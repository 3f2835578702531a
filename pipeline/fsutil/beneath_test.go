package fsutil

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestOpenInRefusesWhatARunCanPlant(t *testing.T) {
	root := t.TempDir()
	outside := filepath.Join(t.TempDir(), "secret")
	os.WriteFile(outside, []byte("secret"), 0o600)
	os.MkdirAll(filepath.Join(root, "logs"), 0o755)
	os.WriteFile(filepath.Join(root, "logs", "ok.json"), []byte(`{"a":1}`), 0o644)
	if err := syscall.Mkfifo(filepath.Join(root, "logs", "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Symlink(outside, filepath.Join(root, "logs", "abs-link"))
	os.Symlink("ok.json", filepath.Join(root, "logs", "rel-link"))
	os.Symlink(filepath.Dir(outside), filepath.Join(root, "dirlink"))
	os.Symlink("/dev/zero", filepath.Join(root, "logs", "zero"))
	f, err := os.Create(filepath.Join(root, "logs", "sparse"))
	if err != nil {
		t.Fatal(err)
	}
	f.Truncate(3 << 30)
	f.Close()

	if b, err := ReadFileIn(root, "logs/ok.json", 100); err != nil || string(b) != `{"a":1}` {
		t.Fatalf("a regular file: %q %v", b, err)
	}
	cases := map[string]error{
		"logs/fifo":      ErrNotRegular,
		"logs":           ErrNotRegular,
		"logs/abs-link":  ErrLink,
		"logs/rel-link":  ErrLink, // even inside the folder: never through a link
		"logs/zero":      ErrLink,
		"dirlink/secret": ErrLink,
		"../" + filepath.Base(root) + "/logs/ok.json": ErrLink,
		"logs/sparse":  ErrTooLarge,
		"logs/missing": os.ErrNotExist,
	}
	for rel, want := range cases {
		start := time.Now()
		b, err := ReadFileIn(root, rel, 1<<20)
		if !errors.Is(err, want) || b != nil {
			t.Errorf("%s: %q %v, want %v", rel, b, err, want)
		}
		if d := time.Since(start); d > time.Second {
			t.Errorf("%s took %v", rel, d)
		}
	}
	if _, err := ReadFileIn(root, "logs/fifo", 10); err == nil || !strings.Contains(err.Error(), "named pipe (FIFO)") || !strings.Contains(err.Error(), filepath.Join("logs", "fifo")) {
		t.Errorf("the FIFO's error does not name the file and its kind: %v", err)
	}
}

func TestWalkNoFollow(t *testing.T) {
	// The fallback for kernels without openat2, called directly.
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "a"), 0o755)
	os.WriteFile(filepath.Join(root, "a", "f"), []byte("x"), 0o644)
	os.Symlink("a", filepath.Join(root, "l"))
	os.Symlink("f", filepath.Join(root, "a", "lf"))
	dir, err := syscall.Open(root, syscall.O_RDONLY|syscall.O_DIRECTORY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(dir)
	fd, err := walkNoFollow(dir, filepath.Join("a", "f"))
	if err != nil {
		t.Fatal(err)
	}
	syscall.Close(fd)
	for _, rel := range []string{"l/f", "a/lf", "../x", "a/../../x"} {
		if fd, err := walkNoFollow(dir, filepath.FromSlash(rel)); err == nil {
			syscall.Close(fd)
			t.Errorf("%s: opened", rel)
		}
	}
}
