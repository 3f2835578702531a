package fetch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rexmle/rexmle/pipeline/fsutil"
)

// Status is the outcome of one file in a Fetch.
type Status string

// File outcomes.
const (
	StatusFetched Status = "fetched"                     // downloaded (or linked from another challenge's copy) and verified
	StatusSkipped Status = "skipped"                     // already verified (perhaps only unpacked now)
	StatusFailed  Status = "failed"                      // see FileResult.Err
	StatusManual  Status = "waiting for manual download" // a manual source's file is not in place yet (not fatal)
)

// FileResult is the outcome of one planned file (or of a whole challenge
// whose source could not be resolved: Name is then empty).
type FileResult struct {
	Challenge, Name string
	Status          Status
	// Bytes is what this file transferred over the network in this run.
	Bytes int64
	// ResumedFrom is the .part size a resumed download started from.
	ResumedFrom int64
	// Extracted is true when the archive was unpacked in this run.
	Extracted bool
	// Note is a short human remark ("linked from topcow-track1-task1", instructions, ...).
	Note string
	Err  error
}

// Summary is the result of Fetch.
type Summary struct {
	Files []FileResult
	// BytesTransferred counts every body byte received in this run,
	// including bytes of attempts that later failed.
	BytesTransferred int64
	Elapsed          time.Duration
}

// Count returns the number of files with status st.
func (s *Summary) Count(st Status) int {
	n := 0
	for _, f := range s.Files {
		if f.Status == st {
			n++
		}
	}
	return n
}

// Failed lists the failed files.
func (s *Summary) Failed() []FileResult {
	var out []FileResult
	for _, f := range s.Files {
		if f.Status == StatusFailed {
			out = append(out, f)
		}
	}
	return out
}

// Err joins the failures (nil when nothing failed; files waiting for a
// manual download are not failures).
func (s *Summary) Err() error {
	var errs []error
	for _, f := range s.Failed() {
		errs = append(errs, fmt.Errorf("%s: %w", f.label(), f.Err))
	}
	return errors.Join(errs...)
}

func (f FileResult) label() string {
	if f.Name == "" {
		return f.Challenge
	}
	return f.Challenge + "/" + f.Name
}

// Print writes a per-file report and a totals line.
func (s *Summary) Print(w io.Writer) error {
	var b strings.Builder
	for _, f := range s.Files {
		line := fmt.Sprintf("%-9s %s", statusWord(f.Status), f.label())
		if f.Bytes > 0 {
			line += "  " + FormatBytes(f.Bytes)
		}
		if f.ResumedFrom > 0 {
			line += fmt.Sprintf(" (resumed at %s)", FormatBytes(f.ResumedFrom))
		}
		if f.Extracted {
			line += "  extracted"
		}
		if f.Note != "" {
			line += "  " + f.Note
		}
		if f.Err != nil {
			line += "\n          " + f.Err.Error()
		}
		b.WriteString(line + "\n")
	}
	fmt.Fprintf(&b, "%d fetched, %d skipped, %d failed, %d waiting for manual download; %s transferred in %s (%s)\n",
		s.Count(StatusFetched), s.Count(StatusSkipped), s.Count(StatusFailed), s.Count(StatusManual),
		FormatBytes(s.BytesTransferred), s.Elapsed.Round(time.Millisecond), FormatRate(s.BytesTransferred, s.Elapsed))
	_, err := io.WriteString(w, b.String())
	return err
}

func statusWord(s Status) string {
	switch s {
	case StatusFetched:
		return "FETCHED"
	case StatusSkipped:
		return "SKIPPED"
	case StatusFailed:
		return "FAILED"
	case StatusManual:
		return "MANUAL"
	}
	return string(s)
}

// ErrNoSpace is returned when the file system lacks room for the downloads.
var ErrNoSpace = errors.New("not enough free disk space")

