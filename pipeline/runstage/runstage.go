// Package runstage is the run stage: it plans the profile's (challenge,
// agent, seed) runs on the prepared challenges, keeps the finished ones,
// checks with the doctor what cannot start, schedules the rest on the free
// GPUs and CPU slots (or submits them to Slurm) and records every run, its
// events and GPU telemetry in the store. Run is the entry point;
// pipeline/stages turns the settings into its Options.
package runstage

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/magefile/mage/mg"

	"github.com/rexmle/rexmle/pipeline/binaries"
	"github.com/rexmle/rexmle/pipeline/challenge"
	"github.com/rexmle/rexmle/pipeline/config"
	"github.com/rexmle/rexmle/pipeline/doctor"
	"github.com/rexmle/rexmle/pipeline/gpu"
	"github.com/rexmle/rexmle/pipeline/runner"
	"github.com/rexmle/rexmle/pipeline/runner/record"
	"github.com/rexmle/rexmle/pipeline/runner/validate"
	"github.com/rexmle/rexmle/pipeline/settings"
	"github.com/rexmle/rexmle/pipeline/store"
)

// Options configures Run.
type Options struct {
	Benchmark   *config.Benchmark
	ProfileName string         // the run group: results/runs/<ProfileName>/...
	Profile     config.Profile // its settings
	Challenges  []*config.Challenge
	Mode        challenge.Mode // the grading mode the validate client checks in
	// Engine is the REXMLE_ENGINE setting: the container engine of agents
	// that set none ("": docker).
	Engine string
	// Host is the environment the settings captured: variables the
	// configuration names (endpoints in egress, API keys) are read from it.
	Host        settings.Environ
	Force       bool // rerun finished runs too
	DryRun      bool // say what would run (or be submitted), run nothing
	RetryFailed bool // rerun the finished runs that failed
	// OpenStore opens the store (with the challenges in it).
	OpenStore func(ctx context.Context) (*store.Store, error)
	// PreparedDir is where a challenge's prepared data of the profile's kind
	// lives; CheckPrepared says why a prepared folder cannot be used.
	PreparedDir   func(challenge string) string
	CheckPrepared func(dataDir string) error
	Log           *slog.Logger             // nil: slog.Default()
	Rel           func(path string) string // how paths are shown; nil: as they are
	// BinRoot is the folder whose bin/ holds the agent binaries: the
	// checkout the Mage targets build them in ("": the benchmark's folder).
	BinRoot string
}

// binRoot is where the agent binaries are (Options.BinRoot).
func (o *Options) binRoot() string {
	if o.BinRoot != "" {
		return o.BinRoot
	}
	return o.Benchmark.Root
}

// env is the stage's view of its options.
type env struct {
	b          *config.Benchmark
	profile    config.Profile
	challenges []*config.Challenge
	opt        struct {
		Profile       string
		Mode          challenge.Mode
		DryRun, Force bool
	}
	o   *Options
	log *slog.Logger
}

func (e *env) preparedDir(id string) string { return e.o.PreparedDir(id) }

func (e *env) open(ctx context.Context) (*store.Store, error) { return e.o.OpenStore(ctx) }

// preflight runs the doctor's checks for the profile.
func (e *env) preflight(ctx context.Context) *doctor.Report {
	return doctor.Run(ctx, doctor.Input{Bench: e.b, ProfileName: e.opt.Profile, Profile: e.profile, Challenges: e.challenges, Engine: e.o.Engine}, doctor.System(e.o.Host))
}

func (e *env) rel(p string) string {
	if e.o.Rel == nil {
		return p
	}
	return e.o.Rel(p)
}

