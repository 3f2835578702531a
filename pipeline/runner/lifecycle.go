package runner

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/rexmle/rexmle/pipeline/runner/sandbox"
)

// Descendants lists the processes below pid (children, their children,
// ...), read from /proc. A process that double-forked out of the tree is
// not below pid any more: the bwrap sandbox keeps those in its PID
// namespace, whose end kills them.
func Descendants(pid int) []int {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	kids := map[int][]int{}
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:]) // state ppid ...
		if len(f) < 2 {
			continue
		}
		pp, _ := strconv.Atoi(f[1])
		kids[pp] = append(kids[pp], p)
	}
	var out []int
	queue := []int{pid}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, k := range kids[p] {
			out = append(out, k)
			queue = append(queue, k)
		}
	}
	return out
}

func comm(pid int) string {
	b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm")
	return strings.TrimSpace(string(b))
}

// stop ends a run's processes: SIGTERM to the agent (for a sandbox: every
// process in it but bwrap's own; otherwise the process group; and a
// container engine's stop command), then, after the grace period, SIGKILL
// to everything (for a sandbox, killing bwrap's PID 1 ends its whole PID
// namespace).
func stop(cmd *exec.Cmd, spec *launch, done chan error, grace time.Duration) error {
	pid := cmd.Process.Pid
	if spec.sandboxed {
		// Once each: not bwrap's own processes, and not the bridge, which
		// would forward a second SIGTERM to the agent's group.
		for _, d := range Descendants(pid) {
			if comm(d) != "bwrap" && !isBridge(d) {
				syscall.Kill(d, syscall.SIGTERM)
			}
		}
	} else {
		syscall.Kill(-pid, syscall.SIGTERM)
	}
	if len(spec.stopArgv) > 0 {
		exec.Command(spec.stopArgv[0], spec.stopArgv[1:]...).Run()
	}
	select {
	case err := <-done:
		return err
	case <-time.After(grace):
		killAll(pid, spec)
		err := <-done
		if err == nil {
			err = errors.New("killed after the grace period")
		}
		return err
	}
}

// isBridge reports whether pid is the sandbox's bridge process.
func isBridge(pid int) bool {
	b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	args := strings.Split(string(b), "\x00")
	return len(args) > 2 && args[0] == SandboxAgentBin && args[1] == "bridge"
}

// killAll SIGKILLs the run's process group and every descendant of pid.
func killAll(pid int, spec *launch) {
	for _, d := range Descendants(pid) {
		syscall.Kill(d, syscall.SIGKILL)
	}
	syscall.Kill(pid, syscall.SIGKILL)
	if !spec.sandboxed {
		syscall.Kill(-pid, syscall.SIGKILL)
	}
}

// reapGroup kills what is left of an unsandboxed run's process group once
// its leader ended (background children). Processes that left the group
// (setsid) cannot be found any more: only the sandbox contains those.
func reapGroup(pid int, spec *launch) {
	if !spec.sandboxed {
		syscall.Kill(-pid, syscall.SIGKILL)
	}
}

// prepareSandboxDirs hands the run's writable folders to the sandbox's
// host user and makes the public data readable to it, when the pipeline
// runs as root (bwrap then runs as nobody, see package sandbox). Folders
// on the way to the public data and the run folder that lie inside the
// pipeline's own roots (Job.Hide: the data and results roots) are made
// searchable (o+x, not readable) when they are not; folders above those
// roots are left alone, and the sandbox then fails naming them.
func prepareSandboxDirs(j *Job, dirs []string) error {
	if os.Geteuid() != 0 {
		return nil
	}
	uid, gid := sandbox.HostIDs()
	for _, d := range dirs {
		if err := os.Chown(d, uid, gid); err != nil {
			return err
		}
		// Owner-only while the run holds them: nobody is shared by other
		// daemons (and other runs), none of which may write here.
		if err := os.Chmod(d, 0o700); err != nil {
			return err
		}
	}
	for _, p := range []string{j.PublicDir, j.RunDir} {
		if err := searchableWithin(p, j.Hide); err != nil {
			return err
		}
	}
	return worldReadable(j.PublicDir)
}

// searchableWithin adds o+x to p and its ancestors that lie inside one of roots.
func searchableWithin(p string, roots []string) error {
	p = filepath.Clean(p)
	for d := p; ; d = filepath.Dir(d) {
		inside := false
		for _, r := range roots {
			r = filepath.Clean(r)
			if r != "" && r != "/" && (d == r || strings.HasPrefix(d, r+"/")) {
				inside = true
			}
		}
		if !inside {
			return nil
		}
		fi, err := os.Stat(d)
		if err != nil {
			return err
		}
		if fi.IsDir() && fi.Mode().Perm()&0o001 == 0 {
			if err := os.Chmod(d, fi.Mode().Perm()|0o001); err != nil {
				return err
			}
		}
		if d == "/" {
			return nil
		}
	}
}
