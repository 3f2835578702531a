// Package parallel is the one parallel loop of the metric packages: work
// over an index range split into contiguous blocks, one goroutine per core.
// The split never changes a result: callers only use it for work whose
// blocks are independent (per line, per voxel, per slab merged afterwards).
package parallel

import (
	"runtime"
	"sync"
)

// For splits [0, n) into contiguous blocks [lo, hi) — at most GOMAXPROCS of
// them, none shorter than minBlock (so small inputs run on the calling
// goroutine) — and calls fn on each concurrently, returning when all have.
// Blocks differ in length by at most one. n ≤ 0 calls nothing.
func For(n, minBlock int, fn func(lo, hi int)) {
	Blocks(n, minBlock, func(_, lo, hi int) { fn(lo, hi) })
}

// Blocks is For with the block number b in [0, Workers(n, minBlock)) passed
// to fn, for work that keeps one partial result per block (merged by the
// caller in block order, so the result does not depend on scheduling). It
// returns the number of blocks.
func Blocks(n, minBlock int, fn func(b, lo, hi int)) int {
	if n <= 0 {
		return 0
	}
	workers := Workers(n, minBlock)
	if workers <= 1 {
		fn(0, 0, n)
		return 1
	}
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		lo, hi := n*w/workers, n*(w+1)/workers
		wg.Add(1)
		go func() {
			defer wg.Done()
			fn(w, lo, hi)
		}()
	}
	wg.Wait()
	return workers
}

// Workers is how many blocks For splits n items into.
func Workers(n, minBlock int) int {
	workers := runtime.GOMAXPROCS(0)
	if minBlock < 1 {
		minBlock = 1
	}
	return max(1, min(workers, n/minBlock))
}

// Each calls f(p) for every p in [0, parts) concurrently (parts goroutines;
// the caller chose parts, e.g. with Workers) and returns when all have.
func Each(parts int, f func(p int)) {
	if parts == 1 {
		f(0)
		return
	}
	var wg sync.WaitGroup
	for p := 0; p < parts; p++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f(p)
		}()
	}
	wg.Wait()
}
