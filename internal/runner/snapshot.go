package runner

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// Snapshot caps (Job.SnapshotMaxFile/SnapshotMaxTotal override them).
const (
	DefaultSnapshotMaxFile  = 1 << 30 // 1 GiB per file
	DefaultSnapshotMaxTotal = 8 << 30 // 8 GiB per submission
	snapshotMaxEntries      = 100000
	snapshotMaxDropped      = 50
)

// Snapshot is what sealing the submission kept and dropped (run.json).
type Snapshot struct {
	Files        int      `json:"files"`
	Bytes        int64    `json:"bytes"`
	Dropped      []string `json:"dropped,omitempty"`       // "path: why", at most 50
	DroppedCount int      `json:"dropped_count,omitempty"` // all of them
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
	s := &Snapshot{}
	entries := 0
	err := filepath.WalkDir(raw, func(p string, d fs.DirEntry, err error) error {
		rel, _ := filepath.Rel(raw, p)
		if err != nil {
			if rel != "." {
				s.drop(rel, "unreadable: "+err.Error())
			}
			return nil
		}
		if rel == "." {
			return nil
		}
		entries++
		if entries > snapshotMaxEntries {
			s.drop(rel, fmt.Sprintf("more than %d entries", snapshotMaxEntries))
			return fs.SkipAll
		}
		dst := filepath.Join(sub, rel)
		switch t := d.Type(); {
		case t.IsDir():
			return os.Mkdir(dst, 0o755)
		case t&fs.ModeSymlink != 0:
			s.drop(rel, "symbolic link (not followed)")
			return nil
		case !t.IsRegular():
			s.drop(rel, "not a regular file ("+t.String()+")")
			return nil
		}
		n, why := copyRegular(p, dst, maxFile, maxTotal-s.Bytes)
		if why != "" {
			s.drop(rel, why)
			return nil
		}
		s.Files++
		s.Bytes += n
		return nil
	})
	if err != nil {
		return s, fmt.Errorf("seal submission: %w", err)
	}
	if err := os.RemoveAll(raw); err != nil {
		return s, fmt.Errorf("seal submission: remove the agent's folder: %w", err)
	}
	return s, nil
}

// copyRegular copies src to dst (mode 0444) when it is a regular file of
// at most maxFile bytes and left bytes; otherwise it says why not.
func copyRegular(src, dst string, maxFile, left int64) (int64, string) {
	f, err := os.OpenFile(src, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return 0, "unreadable: " + err.Error()
	}
	defer f.Close()
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
