// Package sandbox is the wrapper that isolates a local agent run: started by
// the runner in new user and mount namespaces (see runner.SandboxAttr), it
// makes every mount private, opens the folders the agent may use, covers
// each hidden root (the data root, the results root) with an empty tmpfs,
// mounts the opened folders back at their own paths (read-only or
// read-write), changes into the working folder and executes the agent. The
// agent thus sees its public data and its run folder and nothing else under
// the hidden roots: the private answers are not there to read.
package sandbox

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
)

type list []string

func (l *list) String() string     { return strings.Join(*l, ",") }
func (l *list) Set(s string) error { *l = append(*l, s); return nil }

// Main runs the wrapper with args (what follows "sandbox" on the command
// line): -hide DIR, -ro PATH, -rw PATH (each repeatable), -cwd DIR, then
// "--" and the agent's command. With -probe it sets up a test mount and
// exits instead. It only returns on error: on success the agent replaces
// the process.
func Main(args []string) error {
	fs := flag.NewFlagSet("sandbox", flag.ContinueOnError)
	var hide, ro, rw list
	fs.Var(&hide, "hide", "cover this folder with an empty tmpfs (repeatable)")
	fs.Var(&ro, "ro", "keep this path visible, read-only (repeatable)")
	fs.Var(&rw, "rw", "keep this path visible, read-write (repeatable)")
	cwd := fs.String("cwd", "", "working folder of the agent")
	probe := fs.Bool("probe", false, "check that the namespaces allow the mounts, then exit")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *probe {
		return probeMounts()
	}
	argv := fs.Args()
	if len(argv) == 0 {
		return errors.New("sandbox: no command after --")
	}
	if err := Isolate(hide, ro, rw); err != nil {
		return err
	}
	if *cwd != "" {
		// Again after the mounts: the inherited working folder is a dentry
		// of the covered tree, from which ".." would reach hidden folders.
		if err := os.Chdir(*cwd); err != nil {
			return fmt.Errorf("sandbox: chdir %s: %w", *cwd, err)
		}
	}
	path, err := exec.LookPath(argv[0])
	if err != nil {
		return fmt.Errorf("sandbox: %w", err)
	}
	return fmt.Errorf("sandbox: exec %s: %w", path, syscall.Exec(path, argv, os.Environ()))
}

type keep struct {
	path string
	f    *os.File
	ro   bool
}

// Isolate does the mounts (see the package doc). It must run inside a mount
// namespace of its own.
func Isolate(hide, ro, rw []string) error {
	if err := syscall.Mount("", "/", "", syscall.MS_REC|syscall.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("sandbox: make mounts private: %w", err)
	}
	var keeps []keep
	for _, set := range []struct {
		paths []string
		ro    bool
	}{{ro, true}, {rw, false}} {
		for _, p := range set.paths {
			p = filepath.Clean(p)
			f, err := os.Open(p) // O_CLOEXEC: closed when the agent starts
			if err != nil {
				return fmt.Errorf("sandbox: open %s: %w", p, err)
			}
			defer f.Close()
			keeps = append(keeps, keep{path: p, f: f, ro: set.ro})
		}
	}
	sort.Slice(hide, func(a, b int) bool { return len(hide[a]) < len(hide[b]) })
	for _, h := range hide {
		h = filepath.Clean(h)
		if _, err := os.Stat(h); err != nil {
			continue // nothing there to hide
		}
		if err := syscall.Mount("tmpfs", h, "tmpfs", syscall.MS_NOSUID|syscall.MS_NODEV, "mode=0755,size=4m"); err != nil {
			return fmt.Errorf("sandbox: cover %s: %w", h, err)
		}
	}
	// Read-write folders may sit inside read-only ones; mount the
	// shallower paths first so deeper ones land on top.
	sort.SliceStable(keeps, func(a, b int) bool { return len(keeps[a].path) < len(keeps[b].path) })
	for _, k := range keeps {
		st, err := k.f.Stat()
		if err != nil {
			return err
		}
		if st.IsDir() {
			err = os.MkdirAll(k.path, 0o755)
		} else if _, serr := os.Stat(k.path); serr != nil {
			if err = os.MkdirAll(filepath.Dir(k.path), 0o755); err == nil {
				err = os.WriteFile(k.path, nil, 0o644)
			}
		}
		if err != nil {
			return fmt.Errorf("sandbox: mount point %s: %w", k.path, err)
		}
		src := fmt.Sprintf("/proc/self/fd/%d", k.f.Fd())
		if err := syscall.Mount(src, k.path, "", syscall.MS_BIND|syscall.MS_REC, ""); err != nil {
			return fmt.Errorf("sandbox: bind %s: %w", k.path, err)
		}
		if k.ro {
			if err := remountReadOnly(k.path); err != nil {
				return err
			}
		}
	}
	return nil
}

// remountReadOnly makes the bind mount at p read-only, keeping the flags
// the kernel locks in a user namespace (nosuid, nodev, noexec, atime).
func remountReadOnly(p string) error {
	var st syscall.Statfs_t
	if err := syscall.Statfs(p, &st); err != nil {
		return fmt.Errorf("sandbox: statfs %s: %w", p, err)
	}
	flags := uintptr(syscall.MS_BIND | syscall.MS_REMOUNT | syscall.MS_RDONLY)
	for _, m := range []struct{ st, ms uintptr }{
		{0x2, syscall.MS_NOSUID}, {0x4, syscall.MS_NODEV}, {0x8, syscall.MS_NOEXEC},
		{0x400, syscall.MS_NOATIME}, {0x800, syscall.MS_NODIRATIME}, {0x1000, syscall.MS_RELATIME},
	} {
		if uintptr(st.Flags)&m.st != 0 {
			flags |= m.ms
		}
	}
	if err := syscall.Mount("", p, "", flags, ""); err != nil {
		return fmt.Errorf("sandbox: make %s read-only: %w", p, err)
	}
	return nil
}

func probeMounts() error {
	dir, err := os.MkdirTemp("", "rexmle-probe-")
	if err != nil {
		return err
	}
	defer os.Remove(dir)
	if err := syscall.Mount("", "/", "", syscall.MS_REC|syscall.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("make mounts private: %w", err)
	}
	if err := syscall.Mount("tmpfs", dir, "tmpfs", syscall.MS_NOSUID|syscall.MS_NODEV, "size=64k"); err != nil {
		return fmt.Errorf("mount tmpfs: %w", err)
	}
	if err := syscall.Mount(dir, dir, "", syscall.MS_BIND, ""); err != nil {
		return fmt.Errorf("bind mount: %w", err)
	}
	if err := remountReadOnly(dir); err != nil {
		return err
	}
	return syscall.Unmount(dir, syscall.MNT_DETACH)
}
