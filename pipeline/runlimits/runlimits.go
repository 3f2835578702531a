// Package runlimits resolves the resource limits of one agent run from the
// agent's settings in benchmark.toml and the host: how many processes and
// threads it may have, how much memory, how large a file and how much disk
// its folders may hold, and how often memory and disk are measured. The
// runner enforces them (the local sandbox with rlimits set inside it and a
// watchdog, containers with --pids-limit and --memory plus the same disk
// watchdog); `mage doctor` shows them.
package runlimits

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/rexmle/rexmle/pipeline/config"
)

// Defaults, generous enough for a 24-hour agent run on a GPU node: they
// stop a runaway (a fork bomb, a memory or disk leak), not a real agent.
const (
	DefaultPids       = 4096
	DefaultFileSize   = 256 << 30
	DefaultCheckEvery = 10 * time.Second
	// MemoryShare of the host's RAM is a run's default memory limit.
	MemoryShare = 0.75
	// DiskShare of the free space of the run folder's file system, when
	// the run starts, is its default disk limit.
	DiskShare = 0.5
)

// Limits are one run's limits (run.json "limits"); a zero size is no limit.
type Limits struct {
	Pids          int     `json:"pids"`
	MemoryBytes   int64   `json:"memory_bytes,omitempty"`
	FileSizeBytes int64   `json:"file_size_bytes,omitempty"`
	DiskBytes     int64   `json:"disk_bytes,omitempty"`
	CheckSeconds  float64 `json:"check_every_seconds"`
	// From says where each value came from ("pids 4096 (default)", ...).
	From []string `json:"from"`
}

// CheckEvery is the watchdog's period.
func (l Limits) CheckEvery() time.Duration {
	return time.Duration(l.CheckSeconds * float64(time.Second))
}

// Host is what the defaults are computed from; System is the real one.
type Host struct {
	MemTotal  func() (int64, error)
	FreeBytes func(path string) (uint64, error)
}

// System looks at this host.
func System() Host { return Host{MemTotal: MemTotal, FreeBytes: FreeBytes} }

// Resolve gives agent a's limits for a run folder at runDir.
func Resolve(a config.Agent, runDir string, h Host) (Limits, error) {
	var l Limits
	l.Pids = a.PidsLimit
	if l.Pids == 0 {
		l.Pids = DefaultPids
		l.From = append(l.From, fmt.Sprintf("pids %d (default)", l.Pids))
	} else {
		l.From = append(l.From, fmt.Sprintf("pids %d (pids_limit)", l.Pids))
	}
	var err error
	if l.MemoryBytes, err = size(&l, a.Memory, "memory", func() (int64, string, error) {
		if h.MemTotal == nil {
			return 0, "", errors.New("the host's RAM was not measured")
		}
		t, err := h.MemTotal()
		if err != nil {
			return 0, "", fmt.Errorf("the host's RAM: %w", err)
		}
		return int64(float64(t) * MemoryShare), fmt.Sprintf("%.0f%% of the host's %s RAM", MemoryShare*100, Bytes(t)), nil
	}); err != nil {
		return l, err
	}
	if l.FileSizeBytes, err = size(&l, a.FileSizeLimit, "file_size_limit", func() (int64, string, error) {
		return DefaultFileSize, "default", nil
	}); err != nil {
		return l, err
	}
	if l.DiskBytes, err = size(&l, a.DiskLimit, "disk_limit", func() (int64, string, error) {
		if h.FreeBytes == nil {
			return 0, "", errors.New("the free space was not measured")
		}
		free, err := h.FreeBytes(runDir)
		if err != nil {
			return 0, "", err
		}
		return int64(float64(free) * DiskShare), fmt.Sprintf("%.0f%% of the %s free on the run folder's file system", DiskShare*100, Bytes(int64(free))), nil
	}); err != nil {
		return l, err
	}
	every := a.LimitCheckEvery.Duration
	if every <= 0 {
		every = DefaultCheckEvery
	}
	l.CheckSeconds = every.Seconds()
	return l, nil
}

// size resolves one size setting: written, "unlimited" (0) or the default.
func size(l *Limits, v, key string, def func() (int64, string, error)) (int64, error) {
	n, err := config.ParseSize(v)
	name := strings.TrimSuffix(key, "_limit")
	name = strings.ReplaceAll(name, "_", " ")
	switch {
	case err != nil:
		return 0, fmt.Errorf("%s: %w", key, err)
	case n < 0:
		l.From = append(l.From, name+" unlimited ("+key+")")
		return 0, nil
	case n > 0:
		l.From = append(l.From, fmt.Sprintf("%s %s (%s)", name, Bytes(n), key))
		return n, nil
	}
	n, why, err := def()
	if err != nil {
		return 0, fmt.Errorf("default %s: %w", key, err)
	}
	if n < 1 {
		n = 1
	}
	l.From = append(l.From, fmt.Sprintf("%s %s (%s)", name, Bytes(n), why))
	return n, nil
}

// String is the limits in one line, as doctor shows them.
func (l Limits) String() string {
	return strings.Join(l.From, ", ") + fmt.Sprintf("; memory and disk checked every %s", l.CheckEvery())
}

// Bytes writes n bytes in binary units.
func Bytes(n int64) string {
	const unit = 1024
	if n < unit {
		return strconv.FormatInt(n, 10) + " B"
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit && exp < 4; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTP"[exp])
}

// MemTotal is the host's RAM (MemTotal of /proc/meminfo).
func MemTotal() (int64, error) {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "MemTotal:"); ok {
			fs := strings.Fields(rest)
			if len(fs) >= 1 {
				kb, err := strconv.ParseInt(fs[0], 10, 64)
				if err == nil {
					return kb << 10, nil
				}
			}
		}
	}
	return 0, errors.New("no MemTotal in /proc/meminfo")
}

// FreeBytes is the space available to this user on the file system of
// path (or of its nearest existing parent).
func FreeBytes(path string) (uint64, error) {
	p := path
	for {
		var st syscall.Statfs_t
		err := syscall.Statfs(p, &st)
		if err == nil {
			return st.Bavail * uint64(st.Bsize), nil
		}
		if !errors.Is(err, syscall.ENOENT) || filepath.Dir(p) == p {
			return 0, fmt.Errorf("free space of %s: %w", path, err)
		}
		p = filepath.Dir(p)
	}
}
