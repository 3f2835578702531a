package stages

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rexmle/rexmle/pipeline/binaries"
)

// A run stage whose challenges are not prepared started nothing and must
// say so with a non-zero exit (the paper profile on a host that never
// fetched printed "nothing to run" and exited 0).
func TestRunFailsOnUnpreparedChallenges(t *testing.T) {
	if testing.Short() {
		t.Skip("builds rexmle-agent")
	}
	o := runBench(t, "")
	if err := binaries.Build(context.Background(), filepath.Dir(o.Config)); err != nil {
		t.Fatal(err)
	}
	err := Run(context.Background(), o)
	if err == nil || !strings.Contains(err.Error(), "1 challenge(s) of profile demo not prepared") || !strings.Contains(err.Error(), "mage.go prepare") {
		t.Fatalf("run before prepare: %v", err)
	}
}

// A run the stage was stopped during (Ctrl-C) is restarted by the next run
// stage: its partial submission is not graded (it was graded, stored as
// done and ranked). Nor is a run still running. A profile that keeps
// interrupted runs (resume = "mark") has them graded.
func TestGradeSkipsRunsNotEnded(t *testing.T) {
	o := testBench(t)
	f, err := os.OpenFile(o.Config, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("\n[profile.keep]\ndescription = \"keeps interrupted runs\"\ndata = \"synthetic\"\nagents = [\"sample\"]\nseeds = [1]\nsetting = \"demo\"\njudge = \"heuristic\"\nscheduler = \"local\"\nresume = \"mark\"\n")
	f.Close()
	o.Challenges = []string{"ldct-iqa"}
	ctx := context.Background()
	if err := Prepare(ctx, o); err != nil {
		t.Fatal(err)
	}
	root := filepath.Dir(o.Config)
	sample, err := os.ReadFile(filepath.Join(root, "data", "synthetic", "ldct-iqa", "public", "sample_submission.csv"))
	if err != nil {
		t.Fatal(err)
	}
	mk := func(group string, seed int, status string) string {
		dir := filepath.Join(root, "results", "runs", group, "ldct-iqa", "sample", fmt.Sprintf("seed-%d", seed))
		if err := os.MkdirAll(filepath.Join(dir, "submission"), 0o755); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, "submission", "submission.csv"), sample, 0o644)
		os.WriteFile(filepath.Join(dir, "run.json"), []byte(`{"status":"`+status+`","setting":"demo","backend":"none"}`), 0o644)
		return group + "/ldct-iqa/sample/" + fmt.Sprintf("seed-%d", seed)
	}
	done, stopped, running := mk("demo", 1, "done"), mk("demo", 2, "interrupted"), mk("demo", 3, "running")
	kept := mk("keep", 1, "interrupted")
	if err := Grade(ctx, o); err != nil {
		t.Fatal(err)
	}
	graded := map[string]bool{}
	for _, l := range readLines(t, filepath.Join(root, "results", "grades.jsonl")) {
		graded[l["run_id"].(string)] = true
	}
	if !graded[done] || !graded[kept] || graded[stopped] || graded[running] {
		t.Fatalf("graded %v: want %s and %s only", graded, done, kept)
	}
}

// Ctrl-C under mage: the stage's context is cancelled and mage's own
// handler (which exits 5 s later, cutting the agents' grace periods) never
// sees the signal.
func TestInterruptibleTakesCtrlCFromMage(t *testing.T) {
	mage := make(chan os.Signal, 1)
	signal.Notify(mage, os.Interrupt) // as mage's generated main does
	ctx := Interruptible(context.Background())
	if again := Interruptible(ctx); again != ctx {
		t.Error("a second call installed another handler")
	}
	if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case <-ctx.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("SIGINT did not cancel the stage's context")
	}
	select {
	case <-mage:
		t.Error("mage's handler got the signal too (it would exit 5 s later)")
	case <-time.After(200 * time.Millisecond):
	}
}
