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

	"github.com/rexmle/rexmle/pipeline/runlimits"
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
// names (a sparse file counts what it holds, not its length). The folders
// are the running agent's: each is walked from descriptors (os.Root), no
// symbolic link is followed, and a folder swapped for another entry between
// listing and opening is left out, so the walk never leaves the run.
func diskUse(runDir string, names []string) int64 {
	var total int64
	seen := map[[2]uint64]bool{}
	for _, n := range names {
		r, err := os.OpenRoot(filepath.Join(runDir, n))
		if err != nil {
			continue
		}
		if fi, err := r.Stat("."); err == nil {
			total += blocksOf(fi, seen)
		}
		total += folderUse(r, seen, 0)
		r.Close()
	}
	return total
}

// diskUseMaxDepth bounds the folder nesting diskUse descends into.
const diskUseMaxDepth = 256

// folderUse sums the blocks of what the folder r holds.
func folderUse(r *os.Root, seen map[[2]uint64]bool, depth int) int64 {
	d, err := r.Open(".")
	if err != nil {
		return 0
	}
	defer d.Close()
	var total int64
	for {
		ents, err := d.ReadDir(1024)
		for _, e := range ents {
			fi, err := r.Lstat(e.Name())
			if err != nil {
				continue
			}
			total += blocksOf(fi, seen)
			if !fi.IsDir() || depth >= diskUseMaxDepth {
				continue
			}
			sub, err := r.OpenRoot(e.Name())
			if err != nil {
				continue
			}
			if now, err := sub.Stat("."); err == nil && os.SameFile(fi, now) {
				total += folderUse(sub, seen, depth+1)
			}
			sub.Close()
		}
		if err != nil || len(ents) == 0 {
			return total
		}
	}
}

// blocksOf is the bytes allocated to fi, a file with several hard links
// counted once.
func blocksOf(fi fs.FileInfo, seen map[[2]uint64]bool) int64 {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0
	}
	if st.Nlink > 1 && !fi.IsDir() {
		k := [2]uint64{uint64(st.Dev), st.Ino}
		if seen[k] {
			return 0
		}
		seen[k] = true
	}
	return st.Blocks * 512
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
