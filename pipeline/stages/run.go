package stages

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rexmle/rexmle/pipeline/challenge"
	"github.com/rexmle/rexmle/pipeline/gpu"
	"github.com/rexmle/rexmle/pipeline/runner"
	"github.com/rexmle/rexmle/pipeline/runner/record"
	"github.com/rexmle/rexmle/pipeline/runner/validate"
)

// buildAgent compiles the rexmle-agent binary (built-in agents, sandbox
// wrapper, validate client) into bin/.
func buildAgent(ctx context.Context, root string) (string, error) {
	bin := filepath.Join(root, "bin", "rexmle-agent")
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/rexmle-agent")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("build the built-in agents: %v\n%s", err, out)
	}
	return bin, nil
}

// hostGPUs returns the GPUs runs may use (NVML's, restricted to the host's
// CUDA_VISIBLE_DEVICES when that lists indices) or why there are none.
func hostGPUs() ([]int, string) {
	n, err := gpu.Count()
	if err != nil {
		return nil, err.Error()
	}
	if n == 0 {
		return nil, "NVML sees no GPU"
	}
	var ids []int
	if v, ok := os.LookupEnv("CUDA_VISIBLE_DEVICES"); ok {
		for _, f := range strings.Split(v, ",") {
			if i, err := strconv.Atoi(strings.TrimSpace(f)); err == nil && i >= 0 && i < n {
				ids = append(ids, i)
			}
		}
		return ids, ""
	}
	for i := 0; i < n; i++ {
		ids = append(ids, i)
	}
	return ids, ""
}

// planRuns makes the (challenge, agent, seed) jobs of the profile for the
// prepared challenges and says how many challenges are not prepared.
func planRuns(e *env, agentBin string) (jobs []*runner.Job, unprepared int, err error) {
	dataRoot := e.b.Path(e.b.Paths.Data)
	hide := []string{dataRoot, e.b.Path(e.b.Paths.Results), e.b.Path(e.b.Paths.Runs), filepath.Dir(e.b.Path(e.b.Paths.Database))}
	mode, err := challenge.ParseMode(e.opt.Mode)
	if err != nil {
		return nil, 0, err
	}
	for _, c := range e.challenges {
		pub := filepath.Join(e.preparedDir(c.ID), "public")
		if _, err := os.Stat(pub); err != nil {
			unprepared++
			continue
		}
		if err := checkPrepared(e.preparedDir(c.ID), e.profile.Data, e.opt.Profile); err != nil {
			return nil, 0, fmt.Errorf("run %s: %w", c.ID, err)
		}
		var check validate.CheckFunc
		if ch, ok := challenge.Lookup(c.ID); ok {
			check = validate.Check(ch, filepath.Join(e.preparedDir(c.ID), "private"), mode)
		}
		for _, aid := range e.profile.Agents {
			a, _ := e.b.Agent(aid)
			seeds := e.profile.Seeds
			if len(seeds) == 0 {
				seeds = []int{1}
			}
			for _, seed := range seeds {
				limit := a.TimeLimit.Duration
				if e.profile.TimeLimit.Duration > 0 {
					limit = e.profile.TimeLimit.Duration
				}
				jobs = append(jobs, &runner.Job{Group: e.opt.Profile, Challenge: c.ID, Agent: *a, Seed: seed, PublicDir: pub,
					RunDir:  filepath.Join(e.b.Path(e.b.Paths.Runs), e.opt.Profile, c.ID, a.ID, "seed-"+strconv.Itoa(seed)),
					Setting: e.profile.Setting, TimeLimit: limit, Grace: a.GracePeriod.Duration, BenchHash: e.b.Hash,
					AgentBin: agentBin, Hide: hide, Validate: check, SampleEvery: e.profile.GPUSampleEvery.Duration, Log: e.log})
			}
		}
	}
	return jobs, unprepared, nil
}

