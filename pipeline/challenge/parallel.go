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

// Beside runs fn on a goroutine of its own and returns the function that
// waits for its result. A panic in fn is raised again in the goroutine that
// waits, as "what: value" with fn's stack, where SafeGrade (or ForEach)
// recovers it, instead of ending the process from a goroutine nobody
// recovers. Graders use it to decode an answer while its prediction is
// decoded.
func Beside[T any](what string, fn func() T) (wait func() T) {
	type result struct {
		v        T
		panicked any
	}
	done := make(chan result, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				done <- result{panicked: fmt.Sprintf("%s: %v\n%s", what, p, debug.Stack())}
			}
		}()
		done <- result{v: fn()}
	}()
	return func() T {
		r := <-done
		if r.panicked != nil {
			panic(r.panicked)
		}
		return r.v
	}
}