// fetcher carries the state shared by Plan, Fetch and Verify.
type fetcher struct {
	opts                     Options
	log                      *slog.Logger
	token                    string
	zenodoHost, figshareHost string
	locks                    *lockStore
	prog                     progressSink
	transferred              atomic.Int64
	defaultLogger            bool // Options.Logger was nil
}

func newFetcher(opts Options) (*fetcher, error) {
	o, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	return &fetcher{
		opts: o, log: o.Logger, token: strings.TrimSpace(o.Token),
		zenodoHost: hostOf(o.ZenodoBaseURL), figshareHost: hostOf(o.FigshareBaseURL),
		locks: newLockStore(o.RawRoot), prog: &logProgress{log: o.Logger, files: map[string]*logFile{}},
		defaultLogger: opts.Logger == nil,
	}, nil
}

// Fetch plans the sources and downloads, verifies, records and unpacks what
// the plan says, concurrently. Failures of single files or challenges are
// reported in the Summary and do not stop the others; the error is non-nil
// for invalid options, too little disk space, or a cancelled context (the
// Summary is then still returned when available).
func Fetch(ctx context.Context, sources []Source, opts Options) (*Summary, error) {
	f, err := newFetcher(opts)
	if err != nil {
		return nil, err
	}
	began := time.Now()
	p := f.plan(ctx, sources)
	return f.execute(ctx, p, began)
}

// groupKey identifies identical remote files planned for several challenges
// (e.g. the TopCoW archive used by six tasks), downloaded once and linked.
func groupKey(pf *PlannedFile) string {
	if pf.Kind == KindManual || pf.URL == "" || (pf.MD5 == "" && pf.SHA256 == "") {
		return "\x00" + pf.Challenge + "/" + pf.Name
	}
	return pf.URL + "\x00" + pf.MD5 + "\x00" + pf.SHA256
}

// orderGroup puts already verified copies first, so they can serve the
// others, and among the rest the largest partial download, the one to continue.
func orderGroup(g []*PlannedFile) {
	verifiedFirst := func(pf *PlannedFile) int {
		if pf.Action == ActionSkip || pf.Action == ActionExtract {
			return 0
		}
		return 1
	}
	sort.SliceStable(g, func(i, j int) bool {
		a, b := verifiedFirst(g[i]), verifiedFirst(g[j])
		if a != b {
			return a < b
		}
		return g[i].PartBytes > g[j].PartBytes
	})
}

// groupPlan groups the plan's files by remote identity, each group ordered
// by orderGroup, and marks every member after the first with SameAs.
func groupPlan(p *DownloadPlan) [][]*PlannedFile {
	var groups [][]*PlannedFile
	index := map[string]int{}
	for _, c := range p.Challenges {
		if c.Err != nil {
			continue
		}
		for _, pf := range c.Files {
			k := groupKey(pf)
			i, ok := index[k]
			if !ok {
				i = len(groups)
				index[k] = i
				groups = append(groups, nil)
			}
			groups[i] = append(groups[i], pf)
		}
	}
	for _, g := range groups {
		orderGroup(g)
		for _, pf := range g[1:] {
			pf.SameAs = g[0].Challenge
		}
	}
	return groups
}

