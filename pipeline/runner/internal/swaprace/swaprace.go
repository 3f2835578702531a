// Package swaprace is a hostile agent for the validation endpoint's tests,
// run inside the sandbox (bubblewrap) and inside a container (podman): it
// points the submission's submission.csv at host paths that only the
// pipeline could open, asks the endpoint each time, then swaps
// submission.csv between a regular file and a link as fast as it can
// while it sends many requests, and writes every answer it got.
package swaprace

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/rexmle/rexmle/pipeline/runner/validate"
	"github.com/rexmle/rexmle/pipeline/settings"
)

// Report is what the agent got back.
type Report struct {
	Via      string            `json:"via"`      // how it reached the endpoint
	Static   map[string]string `json:"static"`   // link target -> answer
	Answers  map[string]int    `json:"answers"`  // answer -> how often, during the race
	Requests int               `json:"requests"` // race requests answered
	Errors   []string          `json:"errors,omitempty"`
}

// Main is the agent: swaprace OUT SUBMISSION N TARGET... It reaches the
// endpoint over HTTP at $REXMLE_VALIDATE_URL (through the bridge, as the
// paper's agents do) or, without it, at $REXMLE_VALIDATE_SOCKET.
func Main(args []string) int {
	if len(args) < 4 {
		fmt.Fprintln(os.Stderr, "usage: swaprace OUT SUBMISSION N TARGET...")
		return 2
	}
	out, sub, targets := args[0], args[1], args[3:]
	n, _ := strconv.Atoi(args[2])
	ask, via := asker()
	r := Report{Via: via, Static: map[string]string{}, Answers: map[string]int{}}
	csv := filepath.Join(sub, "submission.csv")
	for _, target := range targets {
		os.Remove(csv)
		os.Symlink(target, csv)
		a, err := ask()
		if err != nil {
			r.Static[target] = "error: " + err.Error()
			continue
		}
		r.Static[target] = a.Reason
	}
	stop, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			tmp := filepath.Join(sub, ".tmp")
			if i%2 == 0 {
				os.WriteFile(tmp, []byte("image_id,quality_score\n1,0.1\n2,0.2\n"), 0o644)
			} else {
				os.Symlink(targets[0], tmp)
			}
			os.Rename(tmp, csv)
		}
	}()
	for i := 0; i < n; i++ {
		a, err := ask()
		if err != nil {
			if len(r.Errors) < 10 {
				r.Errors = append(r.Errors, err.Error())
			}
			continue
		}
		r.Requests++
		r.Answers[fmt.Sprint(a.Valid)+" "+a.Reason]++
	}
	close(stop)
	<-stopped
	b, _ := json.Marshal(r)
	if err := os.WriteFile(out, b, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// asker returns the call that asks the endpoint about /submission.
func asker() (func() (*validate.Response, error), string) {
	contract := settings.LoadChild(os.Environ()) // this agent's own environment
	if url := contract.ValidateURL; url != "" {
		c := &http.Client{Timeout: time.Minute}
		return func() (*validate.Response, error) {
			resp, err := c.Post(url+"/validate", "application/json", bytes.NewReader([]byte(`{"dir":"/submission"}`)))
			if err != nil {
				return nil, err
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
			var a validate.Response
			if err := json.Unmarshal(b, &a); err != nil {
				return nil, fmt.Errorf("HTTP %d: %q", resp.StatusCode, b)
			}
			return &a, nil
		}, "http " + url
	}
	sock := contract.ValidateSocket
	return func() (*validate.Response, error) { return validate.Ask(context.Background(), sock, "/submission") }, "socket " + sock
}
