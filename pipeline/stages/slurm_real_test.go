package stages

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rexmle/rexmle/pipeline/binaries"
	"github.com/rexmle/rexmle/pipeline/runner"
	"github.com/rexmle/rexmle/pipeline/runner/slurm"
	"github.com/rexmle/rexmle/pipeline/runner/slurm/slurmtest"
	"github.com/rexmle/rexmle/pipeline/store"
)

// slurmBench is runBench for a profile on a real Slurm (slurmtest.Start):
// the scratch checkout is readable by nobody, as the bwrap sandbox of a root
// pipeline needs, the demo data of its challenges is prepared and the agent
// binaries are built. extra declares the agents and the profile; the
// stage runs on the challenges given.
func slurmBench(t *testing.T, profile, extra string, challenges ...string) Options {
	t.Helper()
	slurmtest.Start(t)
	o := runBench(t, extra)
	root := filepath.Dir(o.Config)
	// A root pipeline runs the bwrap sandbox as nobody, which must reach the
	// run and data folders (t.TempDir's are private).
	os.Chmod(root, 0o755)
	os.Chmod(filepath.Dir(root), 0o755)
	o.Profile, o.Challenges = profile, challenges
	ctx := context.Background()
	if err := Prepare(ctx, o); err != nil {
		t.Fatal(err)
	}
	if err := binaries.Build(ctx, root); err != nil {
		t.Fatal(err)
	}
	return o
}

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

[profile.onslurm]
description = "the demo baseline on a real Slurm"
data = "synthetic"
agents = ["baseline", "exits-1"]
seeds = [1]
setting = "demo"
judge = "heuristic"
scheduler = "slurm"

[profile.onslurm.slurm]
poll_every = "200ms"
time_margin = "1m"
`

// TestRealSlurmStage runs the run stage, as `mage run` does, with a profile
// whose runs go to a real Slurm: the baseline agent in the bwrap sandbox
// and an agent that exits 1, on two demo challenges. The array is
// submitted and its tasks end as the controller says; every run is in the
// store with its status (the failed one with the agent's reason);
// active.json is gone; a second stage submits nothing and redoes nothing;
// grade then grades the runs that ended done.
func TestRealSlurmStage(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Slurm and runs the demo baseline")
	}
	o := slurmBench(t, "onslurm", slurmStageProfile, "ldct-iqa", "isles22")
	root := filepath.Dir(o.Config)
	ctx := context.Background()
	if err := Run(ctx, o); err != nil {
		t.Fatalf("run: %v", err)
	}
	runs := filepath.Join(root, "results", "runs", "onslurm")
	ids := slurmArrays(t, root, "onslurm")
	if len(ids) != 1 {
		t.Fatalf("arrays submitted %v, want one (every agent asks for no GPU)", ids)
	}
	tasks := controllerStates(t, ids[0])
	if len(tasks) != 4 {
		t.Fatalf("array %s: %d task(s) %+v, want 4", ids[0], len(tasks), tasks)
	}
	var completed, failed int
	for _, s := range tasks {
		switch s.State {
		case "COMPLETED":
			completed++
		case "FAILED":
			failed++ // rexmle-agent task exits 1 for a run that did not end done
		}
	}
	if completed != 2 || failed != 2 {
		t.Errorf("array %s: %d completed and %d failed tasks, want 2 and 2: %+v", ids[0], completed, failed, tasks)
	}
	rows := storeRuns(t, root, "onslurm")
	want := map[string]string{
		"onslurm/ldct-iqa/baseline/seed-1": "done", "onslurm/isles22/baseline/seed-1": "done",
		"onslurm/ldct-iqa/exits-1/seed-1": "failed", "onslurm/isles22/exits-1/seed-1": "failed",
	}
	if len(rows) != len(want) {
		t.Errorf("store rows %q, want %d", rows, len(want))
	}
	for id, status := range want {
		if got := rows[id]; !strings.HasPrefix(got, status) {
			t.Errorf("%s: store has %q, want %s", id, got, status)
		}
		in, err := runner.ReadInfo(filepath.Join(root, "results", "runs", id))
		if err != nil || in.Status != status {
			t.Errorf("%s: run.json %+v %v, want %s", id, in, err, status)
			continue
		}
		if status == "done" && !strings.HasPrefix(in.Isolation, "bwrap:") {
			t.Errorf("%s ran without the sandbox: %s", id, in.Isolation)
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
