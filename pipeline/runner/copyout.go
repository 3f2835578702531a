package runner

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"github.com/rexmle/rexmle/pipeline/fsutil"
	"golang.org/x/sys/unix"
)

// CopyOut is what handing the run's folders back to the pipeline changed
// (run.json): special files removed, mode bits stripped.
type CopyOut struct {
	Removed      int      `json:"removed,omitempty"`   // FIFOs, sockets, devices
	Stripped     int      `json:"stripped,omitempty"`  // files that lost setuid/setgid/sticky or group/world write
	Examples     []string `json:"examples,omitempty"`  // the first of them, "path: what"
	Unhandled    []string `json:"unhandled,omitempty"` // entries that could not be fixed, "path: why"
	unhandledCnt int
}

const copyOutExamples = 20

func (c *CopyOut) note(rel, what string) {
	if len(c.Examples) < copyOutExamples {
		c.Examples = append(c.Examples, rel+": "+what)
	}
}

func (c *CopyOut) fail(rel string, err error) {
	c.unhandledCnt++
	if len(c.Unhandled) < copyOutExamples {
		c.Unhandled = append(c.Unhandled, rel+": "+err.Error())
	}
}

// handBack makes the agent's writable folders (workspace, logs, home) the
// pipeline's again once every process of the run is gone: everything in
// them is owned by the pipeline's user (they were the sandbox's or the
// container's uid during the run), FIFOs, sockets and devices are removed,
// and no file or folder keeps setuid, setgid, sticky or group/world write
// bits, so an executable the agent made setuid is not setuid on the host
// and no other local user can write into the run. Symbolic links are kept
// as links, never followed (the pipeline reads a run's files with
// fsutil.OpenIn). Folders get owner rwx so the pipeline can always clean
// them up.
func handBack(runDir string, names []string) *CopyOut {
	c := &CopyOut{}
	uid, gid := os.Getuid(), os.Getgid()
	root := os.Geteuid() == 0
	for _, name := range names {
		top := filepath.Join(runDir, name)
		filepath.WalkDir(top, func(p string, d fs.DirEntry, err error) error {
			rel, _ := filepath.Rel(runDir, p)
			if err != nil {
				if !errors.Is(err, fs.ErrNotExist) {
					c.fail(rel, err)
				}
				return nil
			}
			t := d.Type()
			if t&(fs.ModeNamedPipe|fs.ModeSocket|fs.ModeDevice|fs.ModeCharDevice|fs.ModeIrregular) != 0 {
				if err := os.Remove(p); err != nil {
					c.fail(rel, err)
				} else {
					c.Removed++
					c.note(rel, "removed ("+fsutil.KindOf(t)+")")
				}
				return nil
			}
			// Modes first (a chown by root would clear setuid silently,
			// and the count would miss it), then the owner.
			if t&fs.ModeSymlink == 0 {
				if err := stripMode(p, c, rel); err != nil {
					c.fail(rel, err)
				}
			}
			if root {
				if err := os.Lchown(p, uid, gid); err != nil {
					c.fail(rel, err)
				}
			}
			return nil
		})
		if err := os.Chmod(top, 0o755); err != nil && !errors.Is(err, fs.ErrNotExist) {
			c.fail(name, err)
		}
	}
	if c.Removed+c.Stripped+c.unhandledCnt == 0 {
		return nil
	}
	if c.unhandledCnt > len(c.Unhandled) {
		c.Unhandled = append(c.Unhandled, fmt.Sprintf("… %d more", c.unhandledCnt-len(c.Unhandled)))
	}
	return c
}

// stripMode clears the mode bits nothing a run leaves may keep (setuid,
// setgid, sticky, and write for group and others) of p (a file or folder,
// not a link), through an
// O_PATH descriptor opened without following a link so that the mode set
// is that of the inode checked.
func stripMode(p string, c *CopyOut, rel string) error {
	fd, err := unix.Open(p, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return err
	}
	ft := st.Mode & unix.S_IFMT
	if ft != unix.S_IFREG && ft != unix.S_IFDIR {
		return nil
	}
	mode := st.Mode & 0o7777
	want := mode &^ (unix.S_ISUID | unix.S_ISGID | unix.S_ISVTX | 0o022)
	if ft == unix.S_IFDIR {
		want |= 0o700
	}
	if want == mode {
		return nil
	}
	if err := unix.Chmod("/proc/self/fd/"+strconv.Itoa(fd), want); err != nil {
		return err
	}
	if mode&(unix.S_ISUID|unix.S_ISGID|unix.S_ISVTX|0o022) != 0 {
		c.Stripped++
		c.note(rel, fmt.Sprintf("mode %04o → %04o", mode, want))
	}
	return nil
}
