package runner

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// finishWithin runs the job and fails the test if it does not end within
// d (the old code blocked forever on a FIFO log, holding the stage's lock).
func finishWithin(t *testing.T, j *Job, d time.Duration) *Info {
	t.Helper()
	type result struct {
		in  *Info
		err error
	}
	ch := make(chan result, 1)
	start := time.Now()
	go func() {
		in, err := Execute(context.Background(), j)
		ch <- result{in, err}
	}()
	select {
	case r := <-ch:
		if r.err != nil || r.in == nil {
			t.Fatalf("%+v %v", r.in, r.err)
		}
		t.Logf("%s: %s in %.2fs", j.Agent.ID, r.in.Status, time.Since(start).Seconds())
		back, err := ReadInfo(j.RunDir)
		if err != nil || back.Status != r.in.Status {
			t.Fatalf("run.json: %+v %v", back, err)
		}
		return r.in
	case <-time.After(d):
		t.Fatalf("the run stage did not finish within %s (run.json: %s)", d, readStatus(j.RunDir))
	}
	return nil
}

func readStatus(runDir string) string {
	if in, err := ReadInfo(runDir); err == nil {
		return in.Status
	}
	return "unreadable"
}

func hasProblem(in *Info, file, what string) bool {
	for _, p := range in.LogProblems {
		if strings.HasPrefix(p, file+": ") && strings.Contains(p, what) {
			return true
		}
	}
	return false
}

// TestBadLogsInTheSandbox: FIFOs, 3 GiB sparse files and links to host
// files as console.log and working_time.json. The stage finishes at once,
// reads nothing through them, records each in run.json, and the stage's
// memory does not grow by the files' size.
func TestBadLogsInTheSandbox(t *testing.T) {
	needBwrap(t)
	t.Run("fifo", func(t *testing.T) {
		j := newJob(t, t.TempDir(), "fifo", "auto", "badlogs", "fifo")
		in := finishWithin(t, j, 15*time.Second)
		if in.Status != StatusDone || in.WorkingSeconds != nil {
			t.Fatalf("%+v", in)
		}
		if !hasProblem(in, "logs/working_time.json", "named pipe (FIFO)") || !hasProblem(in, "logs/console.log", "named pipe (FIFO)") {
			t.Errorf("log problems %q, want both FIFOs named", in.LogProblems)
		}
		// The copy-out removed them: nothing later (the judge) meets them.
		for _, f := range []string{"console.log", "working_time.json"} {
			if _, err := os.Lstat(filepath.Join(j.RunDir, "logs", f)); !os.IsNotExist(err) {
				t.Errorf("logs/%s is still there: %v", f, err)
			}
		}
	})
	t.Run("sparse 3 GiB", func(t *testing.T) {
		j := newJob(t, t.TempDir(), "sparse", "auto", "badlogs", "sparse")
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		in := finishWithin(t, j, 15*time.Second)
		runtime.ReadMemStats(&after)
		grew := after.TotalAlloc - before.TotalAlloc
		t.Logf("the run stage allocated %d MiB", grew>>20)
		if grew > 256<<20 {
			t.Errorf("the stage allocated %d MiB reading a 3 GiB sparse log", grew>>20)
		}
		if in.Status != StatusDone || in.WorkingSeconds == nil || *in.WorkingSeconds != 5 {
			f, _ := os.Open(filepath.Join(j.RunDir, "logs", "console.log"))
			tail := make([]byte, 300)
			n, _ := f.ReadAt(tail, 3<<30-100)
			t.Fatalf("%s %q %v (want working seconds 5 from the end of console.log)\nconsole.log ends %q", in.Status, in.Error, in.WorkingSeconds, tail[:n])
		}
		if !hasProblem(in, "logs/working_time.json", "too large") {
			t.Errorf("log problems %q, want working_time.json too large", in.LogProblems)
		}
	})
	t.Run("link to a host file", func(t *testing.T) {
		hostDir := t.TempDir()
		target := filepath.Join(hostDir, "root-only.json")
		if err := os.WriteFile(target, []byte(`{"working_seconds": 4242}`), 0o600); err != nil {
			t.Fatal(err)
		}
		j := newJob(t, t.TempDir(), "link", "auto", "badlogs", "link", target)
		in := finishWithin(t, j, 15*time.Second)
		if in.WorkingSeconds != nil && *in.WorkingSeconds == 4242 {
			t.Fatal("the stage read a host file through the agent's link")
		}
		if in.WorkingSeconds == nil || *in.WorkingSeconds != 3 || !hasProblem(in, "logs/working_time.json", "symbolic link") {
			t.Errorf("working %v, problems %q: want 3 from console.log and the link named", in.WorkingSeconds, in.LogProblems)
		}
		if b, _ := json.Marshal(in); strings.Contains(string(b), "4242") {
			t.Errorf("run.json holds the host file's value: %s", b)
		}
	})
}

