package runner

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rexmle/rexmle/pipeline/config"
	"github.com/rexmle/rexmle/pipeline/gpu"
	"github.com/rexmle/rexmle/pipeline/gpu/gputest"
)

// newJob makes a job whose agent runs this test binary as helper argv.
func newJob(t testing.TB, root, name string, sandboxMode string, argv ...string) *Job {
	t.Helper()
	pub := filepath.Join(root, "data", "c1", "public")
	if err := os.MkdirAll(pub, 0o755); err != nil {
		t.Fatal(err)
	}
	// t.TempDir's folders are private; the sandbox's host user (nobody, when
	// tests run as root) must reach the run and data folders.
	os.Chmod(root, 0o755)
	os.Chmod(filepath.Dir(root), 0o755)
	self := agentBin
	cmd := append([]string{self}, argv...)
	return &Job{Group: "g", Challenge: "c1", Seed: 1, PublicDir: pub, RunDir: filepath.Join(root, "results", "runs", "g", "c1", name, "seed-1"),
		Agent:     config.Agent{ID: name, Backend: "none", Executor: "local", Command: cmd, Sandbox: sandboxMode},
		TimeLimit: 30 * time.Second, Grace: time.Second, AgentBin: self, ReadOnly: []string{self},
		Hide: []string{filepath.Join(root, "data"), filepath.Join(root, "results")}}
}

func TestExecuteDone(t *testing.T) {
	for _, mode := range []string{"none", "auto"} {
		t.Run(mode, func(t *testing.T) {
			if mode != "none" {
				needBwrap(t)
			}
			j := newJob(t, t.TempDir(), "a", mode, "say", "hello", "REXMLE_WORKING_SECONDS=not-a-number")
			in, err := Execute(context.Background(), j)
			if err != nil || in.Status != StatusDone || in.ExitCode != 0 {
				t.Fatalf("%+v %v", in, err)
			}
			log, _ := os.ReadFile(filepath.Join(j.RunDir, "logs", "console.log"))
			if !strings.Contains(string(log), "hello") {
				t.Fatalf("console.log %q", log)
			}
			back, ok := Finished(j.RunDir)
			if !ok || back.Status != StatusDone || back.WorkingSeconds != nil || !strings.HasPrefix(back.Telemetry, "unavailable") {
				t.Fatalf("run.json %+v", back)
			}
			t.Logf("isolation: %s", back.Isolation)
			if mode != "none" && !strings.HasPrefix(back.Isolation, "bwrap:") {
				t.Fatalf("isolation %q", back.Isolation)
			}
			if mode == "none" && !strings.HasPrefix(back.Isolation, `none: sandbox = "none"`) {
				t.Fatalf("isolation %q", back.Isolation)
			}
		})
	}
}

func TestExecuteFailed(t *testing.T) {
	j := newJob(t, t.TempDir(), "a", "none", "fail")
	in, err := Execute(context.Background(), j)
	if err != nil || in.Status != StatusFailed || in.ExitCode != 3 {
		t.Fatalf("%+v %v", in, err)
	}
}

func TestTimeLimit(t *testing.T) {
	tests := []struct {
		name       string
		argv       []string
		minS, maxS float64
	}{
		// SIGTERM at 1 s ends it.
		{"stops on SIGTERM", []string{"sleep", "20"}, 0.9, 1.9},
		// It ignores SIGTERM: SIGKILL after the 1 s grace period.
		{"killed after grace", []string{"sleep", "20", "ignore-term"}, 1.9, 3.5},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			j := newJob(t, t.TempDir(), "a", "none", tc.argv...)
			j.TimeLimit = time.Second
			in, err := Execute(context.Background(), j)
			if err != nil {
				t.Fatal(err)
			}
			if in.Status != StatusTimedOut || !in.TimedOut {
				t.Fatalf("status %s", in.Status)
			}
			if in.WallSeconds < tc.minS || in.WallSeconds > tc.maxS {
				t.Fatalf("wall %.2fs, want in [%v, %v]", in.WallSeconds, tc.minS, tc.maxS)
			}
		})
	}
}

func TestWorkingTime(t *testing.T) {
	root := t.TempDir()
	j := newJob(t, root, "a", "none", "say", "REXMLE_WORKING_SECONDS=12.5")
	in, err := Execute(context.Background(), j)
	if err != nil || in.WorkingSeconds == nil || *in.WorkingSeconds != 12.5 {
		t.Fatalf("%+v %v", in, err)
	}
	// The file wins over the line.
	os.WriteFile(filepath.Join(j.RunDir, "logs", "working_time.json"), []byte(`{"working_seconds": 7}`), 0o644)
	if v, ok, _ := workingSeconds(j.RunDir); !ok || v != 7 {
		t.Fatalf("working %v %v", v, ok)
	}
	os.WriteFile(filepath.Join(j.RunDir, "logs", "working_time.json"), []byte(`{"working_seconds": -1}`), 0o644)
	if v, ok, _ := workingSeconds(j.RunDir); !ok || v != 12.5 {
		t.Fatalf("negative file value must be ignored: %v %v", v, ok)
	}
}

