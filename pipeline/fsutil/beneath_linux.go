package fsutil

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// openIn resolves rel beneath root with openat2 (RESOLVE_BENEATH,
// RESOLVE_NO_SYMLINKS), or component by component with O_NOFOLLOW where
// the kernel has no openat2, as an O_PATH descriptor (opening it so runs no
// driver or FIFO code), checks it is a regular file, and only then reopens
// that very inode for reading.
func openIn(root, rel string) (*os.File, error) {
	dir, err := unix.Open(root, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	defer unix.Close(dir)
	fd, err := unix.Openat2(dir, rel, &unix.OpenHow{Flags: unix.O_PATH | unix.O_CLOEXEC | unix.O_NOFOLLOW,
		Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS})
	if errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EPERM) { // no openat2 (or a seccomp filter refusing it)
		fd, err = walkNoFollow(dir, rel)
	}
	switch {
	case errors.Is(err, unix.ELOOP), errors.Is(err, unix.EXDEV):
		return nil, ErrLink
	case err != nil:
		return nil, err
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return nil, err
	}
	if st.Mode&unix.S_IFMT == unix.S_IFLNK {
		return nil, ErrLink
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		return nil, notRegular(modeOf(st.Mode))
	}
	// Reopen the inode the O_PATH descriptor names (not the path, which
	// could have been swapped meanwhile).
	rfd, err := unix.Open("/proc/self/fd/"+strconv.Itoa(fd), unix.O_RDONLY|unix.O_NONBLOCK|unix.O_CLOEXEC|unix.O_NOCTTY, 0)
	if err != nil {
		return nil, err
	}
	var st2 unix.Stat_t
	if err := unix.Fstat(rfd, &st2); err != nil || st2.Dev != st.Dev || st2.Ino != st.Ino {
		unix.Close(rfd)
		return nil, errors.New("the file changed while it was opened")
	}
	return os.NewFile(uintptr(rfd), filepath.Join(root, rel)), nil
}

// walkNoFollow opens rel beneath dir one component at a time, none of them
// a symbolic link.
func walkNoFollow(dir int, rel string) (int, error) {
	parts := strings.Split(rel, string(filepath.Separator))
	cur, err := unix.Dup(dir)
	if err != nil {
		return -1, err
	}
	for i, p := range parts {
		if p == ".." {
			unix.Close(cur)
			return -1, unix.EXDEV
		}
		flags := unix.O_PATH | unix.O_NOFOLLOW | unix.O_CLOEXEC
		if i < len(parts)-1 {
			flags |= unix.O_DIRECTORY
		}
		next, err := unix.Openat(cur, p, flags, 0)
		unix.Close(cur)
		if err != nil {
			if errors.Is(err, unix.ENOTDIR) {
				return -1, unix.ELOOP // a link (or a file) where a folder should be
			}
			return -1, err
		}
		var st unix.Stat_t
		if err := unix.Fstat(next, &st); err == nil && st.Mode&unix.S_IFMT == unix.S_IFLNK {
			unix.Close(next)
			return -1, unix.ELOOP
		}
		cur = next
	}
	return cur, nil
}

func modeOf(m uint32) os.FileMode {
	switch m & unix.S_IFMT {
	case unix.S_IFDIR:
		return os.ModeDir
	case unix.S_IFIFO:
		return os.ModeNamedPipe
	case unix.S_IFSOCK:
		return os.ModeSocket
	case unix.S_IFCHR:
		return os.ModeDevice | os.ModeCharDevice
	case unix.S_IFBLK:
		return os.ModeDevice
	case unix.S_IFLNK:
		return os.ModeSymlink
	}
	return 0
}
