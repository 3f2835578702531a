//go:build mage

// The rexmle pipeline: fetch → prepare → run → grade → rank → judge → report.
// Settings come from REXMLE_* environment variables, declared in
// pipeline/settings and read once per target by load (README.md's table,
// `go run mage.go settings`); each target's doc ends with those it reads.
package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"

	"github.com/magefile/mage/mg"
	"github.com/magefile/mage/sh"

	"github.com/rexmle/rexmle/pipeline/agentimage"
	"github.com/rexmle/rexmle/pipeline/binaries"
	"github.com/rexmle/rexmle/pipeline/settings"
	"github.com/rexmle/rexmle/pipeline/smoke"
	"github.com/rexmle/rexmle/pipeline/stages"
)

// Default is what `mage` with no target runs.
var Default = All

// load reads and checks the settings: the one read of the environment. An
// unknown REXMLE_* name or a bad value stops the target before any work.
func load() (settings.Settings, error) { return settings.Load(os.Environ()) }

// opts are the stages' options from the settings.
// The agent binaries are the ones the Binaries target builds here, in the
// checkout, wherever REXMLE_CONFIG's benchmark file is.
func opts() (stages.Options, error) {
	s, err := load()
	o := stages.FromSettings(s)
	if wd, werr := os.Getwd(); werr == nil {
		o.BinRoot = wd
	}
	return o, stages.SettingsError(err) // exit status 2
}

// withOptions runs a stage with the options, once the settings are read,
// with Ctrl-C handled by the stages (stages.Target: the target's name is
// what an interrupted stage says to rerun).
func withOptions(ctx context.Context, target string, stage func(context.Context, stages.Options) error) error {
	o, err := opts()
	if err != nil {
		return err
	}
	return stage(stages.Target(ctx, target), o)
}

// Fetch downloads the challenges' raw data from their sources of record, verified and resumable (REXMLE_DRY_RUN=1 lists the plan).
// Settings: REXMLE_CONFIG, REXMLE_PROFILE, REXMLE_CHALLENGES, REXMLE_FORCE, REXMLE_DRY_RUN, REXMLE_LOCK_WAIT, REXMLE_FETCH_TOKEN.
func Fetch(ctx context.Context) error { return withOptions(ctx, "fetch", stages.Fetch) }

// FetchVerify re-hashes every downloaded file against its FETCHED.lock record (size, SHA-256, MD5) and exits non-zero naming any that changed or any raw folder of files with no record (placed by hand); it downloads nothing.
// Settings: REXMLE_CONFIG, REXMLE_PROFILE, REXMLE_CHALLENGES, REXMLE_LOCK_WAIT, REXMLE_FETCH_TOKEN.
func FetchVerify(ctx context.Context) error {
	return withOptions(ctx, "fetchVerify", stages.FetchVerify)
}

// Prepare builds each challenge's public and private data (synthetic data on the demo profile).
// Settings: REXMLE_CONFIG, REXMLE_PROFILE, REXMLE_CHALLENGES, REXMLE_MODE, REXMLE_FORCE, REXMLE_LOCK_WAIT, REXMLE_SYNTH_CASES.
func Prepare(ctx context.Context) error { return withOptions(ctx, "prepare", stages.Prepare) }

// Run runs the profile's agents on every prepared challenge, with GPU telemetry where available (builds the agent binaries first).
// Settings: REXMLE_CONFIG, REXMLE_PROFILE, REXMLE_CHALLENGES, REXMLE_MODE, REXMLE_FORCE, REXMLE_RETRY_FAILED, REXMLE_DRY_RUN, REXMLE_LOCK_WAIT, REXMLE_ENGINE, REXMLE_SYNTH_CASES.
func Run(ctx context.Context) error {
	o, err := opts()
	if err != nil {
		return err
	}
	mg.CtxDeps(ctx, Binaries)
	return stages.Run(stages.Target(ctx, "run"), o) // Ctrl-C waits for the agents' grace periods
}