func (f *fetcher) execute(ctx context.Context, p *DownloadPlan, began time.Time) (*Summary, error) {
	sum := &Summary{}
	for _, c := range p.Challenges {
		if c.Err != nil {
			sum.Files = append(sum.Files, FileResult{Challenge: c.Source.Challenge, Status: StatusFailed, Err: c.Err})
		}
	}
	groups := groupPlan(p)

	// Bytes to download (once per group) plus room to unpack archives.
	planned := p.ToDownload()
	need := planned
	for _, pf := range p.Files() {
		if pf.Extract && pf.Action != ActionSkip {
			need += pf.Size
		}
	}
	if !f.opts.SkipSpaceCheck && need > 0 {
		dir := existingAncestor(f.opts.RawRoot)
		free, err := f.opts.FreeSpace(dir)
		if err == nil && uint64(need) > free {
			return nil, fmt.Errorf("%w in %s: need about %s (downloads plus unpacked archives), %s free; free some space or set Options.SkipSpaceCheck",
				ErrNoSpace, dir, FormatBytes(need), FormatBytes(int64(free)))
		}
	}

	f.prog = newProgress(f.opts, f.log, planned)
	if tp, ok := f.prog.(*ttyProgress); ok && f.defaultLogger {
		// Warnings and errors go above the bars; the bars say the rest.
		f.log = slog.New(slog.NewTextHandler(tp, &slog.HandlerOptions{Level: slog.LevelWarn}))
	}
	results := make([][]FileResult, len(groups))
	var wg sync.WaitGroup
	jobs := make(chan int)
	for w := 0; w < min(f.opts.Concurrency, max(len(groups), 1)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				results[i] = f.runGroup(ctx, groups[i])
			}
		}()
	}
	for i := range groups {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	f.prog.stop()

	for _, r := range results {
		sum.Files = append(sum.Files, r...)
	}
	sort.SliceStable(sum.Files, func(i, j int) bool {
		a, b := sum.Files[i], sum.Files[j]
		if a.Challenge != b.Challenge {
			return a.Challenge < b.Challenge
		}
		return a.Name < b.Name
	})
	sum.BytesTransferred = f.transferred.Load()
	sum.Elapsed = time.Since(began)
	if err := ctx.Err(); err != nil {
		return sum, fmt.Errorf("fetch interrupted: %w", context.Cause(ctx))
	}
	return sum, nil
}

// existingAncestor returns dir or its nearest existing parent.
func existingAncestor(dir string) string {
	d := filepath.Clean(dir)
	for {
		if _, err := os.Stat(d); err == nil {
			return d
		}
		parent := filepath.Dir(d)
		if parent == d {
			return d
		}
		d = parent
	}
}

// verified is a file known good on disk.
type verified struct {
	path string
	d    digest
	url  string
}

// runGroup processes the files sharing one remote source: the first one
// that needs a download fetches it, the others get a link to it.
func (f *fetcher) runGroup(ctx context.Context, g []*PlannedFile) []FileResult {
	orderGroup(g)
	var have *verified
	var out []FileResult
	var firstFailure *FileResult
	for _, pf := range g {
		if err := ctx.Err(); err != nil {
			out = append(out, FileResult{Challenge: pf.Challenge, Name: pf.Name, Status: StatusFailed, Err: fmt.Errorf("not started: %w", err)})
			continue
		}
		if have == nil && firstFailure != nil && (pf.Action == ActionDownload || pf.Action == ActionResume) {
			// The same remote file just failed for another challenge: do not
			// download (and fail) it once more per challenge.
			out = append(out, FileResult{Challenge: pf.Challenge, Name: pf.Name, Status: StatusFailed,
				Err: fmt.Errorf("same file as %s/%s, which failed: %w", firstFailure.Challenge, firstFailure.Name, firstFailure.Err)})
			continue
		}
		r, v := f.processFile(ctx, pf, have)
		if v != nil && have == nil {
			have = v
		}
		if r.Status == StatusFailed && v == nil && firstFailure == nil {
			firstFailure = &r
		}
		out = append(out, r)
	}
	return out
}

