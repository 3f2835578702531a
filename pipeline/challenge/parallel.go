package challenge

import (
	"context"
	"runtime"
	"sync"
)

// ForEach runs fn(i) for i in [0, n) on up to GOMAXPROCS goroutines and
// returns the error of the lowest index that failed (nil if none), so the
// reported problem does not depend on scheduling. It stops handing out new
// indices once ctx is done or an index has failed.
func ForEach(ctx context.Context, n int, fn func(i int) error) error {
	workers := runtime.GOMAXPROCS(0)
	if workers > n {
		workers = n
	}
	errs := make([]error, n)
	var mu sync.Mutex
	next, failed := 0, false
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				if next >= n || failed || ctx.Err() != nil {
					mu.Unlock()
					return
				}
				i := next
				next++
				mu.Unlock()
				if err := fn(i); err != nil {
					errs[i] = err
					mu.Lock()
					failed = true
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return ctx.Err()
}
