package runner

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/rexmle/rexmle/pipeline/fsutil"
	"github.com/rexmle/rexmle/pipeline/runner/validate"
)

// Snapshot caps (Job.SnapshotMaxFile/SnapshotMaxTotal override them).
const (
	DefaultSnapshotMaxFile  = validate.DefaultMaxFile  // 1 GiB per file, as the validation snapshot
	DefaultSnapshotMaxTotal = validate.DefaultMaxTotal // 8 GiB per submission
	snapshotMaxDropped      = 50
)

// snapshotMaxEntries caps the files and folders of a sealed submission (a
// variable so that a test can lower it).
var snapshotMaxEntries = validate.DefaultMaxEntries

// Snapshot is what sealing the submission kept and dropped (run.json).
type Snapshot struct {
	Files        int      `json:"files"`
	Bytes        int64    `json:"bytes"`
	Dropped      []string `json:"dropped,omitempty"`       // "path: why", at most 50
	DroppedCount int      `json:"dropped_count,omitempty"` // all of them
	// DroppedUncounted: more were dropped than snapshotMaxCounted, which
	// were counted.
	DroppedUncounted bool `json:"dropped_uncounted,omitempty"`
}

func (s *Snapshot) drop(rel, why string) {
	s.DroppedCount++
	if len(s.Dropped) < snapshotMaxDropped {
		s.Dropped = append(s.Dropped, rel+": "+why)
	}
}

// sealSubmission replaces runDir/submission, once every process of the run
// has ended, by a copy (files mode 0444) holding only its regular files within the
// caps: FIFOs, devices, sockets and symbolic links (not followed) are
// dropped, as are files over maxFile or past maxTotal, each recorded. What
// anything writes afterwards cannot reach what is graded.
//
// What is graded comes first, so that no amount of other files can push it
// past the caps: submission.csv, then every file a field of submission.csv
// names (a relative path to a file of the folder, in whatever column: the
// per-case predictions), then the rest in lexical order. Past
// snapshotMaxEntries entries everything is dropped, and counted: the count
// is exact up to snapshotMaxCounted entries.
func sealSubmission(runDir string, maxFile, maxTotal int64) (*Snapshot, error) {
	if maxFile <= 0 {
		maxFile = DefaultSnapshotMaxFile
	}
	if maxTotal <= 0 {
		maxTotal = DefaultSnapshotMaxTotal
	}
	sub := filepath.Join(runDir, "submission")
	raw := filepath.Join(runDir, ".submission.agent")
	if err := os.RemoveAll(raw); err != nil {
		return nil, fmt.Errorf("seal submission: %w", err)
	}
	if err := os.Rename(sub, raw); err != nil && !os.IsNotExist(err) {
		return nil, fmt.Errorf("seal submission: %w", err)
	}
	if err := os.Mkdir(sub, 0o755); err != nil {
		return nil, fmt.Errorf("seal submission: %w", err)
	}
	sl := &sealer{raw: raw, sub: sub, maxFile: maxFile, maxTotal: maxTotal, s: &Snapshot{}, done: map[string]bool{}, dirs: map[string]bool{".": true}}
	if _, err := os.Lstat(filepath.Join(raw, "submission.csv")); err == nil {
		sl.copy("submission.csv")
		for _, rel := range namedFiles(filepath.Join(sub, "submission.csv")) {
			if fi, err := os.Lstat(filepath.Join(raw, rel)); err == nil && fi.Mode().IsRegular() {
				sl.copy(rel)
			}
		}
	}
	err := filepath.WalkDir(raw, func(p string, d fs.DirEntry, err error) error {
		rel, _ := filepath.Rel(raw, p)
		if rel == "." {
			return nil
		}
		if err != nil {
			sl.s.drop(rel, "unreadable: "+err.Error())
			return nil
		}
		if sl.done[rel] {
			return nil
		}
		if d.IsDir() {
			if sl.dirs[rel] {
				return nil
			}
			if sl.full() {
				sl.drop(rel, fmt.Sprintf("more than %d entries", snapshotMaxEntries))
				return nil // its files are counted as they come
			}
			return sl.mkdirs(rel)
		}
		sl.copy(rel)
		if sl.s.DroppedCount >= snapshotMaxCounted {
			sl.s.DroppedUncounted = true
			return fs.SkipAll
		}
		return nil
	})
	if err != nil {
		return sl.s, fmt.Errorf("seal submission: %w", err)
	}
	if err := os.RemoveAll(raw); err != nil {
		return sl.s, fmt.Errorf("seal submission: remove the agent's folder: %w", err)
	}
	return sl.s, nil
}

