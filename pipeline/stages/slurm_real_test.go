package stages

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rexmle/rexmle/pipeline/binaries"
	"github.com/rexmle/rexmle/pipeline/checkouttest"
	"github.com/rexmle/rexmle/pipeline/runner"
	"github.com/rexmle/rexmle/pipeline/runner/slurm"
	"github.com/rexmle/rexmle/pipeline/runner/slurm/slurmtest"
	"github.com/rexmle/rexmle/pipeline/store"
)

// slurmBench is runBench for a profile on a real Slurm (slurmtest.Start):
// the scratch checkout is readable by nobody, as the bwrap sandbox of a root
// pipeline needs, the demo data of its challenges is prepared and the agent
// binaries are there. extra declares the agents and the profile, with
// @ROOT@ for the scratch checkout's folder; the stage runs on the
// challenges given.
func slurmBench(t *testing.T, profile, extra string, challenges ...string) Options {
	t.Helper()
	slurmtest.Start(t)
	o := runBench(t, "")
	root := filepath.Dir(o.Config)
	f, err := os.OpenFile(o.Config, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(strings.ReplaceAll(extra, "@ROOT@", root)); err != nil {
		t.Fatal(err)
	}
	f.Close()
	// A root pipeline runs the bwrap sandbox as nobody, which must reach the
	// run and data folders (t.TempDir's are private).
	os.Chmod(root, 0o755)
	os.Chmod(filepath.Dir(root), 0o755)
	o.Profile, o.Challenges = profile, challenges
	ctx := context.Background()
	if err := Prepare(ctx, o); err != nil {
		t.Fatal(err)
	}
	// The agent binaries of this test binary, built once for all its tests.
	agent, bridge := checkouttest.Binaries(t)
	os.MkdirAll(filepath.Join(root, "bin"), 0o755)
	for dst, src := range map[string]string{binaries.Agent(root): agent, binaries.Bridge(root): bridge} {
		if err := os.Symlink(src, dst); err != nil {
			t.Fatal(err)
		}
	}
	return o
}

// slurmStageDeadline bounds each stage of these tests: the runs take
// seconds; a cluster that stops scheduling fails the test instead of
// holding it until go test's own timeout.
const slurmStageDeadline = 3 * time.Minute

// slurmArrays returns the job ids of the arrays the stage submitted for the
// profile, read from the task logs Slurm wrote beside each array's script
// (%A_%a.out).
func slurmArrays(t *testing.T, root, profile string) []string {
	t.Helper()
	logs, _ := filepath.Glob(filepath.Join(root, "results", "runs", profile, "slurm", "*", "gpus-*", "*_*.out"))
	seen := map[string]bool{}
	var ids []string
	for _, l := range logs {
		id, _, _ := strings.Cut(filepath.Base(l), "_")
		if !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	return ids
}

// controllerStates is how the controller says the array's tasks ended.
func controllerStates(t *testing.T, id string) map[int]slurm.TaskState {
	t.Helper()
	a := slurm.ScontrolArgs(id)
	out, err := exec.Command(a[0], a[1:]...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(a, " "), err, out)
	}
	ts, err := slurm.ParseScontrol(id, string(out))
	if err != nil {
		t.Fatal(err)
	}
	m := map[int]slurm.TaskState{}
	for _, s := range ts {
		m[s.Index] = s
	}
	return m
}

// storeRuns is the store's status and detail of each run of the source,
// by run id.
func storeRuns(t *testing.T, root, source string) map[string]string {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(root, "results", "rexmle.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	r, err := st.RawQuery(ctx, `SELECT id, status, detail FROM runs WHERE source = ?`, source)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	out := map[string]string{}
	for r.Next() {
		var id, s, d string
		if err := r.Scan(&id, &s, &d); err != nil {
			t.Fatal(err)
		}
		out[id] = strings.TrimSpace(s + " " + d)
	}
	return out
}

const slurmStageProfile = `
[[agent]]
id = "exits-1"
name = "An agent whose command fails"
backend = "none"
executor = "local"
sandbox = "none"
command = ["sh", "-c", "echo the agent gives up >&2; exit 1"]
time_limit = "1m"

# Kills its task's rexmle-agent (the batch step) with SIGKILL, as the
# kernel's OOM killer or a dying node would: the run cannot record its end.
[[agent]]
id = "killed"
name = "An agent whose Slurm task is killed under it"
backend = "none"
executor = "local"
sandbox = "none"
command = ["sh", "-c", 'p=$PPID; while [ "$p" -gt 1 ]; do if tr "\0" " " < /proc/$p/cmdline | grep -q " task "; then kill -9 $p; exit 0; fi; p=$(cut -d" " -f4 /proc/$p/stat); done; exit 2']
time_limit = "1m"

# Asks for a GPU, which the test cluster does not have: sbatch refuses its
# array.
[[agent]]
id = "wants-gpu"
name = "An agent on a GPU"
backend = "none"
executor = "local"
sandbox = "none"
command = ["true"]
time_limit = "1m"
gpus = 1

[profile.onslurm]
description = "the demo baseline on a real Slurm"
data = "synthetic"
agents = ["baseline", "exits-1", "killed", "wants-gpu"]
seeds = [1]
setting = "demo"
judge = "heuristic"
scheduler = "slurm"

[profile.onslurm.slurm]
poll_every = "200ms"
time_margin = "1m"
`

// TestRealSlurmStage runs the run stage, as `mage run` does, with a profile
// whose runs go to a real Slurm, on two demo challenges: the baseline agent
// in the bwrap sandbox, an agent that exits 1, one whose task Slurm sees
// killed (SIGKILL, as by the OOM killer) before the run could record its
// end, and one asking for a GPU the cluster lacks. The GPU array is refused
// by sbatch and its runs are recorded failed while the other array goes
// on; its tasks end as the controller says; every run is in the store and
// its run.json with its status and reason; active.json is gone; a second
// stage submits nothing and redoes nothing; grade grades the runs.
func TestRealSlurmStage(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Slurm and runs the demo baseline")
	}
	o := slurmBench(t, "onslurm", slurmStageProfile, "ldct-iqa", "isles22")
	root := filepath.Dir(o.Config)
	ctx, cancel := context.WithTimeout(context.Background(), slurmStageDeadline) // a stalled cluster fails the test, not hangs it
	defer cancel()
	err := Run(ctx, o)
	if err == nil || !strings.Contains(err.Error(), "2 run(s) could not start") || !strings.Contains(err.Error(), "onslurm/isles22/wants-gpu/seed-1") {
		t.Fatalf("run: %v, want the GPU runs named as not started", err)
	}
	runs := filepath.Join(root, "results", "runs", "onslurm")
	ids := slurmArrays(t, root, "onslurm")
	if len(ids) != 1 {
		t.Fatalf("arrays that ran %v, want one (the GPU one is refused)", ids)
	}
	tasks := controllerStates(t, ids[0])
	n := map[string]int{}
	for _, s := range tasks {
		n[s.State]++
	}
	// rexmle-agent task exits 1 for a run that did not end done; the
	// killed one ends FAILED too, by signal 9.
	if len(tasks) != 6 || n["COMPLETED"] != 2 || n["FAILED"] != 4 {
		t.Errorf("array %s: tasks %+v, want 2 completed and 4 failed of 6", ids[0], tasks)
	}
	rows := storeRuns(t, root, "onslurm")
	want := map[string][]string{
		"baseline":  {"done"},
		"exits-1":   {"failed", "exit status 1"},
		"killed":    {"failed", "Slurm task " + ids[0] + "_", " ended FAILED (exit 0, signal 9"},
		"wants-gpu": {"failed", "not started: sbatch", "gres"},
	}
	if len(rows) != 8 {
		t.Errorf("store rows %q, want 8", rows)
	}
	for _, c := range []string{"ldct-iqa", "isles22"} {
		for agent, pieces := range want {
			id := "onslurm/" + c + "/" + agent + "/seed-1"
			in, err := runner.ReadInfo(filepath.Join(runs, c, agent, "seed-1"))
			if err != nil {
				t.Errorf("%s: %v", id, err)
				continue
			}
			for i, p := range pieces {
				if i == 0 && (in.Status != p || !strings.HasPrefix(rows[id], p)) || !strings.Contains(rows[id], p) || i > 0 && !strings.Contains(in.Error, p) {
					t.Errorf("%s: store has %q, run.json %s %q; want %q", id, rows[id], in.Status, in.Error, pieces)
					break
				}
			}
			if agent == "baseline" && !strings.HasPrefix(in.Isolation, "bwrap:") {
				t.Errorf("%s ran without the sandbox: %s", id, in.Isolation)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(runs, "slurm", "active.json")); !os.IsNotExist(err) {
		t.Errorf("active.json left behind: %v", err)
	}

	// A second stage finds everything finished: no array, no run redone.
	before, _ := runner.ReadInfo(filepath.Join(runs, "isles22", "baseline", "seed-1"))
	stamps, _ := os.ReadDir(filepath.Join(runs, "slurm"))
	if err := Run(ctx, o); err != nil {
		t.Fatalf("second run: %v", err)
	}
	if again, _ := os.ReadDir(filepath.Join(runs, "slurm")); len(again) != len(stamps) {
		t.Errorf("the second stage submitted again: %d array folder(s), was %d", len(again), len(stamps))
	}
	if after, _ := runner.ReadInfo(filepath.Join(runs, "isles22", "baseline", "seed-1")); after == nil || after.StartedAt != before.StartedAt {
		t.Errorf("the second stage redid a finished run: %+v", after)
	}

	// grade grades the submissions the Slurm tasks handed in.
	if err := Grade(ctx, o); err != nil {
		t.Fatalf("grade: %v", err)
	}
	st, err := store.Open(ctx, filepath.Join(root, "results", "rexmle.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var graded, valid int
	st.RawQueryRow(ctx, `SELECT count(*), coalesce(sum(valid), 0) FROM grades g JOIN runs r ON r.id = g.run_id WHERE r.source = 'onslurm' AND r.agent = 'baseline'`).Scan(&graded, &valid)
	if graded != 2 || valid != 2 {
		t.Errorf("grades of the baseline's Slurm runs: %d graded, %d valid, want 2 and 2", graded, valid)
	}
}

const slurmStopProfile = `
[[agent]]
id = "quick"
name = "Ends at once"
backend = "none"
executor = "local"
sandbox = "none"
command = ["true"]
time_limit = "1m"

# Works until the test releases it (a file in the scratch checkout); on
# SIGTERM it stops, within its grace period.
[[agent]]
id = "sleeper"
name = "Works until released"
backend = "none"
executor = "local"
sandbox = "none"
command = ["sh", "-c", "while [ ! -e @ROOT@/release ]; do sleep 0.2; done"]
time_limit = "5m"
grace_period = "2s"

[profile.stopping]
description = "a Slurm stage stopped while its array runs"
data = "synthetic"
agents = ["quick", "sleeper"]
seeds = [1, 2, 3]
setting = "demo"
judge = "heuristic"
scheduler = "slurm"

[profile.stopping.slurm]
poll_every = "200ms"
time_margin = "1m"
`

// stopBench is slurmBench for slurmStopProfile on ldct-iqa, with the folder
// of the challenge's runs and a run's status there ("" without run.json).
func stopBench(t *testing.T) (o Options, root, runs string, status func(agent string, seed int) string) {
	t.Helper()
	o = slurmBench(t, "stopping", slurmStopProfile, "ldct-iqa")
	root = filepath.Dir(o.Config)
	runs = filepath.Join(root, "results", "runs", "stopping", "ldct-iqa")
	return o, root, runs, func(agent string, seed int) string {
		in, err := runner.ReadInfo(filepath.Join(runs, agent, fmt.Sprintf("seed-%d", seed)))
		if err != nil {
			return ""
		}
		return in.Status
	}
}

// waitForSleepers waits until the quick runs of slurmStopProfile have ended
// and two sleepers run, failing the test if the stage ends first.
// output, if not nil, is the stage's output for the message.
func waitForSleepers(t *testing.T, status func(agent string, seed int) string, ended <-chan error, output fmt.Stringer) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for !(status("quick", 3) == "done" && status("sleeper", 1) == "running" && status("sleeper", 2) == "running") {
		select {
		case err := <-ended:
			t.Fatalf("the stage ended before it was stopped: %v\n%v", err, output)
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("the runs did not get going: quick %s %s %s, sleeper %s %s", status("quick", 1), status("quick", 2), status("quick", 3), status("sleeper", 1), status("sleeper", 2))
		}
	}
}

// TestRealSlurmStageStopped stops the run stage (its context cancelled, as
// Ctrl-C does) while its array runs on a real Slurm: three quick runs have
// ended, two sleeping ones run, one is pending (the node has 2 CPUs). The
// array is cancelled (nothing of it left in the queue when the stage
// returns), the quick runs are kept done and the others recorded
// interrupted; active.json is gone. The next stage submits only the three
// interrupted runs, which now end done, and leaves the quick ones alone.
func TestRealSlurmStageStopped(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Slurm")
	}
	o, root, runs, status := stopBench(t)
	ctx, cancel := context.WithTimeout(context.Background(), slurmStageDeadline)
	defer cancel()
	ended := make(chan error, 1)
	go func() { ended <- Run(ctx, o) }()
	waitForSleepers(t, status, ended, nil)
	ids := slurmArrays(t, root, "stopping")
	if len(ids) != 1 {
		t.Fatalf("arrays %v, want one", ids)
	}
	stop := time.Now()
	cancel()
	var err error
	select {
	case err = <-ended:
	case <-time.After(90 * time.Second):
		t.Fatal("the stopped stage did not return")
	}
	t.Logf("stage returned %s after it was stopped: %v", time.Since(stop).Round(time.Millisecond), err)
	if err == nil || !strings.Contains(err.Error(), "interrupted") {
		t.Fatalf("stopped stage: %v, want it reported interrupted", err)
	}
	a := slurm.SqueueArgs(ids[0])
	if out, err := exec.Command(a[0], a[1:]...).CombinedOutput(); err != nil || strings.TrimSpace(string(out)) != "" {
		t.Errorf("array %s still queued after the stage returned: %v\n%s", ids[0], err, out)
	}
	// The running tasks were stopped through their batch step, which
	// stopped its agent and exited 1 (not killed by a signal); the pending
	// one never started.
	tasks := controllerStates(t, ids[0])
	for i := 0; i < 5; i++ {
		want := slurm.TaskState{Index: i, State: "COMPLETED", ExitCode: 0, Reason: "None"}
		if i >= 3 {
			want = slurm.TaskState{Index: i, State: "FAILED", ExitCode: 1, Reason: "NonZeroExitCode"}
		}
		if tasks[i] != want {
			t.Errorf("task %s_%d: %+v, want %+v", ids[0], i, tasks[i], want)
		}
	}
	rows := storeRuns(t, root, "stopping")
	for seed := 1; seed <= 3; seed++ {
		q, s := fmt.Sprintf("stopping/ldct-iqa/quick/seed-%d", seed), fmt.Sprintf("stopping/ldct-iqa/sleeper/seed-%d", seed)
		if rows[q] != "done" || status("quick", seed) != "done" {
			t.Errorf("%s: store %q, run.json %q; want done", q, rows[q], status("quick", seed))
		}
		// The runs that were going say so themselves; the one that never
		// started is recorded by the stage.
		why := "the run stage was stopped"
		if seed == 3 {
			why = "the run stage was stopped and cancelled it: Slurm task " + ids[0] + "_5"
		}
		in, _ := runner.ReadInfo(filepath.Join(runs, "sleeper", fmt.Sprintf("seed-%d", seed)))
		if !strings.HasPrefix(rows[s], "interrupted "+why) || in == nil || in.Status != "interrupted" || !strings.HasPrefix(in.Error, why) || seed < 3 && in.Error != why {
			t.Errorf("%s: store %q, run.json %+v; want interrupted: %s…", s, rows[s], in, why)
		}
	}
	if _, err := os.Stat(filepath.Join(root, "results", "runs", "stopping", "slurm", "active.json")); !os.IsNotExist(err) {
		t.Errorf("active.json left behind although the array ended: %v", err)
	}

	// The next stage resumes: only the interrupted runs go to Slurm again.
	quick, _ := runner.ReadInfo(filepath.Join(runs, "quick", "seed-1"))
	if err := os.WriteFile(filepath.Join(root, "release"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	resume, resumeCancel := context.WithTimeout(context.Background(), slurmStageDeadline)
	defer resumeCancel()
	if err := Run(resume, o); err != nil {
		t.Fatalf("resumed stage: %v", err)
	}
	again := slurmArrays(t, root, "stopping")
	if len(again) != 2 {
		t.Fatalf("arrays %v, want the first and one more", again)
	}
	second := again[0]
	if second == ids[0] {
		second = again[1]
	}
	if tasks := controllerStates(t, second); len(tasks) != 3 {
		t.Errorf("resumed array %s: %+v, want the 3 interrupted runs", second, tasks)
	}
	rows = storeRuns(t, root, "stopping")
	for seed := 1; seed <= 3; seed++ {
		s := fmt.Sprintf("stopping/ldct-iqa/sleeper/seed-%d", seed)
		if rows[s] != "done" || status("sleeper", seed) != "done" {
			t.Errorf("%s after the resume: store %q, run.json %q; want done", s, rows[s], status("sleeper", seed))
		}
	}
	if after, _ := runner.ReadInfo(filepath.Join(runs, "quick", "seed-1")); after == nil || after.StartedAt != quick.StartedAt {
		t.Errorf("the resumed stage redid a finished run: %+v", after)
	}
}

// TestSlurmStageProcess is the run stage of TestRealSlurmStageKilled in a
// process of its own (this test binary again), which that test kills.
func TestSlurmStageProcess(t *testing.T) {
	cfg := os.Getenv("REXMLE_TEST_SLURM_STAGE_CONFIG")
	if cfg == "" {
		t.Skip("only as TestRealSlurmStageKilled's child process")
	}
	o := Options{Config: cfg, Profile: "stopping", Challenges: []string{"ldct-iqa"}, Mode: "reference"}
	ctx, cancel := context.WithTimeout(context.Background(), slurmStageDeadline)
	defer cancel()
	if err := Run(ctx, o); err != nil {
		t.Fatal(err)
	}
}

// TestRealSlurmStageKilled kills the run stage's process (SIGKILL: no
// clean-up at all) while its array runs on a real Slurm. The array goes on;
// active.json names it. The next stage waits for it instead of submitting
// its runs again, then records the runs it finished (those that were
// running when the first stage died included) and submits nothing.
func TestRealSlurmStageKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Slurm")
	}
	o, root, _, status := stopBench(t)
	unlockAll() // the child's stage takes the checkout's lock; this process's Prepare holds it
	var out strings.Builder
	child := exec.Command(os.Args[0], "-test.run=^TestSlurmStageProcess$", "-test.v")
	child.Env = append(os.Environ(), "REXMLE_TEST_SLURM_STAGE_CONFIG="+o.Config)
	child.Stdout, child.Stderr = &out, &out
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	ended := make(chan error, 1)
	go func() { ended <- child.Wait() }()
	waitForSleepers(t, status, ended, &out)
	child.Process.Kill()
	<-ended
	ids := slurmArrays(t, root, "stopping")
	active, err := os.ReadFile(filepath.Join(root, "results", "runs", "stopping", "slurm", "active.json"))
	if len(ids) != 1 || err != nil || !strings.Contains(string(active), `"`+ids[0]+`"`) {
		t.Fatalf("after the kill: arrays %v, active.json %q %v\nthe stage's output:\n%s", ids, active, err, out.String())
	}

	// The next stage waits for the array the killed one left running.
	again := make(chan error, 1)
	ctx, cancel := context.WithTimeout(context.Background(), slurmStageDeadline)
	defer cancel()
	go func() { again <- Run(ctx, o) }()
	select {
	case err := <-again:
		t.Fatalf("the next stage did not wait for the running array: %v", err)
	case <-time.After(2 * time.Second):
	}
	if err := os.WriteFile(filepath.Join(root, "release"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-again:
		if err != nil {
			t.Fatalf("next stage: %v", err)
		}
	case <-time.After(2 * time.Minute):
		t.Fatal("the next stage did not end")
	}
	if now := slurmArrays(t, root, "stopping"); len(now) != 1 {
		t.Errorf("arrays %v: the next stage submitted runs the earlier array ran", now)
	}
	rows := storeRuns(t, root, "stopping")
	for _, agent := range []string{"quick", "sleeper"} {
		for seed := 1; seed <= 3; seed++ {
			id := fmt.Sprintf("stopping/ldct-iqa/%s/seed-%d", agent, seed)
			if rows[id] != "done" || status(agent, seed) != "done" {
				t.Errorf("%s: store %q, run.json %q; want done", id, rows[id], status(agent, seed))
			}
		}
	}
	if _, err := os.Stat(filepath.Join(root, "results", "runs", "stopping", "slurm", "active.json")); !os.IsNotExist(err) {
		t.Errorf("active.json left behind: %v", err)
	}
}
