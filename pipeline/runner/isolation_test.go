package runner

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"github.com/rexmle/rexmle/pipeline/runner/internal/egressprobe"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rexmle/rexmle/pipeline/config"
	"github.com/rexmle/rexmle/pipeline/runner/sandbox"
)

// secret is made at run time so that the test binary itself (which the
// sandboxed agent may read) does not hold it.
var secret = strings.ToUpper("private-answer-7f3a9c")

// hostileReport is what the hostile agent managed (every list should stay
// empty) and what it saw of itself.
type hostileReport struct {
	UID        int      `json:"uid"`
	GID        int      `json:"gid"`
	CapEff     string   `json:"cap_eff"`
	NoNewPrivs string   `json:"no_new_privs"`
	Unmounted  []string `json:"unmounted"`  // mounts it detached
	Remounted  []string `json:"remounted"`  // mounts it made writable
	Read       []string `json:"read"`       // secret-holding files it read
	Wrote      []string `json:"wrote"`      // places outside its run it wrote to
	UserNS     string   `json:"user_ns"`    // creating a user namespace
	Walked     int      `json:"walked"`     // files it read while searching
	Mounts     int      `json:"mounts"`     // mount points it tried
	DaemonPID  int      `json:"daemon_pid"` // the setsid daemon it left (pid inside)
}

// hostile REPORT TARGETS(comma) WRITES(comma) NONCE: an agent that tries
// every escape of issue 13 it can try from inside, then leaves a setsid
// daemon that ignores SIGTERM and writes into the submission after the
// agent exits, a FIFO and a sparse 2 GB file in the submission.
func hostile(args []string) int {
	out, targets, writes, nonce := args[0], strings.Split(args[1], ","), strings.Split(args[2], ","), args[3]
	var r hostileReport
	r.UID, r.GID = os.Getuid(), os.Getgid()
	if b, err := os.ReadFile("/proc/self/status"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(l, "CapEff:"); ok {
				r.CapEff = strings.TrimSpace(v)
			}
			if v, ok := strings.CutPrefix(l, "NoNewPrivs:"); ok {
				r.NoNewPrivs = strings.TrimSpace(v)
			}
		}
	}
	// Lazy unmount and remount read-write of every mount it can see
	// (umount -l, mount -o remount,rw).
	var mounts []string
	if f, err := os.Open("/proc/self/mountinfo"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if f := strings.Fields(sc.Text()); len(f) > 4 {
				mounts = append(mounts, f[4])
			}
		}
		f.Close()
	}
	r.Mounts = len(mounts)
	for _, m := range mounts {
		if syscall.Mount("", m, "", syscall.MS_REMOUNT|syscall.MS_BIND, "") == nil {
			r.Remounted = append(r.Remounted, m)
		}
	}
	for i := len(mounts) - 1; i >= 0; i-- {
		if syscall.Unmount(mounts[i], syscall.MNT_DETACH) == nil {
			r.Unmounted = append(r.Unmounted, mounts[i])
		}
	}
	// The same through the tools, as a shell user would type them.
	if exec.Command("mount", "-o", "remount,rw", "/data").Run() == nil {
		r.Remounted = append(r.Remounted, "mount -o remount,rw /data")
	}
	if exec.Command("umount", "-l", "/data").Run() == nil {
		r.Unmounted = append(r.Unmounted, "umount -l /data")
	}
	if err := exec.Command("unshare", "-U", "-r", "true").Run(); err == nil {
		r.UserNS = "created"
	}
	// The secret by its host paths, and anywhere it can walk.
	for _, p := range targets {
		if b, err := os.ReadFile(p); err == nil && strings.Contains(string(b), secret) {
			r.Read = append(r.Read, p)
		}
	}
	skip := map[string]bool{"/proc": true, "/sys": true, "/dev": true, "/usr": true, "/etc": true, "/opt": true}
	filepath.WalkDir("/", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() && skip[p] {
			return filepath.SkipDir
		}
		if !d.Type().IsRegular() {
			return nil
		}
		if b, err := os.ReadFile(p); err == nil {
			r.Walked++
			if strings.Contains(string(b), secret) {
				r.Read = append(r.Read, p)
			}
		}
		return nil
	})
	// Writes outside what it is given (host paths and its own view of
	// the public data).
	for _, p := range append(writes, "/data/planted-"+nonce) {
		if err := os.WriteFile(p, []byte(nonce), 0o644); err == nil {
			r.Wrote = append(r.Wrote, p)
		}
	}
	// What a grader must not choke on, and what it must still grade.
	os.WriteFile("/submission/preds.csv", []byte("case,label\n1,0\n"), 0o644)
	syscall.Mkfifo("/submission/submission.csv", 0o644)
	if f, err := os.Create("/submission/big.bin"); err == nil {
		f.Truncate(2 << 30)
		f.Close()
	}
	os.Symlink("/etc/passwd", "/submission/link.csv")
	// A daemon in a new session that ignores SIGTERM.
	d := exec.Command("/proc/self/exe", "daemon", "/submission/late.txt", nonce, "1")
	d.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := d.Start(); err == nil {
		r.DaemonPID = d.Process.Pid
		d.Process.Release()
	}
	b, _ := json.MarshalIndent(r, "", " ")
	os.WriteFile(out, b, 0o644)
	return 0
}

