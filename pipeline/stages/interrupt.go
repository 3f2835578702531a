package stages

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"sync"
	"sync/atomic"
	"syscall"
)

// agentsRunning is true while the run stage has agents to stop: only then
// does the first Ctrl-C speak of their grace period.
var agentsRunning atomic.Bool

type targetKey struct{}

// Target prepares a Mage target's context: Ctrl-C is handled as
// Interruptible says, and the target's name is remembered for the
// messages ("rerun `mage all` to resume"). The outermost target's name is
// kept: the stages of `all` name `all`.
func Target(ctx context.Context, name string) context.Context {
	ctx = Interruptible(ctx)
	if _, ok := ctx.Value(targetKey{}).(string); ok {
		return ctx
	}
	return context.WithValue(ctx, targetKey{}, name)
}

// targetOf is the target ctx was prepared for, or fallback.
func targetOf(ctx context.Context, fallback string) string {
	if t, ok := ctx.Value(targetKey{}).(string); ok {
		return t
	}
	return fallback
}

var interruptOnce sync.Mutex
var interruptTaken bool

// Interruptible takes SIGINT and SIGTERM over from mage for a stage that
// stops agents: mage cancels the target's context on Ctrl-C but exits 5 s
// later whatever the target is doing, which cut every agent's grace
// period (SIGTERM, time to copy its submission out, then SIGKILL) to 5 s
// and killed sandboxed agents outright. Here the first signal cancels the
// returned context and the stage waits for its runs to stop; a second one
// exits at once (status 130). Only the first call in a process installs
// the handler; later calls (All's Run) return ctx as it is.
func Interruptible(ctx context.Context) context.Context {
	interruptOnce.Lock()
	defer interruptOnce.Unlock()
	if interruptTaken {
		return ctx
	}
	interruptTaken = true
	// Ignore drops every channel registered for these signals (mage's
	// included); Notify then registers ours alone.
	signal.Ignore(os.Interrupt, syscall.SIGTERM)
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	ctx, cancel := context.WithCancel(ctx)
	go func() {
		<-ch
		if agentsRunning.Load() {
			fmt.Fprintln(os.Stderr, "\nstopping: the agents get their grace period to stop and hand in their outputs; a second Ctrl-C exits at once")
		} else {
			fmt.Fprintln(os.Stderr, "\nstopping: finishing the item in hand, keeping what is done; a second Ctrl-C exits at once")
		}
		cancel()
		<-ch
		fmt.Fprintln(os.Stderr, "exiting at once")
		os.Exit(ExitInterrupted)
	}()
	return ctx
}