// planRuns makes the (challenge, agent, seed) jobs of the profile for the
// prepared challenges and says how many challenges are not prepared.
func planRuns(e *env, agentBin string) (jobs []*runner.Job, unprepared int, err error) {
	dataRoot := e.b.Path(e.b.Paths.Data)
	hide := []string{dataRoot, e.b.Path(e.b.Paths.Results), e.b.Path(e.b.Paths.Runs), filepath.Dir(e.b.Path(e.b.Paths.Database))}
	mode := e.opt.Mode
	for _, c := range e.challenges {
		pub := filepath.Join(e.preparedDir(c.ID), "public")
		if _, err := os.Stat(pub); err != nil {
			unprepared++
			continue
		}
		if err := e.o.CheckPrepared(e.preparedDir(c.ID)); err != nil {
			return nil, 0, fmt.Errorf("run %s: %w", c.ID, err)
		}
		var check validate.CheckFunc
		if ch, ok := challenge.Lookup(c.ID); ok {
			check = validate.Check(ch, filepath.Join(e.preparedDir(c.ID), "private"), mode)
		}
		for _, aid := range e.profile.Agents {
			pa, err := e.b.ProfileAgentEnv(e.profile, aid, e.o.Host.Get)
			if err != nil {
				return nil, 0, fmt.Errorf("profile %s: %w", e.opt.Profile, err)
			}
			a := &pa
			seeds := e.profile.Seeds
			if len(seeds) == 0 {
				seeds = []int{1}
			}
			limit, err := doctor.TimeLimit(*a, e.profile)
			if err != nil {
				return nil, 0, fmt.Errorf("%s: profile %s: %w", e.b.File, e.opt.Profile, err)
			}
			for _, seed := range seeds {
				jobs = append(jobs, &runner.Job{Group: e.opt.Profile, Challenge: c.ID, Agent: *a, Seed: seed, PublicDir: pub,
					RunDir:  filepath.Join(e.b.Path(e.b.Paths.Runs), e.opt.Profile, c.ID, a.ID, "seed-"+strconv.Itoa(seed)),
					Setting: e.profile.Setting, TimeLimit: limit, Grace: a.GracePeriod.Duration, BenchHash: e.b.Hash,
					AgentBin: agentBin, EngineSetting: e.o.Engine, Host: e.o.Host, BridgeBin: binaries.Bridge(e.o.binRoot()), Hide: hide, Validate: check, SampleEvery: e.profile.GPUSampleEvery.Duration, Log: e.log})
			}
		}
	}
	return jobs, unprepared, nil
}

// keptFailed counts the finished runs among jobs that ended failed.
func keptFailed(jobs []*runner.Job) int {
	n := 0
	for _, j := range jobs {
		if in, done := runner.Finished(j.RunDir); done && in.Status == runner.StatusFailed {
			n++
		}
	}
	return n
}

// devicesOf maps the scheduler's GPU slots to devices: NVML indices for
// run.json and the engines (a MIG instance's parent), the devices for the
// sampler and CUDA_VISIBLE_DEVICES.
func devicesOf(slots []int, devs []gpu.Device) ([]int, []gpu.Device) {
	var idx []int
	var out []gpu.Device
	seen := map[int]bool{}
	for _, s := range slots {
		if s < 0 || s >= len(devs) {
			continue
		}
		d := devs[s]
		out = append(out, d)
		if !seen[d.Index] {
			seen[d.Index] = true
			idx = append(idx, d.Index)
		}
	}
	return idx, out
}

// withGPUEnv gives the agent CUDA_DEVICE_ORDER=PCI_BUS_ID and
// CUDA_VISIBLE_DEVICES with the UUIDs of the devices it holds (the only way
// to name a MIG instance; empty when it holds none), on a copy of its
// set_env.
func withGPUEnv(a config.Agent, devs []gpu.Device) config.Agent {
	env := make(map[string]string, len(a.SetEnv)+2)
	for k, v := range a.SetEnv {
		env[k] = v
	}
	for k, v := range gpu.AgentEnv(devs) {
		env[k] = v
	}
	if len(devs) == 0 {
		env["CUDA_VISIBLE_DEVICES"] = "" // a run that holds no GPU uses none
	}
	a.SetEnv = env
	return a
}

// notStarted reports whether a run's outcome is one the stage refused.
func notStarted(o runner.Outcome) bool {
	return o.Info != nil && o.Info.Status == runner.StatusFailed && strings.HasPrefix(o.Info.Error, "not started: ")
}

