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

	"github.com/rexmle/rexmle/internal/workpool"
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
}

// Err joins the failed checks (nil if every file is intact).
func (r *VerifyReport) Err() error {
	var b []string
	for _, v := range r.Results {
		if v.Err != nil {
			b = append(b, fmt.Sprintf("%s/%s: %v", v.Challenge, v.Name, v.Err))
		}
	}
	if len(b) == 0 {
		return nil
	}
	return fmt.Errorf("%d files fail verification:\n%s", len(b), strings.Join(b, "\n"))
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
	fmt.Fprintf(&b, "%d files checked, %d bad\n", len(r.Results), bad)
	_, err := io.WriteString(w, b.String())
	return err
}

// Verify re-hashes every file recorded in the lock files of the given
// sources' challenges (every challenge folder under RawRoot that has a lock
// file when sources is empty) and compares size, SHA-256 and MD5 with the
// record. Files are checked concurrently (Options.Concurrency). The error is
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
			if _, err := os.Stat(filepath.Join(f.opts.RawRoot, e.Name(), LockFileName)); e.IsDir() && err == nil {
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
	for _, c := range challenges {
		lf, err := f.locks.get(c)
		if err != nil {
			return nil, err
		}
		for _, e := range lf.Files {
			jobs = append(jobs, job{c, e})
		}
	}
	rep := &VerifyReport{Results: make([]VerifyResult, len(jobs))}
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