func TestTelemetryWithFakeSampler(t *testing.T) {
	j := newJob(t, t.TempDir(), "a", "none", "sleep", "0.5")
	j.GPUs = []int{3}
	nan := 0.0 / func() float64 { return 0 }()
	f := &gputest.Fake{Batches: [][]gpu.Sample{
		{{At: time.Now(), GPU: 3, SMUtil: 20, MemUsedBytes: 10, MemTotalBytes: 100, PowerW: 100, EnergyMJ: 0, TempC: 50, ProcMemBytes: 5}},
		{{At: time.Now().Add(time.Second), GPU: 3, SMUtil: 60, MemUsedBytes: 40, MemTotalBytes: 100, PowerW: nan, EnergyMJ: 3600, TempC: 60, ProcMemBytes: 30}},
	}}
	j.Sampler, j.SampleEvery = f, 50*time.Millisecond
	var mu sync.Mutex
	var got []gpu.Sample
	j.OnSamples = func(b []gpu.Sample) { mu.Lock(); got = append(got, b...); mu.Unlock() }
	in, err := Execute(context.Background(), j)
	if err != nil || in.Status != StatusDone {
		t.Fatalf("%+v %v", in, err)
	}
	if in.Telemetry != "nvml" || in.GPUSummary == nil || in.GPUSummary.Samples < 3 || in.GPUSummary.Samples != len(got) {
		t.Fatalf("telemetry %q summary %+v, %d samples stored", in.Telemetry, in.GPUSummary, len(got))
	}
	s := in.GPUSummary
	if s.PeakMemFraction != 0.4 || s.PeakProcMemFrac != 0.3 || s.SMUtilP95 != 60 || s.EnergyKWh != 3600.0/1000/3.6e6 {
		t.Fatalf("summary %+v", s)
	}
	// The run's own processes were passed to the sampler.
	if len(f.Pids) == 0 || len(f.Pids[0]) == 0 {
		t.Fatalf("pids %v", f.Pids)
	}
	file, err := ReadTelemetry(j.RunDir)
	if err != nil || len(file) != len(got) || file[1].PowerW == file[1].PowerW {
		t.Fatalf("telemetry.jsonl: %d samples (want %d), err %v; unknown power must read back as NaN", len(file), len(got), err)
	}
	b, _ := os.ReadFile(filepath.Join(j.RunDir, "run.json"))
	var back Info
	if err := json.Unmarshal(b, &back); err != nil || back.GPUSummary == nil || back.GPUSummary.GPUs != 1 {
		t.Fatalf("run.json: %v %s", err, b)
	}
}

func TestValidationFromInsideTheSandbox(t *testing.T) {
	for _, mode := range []string{"none", "auto"} {
		t.Run(mode, func(t *testing.T) {
			if mode != "none" {
				needBwrap(t)
			}
			root := t.TempDir()
			j := newJob(t, root, "a", mode)
			out := filepath.Join(j.RunDir, "logs", "answer.json")
			j.Agent.Command = []string{agentBin, "validator", "{submission}", "{logs}/answer.json"}
			var asked []string
			j.Validate = func(ctx context.Context, dir string) error { asked = append(asked, dir); return nil }
			in, err := Execute(context.Background(), j)
			if err != nil || in.Status != StatusDone {
				t.Fatalf("%+v %v", in, err)
			}
			b, _ := os.ReadFile(out)
			if !strings.Contains(string(b), `"valid":true`) || len(asked) != 1 || !strings.HasPrefix(asked[0], filepath.Join(j.RunDir, validateScratch)+"/") {
				t.Fatalf("answer %s, asked %v (isolation %s)", b, asked, in.Isolation)
			}
			if _, err := os.Stat(in.Validation); !os.IsNotExist(err) {
				t.Fatalf("socket %s left behind", in.Validation)
			}
			if _, err := os.Stat(filepath.Join(j.RunDir, validateScratch)); !os.IsNotExist(err) {
				t.Fatalf("the endpoint's scratch folder was left behind: %v", err)
			}
		})
	}
}

// Issue 13 #6: the process driving the stage may die soon after Ctrl-C
// (mage exits 5 s after it), before a long grace period ends. run.json
// says "interrupted" as soon as the stop begins, never "running".
func TestCancelRecordsInterruptedBeforeTheGracePeriod(t *testing.T) {
	j := newJob(t, t.TempDir(), "stubborn", "none", "sleep", "20", "ignore-term")
	j.Grace = 3 * time.Second
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan *Info, 1)
	go func() {
		in, _ := Execute(ctx, j)
		done <- in
	}()
	time.Sleep(500 * time.Millisecond)
	cancel()
	time.Sleep(700 * time.Millisecond) // well inside the 3 s grace period
	mid, err := ReadInfo(j.RunDir)
	if err != nil {
		t.Fatal(err)
	}
	if mid.Status != StatusInterrupted {
		t.Fatalf("during the grace period run.json says %q, want %q", mid.Status, StatusInterrupted)
	}
	in := <-done
	if in == nil || in.Status != StatusInterrupted {
		t.Fatalf("final record: %+v", in)
	}
}
