package slurm

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rexmle/rexmle/pipeline/challenge"
	_ "github.com/rexmle/rexmle/pipeline/challenges/all"
	"github.com/rexmle/rexmle/pipeline/config"
	"github.com/rexmle/rexmle/pipeline/runner"
	"github.com/rexmle/rexmle/pipeline/runner/record"
	"github.com/rexmle/rexmle/pipeline/runner/slurm/slurmtest"
	"github.com/rexmle/rexmle/pipeline/store"
)

// TestRealSlurm submits the demo baseline runs of every prepared challenge
// as one job array to a real Slurm, waits with squeue, and ingests the run
// folders into a fresh store. It runs only with REXMLE_SLURM_TEST=1 and
// sbatch on PATH; without SLURM_CONF it starts a single-node Slurm
// (package slurmtest: root, slurm-wlm and munge installed) and stops it
// afterwards.
func TestRealSlurm(t *testing.T) {
	slurmtest.Start(t)
	repo, _ := filepath.Abs(filepath.Join("..", "..", ".."))
	b, err := config.Load(filepath.Join(repo, "benchmark.toml"))
	if err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	// A root pipeline runs the bwrap sandbox as nobody, which must reach
	// the run and data folders (t.TempDir's are private).
	os.Chmod(work, 0o755)
	os.Chmod(filepath.Dir(work), 0o755)
	bin := filepath.Join(work, "rexmle-agent")
	if out, err := exec.Command("go", "build", "-o", bin, filepath.Join(repo, "cmd", "rexmle-agent")).CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	agent, _ := b.Agent("baseline")
	var jobs []*runner.Job
	var tasks []Task
	dataRoot := b.Path(b.Paths.Data)
	if _, err := os.Stat(dataRoot); err != nil {
		// No prepared demo data in the checkout (a fresh clone, CI): make a
		// few small challenges of our own.
		dataRoot = filepath.Join(work, "data")
		for _, id := range []string{"ldct-iqa", "isles22", "dentex"} {
			c, ok := challenge.Lookup(id)
			if !ok {
				t.Fatalf("no challenge %s", id)
			}
			raw := filepath.Join(dataRoot, "raw", id)
			if err := c.Synthesize(context.Background(), raw, 1, challenge.SynthSize{}); err != nil {
				t.Fatal(err)
			}
			if err := c.Prepare(context.Background(), raw, filepath.Join(dataRoot, id)); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, c := range b.Challenges {
		pub := filepath.Join(dataRoot, c.ID, "public")
		if _, err := os.Stat(pub); err != nil {
			continue
		}
		j := &runner.Job{Group: "slurmtest", Challenge: c.ID, Agent: *agent, Seed: 1, PublicDir: pub,
			RunDir: filepath.Join(work, "runs", "slurmtest", c.ID, agent.ID, "seed-1"), Setting: "demo", TimeLimit: 5 * time.Minute,
			Grace: 5 * time.Second, AgentBin: bin, Hide: []string{dataRoot, filepath.Join(work, "runs")}}
		os.MkdirAll(j.RunDir, 0o755)
		jobs = append(jobs, j)
		tasks = append(tasks, TaskOf(j, filepath.Join(dataRoot, c.ID, "private"), "reference"))
	}
	if len(jobs) == 0 {
		t.Skip("no prepared challenge: run `go run mage.go prepare` first")
	}
	manifest := filepath.Join(work, "slurm", "tasks.json")
	if err := WriteManifest(manifest, tasks); err != nil {
		t.Fatal(err)
	}
	script, err := Script(Options{Name: "rexmle-test", Tasks: len(tasks), Manifest: manifest, AgentBin: bin, LogDir: filepath.Join(work, "slurm"), TimeLimit: 5 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(work, "slurm", "array.sbatch")
	os.WriteFile(path, []byte(script), 0o755)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	start := time.Now()
	id, err := Submit(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	polls := 0
	states, err := Wait(ctx, id, 500*time.Millisecond, func(ts []TaskState) { polls++ })
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("array %s: %d tasks finished in %s (%d squeue polls, %d sacct records)", id, len(jobs), time.Since(start).Round(time.Millisecond), polls, len(states))
	st, err := store.Open(ctx, filepath.Join(work, "db.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.Update(ctx, func(tx *store.Tx) error { return tx.SyncChallenges(ctx, b.Challenges) }); err != nil {
		t.Fatal(err)
	}
	rec := record.New(st, nil)
	defer rec.Close()
	for i, j := range jobs {
		in, err := rec.Ingest(ctx, j, "task "+strconv.Itoa(i))
		if err != nil {
			t.Fatal(err)
		}
		if in.Status != runner.StatusDone {
			log, _ := os.ReadFile(filepath.Join(work, "slurm", id+"_"+strconv.Itoa(i)+".out"))
			t.Errorf("%s: %s %s\n%s", j.ID(), in.Status, in.Error, log)
		}
		if !strings.HasPrefix(in.Isolation, "bwrap:") {
			t.Errorf("%s ran without the sandbox: %s", j.ID(), in.Isolation)
		}
	}
	var done, summaries int
	st.RawQueryRow(context.Background(), `SELECT count(*) FROM runs WHERE source='slurmtest' AND status='done'`).Scan(&done)
	st.RawQueryRow(context.Background(), `SELECT count(*) FROM gpu_summaries`).Scan(&summaries)
	if done != len(jobs) || summaries != len(jobs) {
		t.Fatalf("store: %d done runs, %d summaries, want %d", done, summaries, len(jobs))
	}
}
