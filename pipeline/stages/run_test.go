package stages

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rexmle/rexmle/pipeline/checkouttest"

	"github.com/rexmle/rexmle/pipeline/binaries"
	"github.com/rexmle/rexmle/pipeline/runner"
	"github.com/rexmle/rexmle/pipeline/store"
)

// runBench is testBench plus what the run stage needs: the module linked
// into the temporary checkout (binaries.Build builds the agent binaries there) and
// extra agents and a profile appended to benchmark.toml.
func runBench(t *testing.T, extra string) Options {
	t.Helper()
	o := testBench(t)
	root := filepath.Dir(o.Config)
	repo, _ := filepath.Abs(filepath.Join("..", ".."))
	checkouttest.Link(t, repo, root) // benchmark.toml is testBench's
	f, err := os.OpenFile(o.Config, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("\n" + extra); err != nil {
		t.Fatal(err)
	}
	f.Close()
	o.Challenges = []string{"ldct-iqa"}
	return o
}

const refusedAgents = `
[[agent]]
id = "plain"
name = "The sample agent without a sandbox (so the test needs no bwrap)"
backend = "none"
builtin = "sample"
sandbox = "none"
time_limit = "1m"

[[agent]]
id = "needs-key"
name = "Needs a key"
backend = "test"
executor = "local"
sandbox = "none"
command = ["rexmle-test-agent-that-is-not-installed", "{data}"]
env = ["REXMLE_TEST_UNSET_API_KEY"]
time_limit = "1m"

[[agent]]
id = "needs-gpus"
name = "Needs more GPUs than any test host has"
backend = "test"
builtin = "sample"
time_limit = "1m"
gpus = 64

[[agent]]
id = "fifo-logs"
name = "Leaves FIFOs as console.log and working_time.json (issue 29: the stage hung on them, holding its lock)"
backend = "none"
executor = "local"
sandbox = "none"
command = ["sh", "-c", "rm -f {logs}/console.log && mkfifo {logs}/console.log {logs}/working_time.json"]
time_limit = "1m"

[profile.refusals]
description = "the run stage's refusals"
data = "synthetic"
agents = ["plain", "needs-key", "needs-gpus", "fifo-logs"]
seeds = [1]
setting = "demo"
judge = "heuristic"
scheduler = "local"
`

// TestRunRecordsRunsThatCannotStart is issue 13 #9: runs that cannot
// start (a missing key and executable; more GPUs than usable) are recorded
// failed with their reasons — run folder, run.json, store row — beside a
// run that goes ahead, and the stage exits non-zero naming them. A second
// stage keeps them; REXMLE_RETRY_FAILED=1 retries only them.
func TestRunRecordsRunsThatCannotStart(t *testing.T) {
	if testing.Short() {
		t.Skip("builds rexmle-agent and runs the demo's sample agent")
	}
	o := runBench(t, refusedAgents)
	ctx := context.Background()
	if err := Prepare(ctx, o); err != nil {
		t.Fatal(err)
	}
	o.Profile = "refusals"
	// The stage never compiles: without the binaries it says how to build them.
	if err := Run(ctx, o); err == nil || !strings.Contains(err.Error(), "go run mage.go binaries") {
		t.Fatalf("run without the agent binaries: %v", err)
	}
	if err := binaries.Build(ctx, filepath.Dir(o.Config)); err != nil {
		t.Fatal(err)
	}
	err := Run(ctx, o)
	if err == nil || !strings.Contains(err.Error(), "2 run(s) could not start") ||
		!strings.Contains(err.Error(), "refusals/ldct-iqa/needs-key/seed-1") || !strings.Contains(err.Error(), "refusals/ldct-iqa/needs-gpus/seed-1") {
		t.Fatalf("run: %v", err)
	}
	root := filepath.Dir(o.Config)
	runDir := func(agent string) string {
		return filepath.Join(root, "results", "runs", "refusals", "ldct-iqa", agent, "seed-1")
	}
	want := map[string][]string{
		"needs-key":  {"REXMLE_TEST_UNSET_API_KEY is not set", "rexmle-test-agent-that-is-not-installed"},
		"needs-gpus": {"needs 64 GPU(s)"},
	}
	for agent, pieces := range want {
		in, err := runner.ReadInfo(runDir(agent))
		if err != nil || in.Status != runner.StatusFailed || !strings.HasPrefix(in.Error, "not started: ") {
			t.Fatalf("%s run.json: %+v %v", agent, in, err)
		}
		for _, p := range pieces {
			if !strings.Contains(in.Error, p) {
				t.Errorf("%s: reason %q lacks %q", agent, in.Error, p)
			}
		}
	}
	if in, err := runner.ReadInfo(runDir("plain")); err != nil || in.Status != runner.StatusDone {
		t.Fatalf("the run that could start: %+v %v", in, err)
	}
	// The FIFO logs were skipped and named; the stage went on (and the
	// stages below take its lock again).
	if in, err := runner.ReadInfo(runDir("fifo-logs")); err != nil || in.Status != runner.StatusDone || len(in.LogProblems) != 2 ||
		!strings.Contains(strings.Join(in.LogProblems, "\n"), "logs/console.log: not read: not a regular file (a named pipe (FIFO))") {
		t.Fatalf("the run that left FIFO logs: %+v %v", in, err)
	}
	st, err := store.Open(ctx, filepath.Join(root, "results", "rexmle.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]string{}
	r, err := st.RawQuery(context.Background(), `SELECT agent, status, detail FROM runs WHERE source = 'refusals'`)
	if err != nil {
		t.Fatal(err)
	}
	for r.Next() {
		var a, s, d string
		r.Scan(&a, &s, &d)
		rows[a] = s + " " + d
	}
	r.Close()
	st.Close()
	if !strings.HasPrefix(rows["needs-key"], "failed not started:") || !strings.HasPrefix(rows["needs-gpus"], "failed not started:") || rows["plain"] != "done " || rows["fifo-logs"] != "done " {
		t.Fatalf("store rows %q", rows)
	}

	// A second stage keeps every finished run; the retry reruns only the failed ones.
	plainInfo, _ := runner.ReadInfo(runDir("plain"))
	keyInfo, _ := runner.ReadInfo(runDir("needs-key"))
	if err := Run(ctx, o); err != nil {
		t.Fatalf("second run: %v", err)
	}
	if again, _ := runner.ReadInfo(runDir("needs-key")); again == nil || again.StartedAt != keyInfo.StartedAt {
		t.Fatalf("a second stage without the retry redid a failed run: %+v", again)
	}
	o.RetryFailed = true
	if err := Run(ctx, o); err == nil || !strings.Contains(err.Error(), "2 run(s) could not start") {
		t.Fatalf("retry: %v", err)
	}
	if again, _ := runner.ReadInfo(runDir("plain")); again == nil || again.StartedAt != plainInfo.StartedAt {
		t.Fatalf("the retry redid a finished ok run: %+v", again)
	}
	if again, _ := runner.ReadInfo(runDir("needs-key")); again == nil || again.StartedAt == keyInfo.StartedAt || again.Status != runner.StatusFailed {
		t.Fatalf("the retry did not retry the failed run: %+v", again)
	}
}

// TestRunRejectsBadTimeLimits is issue 13 #20: a negative or missing time
// limit is a configuration error before any run starts.
func TestRunRejectsBadTimeLimits(t *testing.T) {
	for name, agent := range map[string]string{
		"negative": `time_limit = "-1h"`,
		"zero":     `time_limit = "0s"`,
	} {
		t.Run(name, func(t *testing.T) {
			o := runBench(t, `
[[agent]]
id = "bad-limit"
name = "bad"
backend = "test"
builtin = "sample"
`+agent+`

[profile.badlimit]
description = "bad"
data = "synthetic"
agents = ["bad-limit"]
seeds = [1]
setting = "demo"
judge = "heuristic"
scheduler = "local"
`)
			o.Profile = "badlimit"
			if err := os.MkdirAll(filepath.Join(filepath.Dir(o.Config), "data", "ldct-iqa", "public"), 0o755); err != nil {
				t.Fatal(err)
			}
			err := Run(context.Background(), o)
			if err == nil || !strings.Contains(err.Error(), "time_limit") {
				t.Fatalf("run: %v", err)
			}
			if _, err := os.Stat(filepath.Join(filepath.Dir(o.Config), "results", "runs", "badlimit")); err == nil {
				t.Fatal("a run folder was made")
			}
		})
	}
}

// A Slurm profile's dry run writes each array's task manifest and sbatch
// script (one array per GPU count) and submits nothing: the path through
// runstage's runSlurm that the real-Slurm test of pipeline/runner/slurm
// does not take.
func TestRunSlurmDryRunWritesTheArrays(t *testing.T) {
	if testing.Short() {
		t.Skip("builds rexmle-agent")
	}
	o := runBench(t, `
[[agent]]
id = "on-gpus"
name = "The sample agent, asking for two GPUs"
backend = "none"
builtin = "sample"
sandbox = "none"
time_limit = "2h"
grace_period = "5m"
gpus = 2

[profile.cluster]
description = "a Slurm profile"
data = "synthetic"
agents = ["plain-slurm", "on-gpus"]
seeds = [1, 2]
setting = "demo"
judge = "heuristic"
scheduler = "slurm"

[profile.cluster.slurm]
partition = "gpu"
account = "lab"

[[agent]]
id = "plain-slurm"
name = "The sample agent"
backend = "none"
builtin = "sample"
sandbox = "none"
time_limit = "1h"
`)
	ctx := context.Background()
	if err := Prepare(ctx, o); err != nil {
		t.Fatal(err)
	}
	root := filepath.Dir(o.Config)
	if err := binaries.Build(ctx, root); err != nil {
		t.Fatal(err)
	}
	o.Profile, o.DryRun = "cluster", true
	if err := Run(ctx, o); err != nil {
		t.Fatalf("dry run: %v", err)
	}
	scripts, _ := filepath.Glob(filepath.Join(root, "results", "runs", "cluster", "slurm", "*", "gpus-*", "array.sbatch"))
	if len(scripts) != 2 {
		t.Fatalf("sbatch scripts %v, want one per GPU count (0 and 2)", scripts)
	}
	for _, s := range scripts {
		b, err := os.ReadFile(s)
		if err != nil {
			t.Fatal(err)
		}
		text := string(b)
		for _, want := range []string{"#SBATCH --partition=gpu", "#SBATCH --account=lab", "--array=0-1"} {
			if !strings.Contains(text, want) {
				t.Errorf("%s lacks %q:\n%s", s, want, text)
			}
		}
		// The two-GPU array asks for its GPUs and covers its agent's 2 h
		// and 5 min grace; the other asks for none, under its own limit.
		twoGPUs := strings.Contains(s, "gpus-2")
		if strings.Contains(text, "#SBATCH --gres=gpu:2") != twoGPUs {
			t.Errorf("%s: GPU request wrong:\n%s", s, text)
		}
		if twoGPUs && !strings.Contains(text, "#SBATCH --time=0-02:") || !twoGPUs && !strings.Contains(text, "#SBATCH --time=0-01:") {
			t.Errorf("%s: time limit not from its own agents' limits:\n%s", s, text)
		}
		if _, err := os.Stat(filepath.Join(filepath.Dir(s), "tasks.json")); err != nil {
			t.Errorf("no task manifest beside %s: %v", s, err)
		}
	}
	// Nothing was submitted or recorded.
	if _, err := os.Stat(filepath.Join(root, "results", "rexmle.sqlite")); err == nil {
		st, err := store.Open(ctx, filepath.Join(root, "results", "rexmle.sqlite"))
		if err != nil {
			t.Fatal(err)
		}
		var n int
		st.RawQueryRow(ctx, `SELECT count(*) FROM runs WHERE source = 'cluster'`).Scan(&n)
		st.Close()
		if n != 0 {
			t.Errorf("the dry run recorded %d run(s)", n)
		}
	}
}

// The agent binaries are the ones the Mage targets build in the checkout,
// whatever folder REXMLE_CONFIG's benchmark file is in (bench/gpucheck.sh
// and users' own benchmark files live outside it): with BinRoot set to the
// checkout the run stage finds them there, where it used to look only in
// the benchmark's folder and ask for a build that could never put them
// there.
func TestRunFindsTheCheckoutsBinariesForABenchmarkElsewhere(t *testing.T) {
	if testing.Short() {
		t.Skip("builds rexmle-agent and runs the demo's sample agent")
	}
	ctx := context.Background()
	o := testBench(t) // a benchmark folder with no module and no bin/
	f, err := os.OpenFile(o.Config, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("\n" + refusedAgents); err != nil {
		t.Fatal(err)
	}
	f.Close()
	o.Challenges = []string{"ldct-iqa"}
	if err := Prepare(ctx, o); err != nil {
		t.Fatal(err)
	}
	checkout := t.TempDir()
	repo, _ := filepath.Abs(filepath.Join("..", ".."))
	checkouttest.Link(t, repo, checkout)
	if err := binaries.Build(ctx, checkout); err != nil {
		t.Fatal(err)
	}
	o.Profile = "refusals"
	o.Challenges = []string{"ldct-iqa"}
	err = Run(ctx, o)
	if err == nil || !strings.Contains(err.Error(), filepath.Join(filepath.Dir(o.Config), "bin", "rexmle-agent")+" is missing") {
		t.Fatalf("run without BinRoot: %v, want the benchmark folder's binaries missing", err)
	}
	o.BinRoot = checkout
	err = Run(ctx, o)
	if err == nil || !strings.Contains(err.Error(), "2 run(s) could not start") {
		t.Fatalf("run with the checkout's binaries: %v", err)
	}
	in, err := runner.ReadInfo(filepath.Join(filepath.Dir(o.Config), "results", "runs", "refusals", "ldct-iqa", "plain", "seed-1"))
	if err != nil || in.Status != runner.StatusDone {
		t.Fatalf("the plain run: %+v %v", in, err)
	}
}
