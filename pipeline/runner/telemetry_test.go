package runner

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rexmle/rexmle/pipeline/gpu"
	"github.com/rexmle/rexmle/pipeline/gpu/gputest"
)

// spawnTree starts `sh` (the run's first process, in its own process
// group) which starts a child shell, which starts a grandchild under
// setsid (a new session and process group) and a plain great-grandchild
// of that. It returns the root command and the pids the shells wrote.
func spawnTree(t *testing.T) (*exec.Cmd, map[string]int) {
	t.Helper()
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Skip("setsid (util-linux) is not installed")
	}
	dir := t.TempDir()
	script := `
sh -c '
  echo $$ > "$D/child"
  setsid sh -c "echo \$\$ > \"$D/gc\"; sleep 60 & echo \$! > \"$D/ggc\"; wait" &
  sleep 60
' &
sleep 60
`
	cmd := exec.Command("sh", "-c", script)
	cmd.Env = append(os.Environ(), "D="+dir)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pids := map[string]int{}
	t.Cleanup(func() {
		for _, p := range pids {
			syscall.Kill(p, syscall.SIGKILL)
		}
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		cmd.Wait()
	})
	deadline := time.Now().Add(10 * time.Second)
	for _, name := range []string{"child", "gc", "ggc"} {
		for {
			b, err := os.ReadFile(filepath.Join(dir, name))
			if n, err2 := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && err2 == nil && n > 0 {
				pids[name] = n
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the process tree did not start (%s missing)", name)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	return cmd, pids
}

func contains(xs []int, x int) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

func pgidOf(t *testing.T, pid int) int {
	g, err := syscall.Getpgid(pid)
	if err != nil {
		t.Fatalf("getpgid %d: %v", pid, err)
	}
	return g
}

// TestProcTrackerFollowsSetsidAndOrphans: the run's pid set holds the
// setsid'd grandchild (which a process-group walk misses) and its own
// child; after the intermediate shell dies and the grandchild is
// re-parented away from the tree, it still counts; once it exits it is gone.
func TestProcTrackerFollowsSetsidAndOrphans(t *testing.T) {
	cmd, p := spawnTree(t)
	root := cmd.Process.Pid
	if pgidOf(t, p["gc"]) == root {
		t.Fatalf("the setsid grandchild is still in the run's process group: the test proves nothing")
	}
	tr := NewProcTracker(root)
	got := tr.Pids()
	for _, name := range []string{"child", "gc", "ggc"} {
		if !contains(got, p[name]) {
			t.Fatalf("pids %v: missing %s (%d)", got, name, p[name])
		}
	}
	if !contains(got, root) {
		t.Fatalf("pids %v: missing the root %d", got, root)
	}
	if contains(got, os.Getpid()) || contains(got, 1) {
		t.Fatalf("pids %v hold processes outside the run", got)
	}
	// The intermediate shell dies: the setsid grandchild is re-parented
	// (to init or a subreaper), out of the root's tree.
	syscall.Kill(p["child"], syscall.SIGKILL)
	deadline := time.Now().Add(5 * time.Second)
	for {
		b, _ := os.ReadFile("/proc/" + strconv.Itoa(p["gc"]) + "/stat")
		s := string(b)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(f) > 1 && f[1] != strconv.Itoa(p["child"]) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the grandchild was not re-parented")
		}
		time.Sleep(20 * time.Millisecond)
	}
	got = tr.Pids()
	if contains(got, p["child"]) {
		t.Fatalf("pids %v still hold the dead child %d", got, p["child"])
	}
	if !contains(got, p["gc"]) || !contains(got, p["ggc"]) {
		t.Fatalf("pids %v lost the re-parented grandchild %d or its child %d", got, p["gc"], p["ggc"])
	}
	// A fresh tracker that never saw them finds only the root's own tree.
	if fresh := NewProcTracker(root).Pids(); contains(fresh, p["gc"]) {
		t.Fatalf("a fresh tracker claims the orphan: %v", fresh)
	}
	syscall.Kill(p["ggc"], syscall.SIGKILL)
	syscall.Kill(p["gc"], syscall.SIGKILL)
	deadline = time.Now().Add(5 * time.Second)
	for contains(tr.Pids(), p["gc"]) {
		if time.Now().After(deadline) {
			t.Fatalf("the killed grandchild %d is still counted", p["gc"])
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestTelemetryPassesDescendantsAndElapsed: the sampler is asked about
// every process of the run's tree, setsid'd ones included, and every
// sample in telemetry.jsonl carries the seconds since the run started.
func TestTelemetryPassesDescendantsAndElapsed(t *testing.T) {
	cmd, p := spawnTree(t)
	runDir := t.TempDir()
	mem := int64(21 << 30)
	f := &gputest.Fake{Batches: [][]gpu.Sample{{{GPU: 0, SMUtil: 90, MemUsedBytes: mem, MemTotalBytes: 80 << 30, PowerW: 300, EnergyMJ: 1, TempC: 60, ProcMemBytes: mem, Device: "GPU-fake"}}}}
	j := &Job{Group: "g", Challenge: "c", Seed: 1, RunDir: runDir, Sampler: f, SampleEvery: 50 * time.Millisecond}
	tel := startTelemetry(j, cmd.Process.Pid)
	for f.Calls() < 4 {
		time.Sleep(20 * time.Millisecond)
	}
	samples := tel.finish()
	if len(samples) < 4 {
		t.Fatalf("%d samples", len(samples))
	}
	first := f.Pids[0]
	for _, name := range []string{"child", "gc", "ggc"} {
		if !contains(first, p[name]) {
			t.Fatalf("sampler got pids %v: missing %s (%d)", first, name, p[name])
		}
	}
	prev := -1.0
	for _, s := range samples {
		if s.ElapsedS < 0 || s.ElapsedS < prev || s.ElapsedS > 30 {
			t.Fatalf("elapsed_s %v after %v", s.ElapsedS, prev)
		}
		prev = s.ElapsedS
	}
	if prev < 0.1 {
		t.Fatalf("last elapsed_s %v after ≥3 periods of 50 ms", prev)
	}
	fh, err := os.Open(filepath.Join(runDir, "telemetry.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	sc := bufio.NewScanner(fh)
	n := 0
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatal(err)
		}
		if _, ok := m["elapsed_s"].(float64); !ok || m["device"] != "GPU-fake" {
			t.Fatalf("line %s: no elapsed_s or device", sc.Bytes())
		}
		n++
	}
	if n != len(samples) {
		t.Fatalf("%d lines for %d samples", n, len(samples))
	}
	back, err := ReadTelemetry(runDir)
	if err != nil || len(back) != n || back[n-1].ElapsedS != samples[n-1].ElapsedS || back[0].Device != "GPU-fake" {
		t.Fatalf("read back %d samples (%v), last elapsed %v want %v", len(back), err, back[len(back)-1].ElapsedS, samples[n-1].ElapsedS)
	}
}

// TestProcTrackerExtraRoots: a process outside the run's tree (as a
// container's processes are, started by the engine) counts, with its
// children, once an extra-root function names it.
func TestProcTrackerExtraRoots(t *testing.T) {
	run, _ := spawnTree(t)
	other, p := spawnTree(t) // stands for the container: not a descendant of run
	calls := 0
	tr := NewProcTracker(run.Process.Pid, func() []int {
		calls++
		if calls < 2 {
			return nil // the engine does not know the container yet
		}
		return []int{other.Process.Pid}
	})
	if got := tr.Pids(); contains(got, other.Process.Pid) {
		t.Fatalf("first call: %v holds the other tree", got)
	}
	got := tr.Pids()
	for _, name := range []string{"child", "gc", "ggc"} {
		if !contains(got, p[name]) {
			t.Fatalf("pids %v: the extra root's %s (%d) is missing", got, name, p[name])
		}
	}
	if !contains(got, run.Process.Pid) {
		t.Fatalf("pids %v lost the run's own root", got)
	}
}

func BenchmarkProcTrackerPids(b *testing.B) {
	tr := NewProcTracker(os.Getpid())
	for i := 0; i < b.N; i++ {
		tr.Pids()
	}
}