// daemon FILE NONCE [FIRST_DELAY_SECONDS]: ignore SIGTERM, then keep
// writing FILE for 6 s (the first write after the delay, default 0.2 s).
func daemon(args []string) int {
	signal.Ignore(syscall.SIGTERM, syscall.SIGHUP)
	if len(args) > 2 {
		var d float64
		fmt.Sscan(args[2], &d)
		time.Sleep(time.Duration(d * float64(time.Second)))
	}
	for i := 0; i < 30; i++ {
		time.Sleep(200 * time.Millisecond)
		os.WriteFile(args[0], []byte(args[1]), 0o644)
	}
	return 0
}

// hostPids lists host processes whose command line holds s.
func hostPids(s string) []int {
	var out []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		var pid int
		if _, err := fmt.Sscan(e.Name(), &pid); err != nil || pid == os.Getpid() {
			continue
		}
		if b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline"); err == nil && strings.Contains(string(b), s) {
			out = append(out, pid)
		}
	}
	return out
}

// TestHostileAgent (issue 13): a sandboxed agent tries to unmount and
// remount, read the private answers next to the public data, the store,
// another run's submission, a checkout file and another checkout's
// answers, write into the checkout, $HOME, the public data and the host's
// /tmp, create a user namespace, and leaves a setsid daemon that ignores
// SIGTERM and writes into the submission after it exits, a FIFO, a sparse
// 2 GB file and a symbolic link in the submission. Each is refused or
// cleaned up, and the sealed submission holds only what was there when the
// run ended.
func TestHostileAgent(t *testing.T) {
	needBwrap(t)
	root := t.TempDir()
	nonce := fmt.Sprintf("hostile-%d", time.Now().UnixNano())
	checkout := filepath.Join(root, "checkout")
	priv := filepath.Join(checkout, "data", "c1", "private", "answers.csv")
	db := filepath.Join(checkout, "results", "rexmle.sqlite")
	other := filepath.Join(checkout, "results", "runs", "g", "c1", "other", "seed-1", "submission", "submission.csv")
	conf := filepath.Join(checkout, "benchmark", "challenges", "c1.toml")
	otherCheckout := filepath.Join(root, "other-checkout", "data", "c1", "private", "answers.csv")
	for _, p := range []string{priv, db, other, conf, otherCheckout} {
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte("case,label\n1,"+secret+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	j := newJob(t, root, "hostile", "auto")
	j.PublicDir = filepath.Join(checkout, "data", "c1", "public")
	j.RunDir = filepath.Join(checkout, "results", "runs", "g", "c1", "hostile", "seed-1")
	j.Hide = []string{filepath.Join(checkout, "data"), filepath.Join(checkout, "results")}
	os.MkdirAll(j.PublicDir, 0o755)
	// Private modes, as prepare leaves them (a challenge folder made with
	// MkdirTemp, files written atomically through CreateTemp).
	os.Chmod(filepath.Join(checkout, "data", "c1"), 0o700)
	os.WriteFile(filepath.Join(j.PublicDir, "train.csv"), []byte("case,label\n0,public\n"), 0o600)
	home, _ := os.UserHomeDir()
	writes := []string{filepath.Join(checkout, "planted-"+nonce), filepath.Join(home, "planted-"+nonce),
		filepath.Join(j.PublicDir, "planted-"+nonce), filepath.Join(os.TempDir(), "planted-"+nonce)}
	t.Cleanup(func() {
		for _, w := range writes {
			os.Remove(w)
		}
	})
	j.Agent.Command = []string{agentBin, "hostile", "{logs}/hostile.json", strings.Join([]string{priv, db, other, conf, otherCheckout}, ","),
		strings.Join(writes, ","), nonce}
	j.TimeLimit, j.Grace = 20*time.Second, time.Second
	in, err := Execute(context.Background(), j)
	if err != nil || in.Status != StatusDone {
		log, _ := os.ReadFile(filepath.Join(j.RunDir, "logs", "console.log"))
		t.Fatalf("%+v %v\n%s", in, err, log)
	}
	b, err := os.ReadFile(filepath.Join(j.RunDir, "logs", "hostile.json"))
	if err != nil {
		t.Fatalf("no report: %v", err)
	}
	var r hostileReport
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	t.Logf("isolation: %s\nreport: %s", in.Isolation, b)
	if r.UID == 0 || r.GID == 0 || r.CapEff != "0000000000000000" || r.NoNewPrivs != "1" {
		t.Errorf("inside: uid %d gid %d CapEff %s NoNewPrivs %s, want non-root, no capabilities, no_new_privs", r.UID, r.GID, r.CapEff, r.NoNewPrivs)
	}
	if r.Mounts < 5 || r.Walked == 0 {
		t.Fatalf("the agent tried %d mounts and read %d files: the attempts did not run", r.Mounts, r.Walked)
	}
	if len(r.Unmounted)+len(r.Remounted) > 0 || r.UserNS != "" {
		t.Errorf("mounts undone: unmounted %v, remounted %v; user namespace %q", r.Unmounted, r.Remounted, r.UserNS)
	}
	if len(r.Read) > 0 {
		t.Errorf("the agent read the secret: %v", r.Read)
	}
	if len(r.Wrote) > 0 && !(len(r.Wrote) == 1 && strings.HasPrefix(r.Wrote[0], "/tmp/")) {
		// Its own private /tmp is writable; nothing else may be.
		t.Errorf("the agent wrote to %v", r.Wrote)
	}
	for _, w := range writes {
		if _, err := os.Stat(w); err == nil {
			t.Errorf("the agent's write reached the host: %s", w)
		}
	}
	if ents, _ := os.ReadDir(j.PublicDir); len(ents) != 1 {
		t.Errorf("public data changed: %d entries", len(ents))
	}
	if r.DaemonPID == 0 {
		t.Fatal("the daemon did not start: the test did not test it")
	}
	// The daemon died with the run: nothing of it on the host, nothing
	// late in the sealed submission even after it would have written.
	time.Sleep(1500 * time.Millisecond)
	if p := hostPids(nonce); len(p) > 0 {
		t.Errorf("processes of the run survived it: %v", p)
	}
	got := map[string]bool{}
	filepath.WalkDir(filepath.Join(j.RunDir, "submission"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(filepath.Join(j.RunDir, "submission"), p)
			got[rel] = true
			if !d.Type().IsRegular() {
				t.Errorf("sealed submission holds a non-regular file %s", rel)
			}
		}
		return nil
	})
	if len(got) != 1 || !got["preds.csv"] {
		t.Errorf("sealed submission holds %v, want only preds.csv", got)
	}
	if in.Snapshot == nil || in.Snapshot.Files != 1 || in.Snapshot.DroppedCount != 3 {
		t.Fatalf("snapshot %+v, want 1 file and 3 dropped (FIFO, 2 GB file, link)", in.Snapshot)
	}
	dropped := strings.Join(in.Snapshot.Dropped, "\n")
	for _, d := range []string{"submission.csv: not a regular file", "big.bin: 2147483648 bytes, over", "link.csv: symbolic link"} {
		if !strings.Contains(dropped, d) {
			t.Errorf("dropped list lacks %q:\n%s", d, dropped)
		}
	}
	back, err := ReadInfo(j.RunDir)
	if err != nil || back.Snapshot == nil || back.Snapshot.DroppedCount != 3 || !strings.HasPrefix(back.Isolation, "bwrap:") {
		t.Fatalf("run.json does not record the isolation and the snapshot: %+v %v", back, err)
	}
}

// TestSandboxStopsOnTimeAndCancel: a sandboxed agent that ignores SIGTERM
// and leaves a setsid daemon is killed after the grace period at the time
// limit, and on cancel (Ctrl-C) the run is recorded interrupted; nothing
// of either survives.
func TestSandboxStopsOnTimeAndCancel(t *testing.T) {
	needBwrap(t)
	for _, cancel := range []bool{false, true} {
		t.Run(fmt.Sprintf("cancel=%v", cancel), func(t *testing.T) {
			nonce := fmt.Sprintf("stubborn-%d", time.Now().UnixNano())
			j := newJob(t, t.TempDir(), "a", "auto", "sh-spawn", nonce)
			// sh starts the daemon in its own session, then sleeps ignoring SIGTERM.
			j.Agent.Command = []string{"/bin/sh", "-c", `setsid "$0" daemon /workspace/d.txt "$1" & exec "$0" sleep 30 ignore-term`, agentBin, nonce}
			j.TimeLimit, j.Grace = 30*time.Second, time.Second
			ctx, stopCtx := context.WithCancel(context.Background())
			defer stopCtx()
			if cancel {
				time.AfterFunc(time.Second, stopCtx)
			} else {
				j.TimeLimit = time.Second
			}
			in, err := Execute(ctx, j)
			want := StatusTimedOut
			if cancel {
				want = StatusInterrupted
				if err != context.Canceled {
					t.Errorf("Execute returned %v, want context.Canceled", err)
				}
			}
			if in == nil || in.Status != want {
				t.Fatalf("%+v %v, want %s", in, err, want)
			}
			if in.WallSeconds < 1.8 || in.WallSeconds > 5 {
				t.Errorf("wall %.2fs, want the limit plus the 1 s grace", in.WallSeconds)
			}
			if b, _ := os.ReadFile(filepath.Join(j.RunDir, "workspace", "d.txt")); string(b) != nonce {
				t.Errorf("the daemon never ran (d.txt %q): the test did not test it", b)
			}
			time.Sleep(300 * time.Millisecond)
			if p := hostPids(nonce); len(p) > 0 {
				t.Errorf("processes survived the run: %v", p)
			}
			if back, _ := ReadInfo(j.RunDir); back == nil || back.Status != want {
				t.Errorf("run.json %+v", back)
			}
		})
	}
}

// termcount FILE: wait for SIGTERM, keep counting them for 0.5 s, write
// the count to FILE and exit 0 (as an agent saving its work would).
func termcount(args []string) int {
	sig := make(chan os.Signal, 8)
	signal.Notify(sig, syscall.SIGTERM)
	<-sig
	n := 1
	end := time.After(500 * time.Millisecond)
	for wait := true; wait; {
		select {
		case <-sig:
			n++
		case <-end:
			wait = false
		}
	}
	os.WriteFile(args[0], []byte(fmt.Sprint(n)), 0o644)
	return 0
}

// TestSandboxSIGTERMOnce: at the time limit, an agent behind the bridge
// gets exactly one SIGTERM and may finish its work within the grace period.
func TestSandboxSIGTERMOnce(t *testing.T) {
	needBwrap(t)
	j := newJob(t, t.TempDir(), "a", "auto")
	j.Agent.Command = []string{agentBin, "termcount", "{logs}/terms.txt"}
	j.Validate = func(context.Context, string) error { return nil } // the bridge runs
	j.TimeLimit, j.Grace = time.Second, 5*time.Second
	in, err := Execute(context.Background(), j)
	if err != nil || in.Status != StatusTimedOut {
		t.Fatalf("%+v %v", in, err)
	}
	b, _ := os.ReadFile(filepath.Join(j.RunDir, "logs", "terms.txt"))
	if string(b) != "1" {
		t.Errorf("the agent counted %q SIGTERMs, want 1", b)
	}
	if in.WallSeconds > 4 {
		t.Errorf("wall %.1fs: the agent's own exit within the grace period was not waited for", in.WallSeconds)
	}
}

// pipelineHelper ROOT NONCE: a stand-in for the pipeline process: it runs
// one sandboxed job whose agent leaves a setsid daemon and sleeps; the
// test kills this process with SIGKILL.
func pipelineHelper(args []string) int {
	root, nonce := args[0], args[1]
	self, _ := os.Executable()
	j := &Job{Group: "g", Challenge: "c1", Seed: 1, PublicDir: filepath.Join(root, "data", "c1", "public"),
		RunDir: filepath.Join(root, "results", "runs", "g", "c1", "a", "seed-1"), TimeLimit: time.Minute, Grace: time.Second,
		AgentBin: self, ReadOnly: []string{self},
		Agent: config.Agent{ID: "a", Backend: "none", Executor: "local",
			Command: []string{"/bin/sh", "-c", `setsid "$0" daemon /workspace/d.txt "$1" & exec "$0" sleep 60 ignore-term`, self, nonce}}}
	os.MkdirAll(j.PublicDir, 0o755)
	in, err := Execute(context.Background(), j)
	fmt.Println(in, err)
	return 0
}

// TestPipelineKilledTakesTheSandboxDown: when the pipeline process itself
// is killed (SIGKILL, no cleanup at all), the sandboxed agent and its setsid
// daemon die with it.
func TestPipelineKilledTakesTheSandboxDown(t *testing.T) {
	needBwrap(t)
	root := t.TempDir()
	os.Chmod(root, 0o755)
	os.Chmod(filepath.Dir(root), 0o755)
	nonce := fmt.Sprintf("orphan-%d", time.Now().UnixNano())
	cmd := exec.Command(agentBin, "pipeline", root, nonce)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	d := filepath.Join(root, "results", "runs", "g", "c1", "a", "seed-1", "workspace", "d.txt")
	deadline := time.Now().Add(15 * time.Second)
	for {
		if b, _ := os.ReadFile(d); string(b) == nonce {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal("the daemon never wrote: the run did not start")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if len(hostPids(nonce)) < 2 {
		t.Fatalf("want the agent and its daemon running, found %v", hostPids(nonce))
	}
	cmd.Process.Kill()
	cmd.Wait()
	deadline = time.Now().Add(3 * time.Second)
	for len(hostPids(nonce)) > 0 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if p := hostPids(nonce); len(p) > 0 {
		t.Fatalf("processes of the run outlived the pipeline: %v", p)
	}
}

// TestSnapshotWithoutSandbox: the snapshot also guards unsandboxed runs
// (FIFOs and files over the cap dropped, the rest kept, folders kept).
func TestSnapshotWithoutSandbox(t *testing.T) {
	j := newJob(t, t.TempDir(), "a", "none", "say", "hi")
	j.SnapshotMaxFile = 1000
	in, err := Execute(context.Background(), j)
	if err != nil || in.Status != StatusDone || in.Snapshot == nil || in.Snapshot.Files != 0 {
		t.Fatalf("%+v %v", in, err)
	}
	// Seal again by hand over a prepared folder.
	sub := filepath.Join(j.RunDir, "submission")
	os.MkdirAll(filepath.Join(sub, "cases"), 0o755)
	os.WriteFile(filepath.Join(sub, "cases", "a.csv"), []byte("x,y\n"), 0o644)
	os.WriteFile(filepath.Join(sub, "big.csv"), make([]byte, 1001), 0o644)
	syscall.Mkfifo(filepath.Join(sub, "fifo.csv"), 0o644)
	s, err := sealSubmission(j.RunDir, 1000, 0)
	if err != nil {
		t.Fatal(err)
	}
	if s.Files != 1 || s.Bytes != 4 || s.DroppedCount != 2 {
		t.Fatalf("snapshot %+v", s)
	}
	if b, err := os.ReadFile(filepath.Join(sub, "cases", "a.csv")); err != nil || string(b) != "x,y\n" {
		t.Fatalf("kept file: %q %v", b, err)
	}
	if fi, err := os.Stat(filepath.Join(sub, "cases", "a.csv")); err != nil || fi.Mode().Perm() != 0o444 {
		t.Fatalf("kept file mode: %v %v", fi.Mode(), err)
	}
	if _, err := os.Stat(filepath.Join(j.RunDir, ".submission.agent")); !os.IsNotExist(err) {
		t.Fatalf("the agent's folder is left: %v", err)
	}
	// A second run starts from a clean folder (sealed files included).
	if in, err := Execute(context.Background(), j); err != nil || in.Status != StatusDone {
		t.Fatalf("rerun: %+v %v", in, err)
	}
}

// egressAgent OUT ALLOWED_ADDR REFUSED_ADDR: see package egressprobe.
func egressAgent(args []string) int { return egressprobe.Main(args) }

// TestEgressAndValidationInsideTheSandbox: an agent whose egress list holds
// a fake OpenAI-compatible server on loopback reaches it through the proxy
// (plain http and CONNECT), is refused another loopback server, cannot
// dial anything directly, and reaches the validation endpoint over HTTP.
func TestEgressAndValidationInsideTheSandbox(t *testing.T) {
	needBwrap(t)
	allowed, refused := fakeLLMAndOther(t)

	j := newJob(t, t.TempDir(), "llm", "auto")
	// A run folder too deep for a Unix socket address: both sockets fall
	// back to temporary folders, which the sandbox must still reach.
	j.RunDir = filepath.Join(j.RunDir, strings.Repeat("d", 80))
	j.Agent.Egress = []string{allowed}
	j.Agent.Command = []string{agentBin, "egress", "{logs}/egress.json", allowed, refused}
	var asked []string
	j.Validate = func(ctx context.Context, dir string) error { asked = append(asked, dir); return nil }
	in, err := Execute(context.Background(), j)
	if err != nil || in.Status != StatusDone {
		log, _ := os.ReadFile(filepath.Join(j.RunDir, "logs", "console.log"))
		t.Fatalf("%+v %v\n%s", in, err, log)
	}
	res := readEgressReport(t, j)
	t.Logf("isolation: %s", in.Isolation)
	checkEgressReport(t, res)
	if len(asked) != 1 || !strings.HasPrefix(asked[0], filepath.Join(j.RunDir, validateScratch)+"/") {
		t.Errorf("validation over HTTP asked %v", asked)
	}
	if len(filepath.Join(j.RunDir, "validate.sock")) <= 100 || strings.HasPrefix(in.Validation, j.RunDir) {
		t.Errorf("the validation socket %s did not take the long-path fallback", in.Validation)
	}
	if in.EgressRefused != 2 || len(in.Egress) != 1 || in.ValidationURL == "" {
		t.Errorf("run.json: egress %v refused %d validation %q", in.Egress, in.EgressRefused, in.ValidationURL)
	}
}

// TestNoNetworkUnlessAllowed: a sandboxed agent without network = true
// cannot reach a server on the host's loopback; with it, it can.
func TestNoNetworkUnlessAllowed(t *testing.T) {
	needBwrap(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	for _, allowed := range []bool{false, true} {
		j := newJob(t, t.TempDir(), "net", "auto")
		j.Agent.Network = allowed
		j.Agent.Command = []string{agentBin, "dial", ln.Addr().String(), "{logs}/dial.txt"}
		in, err := Execute(context.Background(), j)
		if err != nil || in.Status != StatusDone {
			t.Fatalf("%+v %v", in, err)
		}
		b, _ := os.ReadFile(filepath.Join(j.RunDir, "logs", "dial.txt"))
		if got := string(b) == "connected"; got != allowed {
			t.Errorf("network allowed %v: dial said %q (isolation %s)", allowed, b, in.Isolation)
		}
	}
}

// TestSandboxFailsClearly: without bwrap on PATH a sandboxed run fails
// with the reason (no silent fallback); sandbox = "none" still runs.
func TestSandboxFailsClearly(t *testing.T) {
	j := newJob(t, t.TempDir(), "a", "auto", "say", "hi")
	sandbox.Available() // the probe's answer is cached for the real PATH first
	path := os.Getenv("PATH")
	t.Setenv("PATH", t.TempDir())
	in, err := Execute(context.Background(), j)
	if err != nil || in.Status != StatusFailed || !strings.Contains(in.Error, "bwrap is not installed") || !strings.Contains(in.Error, `sandbox = "none"`) {
		t.Fatalf("%+v %v", in, err)
	}
	if back, _ := ReadInfo(j.RunDir); back == nil || back.Status != StatusFailed || back.Error != in.Error {
		t.Fatalf("run.json %+v", back)
	}
	j.Agent.Sandbox = "none"
	t.Setenv("PATH", path)
	if in, err := Execute(context.Background(), j); err != nil || in.Status != StatusDone || !strings.HasPrefix(in.Isolation, "none:") {
		t.Fatalf("sandbox = none: %+v %v", in, err)
	}
}

// fakeLLMAndOther starts a fake OpenAI-compatible server (the agent's
// allowed endpoint) and another server on loopback; it returns their
// host:port addresses.
func fakeLLMAndOther(t *testing.T) (allowed, refused string) {
	t.Helper()
	fake := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/v1/chat/completions":
			io.WriteString(w, `{"id":"c1","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"fake-completion"}}]}`)
		case "/v1/models":
			io.WriteString(w, `{"object":"list","data":[{"id":"gpt-5"}]}`)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(fake.Close)
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "other-server") }))
	t.Cleanup(other.Close)
	return strings.TrimPrefix(fake.URL, "http://"), strings.TrimPrefix(other.URL, "http://")
}