// Binaries builds bin/rexmle-agent (built-in agents, sandbox bridge, validate client) and the static bin/rexmle-bridge; run, all and doctor build them first.
func Binaries(ctx context.Context) error { return binaries.Build(ctx, ".") }

// Doctor checks that the profile's runs can start (engines, images, GPUs through NVML, API keys by name, prepared data, disk) and prints a table; any problem exits non-zero.
// Settings: REXMLE_CONFIG, REXMLE_PROFILE, REXMLE_CHALLENGES, REXMLE_LOCK_WAIT, REXMLE_ENGINE.
func Doctor(ctx context.Context) error {
	o, err := opts()
	if err != nil {
		return err
	}
	mg.CtxDeps(ctx, Binaries)
	return stages.Doctor(ctx, o)
}

// Smoke runs each agent of the profile for a few minutes (REXMLE_SMOKE_TIME, default 5m) on a synthetic challenge through the real runner against a scripted LLM on loopback (offline, no API key) and fails naming the step that broke unless each hands in a valid submission.
// Settings: REXMLE_CONFIG, REXMLE_PROFILE, REXMLE_ENGINE, REXMLE_AGENTS, REXMLE_SMOKE_CHALLENGE, REXMLE_SMOKE_TIME.
func Smoke(ctx context.Context) error {
	s, err := load()
	if err != nil {
		return err
	}
	mg.CtxDeps(ctx, Binaries)
	return smoke.FromSettings(stages.Interruptible(ctx), s)
}

// Grade grades every submission under results/runs that has no grade yet.
// Settings: REXMLE_CONFIG, REXMLE_PROFILE, REXMLE_CHALLENGES, REXMLE_MODE, REXMLE_FORCE, REXMLE_LOCK_WAIT, REXMLE_SYNTH_CASES.
func Grade(ctx context.Context) error { return withOptions(ctx, "grade", stages.Grade) }

// gradeOneUsage is printed when gradeOne is given fewer than its two arguments.
const gradeOneUsage = `usage: mage gradeOne <challenge> <submission folder>
  grades one submission folder against the prepared challenge in REXMLE_MODE
  (REXMLE_BOTH_MODES=1: both modes) and prints one JSON line; writes nothing.
  e.g. mage gradeOne ldct-iqa results/runs/demo/ldct-iqa/baseline/seed-1/submission`

// init prints gradeOne's usage when it is called with fewer than two
// arguments (mage itself would only say how many it expected) and exits 2.
func init() {
	args := os.Args[1:]
	for i, a := range args {
		if strings.EqualFold(a, "gradeOne") && len(args)-i-1 < 2 {
			fmt.Fprintln(os.Stderr, gradeOneUsage)
			os.Exit(2)
		}
	}
}

// GradeOne grades one submission folder against a prepared challenge and prints the result as JSON (usage: mage gradeOne <challenge> <submission folder>).
// Settings: REXMLE_CONFIG, REXMLE_PROFILE, REXMLE_CHALLENGES, REXMLE_MODE, REXMLE_BOTH_MODES, REXMLE_LOCK_WAIT, REXMLE_SYNTH_CASES.
func GradeOne(ctx context.Context, challenge, submissionDir string) error {
	o, err := opts()
	if err != nil {
		return err
	}
	return stages.GradeOne(ctx, o, challenge, submissionDir)
}

// Rank ranks every run against the human leaderboards, writes the CSV exports and checks the paper's tables.
// Settings: REXMLE_CONFIG, REXMLE_PROFILE, REXMLE_CHALLENGES, REXMLE_LOCK_WAIT, REXMLE_BOOT, REXMLE_BOOT_SEED.
func Rank(ctx context.Context) error { return withOptions(ctx, "rank", stages.Rank) }

// Judge scores the agents' logs against the 13 winning strategies.
// Settings: REXMLE_CONFIG, REXMLE_PROFILE, REXMLE_CHALLENGES, REXMLE_FORCE, REXMLE_LOCK_WAIT.
func Judge(ctx context.Context) error { return withOptions(ctx, "judge", stages.Judge) }

