package runstage

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rexmle/rexmle/pipeline/config"
	"github.com/rexmle/rexmle/pipeline/runner"
	"github.com/rexmle/rexmle/pipeline/runner/record"
	"github.com/rexmle/rexmle/pipeline/runner/slurm"
	"github.com/rexmle/rexmle/pipeline/store"
)

// TestIngestArrayRecordsHowSlurmEndedTasks checks, without Slurm, what
// the stage records for each way an array task can end (the real-Slurm
// tests of pipeline/stages produce these for real): the run's own record
// wins; a run that could not record its end takes Slurm's state, failed
// when Slurm ended it and interrupted when it was cancelled; a task with no
// record anywhere is stored failed but left to be run again.
func TestIngestArrayRecordsHowSlurmEndedTasks(t *testing.T) {
	ctx := context.Background()
	b, err := config.Load(filepath.Join("..", "..", "benchmark.toml"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	st, err := store.Open(ctx, filepath.Join(dir, "db.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.Update(ctx, func(tx *store.Tx) error { return tx.SyncChallenges(ctx, b.Challenges) }); err != nil {
		t.Fatal(err)
	}
	rec := record.New(st, nil)
	defer rec.Close()
	job := func(agent string, left *runner.Info) *runner.Job {
		j := &runner.Job{Group: "g", Challenge: "ldct-iqa", Agent: config.Agent{ID: agent, Executor: "local"}, Seed: 1, Setting: "demo",
			RunDir: filepath.Join(dir, "runs", agent)}
		if err := os.MkdirAll(j.RunDir, 0o755); err != nil {
			t.Fatal(err)
		}
		if left != nil {
			left.Group, left.Challenge, left.Agent, left.Seed, left.Setting = j.Group, j.Challenge, agent, 1, "demo"
			data, _ := json.Marshal(left)
			if err := os.WriteFile(filepath.Join(j.RunDir, "run.json"), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return j
	}
	const started = "2026-01-02T03:04:05Z"
	a := slurmArray{id: "7", jobs: []*runner.Job{
		job("killed", &runner.Info{Status: runner.StatusRunning, StartedAt: started}),
		job("cancelled", nil),
		job("done", &runner.Info{Status: runner.StatusDone, StartedAt: started, EndedAt: started}),
		job("unknown", nil),
		job("failed", &runner.Info{Status: runner.StatusFailed, Error: "exit status 1", StartedAt: started, EndedAt: started}),
	}}
	states := []slurm.TaskState{
		{Index: 0, State: "FAILED", ExitCode: 0, Signal: 9, Reason: "JobLaunchFailure"},
		{Index: 1, State: "CANCELLED", ExitCode: 0, Reason: "None"},
		{Index: 2, State: "COMPLETED", ExitCode: 0, Reason: "None"},
		{Index: 4, State: "FAILED", ExitCode: 1, Reason: "NonZeroExitCode"},
	}
	e := &env{o: &Options{}}
	done, notDone, err := ingestArray(ctx, e, rec, a, states, false)
	if err != nil || done != 1 || notDone != 4 {
		t.Fatalf("ingest: %d done, %d not, %v", done, notDone, err)
	}
	stopped := slurmArray{id: "8", jobs: []*runner.Job{job("stopped", nil)}}
	if _, _, err := ingestArray(ctx, e, rec, stopped, nil, true); err != nil {
		t.Fatal(err)
	}
	want := map[string]struct {
		status, why string // in the store and run.json
		runJSON     bool   // run.json written
	}{
		"killed":    {"failed", "Slurm task 7_0 ended FAILED (exit 0, signal 9, JobLaunchFailure)", true},
		"cancelled": {"interrupted", "cancelled outside the run stage: Slurm task 7_1 ended CANCELLED (exit 0)", true},
		"done":      {"done", "", true},
		"unknown":   {"failed", "no run.json: Slurm task 7_3: no record of how it ended", false},
		"failed":    {"failed", "exit status 1", true},
		"stopped":   {"interrupted", "the run stage was stopped and cancelled it: Slurm task 8_0: no record of how it ended", true},
	}
	rows := map[string]string{}
	r, err := st.RawQuery(ctx, `SELECT agent, status, detail FROM runs`)
	if err != nil {
		t.Fatal(err)
	}
	for r.Next() {
		var agent, s, d string
		r.Scan(&agent, &s, &d)
		rows[agent] = s + "|" + d
	}
	r.Close()
	for agent, w := range want {
		if rows[agent] != w.status+"|"+w.why {
			t.Errorf("%s: store %q, want %q", agent, rows[agent], w.status+"|"+w.why)
		}
		in, err := runner.ReadInfo(filepath.Join(dir, "runs", agent))
		if !w.runJSON {
			if err == nil {
				t.Errorf("%s: run.json written (%+v): the run would not be run again", agent, in)
			}
			continue
		}
		if err != nil || in.Status != w.status || in.Error != w.why {
			t.Errorf("%s: run.json %+v %v, want %s %q", agent, in, err, w.status, w.why)
			continue
		}
		if (agent == "killed" || agent == "failed" || agent == "done") && in.StartedAt != started {
			t.Errorf("%s: the run's own start %q was not kept: %q", agent, started, in.StartedAt)
		}
		if strings.HasPrefix(in.Isolation, "unknown") != (agent == "cancelled" || agent == "stopped") {
			t.Errorf("%s: isolation %q", agent, in.Isolation)
		}
	}
	// A failed one is kept by the next stage; an interrupted one is run again.
	todo, kept, err := runner.Pending(append(a.jobs, stopped.jobs...), "restart", false, false)
	if err != nil || kept != 3 || len(todo) != 3 {
		t.Fatalf("pending: %d kept, %d to run, %v; want 3 and 3", kept, len(todo), err)
	}
}