// TestCopyOutStripsWhatTheAgentLeaves: a setuid executable, world-writable
// files and folders, FIFOs and sockets made in the sandbox's workspace,
// logs and home. After the run nothing is setuid, setgid, sticky or
// writable by others, the special files are gone, everything belongs to
// the pipeline's user, and run.json says what was done. The sandbox's
// binds are nosuid,nodev.
func TestCopyOutStripsWhatTheAgentLeaves(t *testing.T) {
	needBwrap(t)
	j := newJob(t, t.TempDir(), "setuid", "auto", "badlogs", "setuid")
	in := finishWithin(t, j, 15*time.Second)
	if in.Status != StatusDone {
		log, _ := os.ReadFile(filepath.Join(j.RunDir, "logs", "console.log"))
		t.Fatalf("%+v\n%s", in, log)
	}
	checkHandedBack(t, j.RunDir, []string{"workspace", "logs", "home"})
	if in.CopyOut == nil || in.CopyOut.Removed != 6 || in.CopyOut.Stripped < 9 {
		t.Errorf("copy_out %+v, want 6 special files removed and at least 9 modes stripped", in.CopyOut)
	}
	mounts, _ := os.ReadFile(filepath.Join(j.RunDir, "logs", "mounts.txt"))
	t.Logf("inside: %s", mounts)
	for _, l := range strings.Split(strings.TrimSpace(string(mounts)), "\n") {
		if !strings.Contains(l, "nosuid") || !strings.Contains(l, "nodev") {
			t.Errorf("mount %q is not nosuid,nodev", l)
		}
	}
}

// checkHandedBack fails for anything under the run's folders that is
// setuid, setgid, sticky, group- or world-writable, special, or not the
// pipeline's.
func checkHandedBack(t *testing.T, runDir string, names []string) {
	t.Helper()
	seen := 0
	for _, n := range names {
		filepath.Walk(filepath.Join(runDir, n), func(p string, fi os.FileInfo, err error) error {
			if err != nil {
				return nil
			}
			seen++
			rel, _ := filepath.Rel(runDir, p)
			m := fi.Mode()
			if m&(os.ModeSetuid|os.ModeSetgid|os.ModeSticky) != 0 || (m&os.ModeSymlink == 0 && m.Perm()&0o022 != 0) {
				t.Errorf("%s: mode %v after the run", rel, m)
			}
			if m&(os.ModeNamedPipe|os.ModeSocket|os.ModeDevice|os.ModeCharDevice) != 0 {
				t.Errorf("%s: %v left after the run", rel, m.Type())
			}
			if st := fi.Sys().(*syscall.Stat_t); int(st.Uid) != os.Getuid() || int(st.Gid) != os.Getgid() {
				t.Errorf("%s: owned by %d:%d, want the pipeline's %d:%d", rel, st.Uid, st.Gid, os.Getuid(), os.Getgid())
			}
			return nil
		})
	}
	if seen < len(names)*4 {
		t.Fatalf("only %d entries under %v: the agent did not run as it should", seen, names)
	}
}

