// Command rexmle-agent is the built-in demo agents, run by the runner as a
// separate process like any other agent, and the small tools every agent
// run uses:
//
//	rexmle-agent sample   -challenge ID -data PUBLIC_DIR -submission DIR -logs DIR
//	rexmle-agent baseline -challenge ID -data PUBLIC_DIR -submission DIR -logs DIR
//	rexmle-agent bridge   [-listen ADDR -socket PATH]... -- COMMAND...
//	rexmle-agent limits   -nproc N -data BYTES -fsize BYTES -- COMMAND...
//	rexmle-agent validate [-socket PATH] [SUBMISSION_DIR]
//	rexmle-agent task     MANIFEST INDEX
//
// "sample" copies the sample submission (the reference's dummy agent);
// "baseline" trains a simple real method on the public training data. Both
// write logs/agent.jsonl in the form the judge reads, and, at the end, the
// working-time line the runner records (REXMLE_WORKING_SECONDS=...).
// "bridge" runs inside the run's sandbox: it listens on loopback TCP
// addresses and forwards each connection to a Unix socket (the egress
// proxy's, the validation endpoint's), runs COMMAND as its child, forwards
// SIGTERM/SIGINT/SIGHUP to it and exits with its exit code (package
// pipeline/runner/egress). "limits" is the first process of a local
// sandbox: it sets the run's rlimits (processes, data, file size) and
// executes COMMAND in its place (package pipeline/runner/sandbox).
// "validate" asks the run's validation endpoint
// (the socket in $REXMLE_VALIDATE_SOCKET unless -socket is given) whether a
// submission folder (default: the run's submission folder) is in the right
// format: it prints "valid" or "invalid: <reason>" and exits 0, 1 (invalid)
// or 2 (no answer).
// "task" is a Slurm array task: it runs run INDEX of the manifest with the
// local runner and writes only the run folder (package pipeline/runner/slurm).
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/rexmle/rexmle/pipeline/challenge"
	_ "github.com/rexmle/rexmle/pipeline/challenges/all"
	"github.com/rexmle/rexmle/pipeline/runner/egress"
	"github.com/rexmle/rexmle/pipeline/runner/sandbox"
	"github.com/rexmle/rexmle/pipeline/runner/slurm"
	"github.com/rexmle/rexmle/pipeline/runner/validate"
	"github.com/rexmle/rexmle/pipeline/settings"
)

// stepLog writes judge-readable agent.jsonl lines; each text line written to
// it becomes one step (lines starting "plan:" are plan steps, "result:" result
// steps, the rest exec steps).
type stepLog struct {
	mu   sync.Mutex
	enc  *json.Encoder
	step int
	buf  strings.Builder
}

func (l *stepLog) emit(kind, text string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.enc.Encode(map[string]any{"step": l.step, "time": time.Now().UTC().Format(time.RFC3339), "kind": kind, "text": text})
	l.step++
}

func (l *stepLog) Write(p []byte) (int, error) {
	l.buf.Write(p)
	s := l.buf.String()
	for {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			break
		}
		line := strings.TrimSpace(s[:i])
		s = s[i+1:]
		if line == "" {
			continue
		}
		kind := "exec"
		for _, k := range []string{"plan", "result", "note"} {
			if strings.HasPrefix(strings.ToLower(line), k+":") {
				kind = k
				line = strings.TrimSpace(line[len(k)+1:])
			}
		}
		l.emit(kind, line)
	}
	l.buf.Reset()
	l.buf.WriteString(s)
	return len(p), nil
}

const usage = `usage:
  rexmle-agent sample|baseline -challenge ID -data DIR -submission DIR -logs DIR
  rexmle-agent bridge [-listen ADDR -socket PATH]... -- COMMAND...
  rexmle-agent limits -nproc N -data BYTES -fsize BYTES -- COMMAND...
  rexmle-agent validate [-socket PATH] [DIR]
  rexmle-agent task MANIFEST INDEX`

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, usage)
		os.Exit(2)
	}
	// The one read of the environment: inside a run it is the agent
	// contract the runner set (settings.LoadChild reads it and refuses
	// nothing); for "task" it is the Slurm task's, as the submitting
	// pipeline's environment reached it.
	environ := os.Environ()
	agent := settings.LoadChild(environ)
	switch os.Args[1] {
	case "sample", "baseline":
	case "bridge":
		os.Exit(egress.BridgeMain(os.Args[2:]))
	case "limits":
		os.Exit(sandbox.LimitsMain(os.Args[2:]))
	case "validate":
		os.Exit(validateMain(os.Args[2:], agent))
	case "task":
		os.Exit(taskMain(os.Args[2:], agent.Env))
	default:
		fmt.Fprintln(os.Stderr, usage)
		os.Exit(2)
	}
	kind := os.Args[1]
	fs := flag.NewFlagSet(kind, flag.ExitOnError)
	id := fs.String("challenge", "", "challenge id")
	data := fs.String("data", "", "the challenge's public data folder")
	sub := fs.String("submission", "", "folder to write the submission into")
	logs := fs.String("logs", "", "folder for logs")
	fs.Parse(os.Args[2:])
	start := time.Now()
	err := run(kind, *id, *data, *sub, *logs, agent)
	fmt.Printf("REXMLE_WORKING_SECONDS=%.3f\n", time.Since(start).Seconds())
	if err != nil {
		fmt.Fprintf(os.Stderr, "rexmle-agent %s %s: %v\n", kind, *id, err)
		os.Exit(1)
	}
}

