package judge

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestAgentLogsAreNotTrusted: a run's log that is a FIFO (swapped in after
// the folder was listed), a link to a host file, or a link to a device is
// refused with an error naming it, at once; the host file's content never
// reaches a section, and run.json is read the same way.
func TestAgentLogsAreNotTrusted(t *testing.T) {
	dir := t.TempDir()
	secret := filepath.Join(t.TempDir(), "root-only.log")
	os.WriteFile(secret, []byte("HOST-SECRET line\n"), 0o600)
	if err := syscall.Mkfifo(filepath.Join(dir, "console.log"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Symlink(secret, filepath.Join(dir, "stolen.log"))
	os.Symlink("/dev/zero", filepath.Join(dir, "zero.log"))
	for _, rel := range []string{"console.log", "stolen.log", "zero.log"} {
		start := time.Now()
		done := make(chan error, 1)
		go func() {
			secs, err := readLogFile(dir, rel, "aide", IngestOptions{})
			for _, s := range secs {
				if strings.Contains(s.Text, "HOST-SECRET") {
					t.Errorf("%s: a host file's content reached a section", rel)
				}
			}
			done <- err
		}()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), rel) {
				t.Errorf("%s: %v, want an error naming it", rel, err)
			}
			t.Logf("%s: %v (%v)", rel, err, time.Since(start))
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: reading the log blocked", rel)
		}
	}
	// run.json as a FIFO: the run is listed without its metadata, at once.
	root := t.TempDir()
	seed := filepath.Join(root, "g", "c1", "aide", "seed-1")
	os.MkdirAll(filepath.Join(seed, "logs"), 0o755)
	syscall.Mkfifo(filepath.Join(seed, "run.json"), 0o644)
	done := make(chan []RunLogs, 1)
	go func() { r, _ := DiscoverRuns(root); done <- r }()
	select {
	case r := <-done:
		if len(r) != 1 || r[0].Status != "" {
			t.Errorf("runs %+v", r)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("DiscoverRuns blocked on a FIFO run.json")
	}
}
