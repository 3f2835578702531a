package stages

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// LockName is the lock file in the checkout (the folder of benchmark.toml).
const LockName = ".rexmle.lock"

// The checkout lock is held by the process from its first stage until it
// exits (the kernel drops a flock with the process), so `mage all` keeps
// it across its stages and a second `mage` in the same checkout waits for
// the whole of the first. Stages in one process share it.
var (
	locksMu sync.Mutex
	locks   = map[string]*os.File{} // lock path → the open, locked file
)

// lockPollEvery is how often a waiting stage tries the lock again.
var lockPollEvery = 500 * time.Millisecond

// lockCheckout takes the exclusive lock of the checkout at root, waiting up
// to wait for another process that holds it (and saying so once, on
// stderr). A stage that cannot have it in time fails with a message naming
// the holder; nothing has been done by then.
func lockCheckout(ctx context.Context, root string, wait time.Duration) error {
	path := filepath.Join(root, LockName)
	locksMu.Lock()
	defer locksMu.Unlock()
	if _, held := locks[path]; held {
		return nil
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("checkout lock %s: %w", rel(path), err)
	}
	deadline := time.Now().Add(wait)
	said := false
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			break
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			f.Close()
			return fmt.Errorf("checkout lock %s: %w", rel(path), err)
		}
		holder := lockHolder(path)
		if !time.Now().Before(deadline) {
			f.Close()
			return fmt.Errorf("another rexmle stage holds this checkout (%s; lock %s); waited %s (REXMLE_LOCK_WAIT): try again when it has finished", holder, rel(path), wait)
		}
		if !said {
			fmt.Fprintf(os.Stderr, "waiting for another rexmle stage in this checkout to finish (%s); up to %s (REXMLE_LOCK_WAIT)\n", holder, wait)
			said = true
		}
		select {
		case <-ctx.Done():
			f.Close()
			return ctx.Err()
		case <-time.After(min(lockPollEvery, time.Until(deadline)+time.Millisecond)):
		}
	}
	// Say who holds it, for whoever waits next.
	if err := f.Truncate(0); err == nil {
		fmt.Fprintf(f, "pid %d since %s: %s\n", os.Getpid(), time.Now().UTC().Format(time.RFC3339), strings.Join(commandLine(), " "))
	}
	locks[path] = f
	return nil
}

// lockHolder reads what the holder wrote into the lock file.
func lockHolder(path string) string {
	b, err := os.ReadFile(path)
	if s := strings.TrimSpace(string(b)); err == nil && s != "" {
		if len(s) > 200 {
			s = s[:200] + "…"
		}
		return s
	}
	return "holder unknown"
}

// commandLine is the process's command line for the lock file; mage's
// compiled binaries are named by a hash, shown as "mage".
func commandLine() []string {
	name := filepath.Base(os.Args[0])
	if len(name) >= 32 && strings.Trim(name, "0123456789abcdef") == "" {
		name = "mage"
	}
	return append([]string{name}, os.Args[1:]...)
}
