package challenge

import (
	"archive/zip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/rexmle/rexmle/pipeline/fsutil"
)

// Names inside a raw folder that EnsureExtracted manages. They start with a
// dot so that no preparer's glob picks them up.
const (
	extractLockName  = ".rexmle-extract.lock"
	extractDoneDir   = ".rexmle-extracted"
	extractTmpPrefix = ".rexmle-extract-tmp-"
	// HandCheckName is where `mage fetchVerify` records its check of a raw
	// folder's hand-placed files (read for the site's data provenance).
	HandCheckName = ".rexmle-handcheck.json"
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
	return ensureExtracted(rawDir, "", archives)
}

// EnsureExtractedInto is EnsureExtracted unpacking into the folder sub of
// rawDir (e.g. one folder per archive, named after it), under the same lock
// and marks.
func EnsureExtractedInto(rawDir, sub string, archives ...string) error {
	if sub == "" || sub != filepath.Base(sub) || sub == "." || sub == ".." {
		return fmt.Errorf("extract into %q: not a folder name", sub)
	}
	return ensureExtracted(rawDir, sub, archives)
}

func ensureExtracted(rawDir, sub string, archives []string) error {
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
		paths, err := mergeInto(tmp, filepath.Join(rawDir, sub))
		if err != nil {
			os.RemoveAll(tmp)
			return fmt.Errorf("extract %s: %w", zipPath, err)
		}
		if err := os.RemoveAll(tmp); err != nil {
			return fmt.Errorf("extract %s: %w", zipPath, err)
		}
		if sub != "" {
			for i, p := range paths {
				paths[i] = sub + "/" + p
			}
		}
		if err := writeMark(mark, paths); err != nil {
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
// creating folders as needed and replacing files already there; it returns
// the slash paths (relative to dst) of the files it moved.
func mergeInto(src, dst string) ([]string, error) {
	var moved []string
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return nil, err
	}
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
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
		moved = append(moved, filepath.ToSlash(rel))
		return os.Rename(p, target)
	})
	return moved, err
}

// writeMark records an archive as completely unpacked, with the paths of
// the files it gave, one per line (see ExtractedFiles).
func writeMark(mark string, paths []string) error {
	body := "complete\n"
	for _, p := range paths {
		body += p + "\n"
	}
	return fsutil.WriteFile(mark, []byte(body), 0o644)
}

// ExtractedFiles returns the slash paths, relative to rawDir, of the files
// EnsureExtracted unpacked there from archives (they are determined by the
// archives, which stay in the folder). A raw folder's fingerprint leaves
// them out, with EnsureExtracted's own bookkeeping, so that unpacking an
// archive, by this task or by another task sharing the folder, does not
// make a prepared challenge look out of date.
func ExtractedFiles(rawDir string) map[string]bool {
	out := map[string]bool{}
	marks, _ := os.ReadDir(filepath.Join(rawDir, extractDoneDir))
	for _, m := range marks {
		b, err := os.ReadFile(filepath.Join(rawDir, extractDoneDir, m.Name()))
		if err != nil {
			continue
		}
		lines := strings.Split(string(b), "\n")
		if len(lines) == 0 || lines[0] != "complete" {
			continue
		}
		for _, l := range lines[1:] {
			if l != "" {
				out[l] = true
			}
		}
	}
	return out
}

func isRegular(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

// IsExtractionEntry reports whether name (a base name inside a raw folder)
// is one of EnsureExtracted's own bookkeeping entries, which preparers that
// list a raw folder, and fingerprints of it, must ignore.
func IsExtractionEntry(name string) bool {
	return name == extractLockName || name == extractDoneDir || name == HandCheckName || strings.HasPrefix(name, extractTmpPrefix)
}

// ExtractZip unpacks the archive at zipPath into dest. Entries whose names
// are absolute or climb out of dest with ".." are refused (an error), and
// symbolic-link entries are skipped, so a hostile archive cannot write
// outside dest.
func ExtractZip(zipPath, dest string) error {
	zr, err := zip.OpenReader(zipPath)
	if err != nil {
		return fmt.Errorf("open zip %s: %w", zipPath, err)
	}
	defer zr.Close()
	for _, f := range zr.File {
		name := filepath.FromSlash(f.Name)
		clean := filepath.Clean(name)
		if filepath.IsAbs(name) || clean == ".." || strings.HasPrefix(clean, ".."+string(filepath.Separator)) {
			return fmt.Errorf("zip %s: entry %q leaves the destination folder", zipPath, f.Name)
		}
		target := filepath.Join(dest, clean)
		mode := f.Mode()
		switch {
		case mode.IsDir():
			if err := os.MkdirAll(target, 0o755); err != nil {
				return fmt.Errorf("zip %s: %w", zipPath, err)
			}
			continue
		case !mode.IsRegular():
			continue
		}
		if err := extractEntry(f, target); err != nil {
			return fmt.Errorf("zip %s: entry %s: %w", zipPath, f.Name, err)
		}
	}
	return nil
}

func extractEntry(f *zip.File, target string) error {
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		return err
	}
	rc, err := f.Open()
	if err != nil {
		return err
	}
	defer rc.Close()
	out, err := os.Create(target)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, rc); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
