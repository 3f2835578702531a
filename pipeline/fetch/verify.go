package fetch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/rexmle/rexmle/pipeline/workpool"
)

// VerifyResult is the re-check of one file recorded in a lock file.
type VerifyResult struct {
	Challenge, Name string
	// Err is nil when the file on disk still has the recorded size and checksums.
	Err error
}

// VerifyReport lists the results of Verify.
type VerifyReport struct {
	Results []VerifyResult
	// Unrecorded lists the raw folders that hold files but no FETCHED.lock
	// record and that could not all be checked against the sources.
	Unrecorded []UnrecordedFolder
	// Hand lists every entry of the raw folders without a record: each
	// verified against the checksum or size the challenge file records, bad,
	// or unverified with the reason.
	Hand []HandFile
}

// UnrecordedFolder is a raw folder with files and no lock record, some of
// which could not be checked.
type UnrecordedFolder struct {
	Challenge, Dir string
	// Files counts the regular files under Dir that could not be checked.
	Files int
}

// Err joins the failed checks (nil if every file is intact).
func (r *VerifyReport) Err() error {
	var b []string
	for _, v := range r.Results {
		if v.Err != nil {
			b = append(b, fmt.Sprintf("%s/%s: %v", v.Challenge, v.Name, v.Err))
		}
	}
	for _, h := range r.Hand {
		if h.Status == HandBad {
			b = append(b, fmt.Sprintf("%s (placed by hand): %s", filepath.Join(h.Dir, h.Name), h.Why))
		}
	}
	for _, u := range r.Unrecorded {
		b = append(b, fmt.Sprintf("%s: %d files never checked against the sources (no %s record)", u.Dir, u.Files, LockFileName))
	}
	if len(b) == 0 {
		return nil
	}
	what := fmt.Sprintf("%d files fail verification", len(b)-len(r.Unrecorded))
	if len(r.Unrecorded) > 0 {
		what += fmt.Sprintf(", %d folders hold files never checked against the sources", len(r.Unrecorded))
	}
	return fmt.Errorf("%s:\n%s", what, strings.Join(b, "\n"))
}