// readEgressReport reads what the egress probe (package egressprobe) wrote
// into the run's logs/egress.json.
func readEgressReport(t *testing.T, j *Job) map[string]string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(j.RunDir, "logs", "egress.json"))
	if err != nil {
		t.Fatal(err)
	}
	var res map[string]string
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatal(err)
	}
	return res
}

// checkEgressReport: the allowed server answers through the proxy (plain
// http and a CONNECT tunnel), the other server gets 403 both ways, direct
// connections fail, and the validation endpoint answers over HTTP.
func checkEgressReport(t *testing.T, res map[string]string) {
	t.Helper()
	if !strings.HasPrefix(res["allowed_post"], "200 ") || !strings.Contains(res["allowed_post"], "fake-completion") {
		t.Errorf("allowed server through the proxy: %q", res["allowed_post"])
	}
	if !strings.HasPrefix(res["allowed_connect"], "200 ") || !strings.Contains(res["allowed_connect"], "gpt-5") {
		t.Errorf("allowed server through a CONNECT tunnel: %q", res["allowed_connect"])
	}
	if !strings.HasPrefix(res["refused_post"], "403 ") || strings.Contains(res["refused_post"], "other-server") {
		t.Errorf("refused server through the proxy: %q", res["refused_post"])
	}
	if res["refused_connect"] != "403" {
		t.Errorf("refused server through CONNECT: %q", res["refused_connect"])
	}
	for _, k := range []string{"direct_allowed", "direct_refused"} {
		if !strings.HasPrefix(res[k], "error: ") {
			t.Errorf("%s: %q, want a failed connection", k, res[k])
		}
	}
	if res["validate"] != `{"valid":true}` {
		t.Errorf("validation over HTTP: %q", res["validate"])
	}
	if res["health"] != `{"status":"ok"}` {
		t.Errorf("health: %q", res["health"])
	}
}
