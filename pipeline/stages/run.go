package stages

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"time"

	"github.com/rexmle/rexmle/pipeline/runner"
)

// buildAgent compiles the built-in agents' binary into bin/.
func buildAgent(ctx context.Context, root string) (string, error) {
	bin := filepath.Join(root, "bin", "rexmle-agent")
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/rexmle-agent")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("build the built-in agents: %v\n%s", err, out)
	}
	return bin, nil
}

// Run runs every (challenge, agent, seed) of the profile on the prepared
// challenges, skipping runs that already finished.
func Run(ctx context.Context, o Options) error {
	e, err := load(o)
	if err != nil {
		return err
	}
	if e.profile.Scheduler == "slurm" {
		return fmt.Errorf("run: scheduler slurm: %w", ErrNotImplemented)
	}
	var jobs []*runner.Job
	var bin string
	group := o.Profile
	skipped, unprepared := 0, 0
	for _, c := range e.challenges {
		pub := filepath.Join(e.b.Path(e.b.Paths.Data), c.ID, "public")
		if _, err := os.Stat(pub); err != nil {
			unprepared++
			continue
		}
		for _, aid := range e.profile.Agents {
			a, _ := e.b.Agent(aid)
			seeds := e.profile.Seeds
			if len(seeds) == 0 {
				seeds = []int{1}
			}
			for _, seed := range seeds {
				dir := filepath.Join(e.b.Path(e.b.Paths.Runs), group, c.ID, a.ID, "seed-"+strconv.Itoa(seed))
				if _, done := runner.Finished(dir); done && !o.Force {
					skipped++
					continue
				}
				limit := a.TimeLimit.Duration
				if e.profile.TimeLimit.Duration > 0 {
					limit = e.profile.TimeLimit.Duration
				}
				jobs = append(jobs, &runner.Job{Group: group, Challenge: c.ID, Agent: *a, Seed: seed, PublicDir: pub, RunDir: dir,
					Setting: e.profile.Setting, TimeLimit: limit, Grace: a.GracePeriod.Duration, BenchHash: e.b.Hash})
			}
		}
	}
	if unprepared > 0 {
		fmt.Printf("run: %d challenge(s) not prepared, skipped (run `go run mage.go prepare`)\n", unprepared)
	}
	if len(jobs) == 0 {
		fmt.Printf("run: nothing to run (%d finished runs kept)\n", skipped)
		return nil
	}
	for _, j := range jobs {
		if j.Agent.Builtin != "" {
			if bin == "" {
				if bin, err = buildAgent(ctx, e.b.Root); err != nil {
					return err
				}
			}
			j.AgentBin = bin
		}
	}
	// CPU agents: one per core. GPU agents would get one run per GPU.
	workers := runtime.GOMAXPROCS(0)
	bar := newProgress("run", len(jobs))
	var wg sync.WaitGroup
	sem := make(chan struct{}, workers)
	var mu sync.Mutex
	var failed []string
	start := time.Now()
	for _, j := range jobs {
		if ctx.Err() != nil {
			break
		}
		wg.Add(1)
		sem <- struct{}{}
		go func(j *runner.Job) {
			defer wg.Done()
			defer func() { <-sem }()
			in, err := runner.Execute(ctx, j)
			ok := err == nil && in != nil && in.Status == "done"
			mu.Lock()
			if !ok {
				msg := ""
				if err != nil {
					msg = err.Error()
				} else if in != nil {
					msg = in.Status + " " + in.Error
				}
				failed = append(failed, fmt.Sprintf("%s/%s/seed-%d: %s (log: %s)", j.Challenge, j.Agent.ID, j.Seed, msg, rel(filepath.Join(j.RunDir, "logs", "console.log"))))
			}
			mu.Unlock()
			bar.step(j.Challenge+"/"+j.Agent.ID, ok)
		}(j)
	}
	wg.Wait()
	bar.finish()
	fmt.Printf("run: %d run(s) in %s, %d failed, %d already finished; GPU telemetry: unavailable on this host\n", len(jobs), time.Since(start).Round(time.Millisecond), len(failed), skipped)
	for _, f := range failed {
		fmt.Println("  " + f)
	}
	return ctx.Err()
}
