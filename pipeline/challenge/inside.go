package challenge

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/rexmle/rexmle/pipeline/fsutil"
)

// The confinement rule: every file a grader reads from a submission folder
// (submission.csv, the files its rows name, the files a format names) is
// opened with OpenInside, or checked with StatInside/ResolveInside, never
// by a path the grader builds itself. Both go through os.Root: the path is
// walked one component at a time from an open descriptor of the submission
// folder (openat with O_NOFOLLOW), links are followed only while they stay
// inside it, and nothing is looked up by name again after the check, so a
// file swapped for a link between two steps cannot lead outside. Every way
// of naming something that is not a file of the folder (missing, a link
// out, an absolute or ".." path) gets answers that say nothing about
// the host (TestGradersOpenSubmissionsThroughTheRule keeps graders to it).

// notInside is the one answer for a name that is not a file inside the
// submission folder, whatever it points at outside.
const notInside = "file not found in the submission folder (a link that leaves the folder is not followed)"

// relInside checks rel's syntax and returns it cleaned, relative.
func relInside(rel, field string) (string, error) {
	if rel == "" {
		return "", Invalidf(rel, field, "empty path")
	}
	if filepath.IsAbs(rel) || strings.HasPrefix(rel, "/") || strings.HasPrefix(rel, `\`) || filepath.VolumeName(rel) != "" {
		return "", Invalidf(rel, field, "absolute path not allowed; name a file inside the submission folder")
	}
	clean := filepath.Clean(filepath.FromSlash(rel))
	if clean == ".." || strings.HasPrefix(clean, ".."+string(filepath.Separator)) {
		return "", Invalidf(rel, field, "path leaves the submission folder")
	}
	return clean, nil
}

// rootAndRel opens root and checks rel's syntax.
func rootAndRel(root, rel, field string) (*os.Root, string, error) {
	clean, err := relInside(rel, field)
	if err != nil {
		return nil, "", err
	}
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil, "", fmt.Errorf("open the submission folder: %w", err)
	}
	return r, clean, nil
}

// StatInside describes rel inside root (links followed while they stay
// inside root). A name that is not there, or that leads outside, is an
// *InvalidSubmission with one and the same reason.
func StatInside(root, rel, field string) (fs.FileInfo, error) {
	r, clean, err := rootAndRel(root, rel, field)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	st, err := r.Stat(clean)
	if err != nil {
		return nil, Invalidf(rel, field, "%s", notInside)
	}
	return st, nil
}

// ResolveInside checks rel, a path named by a submission (a CSV cell, a
// JSON field), against root and returns it root-joined and cleaned:
// absolute paths and ".." steps are refused, and so is a name that leads
// outside root through a link, with the answer a missing file would get
// from OpenInside. A missing file is not an error here (the caller may try
// another name, and reports it missing in its own words). The path it
// returns may be read by name only in a folder nothing else writes to (the
// grade stage's sealed submission, the validation endpoint's snapshot);
// OpenInside is the way to read a file.
func ResolveInside(root, rel, field string) (string, error) {
	r, clean, err := rootAndRel(root, rel, field)
	if err != nil {
		return "", err
	}
	defer r.Close()
	joined := filepath.Join(root, clean)
	if _, err := r.Stat(clean); err != nil {
		if errors.Is(err, fs.ErrNotExist) && !escapes(r, clean) {
			return joined, nil
		}
		return "", Invalidf(rel, field, "%s", notInside)
	}
	return joined, nil
}

// escapes reports whether some component of clean that exists is a link
// leading outside r (a missing name is then "not inside", as OpenInside
// says, not "missing").
func escapes(r *os.Root, clean string) bool {
	parts := strings.Split(clean, string(filepath.Separator))
	for i := range parts {
		p := filepath.Join(parts[:i+1]...)
		if _, err := r.Stat(p); err != nil {
			return !errors.Is(err, fs.ErrNotExist)
		}
	}
	return false
}

// OpenInside opens rel inside root for reading if it is a regular file
// (the confinement rule above; a FIFO or device is refused and never
// blocks). Every failure is an *InvalidSubmission naming rel and field; a
// missing file and one that leads outside get the same reason.
func OpenInside(root, rel, field string) (*os.File, error) {
	r, clean, err := rootAndRel(root, rel, field)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	f, err := r.OpenFile(clean, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) && errors.Is(pe.Err, syscall.ENXIO) {
			// A socket, or a FIFO in the kernels that refuse O_NONBLOCK opens.
			return nil, Invalidf(rel, field, "%v", ErrNotRegular)
		}
		return nil, Invalidf(rel, field, "%s", notInside)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, Invalidf(rel, field, "cannot open: %v", err)
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, Invalidf(rel, field, "%v (%s)", ErrNotRegular, fsutil.KindOf(st.Mode()))
	}
	return f, nil
}

// ReadSubmissionCSV reads the CSV file name (e.g. "submission.csv") of the
// submission folder root through OpenInside. A missing file, or one that
// leads outside, is "missing"; a file that is not CSV says why in the words
// of ParseCSV (line and field, never the file's bytes beyond MaxEcho of one
// field).
func ReadSubmissionCSV(root, name string) (*Table, error) {
	f, err := OpenInside(root, name, "")
	if err != nil {
		var inv *InvalidSubmission
		if errors.As(err, &inv) && inv.Reason == notInside {
			return nil, Invalidf(name, "", "missing: the submission folder must hold %s (links that leave it are not followed)", name)
		}
		return nil, err
	}
	defer f.Close()
	t, err := ParseCSV(f, name)
	if err != nil {
		return nil, Invalidf(name, "", "cannot read: %v", err)
	}
	return t, nil
}
