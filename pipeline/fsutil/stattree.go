package fsutil

import (
	"errors"
	"io/fs"
	"path/filepath"
)

// FileStamp is what a cheap "has this folder changed" check compares: one
// regular file's path (relative to the walked folder, slash-separated), its
// size and its modification time in nanoseconds.
type FileStamp struct {
	Path    string
	Size    int64
	ModNano int64
}

// StatOptions shape a StatTree walk.
type StatOptions struct {
	// Flat keeps to the files directly in the folder.
	Flat bool
	// MissingOK makes a missing folder an empty one instead of an error.
	MissingOK bool
	// Skip, if set, is asked about every entry below the folder (rel is
	// slash-separated): true leaves out a file, or a folder with all it holds.
	Skip func(rel string, d fs.DirEntry) bool
}

// StatTree stamps every regular file under dir, in the walk's (lexical)
// order. Links are not followed, and neither they nor other non-regular
// files are stamped. A dir that is itself a regular file gives one stamp
// with Path ".".
func StatTree(dir string, opt StatOptions) ([]FileStamp, error) {
	var out []FileStamp
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if opt.MissingOK && p == dir && errors.Is(err, fs.ErrNotExist) {
				return fs.SkipAll
			}
			return err
		}
		r, _ := filepath.Rel(dir, p)
		r = filepath.ToSlash(r)
		if p != dir {
			if opt.Skip != nil && opt.Skip(r, d) {
				if d.IsDir() {
					return fs.SkipDir
				}
				return nil
			}
			if d.IsDir() && opt.Flat {
				return fs.SkipDir
			}
		}
		if !d.Type().IsRegular() {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		out = append(out, FileStamp{r, info.Size(), info.ModTime().UnixNano()})
		return nil
	})
	return out, err
}
