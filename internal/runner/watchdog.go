package runner

import (
	"bufio"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/rexmle/rexmle/internal/runlimits"
)

// watchdog measures a running run against its memory and disk limits
// every CheckEvery and reports the first one it finds exceeded on over.
type watchdog struct {
	over chan string
	stop chan struct{}
	wg   sync.WaitGroup
	// Peaks seen, for run.json.
	peakMem, peakDisk int64
}

// runFolders are the folders of a run the agent writes into.
var runFolders = []string{"workspace", "submission", "logs", "home"}

// startWatchdog starts measuring: the disk use of the run's folders
// (allocated blocks, hard links counted once) against DiskBytes, and, when
// procs is not nil (the local sandbox: a container's memory is the
// engine's --memory), the proportional set size (PSS: shared pages split
// between the processes sharing them, so forked workers are not counted
// twice) of the run's processes against MemoryBytes.
func startWatchdog(runDir string, l runlimits.Limits, procs *ProcTracker) *watchdog {
	w := &watchdog{over: make(chan string, 1), stop: make(chan struct{})}
	every := l.CheckEvery()
	if every <= 0 || (l.DiskBytes <= 0 && (procs == nil || l.MemoryBytes <= 0)) {
		return w
	}
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-w.stop:
				return
			case <-t.C:
			}
			if procs != nil && l.MemoryBytes > 0 {
				m := runPSS(procs.Pids())
				w.peakMem = max(w.peakMem, m)
				if m > l.MemoryBytes {
					w.over <- fmt.Sprintf("memory limit: the run's processes held %s (PSS), over its limit of %s", runlimits.Bytes(m), runlimits.Bytes(l.MemoryBytes))
					return
				}
			}
			if l.DiskBytes > 0 {
				d := diskUse(runDir, runFolders)
				w.peakDisk = max(w.peakDisk, d)
				if d > l.DiskBytes {
					w.over <- fmt.Sprintf("disk limit: the run's folders held %s, over its limit of %s", runlimits.Bytes(d), runlimits.Bytes(l.DiskBytes))
					return
				}
			}
		}
	}()
	return w
}

// finish stops the watchdog.
func (w *watchdog) finish() {
	close(w.stop)
	w.wg.Wait()
}

// diskUse sums the blocks allocated to everything under runDir's folders
// names (a sparse file counts what it holds, not its length).
func diskUse(runDir string, names []string) int64 {
	var total int64
	seen := map[[2]uint64]bool{}
	for _, n := range names {
		filepath.WalkDir(filepath.Join(runDir, n), func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			fi, err := d.Info()
			if err != nil {
				return nil
			}
			st, ok := fi.Sys().(*syscall.Stat_t)
			if !ok {
				return nil
			}
			if st.Nlink > 1 && !d.IsDir() {
				k := [2]uint64{uint64(st.Dev), st.Ino}
				if seen[k] {
					return nil
				}
				seen[k] = true
			}
			total += st.Blocks * 512
			return nil
		})
	}
	return total
}

// runPSS sums /proc/<pid>/smaps_rollup's Pss of pids, in bytes.
func runPSS(pids []int) int64 {
	var total int64
	for _, pid := range pids {
		f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/smaps_rollup")
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if rest, ok := strings.CutPrefix(sc.Text(), "Pss:"); ok {
				if f := strings.Fields(rest); len(f) > 0 {
					if kb, err := strconv.ParseInt(f[0], 10, 64); err == nil {
						total += kb << 10
					}
				}
				break
			}
		}
		f.Close()
	}
	return total
}
