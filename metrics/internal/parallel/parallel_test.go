package parallel

import (
	"runtime"
	"sync/atomic"
	"testing"
)

// TestForCoversEveryIndexOnce checks that the blocks tile [0, n) exactly,
// respect the minimum block length and the core count, for many n.
func TestForCoversEveryIndexOnce(t *testing.T) {
	for _, procs := range []int{1, 2, 3, 8} {
		old := runtime.GOMAXPROCS(procs)
		for _, minBlock := range []int{0, 1, 7, 64} {
			for n := 0; n < 300; n++ {
				hits := make([]int32, n)
				var blocks atomic.Int32
				For(n, minBlock, func(lo, hi int) {
					blocks.Add(1)
					if hi-lo < max(1, minBlock) && hi-lo != n {
						t.Errorf("procs %d, n %d, min %d: block [%d,%d) shorter than the minimum", procs, n, minBlock, lo, hi)
					}
					for i := lo; i < hi; i++ {
						atomic.AddInt32(&hits[i], 1)
					}
				})
				for i, h := range hits {
					if h != 1 {
						t.Fatalf("procs %d, n %d, min %d: index %d visited %d times", procs, n, minBlock, i, h)
					}
				}
				if b := int(blocks.Load()); b > procs || (n > 0 && b != Workers(n, minBlock)) || (n == 0 && b != 0) {
					t.Errorf("procs %d, n %d, min %d: %d blocks, want Workers = %d (≤ %d)", procs, n, minBlock, b, Workers(n, minBlock), procs)
				}
			}
		}
		runtime.GOMAXPROCS(old)
	}
}

func TestEachCallsEveryPart(t *testing.T) {
	for parts := 1; parts < 10; parts++ {
		var seen [10]atomic.Int32
		Each(parts, func(p int) { seen[p].Add(1) })
		for p := 0; p < 10; p++ {
			want := int32(0)
			if p < parts {
				want = 1
			}
			if got := seen[p].Load(); got != want {
				t.Errorf("parts %d: part %d called %d times, want %d", parts, p, got, want)
			}
		}
	}
}

// TestBlocksNumbersBlocksInOrder checks that block b covers the b-th
// contiguous range and that the count returned is Workers.
func TestBlocksNumbersBlocksInOrder(t *testing.T) {
	old := runtime.GOMAXPROCS(4)
	defer runtime.GOMAXPROCS(old)
	for n := 0; n < 100; n++ {
		var los, his [4]atomic.Int32
		got := Blocks(n, 3, func(b, lo, hi int) {
			los[b].Store(int32(lo))
			his[b].Store(int32(hi))
		})
		want := 0
		if n > 0 {
			want = Workers(n, 3)
		}
		if got != want {
			t.Fatalf("n %d: %d blocks, want %d", n, got, want)
		}
		end := 0
		for b := 0; b < got; b++ {
			if int(los[b].Load()) != end || his[b].Load() <= los[b].Load() {
				t.Fatalf("n %d: block %d is [%d,%d), want it to start at %d", n, b, los[b].Load(), his[b].Load(), end)
			}
			end = int(his[b].Load())
		}
		if end != n {
			t.Fatalf("n %d: blocks end at %d", n, end)
		}
	}
}