// processFile carries out pf.Action; have, if not nil, is a verified copy
// of the same remote file to link instead of downloading.
func (f *fetcher) processFile(ctx context.Context, pf *PlannedFile, have *verified) (FileResult, *verified) {
	res := FileResult{Challenge: pf.Challenge, Name: pf.Name}
	fail := func(err error) (FileResult, *verified) {
		res.Status, res.Err = StatusFailed, err
		f.log.Error("fetch failed", "file", pf.Challenge+"/"+pf.Name, "err", err.Error())
		return res, nil
	}
	if err := os.MkdirAll(filepath.Dir(pf.Dest), 0o755); err != nil {
		return fail(fmt.Errorf("create raw folder: %w", err))
	}

	switch pf.Action {
	case ActionSkip, ActionExtract:
		e := pf.Locked
		d := digest{size: e.Size, md5: e.MD5, sha256: e.SHA256}
		if f.opts.Verify {
			got, err := hashFile(ctx, pf.Dest)
			if err != nil {
				return fail(err)
			}
			if got.sha256 != e.SHA256 || got.size != e.Size {
				f.log.Warn("recorded file changed on disk; fetching again", "file", pf.Challenge+"/"+pf.Name)
				if err := f.locks.update(pf.Challenge, func(lf *LockFile) { lf.remove(pf.Name) }); err != nil {
					return fail(err)
				}
				if pf.Kind == KindManual {
					return fail(&ChecksumError{File: pf.Challenge + "/" + pf.Name, What: "sha256", Want: e.SHA256, Got: got.sha256})
				}
				pf.Action, pf.Locked = ActionDownload, nil
				os.Remove(pf.Dest)
				return f.processFile(ctx, pf, have)
			}
		}
		res.Status = StatusSkipped
		v := &verified{path: pf.Dest, d: d, url: e.URL}
		if pf.Action == ActionExtract {
			if err := f.extract(ctx, pf); err != nil {
				return fail(err)
			}
			res.Extracted = true
		}
		return res, v

	case ActionManual:
		res.Status = StatusManual
		res.Note = fmt.Sprintf("place the file at %s", pf.Dest)
		if pf.Instructions != "" {
			res.Note += "; " + strings.Join(strings.Fields(pf.Instructions), " ")
		}
		f.log.Warn("waiting for manual download", "file", pf.Challenge+"/"+pf.Name, "put_at", pf.Dest)
		return res, nil

	case ActionAdopt:
		d, err := hashFile(ctx, pf.Dest)
		if err != nil {
			return fail(err)
		}
		if ce := checkDigest(pf, d); ce != nil {
			if pf.Kind == KindManual {
				return fail(fmt.Errorf("the file you placed does not match: %w", ce))
			}
			f.log.Warn("file in place does not match its source; downloading again", "file", pf.Challenge+"/"+pf.Name, "reason", ce.Error())
			return f.download(ctx, pf, have, res)
		}
		return f.record(ctx, pf, d, pf.URL, res, StatusSkipped)
	}
	return f.download(ctx, pf, have, res)
}

// download links have into place or downloads pf, then records and unpacks.
func (f *fetcher) download(ctx context.Context, pf *PlannedFile, have *verified, res FileResult) (FileResult, *verified) {
	if have != nil {
		if err := linkOrCopy(have.path, pf.Dest); err == nil {
			os.Remove(pf.Dest + ".part") // an older partial download is moot now
			res.Note = "linked from " + filepath.Base(filepath.Dir(have.path))
			return f.record(ctx, pf, have.d, have.url, res, StatusFetched)
		} else {
			f.log.Warn("could not link the shared copy; downloading", "file", pf.Challenge+"/"+pf.Name, "err", err.Error())
		}
	}
	u := pf.URL
	if pf.Kind == KindGDrive {
		var err error
		if u, err = f.resolveGDrive(ctx, pf); err != nil {
			res.Status, res.Err = StatusFailed, err
			return res, nil
		}
	}
	if st, err := os.Stat(pf.Dest + ".part"); err == nil {
		res.ResumedFrom = st.Size()
	}
	d, n, err := f.downloadPart(ctx, pf, u)
	res.Bytes = n
	if err != nil {
		res.Status, res.Err = StatusFailed, err
		f.log.Error("download failed", "file", pf.Challenge+"/"+pf.Name, "err", err.Error())
		return res, nil
	}
	if ce := checkDigest(pf, d); ce != nil {
		os.Remove(pf.Dest + ".part")
		ce.PartRemove = true
		if pf.Pinned {
			ce.Hint = fmt.Sprintf("the source publishes no checksum and this differs from the first download of %s recorded in %s; "+
				"if the file changed upstream on purpose, delete its entry there and fetch again",
				pf.PinnedAt.UTC().Format(time.RFC3339), filepath.Join(filepath.Dir(pf.Dest), LockFileName))
		}
		res.Status, res.Err = StatusFailed, ce
		f.log.Error("verification failed", "file", pf.Challenge+"/"+pf.Name, "err", ce.Error())
		return res, nil
	}
	if err := os.Rename(pf.Dest+".part", pf.Dest); err != nil {
		res.Status, res.Err = StatusFailed, fmt.Errorf("move into place: %w", err)
		return res, nil
	}
	if err := fsutil.SyncDir(filepath.Dir(pf.Dest)); err != nil {
		res.Status, res.Err = StatusFailed, err
		return res, nil
	}
	return f.record(ctx, pf, d, pf.URL, res, StatusFetched)
}

