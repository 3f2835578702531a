package runner

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

func invocations(t *testing.T, j *Job) int {
	b, err := os.ReadFile(filepath.Join(j.RunDir, "invocations"))
	if err != nil {
		return 0
	}
	return strings.Count(string(b), "\n")
}

// TestStopAndResume cancels a run stage while some runs are still going,
// then resumes: finished runs are not redone, interrupted ones are rerun
// (resume "restart") or kept as interrupted (resume "mark").
func TestStopAndResume(t *testing.T) {
	for _, resume := range []string{"restart", "mark"} {
		t.Run(resume, func(t *testing.T) {
			root := t.TempDir()
			var jobs []*Job
			for i := 0; i < 6; i++ {
				secs := "0.05"
				if i%2 == 1 {
					secs = "30" // still running when the stage is stopped
				}
				j := newJob(t, root, fmt.Sprintf("a%d", i), "none")
				j.Agent.Command = []string{os.Args[0], "count", j.RunDir, secs}
				jobs = append(jobs, j)
			}
			ctx, cancel := context.WithCancel(context.Background())
			var once sync.Once
			// Stop once the short runs ended and the long ones have started
			// for real (written their invocation), however loaded the host.
			outs, err := Schedule(ctx, jobs, Pool{CPUSlots: 6}, Hooks{Progress: func(p Progress) {
				if p.Done == 3 {
					once.Do(func() {
						go func() {
							deadline := time.Now().Add(20 * time.Second)
							for _, j := range jobs[1:] {
								for invocations(t, j) == 0 && time.Now().Before(deadline) && j.Agent.Command[3] == "30" {
									time.Sleep(10 * time.Millisecond)
								}
							}
							cancel()
						}()
					})
				}
			}})
			if err != context.Canceled || len(outs) != 6 {
				t.Fatalf("first pass: %d outcomes, err %v", len(outs), err)
			}
			for i, j := range jobs {
				in, _ := ReadInfo(j.RunDir)
				want := StatusDone
				if i%2 == 1 {
					want = StatusInterrupted
				}
				if in == nil || in.Status != want {
					t.Fatalf("run %d after stop: %+v, want %s", i, in, want)
				}
			}
			for _, j := range jobs {
				j.Agent.Command = []string{os.Args[0], "count", j.RunDir, "0.05"}
			}
			todo, kept, err := Pending(jobs, resume, false, false)
			if err != nil {
				t.Fatal(err)
			}
			if resume == "mark" {
				if len(todo) != 0 || kept != 6 {
					t.Fatalf("mark: todo %d kept %d", len(todo), kept)
				}
				for i, j := range jobs {
					if n := invocations(t, j); n != 1 {
						t.Fatalf("run %d invoked %d times", i, n)
					}
				}
				return
			}
			if len(todo) != 3 || kept != 3 {
				t.Fatalf("restart: todo %d kept %d", len(todo), kept)
			}
			outs, err = Schedule(context.Background(), todo, Pool{CPUSlots: 2}, Hooks{})
			if err != nil || len(outs) != 3 {
				t.Fatal(err)
			}
			for i, j := range jobs {
				want := 1
				if i%2 == 1 {
					want = 2
				}
				if n := invocations(t, j); n != want {
					t.Fatalf("run %d invoked %d times, want %d", i, n, want)
				}
				if _, done := Finished(j.RunDir); !done {
					t.Fatalf("run %d not finished", i)
				}
			}
			if todo, kept, _ := Pending(jobs, resume, false, false); len(todo) != 0 || kept != 6 {
				t.Fatalf("third pass would run %d", len(todo))
			}
		})
	}
}

