package stages

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rexmle/rexmle/pipeline/challenge"
	"github.com/rexmle/rexmle/pipeline/challenge/challengetest"
	"github.com/rexmle/rexmle/pipeline/prepare"
	"github.com/rexmle/rexmle/pipeline/settings"
)

// copyTree copies a folder (tests).
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	if out, err := exec.Command("cp", "-a", src, dst).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v %s", err, out)
	}
}

func TestDemoAndFetchedDataStayApart(t *testing.T) {
	o := testBench(t)
	o.Challenges = []string{"ldct-iqa"}
	ctx := context.Background()
	root := filepath.Dir(o.Config)
	// A "real download" already in place is never touched by the demo.
	dl := filepath.Join(root, "data", "raw", "ldct-iqa")
	os.MkdirAll(dl, 0o755)
	os.WriteFile(filepath.Join(dl, "download.zip"), []byte("real bytes"), 0o644)
	if err := Prepare(ctx, o); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(dl, "download.zip")); err != nil || string(b) != "real bytes" {
		t.Fatalf("the demo changed a download: %q %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(root, "data", "ldct-iqa")); err == nil {
		t.Fatal("the demo prepared into the fetched data's folder")
	}
	m, err := challenge.ReadManifest(filepath.Join(root, "data", "synthetic", "ldct-iqa"))
	if err != nil || m.Data != prepare.Synthetic {
		t.Fatalf("demo manifest: %+v %v", m, err)
	}

	// The paper profile refuses synthetic raw data in the download folder
	// (an older rexmle's demo left it there) ...
	paper := o
	paper.Profile = "paper"
	os.RemoveAll(dl)
	copyTree(t, filepath.Join(root, "data", "synthetic", "raw", "ldct-iqa"), dl)
	out, err := stdoutOf(func() error { return Prepare(ctx, paper) })
	if err == nil || !strings.Contains(out, "holds synthetic demo data") {
		t.Fatalf("paper prepare accepted synthetic raw data: %v\n%s", err, out)
	}
	// ... or a download that is not finished ...
	os.Remove(filepath.Join(dl, prepare.SyntheticMarker))
	os.WriteFile(filepath.Join(dl, "more.zip.part"), []byte("half"), 0o644)
	out, err = stdoutOf(func() error { return Prepare(ctx, paper) })
	if err == nil || !strings.Contains(out, "unfinished download (more.zip.part)") {
		t.Fatalf("paper prepare accepted an unfinished download: %v\n%s", err, out)
	}
	// ... and prepares it once it is a download (here: the same files without the marker).
	os.Remove(filepath.Join(dl, "more.zip.part"))
	if err := Prepare(ctx, paper); err != nil {
		t.Fatal(err)
	}
	fetched := filepath.Join(root, "data", "ldct-iqa")
	if m, err := challenge.ReadManifest(fetched); err != nil || m.Data != prepare.Fetched {
		t.Fatalf("paper manifest: %+v %v", m, err)
	}
	// The demo's prepared data is still there, unchanged.
	if m2, err := challenge.ReadManifest(filepath.Join(root, "data", "synthetic", "ldct-iqa")); err != nil || m2.InputHash != m.InputHash {
		t.Fatalf("demo data changed by the paper's prepare: %v", err)
	}

	// gradeOne (and run/grade, through the same check) refuses prepared data
	// of the other kind.
	sub := t.TempDir()
	c, _ := challenge.Lookup("ldct-iqa")
	if err := challengetest.MustOracle(t, c).Perfect(ctx, filepath.Join(fetched, "public"), filepath.Join(fetched, "private"), sub); err != nil {
		t.Fatal(err)
	}
	if err := GradeOne(ctx, paper, "ldct-iqa", sub); err != nil {
		t.Fatalf("paper gradeOne on fetched data: %v", err)
	}
	setKind(t, fetched, prepare.Synthetic)
	err = GradeOne(ctx, paper, "ldct-iqa", sub)
	if err == nil || !strings.Contains(err.Error(), "holds synthetic data, but profile paper uses fetched data") {
		t.Fatalf("paper gradeOne on synthetic data: %v", err)
	}
	setKind(t, filepath.Join(root, "data", "synthetic", "ldct-iqa"), prepare.Fetched)
	err = GradeOne(ctx, o, "ldct-iqa", sub)
	if err == nil || !strings.Contains(err.Error(), "holds fetched data, but profile demo uses synthetic data") {
		t.Fatalf("demo gradeOne on fetched data: %v", err)
	}
	if err := Run(ctx, paper); err == nil || !strings.Contains(err.Error(), "holds synthetic data") {
		t.Fatalf("paper run on synthetic data: %v", err)
	}
}