// record writes pf's lock entry and unpacks it if asked.
func (f *fetcher) record(ctx context.Context, pf *PlannedFile, d digest, srcURL string, res FileResult, st Status) (FileResult, *verified) {
	entry := LockEntry{Name: pf.Name, Size: d.size, SHA256: d.sha256, MD5: d.md5, URL: srcURL, FetchedAt: f.opts.Now().UTC()}
	if pf.Pinned || pf.firstUse() {
		first := entry.FetchedAt
		if pf.Pinned && !pf.PinnedAt.IsZero() {
			first = pf.PinnedAt.UTC()
		}
		entry.Trust, entry.FirstFetchedAt = TrustFirstUse, &first
	}
	if err := f.locks.update(pf.Challenge, func(lf *LockFile) { lf.upsert(entry) }); err != nil {
		res.Status, res.Err = StatusFailed, err
		return res, nil
	}
	v := &verified{path: pf.Dest, d: d, url: srcURL}
	res.Status = st
	if pf.Extract {
		if err := f.extract(ctx, pf); err != nil {
			res.Status, res.Err = StatusFailed, err
			f.log.Error("extraction failed", "file", pf.Challenge+"/"+pf.Name, "err", err.Error())
			return res, v
		}
		res.Extracted = true
	}
	return res, v
}

// extract unpacks pf and marks it unpacked in the lock file.
func (f *fetcher) extract(ctx context.Context, pf *PlannedFile) error {
	rel := pf.extractDir()
	dest := filepath.Join(f.opts.RawDir(pf.Challenge), rel)
	began := time.Now()
	f.log.Info("extracting", "file", pf.Challenge+"/"+pf.Name, "into", dest)
	lim := extractLimits{maxBytes: f.opts.MaxExtractBytes, maxRatio: f.opts.MaxEntryRatio}
	if lim.maxBytes <= 0 {
		size := pf.Size
		if st, err := os.Stat(pf.Dest); err == nil {
			size = st.Size()
		}
		lim.maxBytes = 20*size + 1<<30
	}
	if !f.opts.SkipSpaceCheck {
		lim.freeSpace = f.opts.FreeSpace
	}
	n, bytes, err := extractArchive(ctx, pf.Dest, dest, lim)
	if err != nil {
		return err
	}
	f.log.Info("extracted", "file", pf.Challenge+"/"+pf.Name, "files", n, "bytes", FormatBytes(bytes), "elapsed", time.Since(began).Round(time.Millisecond))
	now := f.opts.Now().UTC()
	return f.locks.update(pf.Challenge, func(lf *LockFile) {
		if e := lf.Entry(pf.Name); e != nil {
			e.ExtractedTo, e.ExtractedAt = rel, &now
		}
	})
}

// linkOrCopy puts a hard link to (or else a copy of) src at dst atomically.
func linkOrCopy(src, dst string) error {
	tmp := dst + ".link"
	os.Remove(tmp)
	if err := os.Link(src, tmp); err != nil {
		if err := fsutil.CopyFile(src, tmp); err != nil {
			os.Remove(tmp)
			return err
		}
		if err := fsutil.Sync(tmp); err != nil {
			os.Remove(tmp)
			return err
		}
	}
	if err := os.Rename(tmp, dst); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("move into place: %w", err)
	}
	return nil
}
