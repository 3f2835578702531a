package runner

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rexmle/rexmle/pipeline/challenge"
	"github.com/rexmle/rexmle/pipeline/challenges/ldctiqa"
	"github.com/rexmle/rexmle/pipeline/runner/internal/swaprace"
	"github.com/rexmle/rexmle/pipeline/runner/validate"
)

// swapRace OUT SUBMISSION N TARGET...: see package swaprace.
func swapRace(args []string) int { return swaprace.Main(args) }

// TestValidationSwapRaceFromTheSandbox: a sandboxed agent points
// submission.csv at a root-only secret on the host, at the runner's own
// /proc/self/environ and at the private answers, then races a file/link
// swap through 2,000 validations graded by the real LDCT-IQA grader as
// the (root) runner. No answer carries any of them, and the static links
// all get the answer a missing file gets. On the code before the snapshot
// (commit d9d326e) this test failed: 7 and 3 of the 2,000 answers (two
// runs) carried the secret's first line, a link out answered "leaves the
// submission folder" where a missing file answered "not found" (an
// existence bit), and answers named the run's host path. In podman it
// failed alike: 8 of 2,000 answers carried the secret.
func TestValidationSwapRaceFromTheSandbox(t *testing.T) {
	needBwrap(t)
	root := t.TempDir()
	j := newJob(t, root, "swap", "auto")
	runSwapRace(t, root, j, func(args ...string) []string { return append([]string{agentBin, "swaprace"}, args...) })
}

// TestValidationSwapRaceFromAContainer is the same agent in a podman
// container (the paper agents' executor), over HTTP through the bridge.
func TestValidationSwapRaceFromAContainer(t *testing.T) {
	setupPodman(t)
	root := t.TempDir()
	j := containerRunJob(t, root, "swap")
	j.BridgeBin = testBridgeBin(podmanDir)
	runSwapRace(t, root, j, func(args ...string) []string { return append([]string{"/agent", "swaprace"}, args...) })
}

// runSwapRace plants the secret and the answers under root, runs j with
// the swapping agent (argv builds its command line) and checks every answer.
func runSwapRace(t *testing.T, root string, j *Job, argv func(args ...string) []string) {
	secretDir := filepath.Join(root, "host-secret")
	os.Mkdir(secretDir, 0o700)
	secretVal := strings.ToUpper("rootonly-") + strconv.FormatInt(time.Now().UnixNano(), 36)
	secretFile := filepath.Join(secretDir, "shadow")
	os.WriteFile(secretFile, []byte("root:"+secretVal+":19000\nx:1:2\ny:3:4\n"), 0o600)
	priv := filepath.Join(root, "data", "c1", "private")
	os.MkdirAll(priv, 0o700)
	os.WriteFile(filepath.Join(priv, "test_labels.csv"), []byte("image_id,quality_score,label_path\n1,0.5,a.png\n2,0.5,b.png\n"), 0o600)
	j.Validate = validate.Check(ldctiqa.Challenge{}, priv, challenge.Reference)
	n := 2000
	j.Agent.Command = argv("/logs/swap.json", "/submission", strconv.Itoa(n),
		secretFile, "/proc/self/environ", filepath.Join(priv, "test_labels.csv"), "/nonexistent/x")
	if j.Agent.Executor == "local" {
		j.Agent.Command = argv("{logs}/swap.json", "{submission}", strconv.Itoa(n),
			secretFile, "/proc/self/environ", filepath.Join(priv, "test_labels.csv"), "/nonexistent/x")
	}
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
	var r swaprace.Report
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	t.Logf("isolation %s; via %s; %d requests in %v: %v; static links: %v", in.Isolation, r.Via, r.Requests, time.Since(start), r.Answers, r.Static)
	home := os.Getenv("HOME")
	leak := func(s string) bool {
		return strings.Contains(s, secretVal) || (home != "" && strings.Contains(s, "HOME="+home)) || strings.Contains(s, "label_path")
	}
	if leak(string(b)) {
		t.Errorf("an answer carries the secret, the runner's environment or the answers' header: %s", b)
	}
	if r.Requests < n/2 || r.Answers["true "] == 0 {
		t.Fatalf("the race did not run: %d requests, errors %v, answers %v", r.Requests, r.Errors, r.Answers)
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
