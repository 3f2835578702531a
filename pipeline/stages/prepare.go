package stages

import (
	"context"
	"path/filepath"
	"time"

	"github.com/rexmle/rexmle/pipeline/challenge"
	"github.com/rexmle/rexmle/pipeline/config"
	"github.com/rexmle/rexmle/pipeline/prepare"
)

// Prepare synthesizes (demo profile) and prepares every selected challenge
// (pipeline/prepare): a progress line, then one summary line, with a line
// per failure.
func Prepare(ctx context.Context, o Options) error {
	e, err := load(o)
	if err != nil {
		return err
	}
	if e.profile.Data == prepare.Synthetic && !e.opt.SynthSize.IsDefault() {
		say("prepare: synthetic data of size %s (%s)", e.opt.SynthSize, challenge.SynthCasesEnv)
	}
	start := time.Now()
	sum, err := prepare.Run(ctx, prepare.Options{
		Benchmark: e.b, ProfileName: e.opt.Profile, Profile: e.profile, Challenges: e.challenges,
		Mode: e.mode, Force: e.opt.Force, SynthSize: e.opt.SynthSize,
		Progress: func(n int) prepare.Progress { return newProgress("prepare", n) },
		Rel:      rel,
	})
	if sum == nil {
		return err
	}
	prepared, fresh, failed, _ := sum.Counts()
	for _, r := range sum.Outcomes {
		switch {
		case r.Started && r.Err != nil:
			say("  %-22s FAILED: %v", r.ID, r.Err)
		case r.Did:
			detail("prepared", "challenge", r.ID, "elapsed", r.Elapsed.Round(time.Millisecond))
		}
	}
	for _, id := range sum.NoPreparer {
		say("  %-22s skipped: no grader is built into this version of rexmle", id)
	}
	if ctx.Err() != nil {
		return interrupted(ctx, "prepare", prepared+fresh)
	}
	switch {
	case prepared == 0 && failed == 0:
		say("prepare: %d challenge(s) up to date, skipped", fresh)
	default:
		say("prepare: %d prepared, %d up to date, %d failed in %s", prepared, fresh, failed, time.Since(start).Round(time.Millisecond))
	}
	return err
}

// preparedDir is where challenge id's prepared data of the profile's kind lives.
func (e *env) preparedDir(id string) string {
	_, root := e.b.DataRoots(e.profile.Data)
	return filepath.Join(root, id)
}

// kindOfGroup is the data kind a run group (a profile name) ran on: the
// profile's, or the current profile's when the group is not a profile.
func (e *env) kindOfGroup(group string) string {
	if p, ok := e.b.Profiles[group]; ok {
		return p.Data
	}
	return e.profile.Data
}

// checkPrepared is prepare.CheckPrepared with paths shown relative to the
// working folder.
func checkPrepared(dataDir, kind, profile string, size challenge.SynthSize) error {
	return prepare.CheckPrepared(dataDir, kind, profile, size, rel)
}

// dataRoots returns where raw and prepared data of a kind live.
func dataRoots(b *config.Benchmark, kind string) (raw, prepared string) { return b.DataRoots(kind) }