// TestGPUSlots gives four 1-GPU runs two GPUs: at most two at once, each
// with its own CUDA_VISIBLE_DEVICES; a run asking for more GPUs than the
// host has fails alone.
func TestGPUSlots(t *testing.T) {
	root := t.TempDir()
	var jobs []*Job
	for i := 0; i < 5; i++ {
		j := newJob(t, root, fmt.Sprintf("g%d", i), "none")
		j.Agent.GPUs = 1
		if i == 4 {
			j.Agent.GPUs = 3
		}
		j.Agent.Command = []string{os.Args[0], "count", j.RunDir, "0.3"}
		jobs = append(jobs, j)
	}
	var mu sync.Mutex
	maxRunning := 0
	var last Progress
	outs, err := Schedule(context.Background(), jobs, Pool{GPUs: []int{0, 1}, CPUSlots: 8}, Hooks{Progress: func(p Progress) {
		mu.Lock()
		defer mu.Unlock()
		if p.Running > maxRunning {
			maxRunning = p.Running
		}
		last = p
	}})
	if err != nil || len(outs) != 5 {
		t.Fatal(err)
	}
	if maxRunning != 2 {
		t.Fatalf("max %d runs at once, want 2", maxRunning)
	}
	if last.Done != 5 || last.Failed != 1 || last.Running != 0 {
		t.Fatalf("final progress %+v", last)
	}
	var seen []string
	for _, j := range jobs[:4] {
		b, _ := os.ReadFile(filepath.Join(j.RunDir, "gpus"))
		in, _ := ReadInfo(j.RunDir)
		if (string(b) != "0" && string(b) != "1") || in == nil || len(in.GPUs) != 1 || fmt.Sprint(in.GPUs[0]) != string(b) {
			t.Fatalf("CUDA_VISIBLE_DEVICES %q, run.json %+v", b, in)
		}
		seen = append(seen, string(b))
	}
	sort.Strings(seen)
	if seen[0] != "0" || seen[3] != "1" {
		t.Fatalf("devices used %v: want both", seen)
	}
	for _, o := range outs {
		if o.Job == jobs[4] && (o.Err != nil || o.Info == nil || o.Info.Status != StatusFailed || !strings.Contains(o.Info.Error, "needs 3 GPU(s); 2 usable here")) {
			t.Fatalf("3-GPU run: %+v %v", o.Info, o.Err)
		}
	}
	// The run that could not start has its folder and run.json, failed with the reason.
	in, err := ReadInfo(jobs[4].RunDir)
	if err != nil || in.Status != StatusFailed || !strings.Contains(in.Error, "needs 3 GPU(s)") {
		t.Fatalf("run.json of the refused run: %+v %v", in, err)
	}
	if _, err := os.Stat(filepath.Join(jobs[4].RunDir, "invocations")); err == nil {
		t.Fatal("the refused run was started")
	}
}

// TestRefusedRunsAreFailedAndRetried: runs a preflight refuses are
// recorded failed with their reason (folder, run.json, console.log, the
// Done hook) and never started; REXMLE_RETRY_FAILED's Pending reruns only
// them, never a run that ended done.
func TestRefusedRunsAreFailedAndRetried(t *testing.T) {
	root := t.TempDir()
	var jobs []*Job
	for i := 0; i < 4; i++ {
		j := newJob(t, root, fmt.Sprintf("r%d", i), "none")
		j.Agent.Command = []string{os.Args[0], "count", j.RunDir, "0"}
		jobs = append(jobs, j)
	}
	var mu sync.Mutex
	done := map[string]Outcome{}
	hooks := Hooks{
		Refuse: func(j *Job) string {
			if j == jobs[1] || j == jobs[3] {
				return "API key OPENAI_API_KEY is not set"
			}
			return ""
		},
		Done: func(o Outcome) { mu.Lock(); done[o.Job.ID()] = o; mu.Unlock() },
	}
	outs, err := Schedule(context.Background(), jobs, Pool{CPUSlots: 2}, hooks)
	if err != nil || len(outs) != 4 || len(done) != 4 {
		t.Fatalf("%d outcomes, %d done hooks, %v", len(outs), len(done), err)
	}
	for i, j := range jobs {
		in, err := ReadInfo(j.RunDir)
		_, started := os.Stat(filepath.Join(j.RunDir, "invocations"))
		if i == 1 || i == 3 {
			log, _ := os.ReadFile(filepath.Join(j.RunDir, "logs", "console.log"))
			if err != nil || in.Status != StatusFailed || in.Error != "not started: API key OPENAI_API_KEY is not set" || started == nil ||
				!strings.Contains(string(log), "OPENAI_API_KEY") || done[j.ID()].OK() {
				t.Fatalf("refused run %d: %+v %v started=%v log=%q", i, in, err, started == nil, log)
			}
			continue
		}
		if err != nil || in.Status != StatusDone || started != nil {
			t.Fatalf("run %d: %+v %v", i, in, err)
		}
	}
	// Without retry every finished run is kept; with it only the failed ones run again.
	if todo, kept, _ := Pending(jobs, "restart", false, false); len(todo) != 0 || kept != 4 {
		t.Fatalf("no retry: %d to do, %d kept", len(todo), kept)
	}
	todo, kept, err := Pending(jobs, "restart", false, true)
	if err != nil || kept != 2 || len(todo) != 2 || todo[0] != jobs[1] || todo[1] != jobs[3] {
		t.Fatalf("retry: %d to do, %d kept, %v", len(todo), kept, err)
	}
	if _, err := Schedule(context.Background(), todo, Pool{CPUSlots: 2}, Hooks{}); err != nil {
		t.Fatal(err)
	}
	for _, j := range jobs {
		if in, _ := ReadInfo(j.RunDir); in == nil || in.Status != StatusDone {
			t.Fatalf("after the retry %s: %+v", j.ID(), in)
		}
		b, _ := os.ReadFile(filepath.Join(j.RunDir, "invocations"))
		if n := strings.Count(string(b), "\n"); n != 1 {
			t.Fatalf("%s ran %d times", j.ID(), n)
		}
	}
}

