// Package sandbox builds the bubblewrap (bwrap) command line that isolates
// a local agent run. The agent's view is built from nothing: an empty root
// holding only the read-only system folders (/usr, the /bin and /lib links
// or folders, /etc, /opt), a fresh /proc of its own PID namespace, a
// minimal /dev, a private /tmp, and the folders the run binds in (the
// public data read-only, the run's workspace, submission, logs and home
// read-write, the run's sockets). Nothing else of the host (the checkout,
// $HOME, /tmp, other runs, the private answers) exists in that view, so
// there is nothing under a mount to uncover.
//
// The agent runs as uid/gid 1000 in a user namespace with no capabilities,
// no_new_privs, no way to create further user namespaces, in new PID, IPC,
// UTS, cgroup and (unless the network is allowed) network namespaces. When
// the pipeline runs as root, bwrap itself is started as an unprivileged
// host user (nobody), so even the host identity behind uid 1000 is not
// root. Mounts cannot be undone without CAP_SYS_ADMIN, which the agent does
// not have in any namespace.
package sandbox

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// Fixed identities.
const (
	// UID and GID are the agent's ids inside the sandbox.
	UID = 1000
	GID = 1000
	// HostNobody is the host uid/gid bwrap runs as when the pipeline is root.
	HostNobody = 65534
	// Home is the agent's HOME inside the sandbox.
	Home = "/home/agent"
	// Path is the agent's PATH inside the sandbox (the last folder holds
	// rexmle-agent, for `rexmle-agent validate`).
	Path = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:/run/rexmle/bin"
)

// oPath is O_PATH (not in package syscall): an fd naming a file for bwrap's
// --bind-fd without opening it for reading.
const oPath = 0x200000

// Bind makes Host visible at Inside.
type Bind struct {
	Host   string
	Inside string
	RW     bool
}

// Spec is one sandboxed command.
type Spec struct {
	Binds   []Bind   // opened by the caller's process and passed to bwrap as fds
	Devices []string // host device nodes bound as they are (GPUs)
	Network bool     // share the host's network namespace
	Cwd     string   // inside the sandbox
	Argv    []string // the command inside the sandbox
}

// Command is a prepared bwrap invocation: Argv to execute with Files as
// the child's extra fds (3, 4, ...) and Attr as its process attributes.
// Close releases the fds after the child started (or on failure).
type Command struct {
	Argv  []string
	Files []*os.File
	Attr  *syscall.SysProcAttr
}

// Close closes the fds passed to bwrap.
func (c *Command) Close() {
	for _, f := range c.Files {
		f.Close()
	}
}

// HostIDs is the host uid and gid bwrap runs as: nobody when the pipeline
// is root, the caller's own ids otherwise.
func HostIDs() (uid, gid int) {
	if os.Geteuid() == 0 {
		return HostNobody, HostNobody
	}
	return os.Getuid(), os.Getgid()
}

// attr starts bwrap in a process group of its own, as HostIDs.
func attr() *syscall.SysProcAttr {
	a := &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if os.Geteuid() == 0 {
		a.Credential = &syscall.Credential{Uid: HostNobody, Gid: HostNobody, Groups: []uint32{}}
	}
	return a
}

// Mount is one entry of the host that every sandbox shows at the same
// path: a folder bound read-only, or (Link set) a symlink to Link.
type Mount struct {
	Path string
	Link string
}

// SystemMounts lists the read-only system folders (and the /bin, /lib…
// links) the sandbox shows, as this host has them.
func SystemMounts() []Mount {
	ms := []Mount{{Path: "/usr"}}
	for _, d := range []string{"/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"} {
		fi, err := os.Lstat(d)
		switch {
		case err != nil:
		case fi.Mode()&os.ModeSymlink != 0:
			if t, err := os.Readlink(d); err == nil {
				ms = append(ms, Mount{Path: d, Link: t})
			}
		case fi.IsDir():
			ms = append(ms, Mount{Path: d})
		}
	}
	for _, d := range []string{"/etc", "/opt"} {
		if fi, err := os.Stat(d); err == nil && fi.IsDir() {
			ms = append(ms, Mount{Path: d})
		}
	}
	return ms
}

// Empty lists the folders every sandbox has that start empty (fresh
// /proc and /dev aside): a private /tmp and /run.
var Empty = []string{"/tmp", "/run", "/run/rexmle"}

// systemArgs binds the read-only system folders and the fresh /proc, /dev, /tmp.
func systemArgs() []string {
	var args []string
	for _, m := range SystemMounts() {
		if m.Link != "" {
			args = append(args, "--symlink", m.Link, m.Path)
		} else {
			args = append(args, "--ro-bind", m.Path, m.Path)
		}
	}
	return append(args, "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp", "--tmpfs", "/run", "--dir", "/run/rexmle")
}

