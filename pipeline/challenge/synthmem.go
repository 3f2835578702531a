package challenge

import (
	"context"
	"math"
	"runtime/debug"
	"sync"
)

// Synthesizing a real-size volume holds a few bytes a voxel for as long as
// the case is drawn and written. Cases run on every core, and the prepare
// stage synthesizes several challenges at once, so without a bound the
// cases in flight grow with the cores squared. ReserveSynthMemory bounds
// them by memory: the cases of every challenge in the process share one
// budget.

// synthBudget is the process's synthesis memory budget.
var synthBudget = sync.OnceValue(func() *memBudget { return newMemBudget(defaultSynthBudget(debug.SetMemoryLimit(-1), hostMemory())) })

// defaultSynthBudget is the bytes the synthesizers' cases in flight may
// reserve: half of the memory the process should stay under (GOMEMLIMIT
// when set, else half the host's RAM; 8 GiB where neither is known), the
// other half left to the garbage collector's headroom.
func defaultSynthBudget(memLimit, hostRAM int64) int64 {
	target := hostRAM / 2
	if memLimit > 0 && memLimit < math.MaxInt64 {
		target = memLimit
	}
	if target <= 0 {
		target = 8 << 30
	}
	return target / 2
}

// ReserveSynthMemory waits until n bytes of the synthesis memory budget are
// free, reserves them and returns the function that gives them back (safe
// to call more than once). A case larger than the whole budget waits until
// nothing else is reserved and then runs alone. It returns ctx's error if
// ctx is done first.
func ReserveSynthMemory(ctx context.Context, n int64) (release func(), err error) {
	return synthBudget().reserve(ctx, n)
}

// memBudget is a counting semaphore over bytes.
type memBudget struct {
	mu    sync.Mutex
	total int64
	used  int64
	freed chan struct{} // closed, and replaced, whenever bytes are given back
}

func newMemBudget(total int64) *memBudget {
	return &memBudget{total: max(1, total), freed: make(chan struct{})}
}

func (b *memBudget) reserve(ctx context.Context, n int64) (func(), error) {
	n = max(0, min(n, b.total))
	for {
		b.mu.Lock()
		if b.used+n <= b.total {
			b.used += n
			b.mu.Unlock()
			return sync.OnceFunc(func() {
				b.mu.Lock()
				b.used -= n
				close(b.freed)
				b.freed = make(chan struct{})
				b.mu.Unlock()
			}), nil
		}
		freed := b.freed
		b.mu.Unlock()
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-freed:
		}
	}
}