// Run runs every (challenge, agent, seed) of the profile on the prepared
// challenges: finished runs are kept (REXMLE_RETRY_FAILED=1 reruns the
// failed ones), runs a stopped stage left behind are restarted or marked
// interrupted (profile.resume), one run per free GPU set for GPU agents
// and profile.workers (default one per core) for the others, GPU telemetry
// stored as it goes. The doctor's checks run first: a run they show cannot
// start (no usable GPU, a missing key, engine, image or executable) is
// recorded failed with its reason, not started, and the stage then exits
// non-zero naming it; so does a stage in which no run ended done. With
// scheduler = "slurm" the runs are submitted as a job array instead and
// ingested when they end.
func Run(ctx context.Context, o Options) error {
	if o.Benchmark == nil || o.OpenStore == nil || o.PreparedDir == nil || o.CheckPrepared == nil {
		return fmt.Errorf("run: no benchmark, store or prepared data")
	}
	e := &env{b: o.Benchmark, profile: o.Profile, challenges: o.Challenges, o: &o, log: o.Log}
	e.opt.Profile, e.opt.Mode, e.opt.DryRun, e.opt.Force = o.ProfileName, o.Mode, o.DryRun, o.Force
	if e.log == nil {
		e.log = slog.Default()
	}
	all, unprepared, err := planRuns(e, binaries.Agent(o.binRoot()))
	if err != nil {
		return err
	}
	if err := binaries.Check(ctx, o.binRoot()); err != nil {
		return fmt.Errorf("run: %w", err)
	}
	unpreparedErr := e.unpreparedError(unprepared)
	jobs, kept, err := runner.Pending(all, e.profile.Resume, o.Force, o.RetryFailed)
	if err != nil {
		return err
	}
	if o.DryRun {
		if e.profile.Scheduler == "slurm" {
			return runSlurm(ctx, e, nil, jobs, kept, nil)
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
	if len(jobs) == 0 {
		return nothingToRun(all, kept, unpreparedErr)
	}
	rep := e.preflight(ctx)
	printPreflight(rep)
	if e.profile.Scheduler == "slurm" {
		return runSlurm(ctx, e, rec, jobs, kept, slurmRefusal(rep))
	}
	return e.runLocal(ctx, rec, rep, jobs, kept, unpreparedErr)
}

// unpreparedError says, once printed, that unprepared challenges were
// skipped, and returns the error the stage ends with for them (nil when
// there are none). Runs of unprepared challenges cannot start: the others go
// ahead, and the stage then exits non-zero (a paper run on a host that never
// fetched said "nothing to run" and exited 0).
func (e *env) unpreparedError(unprepared int) error {
	if unprepared == 0 {
		return nil
	}
	fmt.Printf("run: %d challenge(s) not prepared, skipped (run `go run mage.go prepare`)\n", unprepared)
	first := "`go run mage.go prepare`"
	if e.profile.Data == "fetched" {
		first = "`go run mage.go fetch`, then " + first
	}
	return fmt.Errorf("run: %d challenge(s) of profile %s not prepared, their runs not started (run %s first; `go run mage.go doctor` lists them)", unprepared, e.opt.Profile, first)
}

// nothingToRun reports a stage with no pending run: an error when every
// kept run failed, or when challenges were not prepared.
func nothingToRun(all []*runner.Job, kept int, unpreparedErr error) error {
	msg := fmt.Sprintf("run: up to date, nothing to run (%d finished runs kept)", kept)
	f := keptFailed(all)
	if f > 0 {
		msg += fmt.Sprintf("; %d of them failed: REXMLE_RETRY_FAILED=1 reruns those", f)
	}
	fmt.Println(msg)
	if f > 0 && f == kept {
		return errors.Join(fmt.Errorf("run: every one of the %d run(s) failed; fix the cause (see their logs/console.log), then rerun them with REXMLE_RETRY_FAILED=1", f), unpreparedErr)
	}
	return unpreparedErr
}

// printPreflight lists the doctor's failed checks, if any.
func printPreflight(rep *doctor.Report) {
	if f := rep.Failures(); len(f) > 0 {
		fmt.Printf("run: preflight found %d problem(s) (`go run mage.go doctor` prints every check):\n", len(f))
		for _, c := range f {
			fmt.Printf("  %s %s: %s\n", c.Area, c.Item, c.Detail)
		}
	}
}

// slurmRefusal says why a run cannot be submitted to Slurm. The GPUs are the
// compute nodes', not this host's: only the other checks stop a Slurm run
// here.
func slurmRefusal(rep *doctor.Report) func(j *runner.Job) string {
	return func(j *runner.Job) string {
		var cs []doctor.Check
		for _, c := range rep.Blocking(j.Agent.ID, j.Challenge) {
			if c.Area != "gpu" {
				cs = append(cs, c)
			}
		}
		return doctor.Reasons(cs)
	}
}

// runLocal runs the pending jobs on this host's GPUs and cores, records
// each, and prints the summary.
func (e *env) runLocal(ctx context.Context, rec *record.Recorder, rep *doctor.Report, jobs []*runner.Job, kept int, unpreparedErr error) error {
	refuse := func(j *runner.Job) string { return doctor.Reasons(rep.Blocking(j.Agent.ID, j.Challenge)) }
	devs := rep.GPUs
	slots := make([]int, len(devs))
	single := map[int]bool{}
	for i, d := range devs {
		slots[i] = i
		single[i] = d.IsMIG()
	}
	var (
		mu      sync.Mutex
		failed  []string
		refused []string
		done    int
	)
	prepare := func(j *runner.Job) error {
		idx, ds := devicesOf(j.GPUs, devs)
		j.GPUs = idx
		j.Agent = withGPUEnv(j.Agent, ds)
		j.Sampler, j.TelemetryNote = nil, rep.NoGPU
		if len(ds) > 0 {
			s, err := gpu.OpenDevices(ds)
			if err != nil {
				j.TelemetryNote = err.Error()
			} else {
				j.Sampler = s
			}
		} else if rep.NoGPU == "" {
			j.TelemetryNote = "the agent uses no GPU"
		}
		j.OnSamples = func(b []gpu.Sample) { rec.Samples(j, b) }
		return rec.Start(ctx, j)
	}
	pr := newRunProgress(len(jobs))
	start := time.Now()
	outs, err := runner.Schedule(ctx, jobs, runner.Pool{GPUs: slots, CPUSlots: e.profile.Workers, NoGPU: rep.NoGPU, Single: single}, runner.Hooks{
		Refuse:  refuse,
		Prepare: prepare,
		Done: func(out runner.Outcome) {
			if out.Job.Sampler != nil {
				out.Job.Sampler.Close()
			}
			if rerr := rec.End(context.WithoutCancel(ctx), out.Job, out.Info); rerr != nil {
				e.log.Warn("run not recorded", "run", out.Job.ID(), "err", rerr)
			}
			mu.Lock()
			defer mu.Unlock()
			if out.OK() {
				done++
				return
			}
			msg := ""
			if out.Err != nil {
				msg = out.Err.Error()
			} else if out.Info != nil {
				msg = out.Info.Status + " " + out.Info.Error
			}
			line := fmt.Sprintf("%s: %s (log: %s)", out.Job.ID(), msg, e.rel(filepath.Join(out.Job.RunDir, "logs", "console.log")))
			if notStarted(out) {
				refused = append(refused, line)
			} else {
				failed = append(failed, line)
			}
		},
		Progress: pr.show,
	})
	pr.finish()
	tel := "GPU telemetry: unavailable (" + rep.NoGPU + ")"
	if len(devs) > 0 {
		tel = fmt.Sprintf("GPU telemetry: NVML, %d device(s)", len(devs))
	}
	if err != nil && ctx.Err() != nil {
		// Interrupted: the runs cut short are recorded interrupted and
		// restarted by the next run stage, not counted as failures.
		fmt.Printf("run: interrupted after %s: %d run(s) ended done and kept, %d stopped (restarted next time), %d not started; %d finished earlier kept\n",
			time.Since(start).Round(time.Millisecond), done, len(outs)-done, len(jobs)-len(outs), kept)
		return err
	}
	fmt.Printf("run: %d run(s) in %s, %d not done (%d could not start), %d already finished; %s\n", len(outs), time.Since(start).Round(time.Millisecond),
		len(failed)+len(refused), len(refused), kept, tel)
	for _, f := range append(refused, failed...) {
		fmt.Println("  " + f)
	}
	if err != nil {
		return err
	}
	if len(refused) > 0 {
		return fmt.Errorf("run: %d run(s) could not start (recorded failed; fix the problems above, then rerun them with REXMLE_RETRY_FAILED=1): %s",
			len(refused), strings.Join(firstIDs(refused, 5), ", "))
	}
	if done == 0 && len(outs) > 0 {
		return errors.Join(fmt.Errorf("run: none of %d run(s) ended done", len(outs)), unpreparedErr)
	}
	return unpreparedErr
}

// firstIDs returns the run ids of the first n summary lines.
func firstIDs(lines []string, n int) []string {
	var out []string
	for i, l := range lines {
		if i == n {
			out = append(out, fmt.Sprintf("and %d more", len(lines)-n))
			break
		}
		if k := strings.Index(l, ": "); k > 0 {
			l = l[:k]
		}
		out = append(out, l)
	}
	return out
}

// runProgress prints the scheduler's progress: one redrawn line on a
// terminal, a line per finished run otherwise (with mage -v; the stage's
// summary line says the rest).
type runProgress struct {
	tty   bool
	total int
	done  int
	lines bool // a line per finished run when not on a terminal: only with mage -v
}

func newRunProgress(total int) *runProgress {
	st, err := os.Stderr.Stat()
	return &runProgress{tty: err == nil && st.Mode()&os.ModeCharDevice != 0, total: total, lines: mg.Verbose()}
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
		if r.lines {
			fmt.Fprintln(os.Stderr, line)
		}
	}
}

func (r *runProgress) finish() {
	if r.tty {
		fmt.Fprintln(os.Stderr)
	}
}