func TestProgressETA(t *testing.T) {
	root := t.TempDir()
	var jobs []*Job
	for i := 0; i < 4; i++ {
		j := newJob(t, root, fmt.Sprintf("p%d", i), "none")
		j.Agent.Command = []string{os.Args[0], "sleep", "0.1"}
		jobs = append(jobs, j)
	}
	var ps []Progress
	Schedule(context.Background(), jobs, Pool{CPUSlots: 1}, Hooks{Progress: func(p Progress) { ps = append(ps, p) }})
	// One slot: start, end, start, end, ... 8 reports.
	if len(ps) != 8 {
		t.Fatalf("%d reports", len(ps))
	}
	mid := ps[3] // after the second run ended: 2 done in ~0.2 s, 2 to go
	if mid.Done != 2 || mid.ETA < 150*time.Millisecond || mid.ETA > 2*mid.Elapsed+100*time.Millisecond {
		t.Fatalf("progress %+v", mid)
	}
	if ps[7].Done != 4 || ps[7].ETA != 0 {
		t.Fatalf("final %+v", ps[7])
	}
}

// TestMIGSlotsServeSingleGPURunsOnly: a run needing two GPUs is given
// whole GPUs, never MIG instances (a CUDA process uses one at most), and
// is refused when there are not enough whole GPUs; one-GPU runs use any.
func TestMIGSlotsServeSingleGPURunsOnly(t *testing.T) {
	root := t.TempDir()
	pair := newJob(t, root, "pair", "none")
	pair.Agent.GPUs = 2
	pair.Agent.Command = []string{os.Args[0], "count", pair.RunDir, "0"}
	var singles []*Job
	for i := 0; i < 3; i++ {
		j := newJob(t, root, fmt.Sprintf("one%d", i), "none")
		j.Agent.GPUs = 1
		j.Agent.Command = []string{os.Args[0], "count", j.RunDir, "0.2"}
		singles = append(singles, j)
	}
	// Slots 0 and 3 whole GPUs, 1 and 2 MIG instances.
	pool := Pool{GPUs: []int{0, 1, 2, 3}, CPUSlots: 8, Single: map[int]bool{1: true, 2: true}}
	outs, err := Schedule(context.Background(), append([]*Job{pair}, singles...), pool, Hooks{})
	if err != nil || len(outs) != 4 {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(pair.RunDir, "gpus")); string(b) != "0,3" {
		t.Fatalf("the 2-GPU run got %q, want the whole GPUs 0,3", b)
	}
	for _, o := range outs {
		if !o.OK() {
			t.Fatalf("%s: %+v %v", o.Job.ID(), o.Info, o.Err)
		}
	}
	// Only one whole GPU: the 2-GPU run cannot start, and says why.
	pair2 := newJob(t, t.TempDir(), "pair2", "none")
	pair2.Agent.GPUs = 2
	pair2.Agent.Command = []string{os.Args[0], "count", pair2.RunDir, "0"}
	outs, _ = Schedule(context.Background(), []*Job{pair2}, Pool{GPUs: []int{0, 1, 2}, CPUSlots: 1, Single: map[int]bool{1: true, 2: true}}, Hooks{})
	if len(outs) != 1 || outs[0].Info == nil || !strings.Contains(outs[0].Info.Error, "1 whole GPU(s) usable here (a process can use only one MIG instance)") {
		t.Fatalf("%+v", outs)
	}
	if _, err := os.Stat(filepath.Join(pair2.RunDir, "invocations")); err == nil {
		t.Fatal("the refused run started")
	}
}
