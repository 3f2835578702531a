package fetch

import (
	"context"
	"time"
)

// FetchPlan carries out a plan made earlier by Plan with the same options,
// so that the external tests can look at a plan and then run exactly it
// (Fetch plans and runs in one call).
func FetchPlan(ctx context.Context, p *DownloadPlan, opts Options) (*Summary, error) {
	f, err := newFetcher(opts)
	if err != nil {
		return nil, err
	}
	return f.execute(ctx, p, time.Now())
}
