package medseg

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// Names inside a raw folder that EnsureExtracted manages. They start with a
// dot so that no preparer's glob picks them up.
const (
	extractLockName  = ".rexmle-extract.lock"
	extractDoneDir   = ".rexmle-extracted"
	extractTmpPrefix = ".rexmle-extract-tmp-"
)

// EnsureExtracted makes sure that every archive named in archives (zip file
// names inside rawDir) that is present has been unpacked into rawDir, once,
// whatever the number of tasks or processes that share rawDir and in
// whatever order they come.
//
// It holds an exclusive lock on rawDir (flock on rawDir/.rexmle-extract.lock)
// for the whole call, so a caller that returns from it never sees a
// half-extracted tree, even when it only waited for another task's archive.
// An archive is unpacked into a temporary folder beside the tree, then
// merged into rawDir file by file with renames (each file appears whole),
// and only then marked complete (rawDir/.rexmle-extracted/<archive>, written
// atomically). An archive already marked is not unpacked again; an absent
// archive is skipped (the raw folder may have been filled by hand), and so
// is one that `mage fetch` records as unpacked in place (FETCHED.lock). A crash leaves no mark, so the next call unpacks again.
func EnsureExtracted(rawDir string, archives ...string) error {
	unlock, err := lockDir(rawDir)
	if err != nil {
		return err
	}
	defer unlock()
	stale, _ := filepath.Glob(filepath.Join(rawDir, extractTmpPrefix+"*"))
	for _, s := range stale {
		if err := os.RemoveAll(s); err != nil {
			return fmt.Errorf("remove interrupted extraction %s: %w", s, err)
		}
	}
	for _, name := range archives {
		zipPath := filepath.Join(rawDir, name)
		if !isRegular(zipPath) {
			continue
		}
		mark := filepath.Join(rawDir, extractDoneDir, name)
		if isRegular(mark) || fetchedExtracted(rawDir, name) {
			continue
		}
		slog.Info("extracting archive", "zip", zipPath)
		tmp, err := os.MkdirTemp(rawDir, extractTmpPrefix)
		if err != nil {
			return fmt.Errorf("extract %s: %w", zipPath, err)
		}
		if err := ExtractZip(zipPath, tmp); err != nil {
			os.RemoveAll(tmp)
			return err
		}
		if err := mergeInto(tmp, rawDir); err != nil {
			os.RemoveAll(tmp)
			return fmt.Errorf("extract %s: %w", zipPath, err)
		}
		if err := os.RemoveAll(tmp); err != nil {
			return fmt.Errorf("extract %s: %w", zipPath, err)
		}
		if err := writeMark(mark); err != nil {
			return fmt.Errorf("extract %s: mark complete: %w", zipPath, err)
		}
	}
	return nil
}

// fetchedExtracted reports whether `mage fetch` recorded in the raw folder's
// FETCHED.lock that it unpacked the archive name into the folder itself
// (fetch extracts completely before it records that).
func fetchedExtracted(rawDir, name string) bool {
	b, err := os.ReadFile(filepath.Join(rawDir, "FETCHED.lock"))
	if err != nil {
		return false
	}
	var lock struct {
		Files []struct {
			Name        string `json:"name"`
			ExtractedTo string `json:"extracted_to"`
		} `json:"files"`
	}
	if json.Unmarshal(b, &lock) != nil {
		return false
	}
	for _, f := range lock.Files {
		if f.Name == name && f.ExtractedTo == "." {
			return true
		}
	}
	return false
}

// lockDir takes the exclusive extraction lock of dir, waiting for it.
func lockDir(dir string) (unlock func(), err error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("lock %s: %w", dir, err)
	}
	f, err := os.OpenFile(filepath.Join(dir, extractLockName), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", dir, err)
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", dir, err)
	}
	return func() {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}

// mergeInto moves every file of src into the same relative place under dst,
// creating folders as needed and replacing files already there.
func mergeInto(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		if rel == "." {
			return nil
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			if st, err := os.Lstat(target); err == nil && !st.IsDir() {
				return fmt.Errorf("%s is a file in the raw folder but a folder in the archive", target)
			}
			return os.MkdirAll(target, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		return os.Rename(p, target)
	})
}

func writeMark(mark string) error {
	if err := os.MkdirAll(filepath.Dir(mark), 0o755); err != nil {
		return err
	}
	tmp := mark + ".tmp"
	if err := os.WriteFile(tmp, []byte("complete\n"), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, mark)
}

func isRegular(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

// IsExtractionEntry reports whether name (a base name inside a raw folder)
// is one of EnsureExtracted's own bookkeeping entries, which preparers that
// list a raw folder must ignore.
func IsExtractionEntry(name string) bool {
	return name == extractLockName || name == extractDoneDir || strings.HasPrefix(name, extractTmpPrefix)
}
