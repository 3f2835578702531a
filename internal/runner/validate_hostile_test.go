package runner

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rexmle/rexmle/internal/challenge"
	"github.com/rexmle/rexmle/internal/challenges/ldctiqa"
	"github.com/rexmle/rexmle/internal/runner/validate"
)

// swapRaceReport is what the swapping agent got back.
type swapRaceReport struct {
	Static   map[string]string `json:"static"`   // link target -> answer
	Answers  map[string]int    `json:"answers"`  // answer -> how often, during the race
	Requests int               `json:"requests"` // race requests sent
	Errors   int               `json:"errors"`
}

// swapRace OUT SUBMISSION N TARGET...: from inside the sandbox, point
// SUBMISSION/submission.csv at each TARGET (a host path the runner, not
// the agent, could open) and ask the endpoint; then swap submission.csv
// between a regular file and a link to the first TARGET as fast as it can
// while sending N requests.
func swapRace(args []string) int {
	out, sub, targets := args[0], args[1], args[3:]
	n, _ := strconv.Atoi(args[2])
	sock := os.Getenv("REXMLE_VALIDATE_SOCKET")
	ctx := context.Background()
	r := swapRaceReport{Static: map[string]string{}, Answers: map[string]int{}}
	csv := filepath.Join(sub, "submission.csv")
	for _, target := range targets {
		os.Remove(csv)
		os.Symlink(target, csv)
		a, err := validate.Ask(ctx, sock, "/submission")
		if err != nil {
			r.Static[target] = "error: " + err.Error()
			continue
		}
		r.Static[target] = a.Reason
	}
	stop := make(chan struct{})
	go func() {
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
		a, err := validate.Ask(ctx, sock, "/submission")
		if err != nil {
			r.Errors++
			continue
		}
		r.Requests++
		r.Answers[fmt.Sprint(a.Valid)+" "+a.Reason]++
	}
	close(stop)
	b, _ := json.Marshal(r)
	os.WriteFile(out, b, 0o644)
	return 0
}

// TestValidationSwapRaceFromTheSandbox: a sandboxed agent points
// submission.csv at a root-only secret on the host, at the runner's own
// /proc/self/environ and at the private answers, then races a file/link
// swap through 2,000 validations graded by the real LDCT-IQA grader as
// the (root) runner. No answer carries any of them, and the static links
// all get the answer a missing file gets. On the code before the snapshot
// (commit d9d326e) this test failed: 7 of the 2,000 answers carried the
// secret's first line, a link out answered "leaves the submission folder"
// where a missing file answered "not found" (an existence bit), and 3
// answers named the run's host path.
func TestValidationSwapRaceFromTheSandbox(t *testing.T) {
	needBwrap(t)
	root := t.TempDir()
	secretDir := filepath.Join(root, "host-secret")
	os.Mkdir(secretDir, 0o700)
	secretVal := strings.ToUpper("rootonly-") + strconv.FormatInt(time.Now().UnixNano(), 36)
	secretFile := filepath.Join(secretDir, "shadow")
	os.WriteFile(secretFile, []byte("root:"+secretVal+":19000\nx:1:2\ny:3:4\n"), 0o600)
	j := newJob(t, root, "swap", "auto")
	priv := filepath.Join(root, "data", "c1", "private")
	os.MkdirAll(priv, 0o700)
	os.WriteFile(filepath.Join(priv, "test_labels.csv"), []byte("image_id,quality_score,label_path\n1,0.5,a.png\n2,0.5,b.png\n"), 0o600)
	j.Validate = validate.Check(ldctiqa.Challenge{}, priv, challenge.Reference)
	n := 2000
	j.Agent.Command = []string{agentBin, "swaprace", "{logs}/swap.json", "{submission}", strconv.Itoa(n),
		secretFile, "/proc/self/environ", filepath.Join(priv, "test_labels.csv"), "/nonexistent/x"}
	j.TimeLimit = 3 * time.Minute
	start := time.Now()
	in, err := Execute(context.Background(), j)
	if err != nil || in.Status != StatusDone {
		log, _ := os.ReadFile(filepath.Join(j.RunDir, "logs", "console.log"))
		t.Fatalf("%+v %v\n%s", in, err, log)
	}
	b, err := os.ReadFile(filepath.Join(j.RunDir, "logs", "swap.json"))
	if err != nil {
		t.Fatal(err)
	}
	var r swapRaceReport
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	t.Logf("isolation %s; %d requests in %v: %v; static links: %v", in.Isolation, r.Requests, time.Since(start), r.Answers, r.Static)
	home := os.Getenv("HOME")
	leak := func(s string) bool {
		return strings.Contains(s, secretVal) || (home != "" && strings.Contains(s, "HOME="+home)) || strings.Contains(s, "label_path")
	}
	if leak(string(b)) {
		t.Fatalf("an answer carries the secret, the runner's environment or the answers' header: %s", b)
	}
	if r.Requests < n/2 || r.Answers["true "] == 0 {
		t.Fatalf("the race did not run: %d requests, %d errors, answers %v", r.Requests, r.Errors, r.Answers)
	}
	missing := r.Static["/nonexistent/x"]
	for target, a := range r.Static {
		if a != missing || strings.HasPrefix(a, "error") {
			t.Errorf("submission.csv -> %s answered %q, a link to a missing file %q", target, a, missing)
		}
	}
	if _, err := os.Stat(filepath.Join(j.RunDir, validateScratch)); !os.IsNotExist(err) {
		t.Errorf("the endpoint's scratch folder outlived the run: %v", err)
	}
}
