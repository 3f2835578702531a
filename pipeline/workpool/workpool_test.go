package workpool

import (
	"context"
	"sync/atomic"
	"testing"
	"time"
)

func TestEachRunsEveryIndexOnceWithinTheBound(t *testing.T) {
	for _, workers := range []int{0, 1, 3, 16} {
		for _, n := range []int{0, 1, 5, 100} {
			hits := make([]atomic.Int32, n)
			var running, peak atomic.Int32
			Each(context.Background(), n, workers, func(i int) {
				r := running.Add(1)
				for {
					p := peak.Load()
					if r <= p || peak.CompareAndSwap(p, r) {
						break
					}
				}
				time.Sleep(100 * time.Microsecond)
				hits[i].Add(1)
				running.Add(-1)
			})
			for i := range hits {
				if hits[i].Load() != 1 {
					t.Fatalf("workers %d, n %d: index %d ran %d times", workers, n, i, hits[i].Load())
				}
			}
			if workers > 0 && int(peak.Load()) > workers {
				t.Errorf("workers %d, n %d: %d ran at once", workers, n, peak.Load())
			}
		}
	}
}

func TestEachStopsStartingOnceCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var ran atomic.Int32
	Each(ctx, 1000, 2, func(i int) {
		if ran.Add(1) == 10 {
			cancel()
		}
	})
	if n := ran.Load(); n < 10 || n > 12 {
		t.Errorf("%d jobs ran after cancelling at the 10th, want 10 to 12 (2 workers)", n)
	}
}
