package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rexmle/rexmle/pipeline/challenge"
	"github.com/rexmle/rexmle/pipeline/config"
	"github.com/rexmle/rexmle/pipeline/runner"
	"github.com/rexmle/rexmle/pipeline/runner/sandbox"
	"github.com/rexmle/rexmle/pipeline/runner/validate"
)

// The test binary is rexmle-agent itself when its first argument is a
// subcommand (the runner starts it that way inside the sandbox).
func TestMain(m *testing.M) {
	if len(os.Args) > 1 {
		switch os.Args[1] {
		case "sample", "baseline", "bridge", "limits", "validate", "task":
			main()
			return
		}
	}
	os.Exit(m.Run())
}

// TestBuiltinAgentInTheSandbox runs the built-in sample agent on a
// synthetic challenge through the runner in the bwrap sandbox, with the
// validation endpoint: the agent reads /data, writes /submission, is told
// by the endpoint (through the bridge's socket) that its format is valid,
// and the sealed submission grades.
func TestBuiltinAgentInTheSandbox(t *testing.T) {
	if _, err := exec.LookPath("bwrap"); err != nil {
		t.Skip("bwrap is not installed (Debian package bubblewrap): the local sandbox cannot be tested here")
	}
	if err := sandbox.Available(); err != nil {
		t.Fatal(err)
	}
	const id = "ldct-iqa"
	c, ok := challenge.Lookup(id)
	if !ok {
		t.Fatalf("no challenge %s", id)
	}
	root := t.TempDir()
	os.Chmod(root, 0o755)
	os.Chmod(filepath.Dir(root), 0o755)
	ctx := context.Background()
	raw, data := filepath.Join(root, "data", "raw", id), filepath.Join(root, "data", id)
	if err := c.Synthesize(ctx, raw, 1, challenge.SynthSize{}); err != nil {
		t.Fatal(err)
	}
	if err := c.Prepare(ctx, raw, data); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(root, "bin", "rexmle-agent")
	os.MkdirAll(filepath.Dir(bin), 0o755)
	b, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, b, 0o755); err != nil {
		t.Fatal(err)
	}
	j := &runner.Job{Group: "t", Challenge: id, Seed: 1, PublicDir: filepath.Join(data, "public"),
		RunDir:    filepath.Join(root, "results", "runs", "t", id, "sample", "seed-1"),
		Agent:     config.Agent{ID: "sample", Backend: "none", Executor: "local", Builtin: "sample"},
		TimeLimit: 2 * time.Minute, Grace: time.Second, AgentBin: bin,
		Validate: validate.Check(c, filepath.Join(data, "private"), challenge.Reference)}
	start := time.Now()
	in, err := runner.Execute(ctx, j)
	log, _ := os.ReadFile(filepath.Join(j.RunDir, "logs", "console.log"))
	if err != nil || in.Status != runner.StatusDone {
		t.Fatalf("%+v %v\n%s", in, err, log)
	}
	t.Logf("sandboxed sample run in %s; isolation %s", time.Since(start).Round(time.Millisecond), in.Isolation)
	steps, _ := os.ReadFile(filepath.Join(j.RunDir, "logs", "agent.jsonl"))
	if !strings.Contains(string(steps), "the validation endpoint accepts the submission's format") {
		t.Errorf("the agent did not get a valid answer from the endpoint:\n%s\n%s", steps, log)
	}
	if in.Snapshot == nil || in.Snapshot.Files == 0 || in.Snapshot.DroppedCount != 0 {
		t.Fatalf("snapshot %+v", in.Snapshot)
	}
	if _, err := challenge.SafeGrade(ctx, c, filepath.Join(j.RunDir, "submission"), filepath.Join(data, "private"), challenge.Reference); err != nil {
		t.Fatalf("the sealed submission does not grade: %v", err)
	}

	// A command agent finds `rexmle-agent validate` on its PATH; with an
	// empty submission folder the endpoint answers invalid (exit 1).
	j.Agent.Builtin = ""
	j.Agent.Command = []string{"/bin/sh", "-c", "rexmle-agent validate > /logs/v.txt; echo \"exit $?\" >> /logs/v.txt"}
	if in, err := runner.Execute(ctx, j); err != nil || in.Status != runner.StatusDone {
		t.Fatalf("%+v %v", in, err)
	}
	v, _ := os.ReadFile(filepath.Join(j.RunDir, "logs", "v.txt"))
	if !strings.HasPrefix(string(v), "invalid: ") || !strings.HasSuffix(string(v), "exit 1\n") {
		t.Errorf("rexmle-agent validate in the sandbox printed %q, want an invalid answer and exit 1", v)
	}
}
