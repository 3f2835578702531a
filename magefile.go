//go:build mage

// The rexmle pipeline: fetch → prepare → run → grade → rank → judge → report.
// Options come from environment variables (see README.md): REXMLE_CONFIG,
// REXMLE_PROFILE, REXMLE_CHALLENGES, REXMLE_MODE, REXMLE_FORCE,
// REXMLE_RETRY_FAILED, REXMLE_DRY_RUN, REXMLE_BOTH_MODES, REXMLE_LOCK_WAIT,
// REXMLE_ENGINE, REXMLE_AGENTS, REXMLE_SMOKE_CHALLENGE, REXMLE_SMOKE_TIME,
// REXMLE_SYNTH_CASES.
package main

import (
	"context"
	"fmt"
	"os/exec"

	"github.com/magefile/mage/mg"
	"github.com/magefile/mage/sh"

	"github.com/rexmle/rexmle/pipeline/agentimage"
	"github.com/rexmle/rexmle/pipeline/binaries"
	"github.com/rexmle/rexmle/pipeline/smoke"
	"github.com/rexmle/rexmle/pipeline/stages"
)

// Default is what `mage` with no target runs.
var Default = All

// Fetch downloads the challenges' raw data from their sources of record, verified and resumable (REXMLE_DRY_RUN=1 lists the plan).
func Fetch(ctx context.Context) error { return stages.Fetch(ctx, stages.FromEnv()) }

// FetchVerify re-hashes every downloaded file against its FETCHED.lock record (size, SHA-256, MD5) and exits non-zero naming any that changed or any raw folder of files with no record (placed by hand); it downloads nothing.
func FetchVerify(ctx context.Context) error { return stages.FetchVerify(ctx, stages.FromEnv()) }

// Prepare builds each challenge's public and private data (synthetic data on the demo profile).
func Prepare(ctx context.Context) error { return stages.Prepare(ctx, stages.FromEnv()) }

// Run runs the profile's agents on every prepared challenge, with GPU telemetry where available (builds the agent binaries first).
func Run(ctx context.Context) error {
	mg.CtxDeps(ctx, Binaries)
	return stages.Run(stages.Interruptible(ctx), stages.FromEnv()) // Ctrl-C waits for the agents' grace periods
}

// Binaries builds bin/rexmle-agent (built-in agents, sandbox bridge, validate client) and the static bin/rexmle-bridge; run, all and doctor build them first.
func Binaries(ctx context.Context) error { return binaries.Build(ctx, ".") }

// Doctor checks that the profile's runs can start (engines, images, GPUs through NVML, API keys by name, prepared data, disk) and prints a table; any problem exits non-zero.
func Doctor(ctx context.Context) error {
	mg.CtxDeps(ctx, Binaries)
	return stages.Doctor(ctx, stages.FromEnv())
}

// Smoke runs each agent of the profile for a few minutes (REXMLE_SMOKE_TIME, default 5m) on a synthetic challenge through the real runner against a scripted LLM on loopback (offline, no API key) and fails naming the step that broke unless each hands in a valid submission.
func Smoke(ctx context.Context) error {
	mg.CtxDeps(ctx, Binaries)
	return smoke.FromEnv(stages.Interruptible(ctx))
}

// Grade grades every submission under results/runs that has no grade yet.
func Grade(ctx context.Context) error { return stages.Grade(ctx, stages.FromEnv()) }

// GradeOne grades one submission folder against a prepared challenge and prints the result as JSON.
func GradeOne(ctx context.Context, challenge, submissionDir string) error {
	return stages.GradeOne(ctx, stages.FromEnv(), challenge, submissionDir)
}

// Rank ranks every run against the human leaderboards, writes the CSV exports and checks the paper's tables.
func Rank(ctx context.Context) error { return stages.Rank(ctx, stages.FromEnv()) }

// Judge scores the agents' logs against the 13 winning strategies.
func Judge(ctx context.Context) error { return stages.Judge(ctx, stages.FromEnv()) }

// JudgeAgreement prints the agreement and Cohen's kappa per strategy between every two judges in the store (e.g. the LLM and the heuristic judge) and with human labels in results/judge-labels.csv; it judges nothing.
func JudgeAgreement(ctx context.Context) error {
	return stages.JudgeAgreement(ctx, stages.FromEnv())
}

// Report generates the static results site.
func Report(ctx context.Context) error { return stages.Report(ctx, stages.FromEnv()) }

// All runs every stage on the active profile (offline demo by default): prepare, run, grade, rank, judge, report.
func All(ctx context.Context) error {
	mg.CtxDeps(ctx, Binaries)
	ctx = stages.Interruptible(ctx) // Ctrl-C waits for the agents' grace periods (mage alone gives 5 s)
	mg.SerialCtxDeps(ctx, Prepare, Run, Grade, Rank, Judge, Report)
	return stages.Summary(ctx, stages.FromEnv())
}

// Agents builds every agents/<id>/Containerfile into rexmle-<id>:<recipe hash> and :latest with the agent's engine, else REXMLE_ENGINE, else docker (REXMLE_AGENTS=a,b picks some; REXMLE_FORCE=1 rebuilds), skipping those up to date, and records base images and installed versions in results/agent-images.jsonl.
func Agents(ctx context.Context) error { return agentimage.FromEnv(ctx) }

// Test runs the test suite (the same command as CI).
func Test() error { return sh.RunV("go", "test", "./...") }

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
func Publish(ctx context.Context) error { return stages.Publish(ctx, stages.FromEnv()) }