func readHog(t *testing.T, j *Job) map[string]any {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(j.RunDir, "logs", "hog.json"))
	if err != nil {
		log, _ := os.ReadFile(filepath.Join(j.RunDir, "logs", "console.log"))
		t.Fatalf("no hog report: %v\n%s", err, log)
	}
	var v map[string]any
	json.Unmarshal(b, &v)
	return v
}

// TestSandboxLimits: a fork bomb, a memory hog (one process and several),
// a file-size hog and a disk hog in the bwrap sandbox, each bounded by the
// agent's limits, set low.
func TestSandboxLimits(t *testing.T) {
	needBwrap(t)
	t.Run("fork bomb: pids", func(t *testing.T) {
		j := newJob(t, t.TempDir(), "fork", "auto", "hog", "fork", "400")
		j.Agent.PidsLimit = 64
		in := finishWithin(t, j, 20*time.Second)
		v := readHog(t, j)
		t.Logf("started %v (%v)", v["started"], v["err"])
		if n := v["started"].(float64); n >= 64 || n < 10 || in.Limits.Pids != 64 {
			t.Errorf("started %v processes with pids_limit 64 (limits %+v)", n, in.Limits)
		}
	})
	t.Run("pids: each run counts its own", func(t *testing.T) {
		// Every sandbox runs as the same host user (nobody when the
		// pipeline is root): a run holding 40 processes must not take them
		// from another run's 64.
		holder := newJob(t, t.TempDir(), "holder", "auto", "hog", "forkhold", "40")
		holder.Agent.PidsLimit = 64
		held := make(chan *Info, 1)
		go func() { in, _ := Execute(context.Background(), holder); held <- in }()
		deadline := time.Now().Add(10 * time.Second)
		for {
			if _, err := os.Stat(filepath.Join(holder.RunDir, "logs", "hog.json")); err == nil || time.Now().After(deadline) {
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
		j := newJob(t, t.TempDir(), "fork2", "auto", "hog", "fork", "400")
		j.Agent.PidsLimit = 64
		finishWithin(t, j, 20*time.Second)
		<-held
		h, v := readHog(t, holder), readHog(t, j)
		t.Logf("holder started %v; the other run, meanwhile, %v", h["started"], v["started"])
		if h["started"].(float64) != 40 || v["started"].(float64) < 40 {
			t.Errorf("holder started %v of 40; the other run %v with its own limit of 64", h["started"], v["started"])
		}
	})
	t.Run("memory: one process", func(t *testing.T) {
		j := newJob(t, t.TempDir(), "mem", "auto", "hog", "mem", strconv.Itoa(1<<30))
		j.Agent.Memory = "256m"
		finishWithin(t, j, 20*time.Second)
		v := readHog(t, j)
		t.Logf("got %v MiB (%v)", v["bytes"].(float64)/(1<<20), v["err"])
		if got := v["bytes"].(float64); got > 256<<20 {
			t.Errorf("a process mapped %v bytes with memory = 256m", got)
		}
	})
	t.Run("memory: several processes", func(t *testing.T) {
		j := newJob(t, t.TempDir(), "memfork", "auto", "hog", "memfork", "4", strconv.Itoa(160<<20))
		j.Agent.Memory = "256m"
		j.Agent.LimitCheckEvery.Duration = 200 * time.Millisecond
		in := finishWithin(t, j, 20*time.Second)
		if in.Status != StatusFailed || !strings.HasPrefix(in.Error, "memory limit") || in.WallSeconds > 10 {
			t.Errorf("%s after %.1fs: %q, want stopped for the memory limit", in.Status, in.WallSeconds, in.Error)
		}
	})
	t.Run("file size", func(t *testing.T) {
		j := newJob(t, t.TempDir(), "fsize", "auto", "hog", "fsize", strconv.Itoa(64<<20))
		j.Agent.FileSizeLimit = "1m"
		finishWithin(t, j, 20*time.Second)
		v := readHog(t, j)
		fi, err := os.Stat(filepath.Join(j.RunDir, "workspace", "big"))
		if err != nil || fi.Size() > 1<<20 {
			t.Errorf("the file is %v bytes (%v) with file_size_limit 1m; the agent saw %v", fi.Size(), err, v)
		}
	})
	t.Run("disk", func(t *testing.T) {
		j := newJob(t, t.TempDir(), "disk", "auto", "hog", "disk", strconv.Itoa(256<<20))
		j.Agent.DiskLimit = "16m"
		j.Agent.LimitCheckEvery.Duration = 100 * time.Millisecond
		in := finishWithin(t, j, 20*time.Second)
		if in.Status != StatusFailed || !strings.HasPrefix(in.Error, "disk limit") || in.WallSeconds > 10 {
			t.Errorf("%s after %.1fs: %q, want stopped for the disk limit", in.Status, in.WallSeconds, in.Error)
		}
	})
}

// TestSnapshotKeepsWhatIsGradedFirst: a folder that sorts before
// submission.csv holds more files than the entry cap. The sealed
// submission keeps submission.csv and the files it names, drops the rest
// past the cap, and run.json counts every dropped entry.
func TestSnapshotKeepsWhatIsGradedFirst(t *testing.T) {
	runDir := t.TempDir()
	sub := filepath.Join(runDir, "submission")
	big := filepath.Join(sub, "a_big")
	if err := os.MkdirAll(big, 0o755); err != nil {
		t.Fatal(err)
	}
	defer func(n int) { snapshotMaxEntries = n }(snapshotMaxEntries)
	snapshotMaxEntries = 500 // 100,000 files take a minute to make on a slow disk
	start := time.Now()
	bigFiles := snapshotMaxEntries + 1
	for i := 0; i < bigFiles; i++ {
		f, err := os.Create(filepath.Join(big, fmt.Sprintf("f%06d", i)))
		if err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	t.Logf("%d files made in %v", bigFiles, time.Since(start))
	os.MkdirAll(filepath.Join(sub, "preds"), 0o755)
	os.WriteFile(filepath.Join(sub, "preds", "case1.nii.gz"), []byte("prediction"), 0o644)
	os.WriteFile(filepath.Join(sub, "submission.csv"), []byte("id,path\n1,preds/case1.nii.gz\n2,preds/missing.nii.gz\n3,../outside\n4,/etc/passwd\n"), 0o644)
	os.WriteFile(filepath.Join(sub, "zz_after.txt"), []byte("x"), 0o644)
	total := 1 + bigFiles + 1 + 1 + 1 + 1 // a_big, its files, preds, case1, submission.csv, zz_after.txt

	start = time.Now()
	s, err := sealSubmission(runDir, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("sealed in %v: %d files, %d dropped, first %q", time.Since(start), s.Files, s.DroppedCount, s.Dropped[:min(3, len(s.Dropped))])
	for _, f := range []string{"submission.csv", filepath.Join("preds", "case1.nii.gz")} {
		if _, err := os.Stat(filepath.Join(sub, f)); err != nil {
			t.Errorf("%s was not kept: %v", f, err)
		}
	}
	// Every entry counts: the two folders kept, the files kept, the rest dropped.
	if s.DroppedCount != total-snapshotMaxEntries || s.Files != snapshotMaxEntries-2 {
		t.Errorf("kept %d files and dropped %d of %d entries, want %d kept and %d dropped", s.Files, s.DroppedCount, total, snapshotMaxEntries-2, total-snapshotMaxEntries)
	}
	if len(s.Dropped) == 0 || !strings.HasPrefix(s.Dropped[0], filepath.Join("a_big", fmt.Sprintf("f%06d", bigFiles-(total-snapshotMaxEntries-1)))+": more than") {
		t.Errorf("dropped %q", s.Dropped[:min(3, len(s.Dropped))])
	}
}
