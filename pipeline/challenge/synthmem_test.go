package challenge

import (
	"context"
	"errors"
	"math"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestDefaultSynthBudget(t *testing.T) {
	const gib = 1 << 30
	for _, c := range []struct {
		limit, ram, want int64
	}{
		{math.MaxInt64, 16 * gib, 4 * gib}, // no GOMEMLIMIT: half of half the RAM
		{6 * gib, 16 * gib, 3 * gib},       // GOMEMLIMIT: half of it
		{40 * gib, 16 * gib, 20 * gib},     // GOMEMLIMIT wins even above the RAM
		{math.MaxInt64, 0, 4 * gib},        // RAM unknown: 8 GiB assumed
	} {
		if got := defaultSynthBudget(c.limit, c.ram); got != c.want {
			t.Errorf("limit %d, RAM %d: budget %d, want %d", c.limit, c.ram, got, c.want)
		}
	}
	if runtime.GOOS == "linux" && hostMemory() < 64<<20 {
		t.Errorf("host memory %d bytes: not read", hostMemory())
	}
}

// Reservations never exceed the budget together, all of them run, a case
// larger than the budget runs alone, and a released reservation is
// released once.
func TestMemBudgetBounds(t *testing.T) {
	b := newMemBudget(100)
	var held, peak atomic.Int64
	var bigAlone atomic.Bool
	bigAlone.Store(true)
	var ran atomic.Int32
	var wg sync.WaitGroup
	for i := 0; i < 40; i++ {
		n := int64(30)
		if i == 20 {
			n = 150
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			release, err := b.reserve(context.Background(), n)
			if err != nil {
				t.Error(err)
				return
			}
			w := min(n, 100)
			h := held.Add(w)
			for p := peak.Load(); h > p && !peak.CompareAndSwap(p, h); p = peak.Load() {
			}
			if n > 100 && h != 100 {
				bigAlone.Store(false)
			}
			time.Sleep(time.Millisecond)
			held.Add(-w)
			ran.Add(1)
			release()
			release()
		}()
	}
	wg.Wait()
	if ran.Load() != 40 {
		t.Errorf("%d of 40 reservations ran", ran.Load())
	}
	if peak.Load() > 100 {
		t.Errorf("%d bytes reserved at once, budget 100", peak.Load())
	}
	if !bigAlone.Load() {
		t.Error("the reservation larger than the budget ran beside others")
	}
	if b.used != 0 {
		t.Errorf("%d bytes still reserved after every release", b.used)
	}
}

func TestMemBudgetWaitEndsWithContext(t *testing.T) {
	b := newMemBudget(10)
	release, err := b.reserve(context.Background(), 10)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := b.reserve(ctx, 1); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("waiting on a full budget: %v, want the context's deadline", err)
	}
	release()
	if r, err := b.reserve(context.Background(), 10); err != nil {
		t.Errorf("after the release: %v", err)
	} else {
		r()
	}
}