func validateMain(args []string, agent settings.Agent) int {
	fs := flag.NewFlagSet("validate", flag.ContinueOnError)
	socket := fs.String("socket", agent.ValidateSocket, "the run's validation socket")
	if err := fs.Parse(args); err != nil || fs.NArg() > 1 {
		fmt.Fprintln(os.Stderr, "usage: rexmle-agent validate [-socket PATH] [SUBMISSION_DIR]")
		return 2
	}
	if *socket == "" {
		fmt.Fprintln(os.Stderr, "rexmle-agent validate: no socket (REXMLE_VALIDATE_SOCKET is unset)")
		return 2
	}
	dir := "" // the endpoint's default: the run's submission folder
	if fs.NArg() == 1 {
		d, err := filepath.Abs(fs.Arg(0))
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
		dir = d
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	r, err := validate.Ask(ctx, *socket, dir)
	if err != nil {
		fmt.Fprintf(os.Stderr, "rexmle-agent validate: %v\n", err)
		return 2
	}
	if !r.Valid {
		fmt.Println("invalid: " + r.Reason)
		return 1
	}
	fmt.Println("valid")
	return 0
}

func run(kind, id, data, sub, logs string, agent settings.Agent) error {
	c, ok := challenge.Lookup(id)
	if !ok {
		return fmt.Errorf("unknown challenge %q", id)
	}
	for _, d := range []string{sub, logs} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	f, err := os.Create(filepath.Join(logs, "agent.jsonl"))
	if err != nil {
		return err
	}
	defer f.Close()
	w := bufio.NewWriter(f)
	defer w.Flush()
	sl := &stepLog{enc: json.NewEncoder(w)}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	var out io.Writer = io.MultiWriter(sl, os.Stdout)
	switch kind {
	case "sample":
		sl.emit("plan", "Submit the sample submission unchanged, as the reference's dummy agent does.")
		if err := c.SampleSubmission(ctx, data, sub); err != nil {
			return err
		}
		sl.emit("result", "copied the sample submission into the submission folder")
	case "baseline":
		sl.emit("plan", "Train a simple baseline on the public training split and predict the test inputs.")
		if err := c.Baseline(ctx, data, sub, out); err != nil {
			return err
		}
		sl.emit("result", "wrote the baseline submission")
	}
	if socket := agent.ValidateSocket; socket != "" {
		// The run's validation endpoint: format check only, no score.
		r, err := validate.Ask(ctx, socket, sub)
		switch {
		case err != nil:
			sl.emit("note", "could not reach the validation endpoint: "+err.Error())
		case r.Valid:
			sl.emit("note", "the validation endpoint accepts the submission's format")
		default:
			sl.emit("note", "the validation endpoint rejects the submission: "+r.Reason)
		}
	}
	return nil
}

func taskMain(args []string, host settings.Environ) int {
	if len(args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: rexmle-agent task MANIFEST INDEX")
		return 2
	}
	i, err := strconv.Atoi(args[1])
	if err != nil {
		fmt.Fprintf(os.Stderr, "rexmle-agent task: index %q: %v\n", args[1], err)
		return 2
	}
	in, err := slurm.RunTask(context.Background(), args[0], i, host)
	if err != nil {
		fmt.Fprintf(os.Stderr, "rexmle-agent task %d: %v\n", i, err)
		return 1
	}
	fmt.Printf("rexmle-agent task %d: %s/%s seed %d %s in %.1fs\n", i, in.Challenge, in.Agent, in.Seed, in.Status, in.WallSeconds)
	if in.Status != "done" {
		return 1
	}
	return 0
}
