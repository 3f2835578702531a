package challenge

import (
	"context"
	"sync/atomic"

	"github.com/rexmle/rexmle/pipeline/workpool"
)

// ForEach runs fn(i) for i in [0, n) on up to GOMAXPROCS goroutines and
// returns the error of the lowest index that failed (nil if none), so the
// reported problem does not depend on scheduling. It stops handing out new
// indices once ctx is done or an index has failed.
func ForEach(ctx context.Context, n int, fn func(i int) error) error {
	errs := make([]error, n)
	var failed atomic.Bool
	workpool.Each(ctx, n, 0, func(i int) {
		if failed.Load() {
			return
		}
		if err := fn(i); err != nil {
			errs[i] = err
			failed.Store(true)
		}
	})
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return ctx.Err()
}
