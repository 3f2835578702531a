package validate

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// Limits are the caps of a validation snapshot. They mirror the grade
// stage's seal (a file over MaxFile, or past MaxTotal, is left out as the
// seal leaves it out, and the grader then finds it missing); past MaxEntries
// or MaxDepth the validation is refused.
type Limits struct {
	MaxFile    int64 // bytes per file
	MaxTotal   int64 // bytes in all
	MaxEntries int   // files and folders
	MaxDepth   int   // folder nesting
}

// Default snapshot caps (the grade stage's seal has the same per-file and
// total defaults).
const (
	DefaultMaxFile    = 1 << 30
	DefaultMaxTotal   = 8 << 30
	DefaultMaxEntries = 100000
	DefaultMaxDepth   = 64
)

func (l Limits) withDefaults() Limits {
	if l.MaxFile <= 0 {
		l.MaxFile = DefaultMaxFile
	}
	if l.MaxTotal <= 0 {
		l.MaxTotal = DefaultMaxTotal
	}
	if l.MaxEntries <= 0 {
		l.MaxEntries = DefaultMaxEntries
	}
	if l.MaxDepth <= 0 {
		l.MaxDepth = DefaultMaxDepth
	}
	return l
}

// errNotFolder: the name is not a folder under base (missing, a link that
// leaves base, a file); one error for all of them.
var errNotFolder = errors.New("not a folder of the run")

// Snapshot copies the folder rel under base into dst (an empty folder),
// holding only regular files and folders. base is opened as an os.Root and
// everything below it is reached from descriptors: a link is followed only
// to name the folder itself and only while it stays under base; inside the
// folder no link is followed (a link, FIFO, device or socket is left out),
// each entry is checked after it is opened to be the entry that was listed
// (so nothing swapped in between is read), and FIFOs are never opened
// blocking. Copies are mode 0600 in folders of mode 0700.
func Snapshot(base, rel, dst string, lim Limits) error {
	lim = lim.withDefaults()
	r, err := os.OpenRoot(base)
	if err != nil {
		return errNotFolder
	}
	defer r.Close()
	src, err := r.OpenRoot(rel)
	if err != nil {
		return errNotFolder
	}
	defer src.Close()
	s := &snapshotter{lim: lim}
	// The scratch folder the snapshot goes to is never copied into itself.
	if st, err := os.Stat(filepath.Dir(dst)); err == nil {
		s.skip = st
	}
	return s.copyDir(src, dst, 0)
}

type snapshotter struct {
	lim     Limits
	skip    fs.FileInfo // the scratch folder
	entries int
	bytes   int64
}

func (s *snapshotter) copyDir(src *os.Root, dst string, depth int) error {
	if depth > s.lim.MaxDepth {
		return fmt.Errorf("the submission folder nests folders deeper than %d; the endpoint validates at most that", s.lim.MaxDepth)
	}
	d, err := src.Open(".")
	if err != nil {
		return errNotFolder
	}
	defer d.Close()
	for {
		ents, err := d.ReadDir(1024)
		for _, e := range ents {
			s.entries++
			if s.entries > s.lim.MaxEntries {
				return fmt.Errorf("the submission folder holds more than %d files and folders; the endpoint validates at most that", s.lim.MaxEntries)
			}
			if err := s.copyEntry(src, e.Name(), filepath.Join(dst, e.Name()), depth); err != nil {
				return err
			}
		}
		if err == io.EOF || len(ents) == 0 {
			return nil
		}
		if err != nil {
			return fmt.Errorf("list the submission folder: %w", err)
		}
	}
}

// copyEntry copies one listed entry if it is a folder or a regular file
// and is still the entry listed when opened; anything else is left out.
func (s *snapshotter) copyEntry(src *os.Root, name, dst string, depth int) error {
	listed, err := src.Lstat(name)
	if err != nil {
		return nil // gone since it was listed
	}
	switch {
	case listed.IsDir():
		sub, err := src.OpenRoot(name)
		if err != nil {
			return nil
		}
		defer sub.Close()
		if now, err := sub.Stat("."); err != nil || !os.SameFile(listed, now) {
			return nil // swapped for a link (or another folder) since listed
		}
		if s.skip != nil && os.SameFile(listed, s.skip) {
			return nil
		}
		if err := os.Mkdir(dst, 0o700); err != nil {
			return fmt.Errorf("snapshot: %w", err)
		}
		return s.copyDir(sub, dst, depth+1)
	case listed.Mode().IsRegular():
		return s.copyFile(src, name, dst, listed)
	}
	return nil // a link, FIFO, device or socket: the grade stage's seal leaves it out too
}

func (s *snapshotter) copyFile(src *os.Root, name, dst string, listed fs.FileInfo) error {
	if listed.Size() > s.lim.MaxFile || listed.Size() > s.lim.MaxTotal-s.bytes {
		return nil // over a cap: left out, as the seal leaves it out
	}
	f, err := src.OpenFile(name, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil
	}
	defer f.Close()
	if now, err := f.Stat(); err != nil || !now.Mode().IsRegular() || !os.SameFile(listed, now) {
		return nil // swapped since listed
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("snapshot: %w", err)
	}
	left := min(s.lim.MaxFile, s.lim.MaxTotal-s.bytes)
	n, err := io.Copy(out, io.LimitReader(f, left+1))
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("snapshot: %w", err)
	}
	if n > left {
		os.Remove(dst) // grew past a cap while copied: left out
		return nil
	}
	s.bytes += n
	return nil
}
