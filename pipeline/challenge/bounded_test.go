package challenge

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// within fails the test when f takes longer than d (it would hang forever
// on a FIFO without the checks).
func within(t *testing.T, d time.Duration, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { f(); close(done) }()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("still blocked after %s", d)
	}
}

func TestFIFORefusedWithoutBlocking(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "submission.csv")
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Skip("mkfifo:", err)
	}
	within(t, 5*time.Second, func() {
		if _, err := ReadCSV(p); !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), "FIFO") {
			t.Errorf("ReadCSV of a FIFO: %v", err)
		}
		if _, err := OpenInside(dir, "submission.csv", ""); !IsInvalid(err) || !strings.Contains(err.Error(), "FIFO") {
			t.Errorf("OpenInside of a FIFO: %v", err)
		}
		if _, err := ReadFileMax(p, 10); !errors.Is(err, ErrNotRegular) {
			t.Errorf("ReadFileMax of a FIFO: %v", err)
		}
	})
	// A link to a FIFO inside the folder is refused as well.
	if err := os.Symlink("submission.csv", filepath.Join(dir, "link.csv")); err == nil {
		within(t, 5*time.Second, func() {
			if _, err := OpenInside(dir, "link.csv", ""); !IsInvalid(err) {
				t.Errorf("OpenInside of a link to a FIFO: %v", err)
			}
		})
	}
	// A folder is not a file either.
	if _, err := ReadCSV(dir); !errors.Is(err, ErrNotRegular) {
		t.Errorf("ReadCSV of a folder: %v", err)
	}
}

func TestSparseGiantCSVRejectedFromItsSize(t *testing.T) {
	p := filepath.Join(t.TempDir(), "submission.csv")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("image_id,score\n1,2\n")
	if err := f.Truncate(2 << 30); err != nil { // 2 GiB, sparse: nothing written
		t.Skip("truncate:", err)
	}
	f.Close()
	start := time.Now()
	_, err = ReadCSV(p)
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "2147483648 bytes") {
		t.Fatalf("2 GiB CSV: %v", err)
	}
	t.Logf("2 GiB sparse CSV rejected in %s", time.Since(start))
	if d := time.Since(start); d > time.Second {
		t.Errorf("rejecting a 2 GiB CSV took %s; it must not be read", d)
	}
	g, _ := os.Open(p)
	defer g.Close()
	if _, err := ParseCSV(g, "submission.csv"); !errors.Is(err, ErrTooLarge) {
		t.Errorf("ParseCSV of the open 2 GiB file: %v", err)
	}
	if _, err := ReadFileMax(p, 1<<20); !errors.Is(err, ErrTooLarge) {
		t.Errorf("ReadFileMax: %v", err)
	}
}

// repeat is an endless reader of one byte.
type repeat byte

func (r repeat) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(r)
	}
	return len(p), nil
}

func TestHugeFieldBoundedMemoryAndShortMessage(t *testing.T) {
	// 300 MB in one quoted field, streamed: not a file, so only the line and
	// field caps can stop it.
	src := io.MultiReader(strings.NewReader("image_id,score\n1,\""), io.LimitReader(repeat('7'), 300<<20), strings.NewReader("\"\n"))
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := ParseCSV(src, "submission.csv")
	runtime.ReadMemStats(&after)
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("300 MB field: %v", err)
	}
	if n := len(err.Error()); n > 2*MaxEcho+200 {
		t.Errorf("error message is %d bytes long", n)
	}
	t.Logf("300 MB field: rejected after %d KiB allocated; message %d bytes: %s", (after.TotalAlloc-before.TotalAlloc)>>10, len(err.Error()), err)
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 64<<20 {
		t.Errorf("reading the 300 MB field allocated %d MiB", alloc>>20)
	}
	// A field over the field cap but within the line cap is named with its
	// position and clipped.
	big := strings.Repeat("x", MaxFieldBytes+1)
	_, err = ParseCSV(strings.NewReader("image_id,score\n"+big+",1\n"), "submission.csv")
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "line 2, column 1") || len(err.Error()) > 2*MaxEcho+200 {
		t.Errorf("field over the cap: %.300v", err)
	}
	// Fields under the cap are read as before.
	tab, err := ParseCSV(strings.NewReader("a,b\n"+strings.Repeat("y", 1000)+",2\n"), "s.csv")
	if err != nil || len(tab.Rows) != 1 || len(tab.Rows[0][0]) != 1000 {
		t.Errorf("ordinary field: %v", err)
	}
}

func TestInvalidfClipsSubmittedText(t *testing.T) {
	long := strings.Repeat("é", 5000)
	err := Invalidf("submission.csv", long, "bad id %q (%s)", long, "why")
	msg := err.Error()
	if len(msg) > 3*MaxEcho+200 {
		t.Fatalf("message is %d bytes", len(msg))
	}
	if !strings.Contains(msg, "(why)") || !strings.Contains(msg, "10000 bytes") {
		t.Errorf("message lost its reason or the length: %s", msg)
	}
	if !strings.ContainsRune(msg, 'é') || strings.ContainsRune(msg, '\uFFFD') {
		t.Errorf("clipped inside a rune: %s", msg)
	}
}
