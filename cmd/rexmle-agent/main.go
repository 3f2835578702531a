// Command rexmle-agent is the built-in demo agents, run by the runner as a
// separate process like any other agent:
//
//	rexmle-agent sample   -challenge ID -data PUBLIC_DIR -submission DIR -logs DIR
//	rexmle-agent baseline -challenge ID -data PUBLIC_DIR -submission DIR -logs DIR
//
// "sample" copies the sample submission (the reference's dummy agent);
// "baseline" trains a simple real method on the public training data. Both
// write logs/agent.jsonl in the form the judge reads.
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
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/rexmle/rexmle/pipeline/challenge"
	_ "github.com/rexmle/rexmle/pipeline/challenges/all"
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

func main() {
	if len(os.Args) < 2 || (os.Args[1] != "sample" && os.Args[1] != "baseline") {
		fmt.Fprintln(os.Stderr, "usage: rexmle-agent sample|baseline -challenge ID -data DIR -submission DIR -logs DIR")
		os.Exit(2)
	}
	kind := os.Args[1]
	fs := flag.NewFlagSet(kind, flag.ExitOnError)
	id := fs.String("challenge", "", "challenge id")
	data := fs.String("data", "", "the challenge's public data folder")
	sub := fs.String("submission", "", "folder to write the submission into")
	logs := fs.String("logs", "", "folder for logs")
	fs.Parse(os.Args[2:])
	if err := run(kind, *id, *data, *sub, *logs); err != nil {
		fmt.Fprintf(os.Stderr, "rexmle-agent %s %s: %v\n", kind, *id, err)
		os.Exit(1)
	}
}

func run(kind, id, data, sub, logs string) error {
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
	return nil
}
