package challenge

import (
	"context"
	"fmt"
	"runtime/debug"
	"sync/atomic"

	"github.com/rexmle/rexmle/pipeline/workpool"
)

// ForEach runs fn(i) for i in [0, n) on up to GOMAXPROCS goroutines and
// returns the error of the lowest index that failed (nil if none), so the
// reported problem does not depend on scheduling. It stops handing out new
// indices once ctx is done or an index has failed. A panic in fn(i) is that
// index's error, a *WorkerPanic with the stack, instead of ending the
// process from a goroutine no caller can recover (SafeGrade reports it as
// the grader's crash).
func ForEach(ctx context.Context, n int, fn func(i int) error) error {
	errs := make([]error, n)
	var failed atomic.Bool
	workpool.Each(ctx, n, 0, func(i int) {
		if failed.Load() {
			return
		}
		defer func() {
			if p := recover(); p != nil {
				errs[i] = &WorkerPanic{Index: i, Value: p, Stack: string(debug.Stack())}
				failed.Store(true)
			}
		}()
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

// WorkerPanic is a panic in one index of ForEach: a bug, not a problem with
// the input.
type WorkerPanic struct {
	Index int
	Value any
	Stack string
}

func (e *WorkerPanic) Error() string { return fmt.Sprintf("item %d: panic: %v", e.Index, e.Value) }
