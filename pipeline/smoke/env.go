package smoke

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/rexmle/rexmle/pipeline/binaries"
	_ "github.com/rexmle/rexmle/pipeline/challenges/all" // the smoke's challenge is looked up by id
	"github.com/rexmle/rexmle/pipeline/config"
	"github.com/rexmle/rexmle/pipeline/gpu"
)

// FromEnv is `mage smoke`: the profile $REXMLE_PROFILE (default demo) of
// $REXMLE_CONFIG (default benchmark.toml), its agents or those of
// $REXMLE_AGENTS, on $REXMLE_SMOKE_CHALLENGE (default ldct-iqa) for
// $REXMLE_SMOKE_TIME per agent (default 5m), into results/smoke/. It
// prints the table and fails when an agent did not hand in a valid
// submission.
func FromEnv(ctx context.Context) error {
	cfg := os.Getenv("REXMLE_CONFIG")
	if cfg == "" {
		cfg = "benchmark.toml"
	}
	b, err := config.Load(cfg)
	if err != nil {
		return err
	}
	o := Options{Bench: b, Profile: strings.TrimSpace(os.Getenv("REXMLE_PROFILE")), Challenge: strings.TrimSpace(os.Getenv("REXMLE_SMOKE_CHALLENGE")),
		Out: filepath.Join(b.Path(b.Paths.Results), "smoke"), Log: slog.Default()}
	if o.Profile == "" {
		o.Profile = "demo"
	}
	if v := strings.TrimSpace(os.Getenv("REXMLE_SMOKE_TIME")); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return fmt.Errorf("REXMLE_SMOKE_TIME is %q, want a positive duration such as \"3m\"", v)
		}
		o.TimeLimit = d
	}
	for _, id := range strings.Split(os.Getenv("REXMLE_AGENTS"), ",") {
		if id = strings.TrimSpace(id); id != "" {
			o.Agents = append(o.Agents, id)
		}
	}
	if err := binaries.Check(ctx, b.Root); err != nil {
		return fmt.Errorf("smoke: %w", err)
	}
	if all, err := gpu.Discover(); err == nil {
		v, set := os.LookupEnv("CUDA_VISIBLE_DEVICES")
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
