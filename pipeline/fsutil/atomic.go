package fsutil

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// WriteFile replaces path with data, atomically and durably: readers see
// the old content or the new one, never a mix, and once it returns the new
// content survives a crash. It is the one way the pipeline writes a result
// file (see WriteWith for how). Parent folders are created (0755); the file
// ends up with mode perm whatever the umask.
func WriteFile(path string, data []byte, perm fs.FileMode) error {
	return WriteWith(path, perm, func(w io.Writer) error {
		_, err := io.Copy(w, bytes.NewReader(data))
		return err
	})
}

// WriteWith replaces path with what write writes, atomically and durably:
// write streams into a temporary file in path's folder (created with its
// parents, 0755), which is then fsynced, given mode perm, closed, renamed
// over path, and the folder fsynced so the rename itself survives a crash.
// When write (or any step) fails, path is left as it was and the temporary
// file is removed; the error names path.
func WriteWith(path string, perm fs.FileMode, write func(io.Writer) error) (err error) {
	dir := filepath.Dir(path)
	defer func() {
		if err != nil {
			err = fmt.Errorf("write %s: %w", path, err)
		}
	}()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	name := tmp.Name()
	werr := write(tmp)
	if werr == nil {
		werr = tmp.Sync()
	}
	if werr == nil {
		// CreateTemp makes the file 0600; set the mode asked for
		// explicitly (Chmod is not subject to the umask).
		werr = tmp.Chmod(perm)
	}
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr); err != nil {
		os.Remove(name)
		return err
	}
	if err := os.Rename(name, path); err != nil {
		os.Remove(name)
		return err
	}
	return SyncDir(dir)
}

// SyncDir fsyncs the folder dir, so that a file created, renamed or
// removed in it stays so after a crash.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("sync folder %s: %w", dir, err)
	}
	serr := d.Sync()
	if errors.Is(serr, syscall.EINVAL) || errors.Is(serr, syscall.ENOTSUP) {
		serr = nil // a file system that cannot sync a folder (some FUSE and network ones)
	}
	cerr := d.Close()
	if err := errors.Join(serr, cerr); err != nil {
		return fmt.Errorf("sync folder %s: %w", dir, err)
	}
	return nil
}
