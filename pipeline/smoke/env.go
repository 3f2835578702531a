package smoke

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/rexmle/rexmle/pipeline/binaries"
	_ "github.com/rexmle/rexmle/pipeline/challenges/all" // the smoke's challenge is looked up by id
	"github.com/rexmle/rexmle/pipeline/config"
	"github.com/rexmle/rexmle/pipeline/gpu"
	"github.com/rexmle/rexmle/pipeline/settings"
)

// FromSettings is `mage smoke`: the profile s.Profile of s.Config, its
// agents or those of s.Agents, on s.SmokeChallenge for s.SmokeTime per
// agent, into results/smoke/. It prints the table and fails when an agent
// did not hand in a valid submission.
func FromSettings(ctx context.Context, s settings.Settings) error {
	b, err := config.Load(s.Config)
	if err != nil {
		return err
	}
	o := Options{Bench: b, Profile: s.Profile, Challenge: s.SmokeChallenge, TimeLimit: s.SmokeTime, Agents: s.Agents,
		Out: filepath.Join(b.Path(b.Paths.Results), "smoke"), Log: slog.Default(), Host: s.Host, Engine: s.Engine}
	if err := binaries.Check(ctx, b.Root); err != nil {
		return fmt.Errorf("smoke: %w", err)
	}
	if all, err := gpu.Discover(); err == nil {
		v, set := s.Host.Lookup("CUDA_VISIBLE_DEVICES")
		if o.GPUs, err = gpu.Visible(all, v, set); err != nil {
			return fmt.Errorf("smoke: %w", err)
		}
	}
	rs, err := Run(ctx, o)
	Print(os.Stdout, o.Profile, rs)
	if err != nil {
		return err
	}
	return Err(o.Profile, rs)
}