// JudgeAgreement prints the agreement and Cohen's kappa per strategy between every two judges in the store (e.g. the LLM and the heuristic judge) and with human labels in results/judge-labels.csv; it judges nothing.
// Settings: REXMLE_CONFIG, REXMLE_PROFILE, REXMLE_CHALLENGES, REXMLE_LOCK_WAIT.
func JudgeAgreement(ctx context.Context) error {
	return withOptions(ctx, "judgeAgreement", stages.JudgeAgreement)
}

// Report generates the static results site.
// Settings: REXMLE_CONFIG, REXMLE_PROFILE, REXMLE_CHALLENGES, REXMLE_LOCK_WAIT.
func Report(ctx context.Context) error { return withOptions(ctx, "report", stages.Report) }

// All runs every stage on the active profile (offline demo by default): prepare, run, grade, rank, judge, report.
// Settings: REXMLE_CONFIG, REXMLE_PROFILE, REXMLE_CHALLENGES, REXMLE_MODE, REXMLE_FORCE, REXMLE_RETRY_FAILED, REXMLE_DRY_RUN, REXMLE_LOCK_WAIT, REXMLE_ENGINE, REXMLE_BOOT, REXMLE_BOOT_SEED, REXMLE_SYNTH_CASES.
func All(ctx context.Context) error {
	o, err := opts()
	if err != nil {
		return err
	}
	ctx = stages.Target(ctx, "all") // Ctrl-C: each stage stops and keeps its finished work; agents get their grace periods (mage alone gives 5 s)
	mg.CtxDeps(ctx, Binaries)
	mg.SerialCtxDeps(ctx, Prepare, Run, Grade, Rank, Judge, Report)
	return stages.Summary(ctx, o)
}

// Agents builds every agents/<id>/Containerfile into rexmle-<id>:<recipe hash> and :latest with the agent's engine, else REXMLE_ENGINE, else docker (REXMLE_AGENTS=a,b picks some; REXMLE_FORCE=1 rebuilds), skipping those up to date, and records base images and installed versions in results/agent-images.jsonl.
// Settings: REXMLE_CONFIG, REXMLE_PROFILE, REXMLE_FORCE, REXMLE_ENGINE, REXMLE_AGENTS.
func Agents(ctx context.Context) error {
	s, err := load()
	if err != nil {
		return err
	}
	return agentimage.FromSettings(ctx, s)
}

// Settings prints every setting (name, default, the targets that read it, what it does); `go run mage.go -h <target>` lists those of one target.
func Settings() { fmt.Print(settings.Print("")) }

// Test runs the test suite (the same command as CI).
func Test() error { return sh.RunV("go", "test", "-timeout", "30m", "./...") }

// Check runs go vet, staticcheck when it is installed (CI pins it), and the test suite.
func Check() error {
	if err := sh.RunV("go", "vet", "./..."); err != nil {
		return err
	}
	if _, err := exec.LookPath("staticcheck"); err == nil {
		if err := sh.RunV("staticcheck", "./..."); err != nil {
			return err
		}
	} else {
		fmt.Println("check: staticcheck not installed (go install honnef.co/go/tools/cmd/staticcheck@<the version .ci/run pins>); skipped")
	}
	return Test()
}

// Publish writes results/bundle/<profile>/, the text export of the store's runs, grades, per-case values, GPU telemetry and judge scores (no SQLite, data or answers) to commit: `report` on a checkout without the store (a fresh clone, the Pages workflow) builds the same site from it.
// Settings: REXMLE_CONFIG, REXMLE_PROFILE, REXMLE_CHALLENGES, REXMLE_LOCK_WAIT, REXMLE_BOOT, REXMLE_BOOT_SEED.
func Publish(ctx context.Context) error { return withOptions(ctx, "publish", stages.Publish) }