// Build opens the binds and makes the bwrap command line. The caller
// passes Files to the child in order and calls Close once it started.
func (s *Spec) Build() (*Command, error) {
	if len(s.Argv) == 0 {
		return nil, errors.New("sandbox: no command")
	}
	bwrap, err := exec.LookPath("bwrap")
	if err != nil {
		return nil, errors.New("sandbox: bwrap is not installed (Debian package bubblewrap); install it or set sandbox = \"none\" for this agent to run it without isolation")
	}
	c := &Command{Attr: attr()}
	args := []string{bwrap, "--unshare-user", "--uid", strconv.Itoa(UID), "--gid", strconv.Itoa(GID), "--disable-userns",
		"--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try", "--hostname", "rexmle",
		"--die-with-parent", "--new-session", "--cap-drop", "ALL"}
	if !s.Network {
		args = append(args, "--unshare-net")
	}
	args = append(args, systemArgs()...)
	if s.Network {
		args = append(args, resolvConf()...)
	}
	for _, b := range s.Binds {
		if err := Reachable(b.Host); err != nil {
			c.Close()
			return nil, err
		}
		f, err := openPath(b.Host)
		if err != nil {
			c.Close()
			return nil, fmt.Errorf("sandbox: open %s: %w", b.Host, err)
		}
		fd := 3 + len(c.Files)
		c.Files = append(c.Files, f)
		flag := "--ro-bind-fd"
		if b.RW {
			flag = "--bind-fd"
		}
		args = append(args, flag, strconv.Itoa(fd), b.Inside)
	}
	for _, d := range s.Devices {
		args = append(args, "--dev-bind", d, d)
	}
	if len(s.Devices) > 0 {
		// GPU libraries read the PCI topology; /sys holds no secrets of the
		// benchmark and is read-only.
		args = append(args, "--ro-bind", "/sys", "/sys")
	}
	if s.Cwd != "" {
		args = append(args, "--chdir", s.Cwd)
	}
	c.Argv = append(append(args, "--"), s.Argv...)
	return c, nil
}

// Reachable checks, when bwrap runs as nobody (the pipeline is root), that
// nobody can reach p: bwrap resolves every bind source as its own user.
func Reachable(p string) error {
	if os.Geteuid() != 0 {
		return nil
	}
	p, err := filepath.Abs(p)
	if err != nil {
		return err
	}
	for d := filepath.Dir(p); ; d = filepath.Dir(d) {
		fi, err := os.Stat(d)
		if err != nil {
			return fmt.Errorf("sandbox: %s: %w", d, err)
		}
		if st, ok := fi.Sys().(*syscall.Stat_t); ok && st.Uid != HostNobody && fi.Mode().Perm()&0o001 == 0 {
			return fmt.Errorf("sandbox: the pipeline runs as root, so bwrap runs as nobody (uid %d), which cannot reach %s: folder %s has mode %o; make it searchable by others (chmod o+x %s) or run the pipeline as a non-root user", HostNobody, p, d, fi.Mode().Perm(), d)
		}
		if d == "/" {
			return nil
		}
	}
}

func openPath(p string) (*os.File, error) {
	fd, err := syscall.Open(p, oPath|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(fd), p), nil
}

// resolvConf binds the target of a symlinked /etc/resolv.conf (e.g. under
// /run, which the sandbox does not have) so that names resolve with the
// network on.
func resolvConf() []string {
	t, err := filepath.EvalSymlinks("/etc/resolv.conf")
	if err != nil || t == "/etc/resolv.conf" || strings.HasPrefix(t, "/etc/") || strings.HasPrefix(t, "/usr/") {
		return nil
	}
	return []string{"--ro-bind", t, t}
}

var (
	probeOnce sync.Once
	probeErr  error
)

// Available checks once that bwrap starts a sandbox on this host, as
// Build's command would, and returns why not.
func Available() error {
	probeOnce.Do(func() {
		s := Spec{Argv: []string{"/bin/sh", "-c", "exit 0"}}
		c, err := s.Build()
		if err != nil {
			probeErr = err
			return
		}
		defer c.Close()
		cmd := exec.Command(c.Argv[0], c.Argv[1:]...)
		cmd.Dir = "/"
		cmd.SysProcAttr = attr()
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			probeErr = fmt.Errorf("sandbox: bwrap cannot start a sandbox here (%v: %s); unprivileged user namespaces may be disabled (sysctl kernel.unprivileged_userns_clone, user.max_user_namespaces) — set sandbox = \"none\" for this agent to run it without isolation", err, strings.TrimSpace(out.String()))
		}
	})
	return probeErr
}
