package stages

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"sync"
	"syscall"
)

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
		fmt.Fprintln(os.Stderr, "stopping: the agents get their grace period to stop and hand in their outputs; a second Ctrl-C exits at once")
		cancel()
		<-ch
		fmt.Fprintln(os.Stderr, "exiting without waiting for the agents")
		os.Exit(130)
	}()
	return ctx
}