// Print writes one line per file and a totals line.
func (r *VerifyReport) Print(w io.Writer) error {
	var b strings.Builder
	bad := 0
	for _, v := range r.Results {
		if v.Err != nil {
			bad++
			fmt.Fprintf(&b, "BAD  %s/%s: %v\n", v.Challenge, v.Name, v.Err)
		} else {
			fmt.Fprintf(&b, "ok   %s/%s\n", v.Challenge, v.Name)
		}
	}
	for _, h := range r.Hand {
		switch h.Status {
		case HandVerified:
			fmt.Fprintf(&b, "ok   %s/%s: placed by hand, verified (%s)\n", h.Challenge, h.Name, h.Why)
		case HandBad:
			bad++
			fmt.Fprintf(&b, "BAD  %s/%s: placed by hand: %s\n", h.Challenge, h.Name, h.Why)
		default:
			fmt.Fprintf(&b, "UNVERIFIED %s/%s (%d files): %s\n", h.Challenge, h.Name, h.Files, h.Why)
		}
	}
	for _, u := range r.Unrecorded {
		fmt.Fprintf(&b, "UNVERIFIED %s: %d files placed without a %s record, never checked against the sources\n", u.Dir, u.Files, LockFileName)
	}
	fmt.Fprintf(&b, "%d files checked, %d bad", len(r.Results)+r.handChecked(), bad)
	if n := len(r.Unrecorded); n > 0 {
		fmt.Fprintf(&b, ", %d folders unverified\n", n)
		b.WriteString("To record them: put the sources' files under the names the plan lists (REXMLE_DRY_RUN=1 mage fetch)\n" +
			"in those folders and run mage fetch: a file already in place is checked against the source's size and\n" +
			"checksum and recorded in " + LockFileName + " instead of being downloaded again; an unpacked tree alone cannot be checked.\n")
	} else {
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// Verify re-hashes every file recorded in the lock files of the given
// sources' challenges (every folder under RawRoot when sources is empty)
// and compares size, SHA-256 and MD5 with the record. A folder that holds
// files but no lock record (data placed by hand) is listed in Unrecorded
// and makes Err non-nil: its files were never checked. Files are checked concurrently (Options.Concurrency). The error is
// non-nil only for unreadable lock files or invalid options.
func Verify(ctx context.Context, sources []Source, opts Options) (*VerifyReport, error) {
	f, err := newFetcher(opts)
	if err != nil {
		return nil, err
	}
	var challenges []string
	if len(sources) == 0 {
		ents, err := os.ReadDir(f.opts.RawRoot)
		if err != nil {
			return nil, fmt.Errorf("list %s: %w", f.opts.RawRoot, err)
		}
		for _, e := range ents {
			// Every folder: one without a lock file is reported as
			// unverified when it holds files.
			if e.IsDir() {
				challenges = append(challenges, e.Name())
			}
		}
	} else {
		seen := map[string]bool{}
		for _, s := range sources {
			if !seen[s.Challenge] {
				seen[s.Challenge] = true
				challenges = append(challenges, s.Challenge)
			}
		}
	}
	type job struct {
		challenge string
		e         LockEntry
	}
	var jobs []job
	recorded := map[string]bool{}
	for _, c := range challenges {
		lf, err := f.locks.get(c)
		if err != nil {
			return nil, err
		}
		recorded[c] = len(lf.Files) > 0
		for _, e := range lf.Files {
			jobs = append(jobs, job{c, e})
		}
	}
	rep := &VerifyReport{Results: make([]VerifyResult, len(jobs))}
	for _, c := range challenges {
		if recorded[c] {
			continue
		}
		dir := f.opts.RawDir(c)
		hand, err := checkHandPlaced(ctx, sources, c, dir)
		if err != nil {
			return nil, err
		}
		rep.Hand = append(rep.Hand, hand...)
		n := 0
		for _, h := range hand {
			if h.Status == HandUnverified {
				n += h.Files
			}
		}
		if n > 0 {
			rep.Unrecorded = append(rep.Unrecorded, UnrecordedFolder{Challenge: c, Dir: dir, Files: n})
		}
	}
	for i, j := range jobs {
		rep.Results[i] = VerifyResult{Challenge: j.challenge, Name: j.e.Name, Err: errors.New("not verified: interrupted")}
	}
	workpool.Each(ctx, len(jobs), f.opts.Concurrency, func(i int) {
		j := jobs[i]
		rep.Results[i].Err = verifyEntry(ctx, filepath.Join(f.opts.RawDir(j.challenge), j.e.Name), j.e)
	})
	sort.SliceStable(rep.Results, func(a, b int) bool {
		x, y := rep.Results[a], rep.Results[b]
		return x.Challenge < y.Challenge || x.Challenge == y.Challenge && x.Name < y.Name
	})
	return rep, nil
}

// handChecked counts the hand-placed files hashed (verified or bad).
func (r *VerifyReport) handChecked() int {
	n := 0
	for _, h := range r.Hand {
		if h.Status != HandUnverified {
			n++
		}
	}
	return n
}

// HandFolders groups the hand-placed entries by raw folder.
func (r *VerifyReport) HandFolders() map[string][]HandFile {
	m := map[string][]HandFile{}
	for _, h := range r.Hand {
		m[h.Dir] = append(m[h.Dir], h)
	}
	return m
}

// verifyEntry compares the file at p with its lock entry.
func verifyEntry(ctx context.Context, p string, e LockEntry) error {
	d, err := hashFile(ctx, p)
	if err != nil {
		return err
	}
	switch {
	case d.size != e.Size:
		return &ChecksumError{File: e.Name, What: "size", Want: fmt.Sprint(e.Size), Got: fmt.Sprint(d.size)}
	case e.SHA256 != "" && !strings.EqualFold(d.sha256, e.SHA256):
		return &ChecksumError{File: e.Name, What: "sha256", Want: e.SHA256, Got: d.sha256}
	case e.MD5 != "" && !strings.EqualFold(d.md5, e.MD5):
		return &ChecksumError{File: e.Name, What: "md5", Want: e.MD5, Got: d.md5}
	}
	return nil
}
