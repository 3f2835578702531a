// Package fsutil holds the file helpers every stage shares: one file copy
// and the one way to write a result file (atomically and durably:
// WriteFile, WriteWith).
package fsutil

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// CopyFile copies the file src to dst byte for byte, creating dst's parent
// folders and replacing dst if it exists (mode 0644 for a new file). It
// does not sync: call Sync before renaming a copy into place where it must
// survive a crash.
func CopyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return fmt.Errorf("copy %s: %w", src, err)
	}
	defer in.Close()
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return fmt.Errorf("copy %s: %w", src, err)
	}
	out, err := os.Create(dst)
	if err != nil {
		return fmt.Errorf("copy %s: %w", src, err)
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return fmt.Errorf("copy %s to %s: %w", src, dst, err)
	}
	if err := out.Close(); err != nil {
		return fmt.Errorf("copy %s to %s: %w", src, dst, err)
	}
	return nil
}

// Sync flushes the file at path to stable storage.
func Sync(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return fmt.Errorf("sync %s: %w", path, err)
	}
	serr := f.Sync()
	cerr := f.Close()
	if serr != nil {
		return fmt.Errorf("sync %s: %w", path, serr)
	}
	if cerr != nil {
		return fmt.Errorf("sync %s: %w", path, cerr)
	}
	return nil
}

// SwapDir replaces the folder dst by the folder tmp (renamed into place;
// dst, if there, moved aside to dst.old first and removed after). If tmp
// cannot be put in place, the old dst is put back. The parent folder is
// fsynced once tmp is in place; the files in tmp are made durable by whoever
// wrote them (WriteFile does).
func SwapDir(tmp, dst string) error {
	old := dst + ".old"
	os.RemoveAll(old)
	if err := os.Rename(dst, old); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if err := os.Rename(tmp, dst); err != nil {
		os.Rename(old, dst)
		return err
	}
	if err := SyncDir(filepath.Dir(dst)); err != nil { // the swap itself survives a crash
		return err
	}
	return os.RemoveAll(old)
}