// Run runs every (challenge, agent, seed) of the profile on the prepared
// challenges: finished runs are kept, runs a stopped stage left behind are
// restarted or marked interrupted (profile.resume), one run per free GPU
// set for GPU agents and profile.workers (default one per core) for the
// others, GPU telemetry stored as it goes. With scheduler = "slurm" the
// runs are submitted as a job array instead and ingested when they end.
func Run(ctx context.Context, o Options) error {
	e, err := load(o)
	if err != nil {
		return err
	}
	bin, err := buildAgent(ctx, e.b.Root)
	if err != nil {
		return err
	}
	all, unprepared, err := planRuns(e, bin)
	if err != nil {
		return err
	}
	if unprepared > 0 {
		fmt.Printf("run: %d challenge(s) not prepared, skipped (run `go run mage.go prepare`)\n", unprepared)
	}
	jobs, kept, err := runner.Pending(all, e.profile.Resume, o.Force)
	if err != nil {
		return err
	}
	if o.DryRun {
		if e.profile.Scheduler == "slurm" {
			return runSlurm(ctx, e, nil, jobs, kept)
		}
		for _, j := range jobs {
			fmt.Printf("would run %s\n", j.ID())
		}
		return nil
	}
	st, err := e.open(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	rec := record.New(st, e.log)
	defer rec.Close()
	if n, err := rec.CatchUp(ctx, all); err != nil {
		return fmt.Errorf("run: record finished runs: %w", err)
	} else if n > 0 {
		fmt.Printf("run: recorded %d finished run(s) the store did not hold yet\n", n)
	}
	if e.profile.Scheduler == "slurm" {
		return runSlurm(ctx, e, rec, jobs, kept)
	}
	if len(jobs) == 0 {
		fmt.Printf("run: nothing to run (%d finished runs kept)\n", kept)
		return nil
	}
	gpus, why := hostGPUs()

	prepare := func(j *runner.Job) error {
		j.Sampler, j.TelemetryNote = nil, why
		if len(j.GPUs) > 0 {
			s, err := gpu.OpenNVML(j.GPUs)
			if err != nil {
				j.TelemetryNote = err.Error()
			} else {
				j.Sampler = s
			}
		} else if why == "" {
			j.TelemetryNote = "the agent uses no GPU"
		}
		j.OnSamples = func(b []gpu.Sample) { rec.Samples(j, b) }
		return rec.Start(ctx, j)
	}
	var mu sync.Mutex
	var failed []string
	pr := newRunProgress(len(jobs))
	start := time.Now()
	outs, err := runner.Schedule(ctx, jobs, runner.Pool{GPUs: gpus, CPUSlots: e.profile.Workers}, runner.Hooks{
		Prepare: prepare,
		Done: func(out runner.Outcome) {
			if out.Job.Sampler != nil {
				out.Job.Sampler.Close()
			}
			if rerr := rec.End(context.WithoutCancel(ctx), out.Job, out.Info); rerr != nil {
				e.log.Warn("run not recorded", "run", out.Job.ID(), "err", rerr)
			}
			if !out.OK() {
				msg := ""
				if out.Err != nil {
					msg = out.Err.Error()
				} else if out.Info != nil {
					msg = out.Info.Status + " " + out.Info.Error
				}
				mu.Lock()
				failed = append(failed, fmt.Sprintf("%s: %s (log: %s)", out.Job.ID(), msg, rel(filepath.Join(out.Job.RunDir, "logs", "console.log"))))
				mu.Unlock()
			}
		},
		Progress: pr.show,
	})
	pr.finish()
	tel := "GPU telemetry: unavailable (" + why + ")"
	if why == "" {
		tel = fmt.Sprintf("GPU telemetry: NVML, %d GPU(s)", len(gpus))
	}
	fmt.Printf("run: %d run(s) in %s, %d not done, %d already finished; %s\n", len(outs), time.Since(start).Round(time.Millisecond), len(failed), kept, tel)
	for _, f := range failed {
		fmt.Println("  " + f)
	}
	if err != nil {
		fmt.Printf("run: stopped; %d run(s) not started. Run `go run mage.go run` again to resume.\n", len(jobs)-len(outs))
	}
	return err
}

// runProgress prints the scheduler's progress: one redrawn line on a
// terminal, a line per finished run otherwise.
type runProgress struct {
	tty   bool
	total int
	done  int
}

func newRunProgress(total int) *runProgress {
	st, err := os.Stderr.Stat()
	return &runProgress{tty: err == nil && st.Mode()&os.ModeCharDevice != 0, total: total}
}

func (r *runProgress) show(p runner.Progress) {
	eta := "-"
	if p.ETA > 0 {
		eta = p.ETA.Round(time.Second).String()
	}
	line := fmt.Sprintf("run %d/%d done, %d running, %d not done, elapsed %s, ETA %s: %s", p.Done, p.Total, p.Running, p.Failed,
		p.Elapsed.Round(100*time.Millisecond), eta, p.Last)
	if r.tty {
		fmt.Fprintf(os.Stderr, "\r%-*s", 120, line)
		return
	}
	if p.Done > r.done {
		r.done = p.Done
		fmt.Fprintln(os.Stderr, line)
	}
}

func (r *runProgress) finish() {
	if r.tty {
		fmt.Fprintln(os.Stderr)
	}
}
