package runner

import (
	"bufio"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// ProcTracker finds every process of a run, for attributing GPU memory to
// it: the descendants of the run's first process by parent links, whatever
// process group or session they moved to (setsid, timeout and nohup
// children count), plus, once seen, processes that outlived their parent
// and were re-parented away from the tree (identified by pid and start
// time, so a reused pid is not mistaken for them), plus every process of
// the run's own cgroup where the run has one (its first process sits in a
// different cgroup than the stage), plus the trees of the extra roots
// found along the way (a container's first process, which the engine
// starts outside the run's tree).
type ProcTracker struct {
	root     int
	rootTime uint64
	extra    []func() []int
	mu       sync.Mutex
	known    map[int]uint64 // pid → start time (clock ticks after boot)
	procRoot string         // "/proc" (tests may point elsewhere)
	cgRoot   string         // "/sys/fs/cgroup"
}

// NewProcTracker tracks the run whose first process is root. Each extra
// function is asked on every call for more roots (e.g. a container's
// first process once the engine reports it); their trees count too, and
// once seen they are followed like any other process of the run.
func NewProcTracker(root int, extra ...func() []int) *ProcTracker {
	t := &ProcTracker{root: root, extra: extra, known: map[int]uint64{}, procRoot: "/proc", cgRoot: "/sys/fs/cgroup"}
	if st, ok := readStat(t.procRoot, root); ok {
		t.rootTime = st.start
	}
	return t
}

type procStat struct {
	ppid   int
	start  uint64
	zombie bool // exited, not yet reaped: holds no memory
}

// readStat reads the parent pid and start time of pid from /proc/pid/stat.
func readStat(procRoot string, pid int) (procStat, bool) {
	b, err := os.ReadFile(filepath.Join(procRoot, strconv.Itoa(pid), "stat"))
	if err != nil {
		return procStat{}, false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')') // the command name may hold spaces and parentheses
	if i < 0 {
		return procStat{}, false
	}
	f := strings.Fields(s[i+1:]) // state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime cutime cstime priority nice threads itrealvalue starttime
	if len(f) < 20 {
		return procStat{}, false
	}
	ppid, err1 := strconv.Atoi(f[1])
	start, err2 := strconv.ParseUint(f[19], 10, 64)
	if err1 != nil || err2 != nil {
		return procStat{}, false
	}
	return procStat{ppid: ppid, start: start, zombie: f[0] == "Z"}, true
}

// Pids returns the run's live processes, sorted.
func (t *ProcTracker) Pids() []int {
	t.mu.Lock()
	defer t.mu.Unlock()
	ents, err := os.ReadDir(t.procRoot)
	if err != nil {
		return []int{t.root}
	}
	table := map[int]procStat{}
	children := map[int][]int{}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		st, ok := readStat(t.procRoot, pid)
		if !ok {
			continue
		}
		table[pid] = st
		children[st.ppid] = append(children[st.ppid], pid)
	}
	in := map[int]bool{}
	var queue []int
	push := func(pid int) {
		if !in[pid] {
			in[pid] = true
			queue = append(queue, pid)
		}
	}
	if st, ok := table[t.root]; ok && t.rootTime == 0 {
		t.rootTime = st.start // first sighting, moments after the start
	}
	if st, ok := table[t.root]; ok && st.start == t.rootTime { // not a later process reusing the pid
		push(t.root)
	}
	for pid, start := range t.known {
		if st, ok := table[pid]; ok && st.start == start {
			push(pid)
		}
	}
	var roots []int
	for _, f := range t.extra {
		if f != nil {
			roots = append(roots, f()...)
		}
	}
	roots = append(roots, t.cgroupPids()...)
	for _, pid := range roots {
		if _, ok := table[pid]; ok {
			push(pid)
		}
	}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, c := range children[p] {
			push(c)
		}
	}
	known := make(map[int]uint64, len(in))
	out := make([]int, 0, len(in))
	for pid := range in {
		if table[pid].zombie {
			continue
		}
		known[pid] = table[pid].start
		out = append(out, pid)
	}
	t.known = known
	sort.Ints(out)
	return out
}

// cgroupPids lists the processes of the root's cgroup (cgroup v2, or the
// v1 pids/memory hierarchy) and its sub-cgroups, when that cgroup is not
// the stage's own: a run started in its own cgroup is tracked whole.
func (t *ProcTracker) cgroupPids() []int {
	mine, ok1 := cgroupOf(t.procRoot, "self")
	theirs, ok2 := cgroupOf(t.procRoot, strconv.Itoa(t.root))
	if !ok1 || !ok2 || theirs.path == mine.path || theirs.path == "/" {
		return nil
	}
	dir := filepath.Join(t.cgRoot, theirs.sub, filepath.FromSlash(theirs.path))
	var out []int
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() != "cgroup.procs" {
			return nil
		}
		f, err := os.Open(p)
		if err != nil {
			return nil
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if pid, err := strconv.Atoi(strings.TrimSpace(sc.Text())); err == nil {
				out = append(out, pid)
			}
		}
		return nil
	})
	return out
}

type cgroupPath struct{ sub, path string }

// cgroupOf reads /proc/<who>/cgroup: the unified (v2) entry "0::/path",
// else the v1 pids (or memory) hierarchy.
func cgroupOf(procRoot, who string) (cgroupPath, bool) {
	b, err := os.ReadFile(filepath.Join(procRoot, who, "cgroup"))
	if err != nil {
		return cgroupPath{}, false
	}
	var v1 cgroupPath
	found := false
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		f := strings.SplitN(line, ":", 3)
		if len(f) != 3 {
			continue
		}
		if f[0] == "0" && f[1] == "" {
			return cgroupPath{sub: "", path: f[2]}, true
		}
		for _, c := range strings.Split(f[1], ",") {
			if (c == "pids" || c == "memory") && !found {
				v1, found = cgroupPath{sub: c, path: f[2]}, true
			}
		}
	}
	return v1, found
}