// stdoutOf runs f and returns what it printed on stdout.
func stdoutOf(f func() error) (string, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return "", err
	}
	old := os.Stdout
	os.Stdout = w
	done := make(chan string)
	go func() {
		b, _ := io.ReadAll(r)
		done <- string(b)
	}()
	ferr := f()
	os.Stdout = old
	w.Close()
	return <-done, ferr
}

// setKind rewrites the data kind a manifest records.
func setKind(t *testing.T, dir, kind string) {
	t.Helper()
	m, err := challenge.ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	m.Data = kind
	b, _ := json.Marshal(m)
	if err := os.WriteFile(filepath.Join(dir, challenge.ManifestName), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// unlockAll releases every lock this process holds.
func unlockAll() {
	locksMu.Lock()
	defer locksMu.Unlock()
	for p, f := range locks {
		f.Close()
		delete(locks, p)
	}
}

func TestCheckoutLock(t *testing.T) {
	defer unlockAll()
	o := testBench(t)
	o.Challenges = []string{"ldct-iqa"}
	root := filepath.Dir(o.Config)
	// Another process's stage: an open file description holding the lock.
	other, err := os.OpenFile(filepath.Join(root, LockName), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if err := syscall.Flock(int(other.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		t.Fatal(err)
	}
	other.WriteString("pid 4242 since earlier: mage all\n")
	o.LockWait = 300 * time.Millisecond
	start := time.Now()
	err = Prepare(context.Background(), o)
	if err == nil || !strings.Contains(err.Error(), "another rexmle stage holds this checkout (pid 4242") || !strings.Contains(err.Error(), "REXMLE_LOCK_WAIT") {
		t.Fatalf("second stage: %v", err)
	}
	if d := time.Since(start); d < 300*time.Millisecond || d > 5*time.Second {
		t.Errorf("gave up after %s, want about 300ms", d)
	}
	if _, err := os.Stat(filepath.Join(root, "data")); err == nil {
		t.Error("the stage did work without the lock")
	}
	// gradeOne writes nothing and does not wait.
	if err := GradeOne(context.Background(), o, "ldct-iqa", t.TempDir()); err == nil || strings.Contains(err.Error(), "another rexmle stage") {
		t.Errorf("gradeOne waited for the lock or graded unprepared data: %v", err)
	}
	// A stage that may wait long enough gets the lock when the other ends.
	oldPoll := lockPollEvery
	lockPollEvery = 50 * time.Millisecond
	defer func() { lockPollEvery = oldPoll }()
	o.LockWait = 30 * time.Second
	go func() {
		time.Sleep(400 * time.Millisecond)
		syscall.Flock(int(other.Fd()), syscall.LOCK_UN)
	}()
	start = time.Now()
	if err := Prepare(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d < 400*time.Millisecond {
		t.Errorf("did not wait for the holder (%s)", d)
	}
	// Now this process holds it: the other cannot take it.
	if err := syscall.Flock(int(other.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err == nil {
		t.Error("the lock is not held after the stage")
	}
	b, _ := os.ReadFile(filepath.Join(root, LockName))
	if !strings.Contains(string(b), "pid ") {
		t.Errorf("the lock file does not name its holder: %q", b)
	}
}

// TestSettingsValidatedBeforeWork runs the targets' path — settings.Load of
// an injected environment, then the stage — and checks that a bad value, a
// misspelt name or an unknown profile or challenge stops it before any
// work.
func TestSettingsValidatedBeforeWork(t *testing.T) {
	o := testBench(t)
	root := filepath.Dir(o.Config)
	stage := func(environ []string, run func(context.Context, Options) error) error {
		s, err := settings.Load(environ)
		if err != nil {
			return err
		}
		return run(context.Background(), FromSettings(s))
	}
	for _, c := range []struct{ env, val, want string }{
		{"REXMLE_MODE", "oficial", `REXMLE_MODE="oficial"`},
		{"REXMLE_FORCE", "ture", `REXMLE_FORCE="ture"`},
		{"REXMLE_FORCE", "on", `REXMLE_FORCE="on"`},
		{"REXMLE_RETRY_FAILED", "maybe", `REXMLE_RETRY_FAILED="maybe": want 1, true or yes (or 0, false, no)`},
		{"REXMLE_LOCK_WAIT", "soon", `REXMLE_LOCK_WAIT="soon"`},
		{"REXMLE_LOCK_WAIT", "-1m", `REXMLE_LOCK_WAIT="-1m"`},
		{"REXMLE_BOOT", "many", `REXMLE_BOOT="many"`},
		{"REXMLE_CHALLENGES", " , ", "comma-separated ids"},
		{"REXMLE_CHALLENGES", "ldct-iqa,isles-22", `unknown challenge "isles-22"`},
		{"REXMLE_PROFILE", "papr", `no profile "papr"`},
		{"REXMLE_SYNTH_CASES", "ful", `REXMLE_SYNTH_CASES="ful": want "default"`},
		{"REXMLE_SYNTH_CASES", "5", `a number of cases between 10 and 100000`},
		{"REXMLE_CHALLENGE", "ldct-iqa", `REXMLE_CHALLENGE is not a setting`},
		{"REXMLE_PROFLE", "paper", `unknown setting REXMLE_PROFLE; did you mean REXMLE_PROFILE?`},
	} {
		t.Run(c.env+"="+c.val, func(t *testing.T) {
			environ := []string{"REXMLE_CONFIG=" + o.Config, c.env + "=" + c.val}
			err := stage(environ, Prepare)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want it to say %s", err, c.want)
			}
			if _, err := os.Stat(filepath.Join(root, "data")); err == nil {
				t.Fatal("work was done before the settings were checked")
			}
			if err := stage(environ, Grade); err == nil {
				t.Error("grade accepted the setting")
			}
		})
	}
	for _, v := range []string{"default", "full", "40"} {
		environ := []string{"REXMLE_CONFIG=" + o.Config, "REXMLE_MODE=official", "REXMLE_FORCE=no", "REXMLE_LOCK_WAIT=0", "REXMLE_SYNTH_CASES=" + v}
		s, err := settings.Load(environ)
		if err != nil {
			t.Fatalf("good settings: %v", err)
		}
		if err := FromSettings(s).Validate(); err != nil {
			t.Errorf("good settings: %v", err)
		}
	}
}

// countingChallenge wraps a real challenge and counts its Grade calls per mode.
type countingChallenge struct {
	challenge.Challenge
	id    string
	mu    sync.Mutex
	calls map[challenge.Mode]int
}

func (c *countingChallenge) ID() string { return c.id }
func (c *countingChallenge) Grade(ctx context.Context, sub, priv string, mode challenge.Mode) (*challenge.Result, error) {
	c.mu.Lock()
	c.calls[mode]++
	c.mu.Unlock()
	return c.Challenge.Grade(ctx, sub, priv, mode)
}

var counting = func() *countingChallenge {
	real, _ := challenge.Lookup("ldct-iqa")
	c := &countingChallenge{Challenge: real, id: "counting-ldct-iqa", calls: map[challenge.Mode]int{}}
	challenge.Register(c)
	return c
}()

func TestGradeOneGradesOnlyTheRequestedMode(t *testing.T) {
	o := testBench(t)
	o.Challenges = []string{"ldct-iqa"}
	ctx := context.Background()
	if err := Prepare(ctx, o); err != nil {
		t.Fatal(err)
	}
	root := filepath.Dir(o.Config)
	src := filepath.Join(root, "data", "synthetic", "ldct-iqa")
	copyTree(t, src, filepath.Join(root, "data", "synthetic", counting.id))
	sub := t.TempDir()
	if err := challengetest.MustOracle(t, counting.Challenge).Perfect(ctx, filepath.Join(src, "public"), filepath.Join(src, "private"), sub); err != nil {
		t.Fatal(err)
	}
	reset := func() { counting.mu.Lock(); counting.calls = map[challenge.Mode]int{}; counting.mu.Unlock() }
	reset()
	o.Mode = "official"
	if err := GradeOne(ctx, o, counting.id, sub); err != nil {
		t.Fatal(err)
	}
	if counting.calls[challenge.Official] != 1 || counting.calls[challenge.Reference] != 0 {
		t.Errorf("gradeOne (official) graded %v", counting.calls)
	}
	reset()
	o.BothModes = true
	if err := GradeOne(ctx, o, counting.id, sub); err != nil {
		t.Fatal(err)
	}
	if counting.calls[challenge.Official] != 1 || counting.calls[challenge.Reference] != 1 {
		t.Errorf("gradeOne with REXMLE_BOTH_MODES graded %v", counting.calls)
	}
}

// layRun makes a run folder as the runner does, with a perfect submission.
func layRun(t *testing.T, root, challengeID, agent string) string {
	t.Helper()
	c, _ := challenge.Lookup(challengeID)
	data := filepath.Join(root, "data", "synthetic", challengeID)
	dir := filepath.Join(root, "results", "runs", "demo", challengeID, agent, "seed-1")
	if err := os.MkdirAll(filepath.Join(dir, "submission"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := challengetest.MustOracle(t, c).Perfect(context.Background(), filepath.Join(data, "public"), filepath.Join(data, "private"), filepath.Join(dir, "submission")); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestGradeCacheFollowsAnswersAndGrader(t *testing.T) {
	o := testBench(t)
	o.Challenges = []string{"ldct-iqa"}
	ctx := context.Background()
	if err := Prepare(ctx, o); err != nil {
		t.Fatal(err)
	}
	root := filepath.Dir(o.Config)
	layRun(t, root, "ldct-iqa", "baseline")
	jsonl := filepath.Join(root, "results", "grades.jsonl")
	grade := func(wantLines int) []map[string]any {
		t.Helper()
		if err := Grade(ctx, o); err != nil {
			t.Fatal(err)
		}
		lines := readLines(t, jsonl)
		if len(lines) != wantLines {
			t.Fatalf("%d lines in grades.jsonl, want %d", len(lines), wantLines)
		}
		return lines
	}
	first := grade(1)
	grade(1) // nothing changed: nothing regraded
	// New private answers (the same ids, other scores): regraded, and the
	// perfect submission is no longer perfect.
	ans := filepath.Join(root, "data", "synthetic", "ldct-iqa", "private", "test_labels.csv")
	tab, err := challenge.ReadCSV(ans)
	if err != nil {
		t.Fatal(err)
	}
	sc, _ := tab.Col("quality_score")
	for i, r := range tab.Rows {
		r[sc] = []string{"0.5", "3.5", "1.25", "2"}[i%4]
	}
	if err := challenge.WriteCSV(ans, tab.Header, tab.Rows); err != nil {
		t.Fatal(err)
	}
	lines := grade(2)
	before, after := first[0]["metrics"].(map[string]any)["score"], lines[1]["metrics"].(map[string]any)["score"]
	if before == after {
		t.Errorf("score %v unchanged after the answers changed", after)
	}
	grade(2)
	// A new grader version regrades too: see pipeline/grade's tests.
}

func TestGradeStageHostileFilesAndBrokenRecords(t *testing.T) {
	o := testBench(t)
	o.Challenges = []string{"ldct-iqa"}
	ctx := context.Background()
	if err := Prepare(ctx, o); err != nil {
		t.Fatal(err)
	}
	root := filepath.Dir(o.Config)
	// A FIFO named submission.csv: an invalid run, quickly, not a hang.
	fifo := layRun(t, root, "ldct-iqa", "fifo")
	p := filepath.Join(fifo, "submission", "submission.csv")
	os.Remove(p)
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Skip("mkfifo:", err)
	}
	done := make(chan error, 1)
	go func() { done <- Grade(ctx, o) }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("grade hangs on a FIFO submission")
	}
	lines := readLines(t, filepath.Join(root, "results", "grades.jsonl"))
	if len(lines) != 1 || lines[0]["valid"] != false || !strings.Contains(lines[0]["error"].(string), "FIFO") {
		t.Fatalf("FIFO submission graded as %v", lines)
	}
	// A 2 GiB sparse submission.csv and a 200 MB one-field one: rejected
	// quickly, without reading them whole.
	for _, c := range []struct {
		agent, head string
		size        int64
		want        string
	}{
		{"sparse", "image_id,quality_score\n1,2\n", 2 << 30, "too large"},
		{"onefield", "image_id,quality_score\n\"", 200 << 20, "too large"},
	} {
		dir := layRun(t, root, "ldct-iqa", c.agent)
		p := filepath.Join(dir, "submission", "submission.csv")
		if err := os.WriteFile(p, []byte(c.head), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Truncate(p, c.size); err != nil {
			t.Skip("truncate:", err)
		}
		start := time.Now()
		err := GradeOne(ctx, o, "ldct-iqa", filepath.Join(dir, "submission"))
		took := time.Since(start)
		if err == nil {
			t.Errorf("%s submission accepted", c.agent)
		}
		if took > 10*time.Second {
			t.Errorf("%s submission took %s to reject", c.agent, took)
		}
		t.Logf("%s submission.csv of %d MiB rejected in %s", c.agent, c.size>>20, took.Round(time.Millisecond))
		os.RemoveAll(dir)
	}
	// gradeOne on it: an error, fast.
	start := time.Now()
	if err := GradeOne(ctx, o, "ldct-iqa", filepath.Join(fifo, "submission")); err == nil || time.Since(start) > 10*time.Second {
		t.Errorf("gradeOne on a FIFO: %v after %s", err, time.Since(start))
	}
	// A corrupt run.json is reported and the stage fails.
	bad := layRun(t, root, "ldct-iqa", "corrupt")
	os.WriteFile(filepath.Join(bad, "run.json"), []byte(`{"status": "done", "backend": `), 0o644)
	err := Grade(ctx, o)
	if err == nil || !strings.Contains(err.Error(), "run.json is corrupt") || !strings.Contains(err.Error(), "corrupt/seed-1") {
		t.Fatalf("corrupt run.json: %v", err)
	}
	os.WriteFile(filepath.Join(bad, "run.json"), []byte(`{"status": "done"}`), 0o644)
	// A failed append to grades.jsonl is an error.
	jsonl := filepath.Join(root, "results", "grades.jsonl")
	if _, err := os.Stat("/dev/full"); err == nil {
		os.Remove(jsonl)
		if err := os.Symlink("/dev/full", jsonl); err != nil {
			t.Fatal(err)
		}
		err := Grade(ctx, o)
		if err == nil || !strings.Contains(err.Error(), "append to") {
			t.Fatalf("append to a full grades.jsonl: %v", err)
		}
	}
}

func TestResultCSVsAreWorldReadable(t *testing.T) {
	o := testBench(t)
	o.Challenges = []string{"ldct-iqa"}
	ctx := context.Background()
	if err := Prepare(ctx, o); err != nil {
		t.Fatal(err)
	}
	root := filepath.Dir(o.Config)
	layRun(t, root, "ldct-iqa", "baseline")
	if err := Grade(ctx, o); err != nil {
		t.Fatal(err)
	}
	old := os.Stdout
	os.Stdout, _ = os.Open(os.DevNull)
	err := Rank(ctx, o)
	os.Stdout = old
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"positions.csv", "ranks.csv", "overall.csv", "grades.jsonl"} {
		st, err := os.Stat(filepath.Join(root, "results", f))
		if err != nil || st.Mode().Perm() != 0o644 {
			t.Errorf("%s: %v %v, want mode 0644", f, st.Mode(), err)
		}
	}
}

func TestPrepareAfterAKilledPrepare(t *testing.T) {
	o := testBench(t)
	o.Challenges = []string{"ldct-iqa"}
	ctx := context.Background()
	root := filepath.Dir(o.Config)
	// What a prepare killed half-way leaves: a raw folder half-synthesized
	// beside the target, and a half-prepared folder.
	half := filepath.Join(root, "data", "synthetic", "raw", ".ldct-iqa.synthesizing-123")
	halfPrep := filepath.Join(root, "data", "synthetic", ".ldct-iqa.preparing-456")
	for _, d := range []string{half, halfPrep} {
		os.MkdirAll(d, 0o755)
		os.WriteFile(filepath.Join(d, "partial"), []byte("x"), 0o644)
	}
	if err := Prepare(ctx, o); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{half, halfPrep} {
		if _, err := os.Stat(d); err == nil {
			t.Errorf("%s left behind", d)
		}
	}
	raw := filepath.Join(root, "data", "synthetic", "raw", "ldct-iqa")
	if _, err := os.Stat(filepath.Join(raw, prepare.SyntheticMarker)); err != nil {
		t.Fatalf("synthetic raw folder without its marker: %v", err)
	}
	// A raw folder without its marker (synthesis did not finish) is
	// synthesized again, not taken as it is.
	entries, _ := os.ReadDir(raw)
	os.Remove(filepath.Join(raw, prepare.SyntheticMarker))
	removed := 0
	for _, e := range entries {
		if e.Name() != prepare.SyntheticMarker && removed == 0 {
			os.RemoveAll(filepath.Join(raw, e.Name()))
			removed++
		}
	}
	if removed == 0 {
		t.Fatal("nothing to remove from the raw folder")
	}
	if err := Prepare(ctx, o); err != nil {
		t.Fatal(err)
	}
	after, _ := os.ReadDir(raw)
	if len(after) != len(entries) {
		t.Errorf("raw folder has %d entries after a second prepare, want %d", len(after), len(entries))
	}
}
