package runner

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// TestDiskUseStaysInTheRun: the disk watchdog counts allocated blocks of
// the run's folders, a hard-linked file once, and never what a symbolic
// link points at (a folder outside the run here).
func TestDiskUseStaysInTheRun(t *testing.T) {
	run, outside := t.TempDir(), t.TempDir()
	ws := filepath.Join(run, "workspace")
	if err := os.MkdirAll(filepath.Join(ws, "a", "b"), 0o755); err != nil {
		t.Fatal(err)
	}
	data := make([]byte, 1<<20)
	for i := range data {
		data[i] = byte(i)
	}
	if err := os.WriteFile(filepath.Join(ws, "a", "b", "f"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	before := diskUse(run, runFolders)
	if before < 1<<20 {
		t.Fatalf("a 1 MiB file counts %d bytes", before)
	}
	if err := os.Link(filepath.Join(ws, "a", "b", "f"), filepath.Join(ws, "g")); err != nil {
		t.Fatal(err)
	}
	big := make([]byte, 8<<20)
	for i := range big {
		big[i] = byte(i)
	}
	if err := os.WriteFile(filepath.Join(outside, "big"), big, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(ws, "out")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/", filepath.Join(ws, "a", "root")); err != nil {
		t.Fatal(err)
	}
	after := diskUse(run, runFolders)
	if after-before > 64<<10 {
		t.Errorf("a hard link and two links out added %d bytes (before %d, after %d)", after-before, before, after)
	}
}

// BenchmarkDiskUse: one watchdog measurement of a workspace of 10,000 small
// files in 100 folders.
func BenchmarkDiskUse(b *testing.B) {
	run := b.TempDir()
	for d := 0; d < 100; d++ {
		dir := filepath.Join(run, "workspace", "d"+strconv.Itoa(d))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		for f := 0; f < 100; f++ {
			if err := os.WriteFile(filepath.Join(dir, strconv.Itoa(f)), []byte("x"), 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ResetTimer()
	for range b.N {
		diskUse(run, runFolders)
	}
}
