package stages

import (
	"context"
	"fmt"

	"github.com/rexmle/rexmle/pipeline/runner"
)

func runSlurm(ctx context.Context, e *env, jobs []*runner.Job, kept int) error {
	return fmt.Errorf("run: scheduler slurm: %w", ErrNotImplemented)
}
