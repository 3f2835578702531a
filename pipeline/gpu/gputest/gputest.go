// Package gputest holds a stand-in GPU sampler for tests on hosts without
// a GPU.
package gputest

import (
	"context"
	"sync"

	"github.com/rexmle/rexmle/pipeline/gpu"
)

// Fake is a gpu.Sampler that replays fixed readings, one batch per call,
// then repeats the last.
type Fake struct {
	mu      sync.Mutex
	Batches [][]gpu.Sample
	calls   int
	// Pids records the pids passed to each call.
	Pids [][]int
}

// Sample returns the next batch.
func (f *Fake) Sample(ctx context.Context, pids []int) ([]gpu.Sample, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.Pids = append(f.Pids, append([]int(nil), pids...))
	if len(f.Batches) == 0 {
		return nil, nil
	}
	i := f.calls
	if i >= len(f.Batches) {
		i = len(f.Batches) - 1
	}
	f.calls++
	return f.Batches[i], nil
}

// Calls returns how many times Sample was called.
func (f *Fake) Calls() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls
}

// Close does nothing.
func (f *Fake) Close() error { return nil }
