package stages

import (
	"context"
	"os"

	"github.com/rexmle/rexmle/pipeline/doctor"
	"github.com/rexmle/rexmle/pipeline/runstage"
)

// Run runs every (challenge, agent, seed) of the profile on the prepared
// challenges (pipeline/runstage): finished runs are kept
// (RetryFailed reruns the failed ones), the doctor's checks run
// first, and with scheduler = "slurm" the runs go to a Slurm job array.
func Run(ctx context.Context, o Options) error {
	e, err := load(o)
	if err != nil {
		return err
	}
	agentsRunning.Store(true)
	defer agentsRunning.Store(false)
	err = runstage.Run(ctx, runstage.Options{
		Benchmark: e.b, ProfileName: e.opt.Profile, Profile: e.profile, Challenges: e.challenges,
		Mode: e.mode, Force: o.Force, DryRun: o.DryRun, RetryFailed: o.RetryFailed, Engine: o.Engine, Host: o.Host,
		OpenStore:     e.open,
		PreparedDir:   e.preparedDir,
		CheckPrepared: func(dir string) error { return checkPrepared(dir, e.profile.Data, e.opt.Profile, e.opt.SynthSize) },
		Log:           e.log,
		Rel:           rel,
		BinRoot:       o.BinRoot,
	})
	if err != nil && ctx.Err() != nil {
		return interrupted(ctx, "run", -1) // runstage said how many runs were not started
	}
	return err
}

// preflight runs the doctor's checks for the profile.
func preflight(ctx context.Context, e *env) *doctor.Report {
	return doctor.Run(ctx, doctor.Input{Bench: e.b, ProfileName: e.opt.Profile, Profile: e.profile, Challenges: e.challenges, Engine: e.opt.Engine, BinRoot: e.opt.BinRoot}, doctor.System(e.opt.Host))
}

// Doctor prints the preflight table of the profile: engines, images, GPUs,
// API keys (by name), data and disk; any problem is an error.
func Doctor(ctx context.Context, o Options) error {
	e, err := load(o)
	if err != nil {
		return err
	}
	rep := preflight(ctx, e)
	rep.Print(os.Stdout)
	return rep.Err()
}
