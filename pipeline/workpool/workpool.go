// Package workpool is the pipeline's one bounded worker pool: the stages
// (prepare, grade, fetch verification, the report's renderers) hand it n
// independent jobs by index.
package workpool

import (
	"context"
	"runtime"
	"sync"
)

// Each calls fn(i) for every i in [0, n) on at most workers goroutines at a
// time (workers ≤ 0: GOMAXPROCS), handing indices out in increasing order.
// Once ctx is done no new index starts; calls already running finish. It
// returns when every started call has returned. Callers keep per-index
// results in slices indexed by i, so what they report does not depend on
// scheduling. With one worker the calls run on the calling goroutine.
func Each(ctx context.Context, n, workers int, fn func(i int)) {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, n)
	if workers == 1 { // one job, or one core: on the calling goroutine
		for i := 0; i < n && ctx.Err() == nil; i++ {
			fn(i)
		}
		return
	}
	var mu sync.Mutex
	next := 0
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				if next >= n || ctx.Err() != nil {
					mu.Unlock()
					return
				}
				i := next
				next++
				mu.Unlock()
				fn(i)
			}
		}()
	}
	wg.Wait()
}