// snapshotMaxCounted bounds the walk that counts what is dropped.
const snapshotMaxCounted = 10_000_000

// sealer copies entries of raw into sub within the caps.
type sealer struct {
	raw, sub          string
	maxFile, maxTotal int64
	s                 *Snapshot
	entries           int
	done              map[string]bool // files copied or dropped
	dirs              map[string]bool // folders made in sub
}

func (sl *sealer) full() bool { return sl.entries >= snapshotMaxEntries }

func (sl *sealer) drop(rel, why string) {
	sl.done[rel] = true
	sl.s.drop(rel, why)
}

// mkdirs makes rel and its parents in sub, each an entry.
func (sl *sealer) mkdirs(rel string) error {
	if sl.dirs[rel] {
		return nil
	}
	if err := sl.mkdirs(filepath.Dir(rel)); err != nil {
		return err
	}
	sl.entries++
	sl.dirs[rel] = true
	return os.Mkdir(filepath.Join(sl.sub, rel), 0o755)
}

// copy seals the file rel (read as fsutil.OpenIn reads a run's files: no
// symbolic link anywhere on its path, no FIFO or device opened).
func (sl *sealer) copy(rel string) {
	if sl.done[rel] {
		return
	}
	if sl.full() || !sl.dirs[filepath.Dir(rel)] && sl.entries+strings.Count(rel, string(filepath.Separator)) >= snapshotMaxEntries {
		sl.drop(rel, fmt.Sprintf("more than %d entries", snapshotMaxEntries))
		return
	}
	f, err := fsutil.OpenIn(sl.raw, rel)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		switch {
		case errors.Is(err, fsutil.ErrLink):
			sl.drop(rel, "symbolic link (not followed)")
		case errors.Is(err, fsutil.ErrNotRegular):
			sl.drop(rel, err.Error())
		default:
			sl.drop(rel, "unreadable: "+err.Error())
		}
		return
	}
	defer f.Close()
	if err := sl.mkdirs(filepath.Dir(rel)); err != nil {
		sl.drop(rel, "cannot copy: "+err.Error())
		return
	}
	sl.entries++
	sl.done[rel] = true
	n, why := copyRegular(f, filepath.Join(sl.sub, rel), sl.maxFile, sl.maxTotal-sl.s.Bytes)
	if why != "" {
		sl.s.drop(rel, why)
		return
	}
	sl.s.Files++
	sl.s.Bytes += n
}

// namedFiles lists the fields of the sealed submission.csv at p that are
// relative paths inside the folder (no "..", not absolute), in file order,
// each once. A CSV that cannot be read names nothing (the grader says why).
func namedFiles(p string) []string {
	f, err := os.Open(p)
	if err != nil {
		return nil
	}
	defer f.Close()
	r := csv.NewReader(io.LimitReader(f, namedFilesMaxBytes))
	r.FieldsPerRecord, r.LazyQuotes, r.ReuseRecord = -1, true, true
	seen := map[string]bool{}
	var out []string
	for {
		rec, err := r.Read()
		if err != nil {
			if errors.Is(err, io.EOF) || !errors.As(err, new(*csv.ParseError)) {
				return out
			}
			continue
		}
		for _, v := range rec {
			v = strings.TrimSpace(v)
			if v == "" || len(v) > 4096 || strings.ContainsRune(v, 0) {
				continue
			}
			c := filepath.Clean(filepath.FromSlash(v))
			if filepath.IsAbs(c) || c == "." || c == ".." || strings.HasPrefix(c, ".."+string(filepath.Separator)) || seen[c] {
				continue
			}
			seen[c] = true
			out = append(out, c)
		}
	}
}

// namedFilesMaxBytes is how much of submission.csv is read for file names.
const namedFilesMaxBytes = 256 << 20

// copyRegular copies the open regular file f to dst (mode 0444) when it
// holds at most maxFile bytes and left bytes; otherwise it says why not.
func copyRegular(f *os.File, dst string, maxFile, left int64) (int64, string) {
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return 0, "not a regular file"
	}
	if fi.Size() > maxFile {
		return 0, fmt.Sprintf("%d bytes, over the %d-byte cap per file", fi.Size(), maxFile)
	}
	if fi.Size() > left {
		return 0, fmt.Sprintf("%d bytes, past the cap for the whole submission", fi.Size())
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o444)
	if err != nil {
		return 0, "cannot copy: " + err.Error()
	}
	n, err := io.Copy(out, io.LimitReader(f, maxFile+1))
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil || n > maxFile || n > left {
		os.Remove(dst)
		if err != nil {
			return 0, "cannot copy: " + err.Error()
		}
		return 0, "grew past the cap while copied"
	}
	return n, ""
}
