package fetch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/rexmle/rexmle/pipeline/workpool"
)

// Action is what Fetch will do with one planned file.
type Action int

const (
	// ActionDownload downloads the file from byte 0.
	ActionDownload Action = iota
	// ActionResume continues an interrupted download from its .part file.
	ActionResume
	// ActionAdopt checks a file already in place but not yet recorded in the
	// lock file, keeping it when it matches (re-downloading otherwise, or
	// reporting a mismatch for a manual source).
	ActionAdopt
	// ActionExtract only unpacks an already verified archive.
	ActionExtract
	// ActionSkip does nothing: the file is verified (and unpacked if asked).
	ActionSkip
	// ActionManual waits for the user to place the file by hand.
	ActionManual
)

// String is the word the dry-run listing prints.
func (a Action) String() string {
	switch a {
	case ActionDownload:
		return "download"
	case ActionResume:
		return "resume"
	case ActionAdopt:
		return "check existing"
	case ActionExtract:
		return "extract"
	case ActionSkip:
		return "skip (verified)"
	case ActionManual:
		return "manual download needed"
	}
	return fmt.Sprintf("Action(%d)", int(a))
}

// PlannedFile is one file of one challenge and what Fetch will do with it.
type PlannedFile struct {
	Challenge string
	Kind      string
	Name      string
	// URL is the download address ("" for manual sources; for Google Drive
	// the confirm page is resolved at download time).
	URL string
	// Size is the expected size in bytes (0 = unknown).
	Size int64
	// MD5 and SHA256 are expected lower-case hex checksums ("" = unknown).
	MD5, SHA256 string
	Action      Action
	// PartBytes is the size of the .part file a resume starts from.
	PartBytes     int64
	Extract       bool
	ExtractToStem bool
	// Dest is the final path of the file.
	Dest string
	// Locked is the lock entry that makes the file verified (Skip / Extract).
	Locked *LockEntry
	// Instructions repeats a manual source's instructions.
	Instructions string
	// SameAs names the challenge whose copy of the identical remote file
	// (same URL and checksum) this one is linked from instead of downloaded.
	SameAs string
	// Source is the label (Source.Label) of the source that planned the file.
	Source string
	// Pinned is true when the expected size and checksums come from the lock
	// file's record of the first download (trust on first use: a source with
	// no published checksum, such as a Google Drive file), not from the source.
	Pinned bool
	// PinnedAt is when that first download was recorded.
	PinnedAt time.Time
}

// ToDownload is the number of bytes Fetch expects to transfer for f (an
// unknown size counts as 0).
func (f *PlannedFile) ToDownload() int64 {
	if f.SameAs != "" && f.Action != ActionAdopt {
		return 0
	}
	switch f.Action {
	case ActionDownload:
		return f.Size
	case ActionResume:
		if f.Size > f.PartBytes {
			return f.Size - f.PartBytes
		}
	}
	return 0
}

// firstUse reports whether f is a single-file download with no checksum
// from its source (nor yet from a first download): its first download's
// digest becomes the record later downloads must match.
func (f *PlannedFile) firstUse() bool {
	return (f.Kind == KindGDrive || f.Kind == KindURL) && f.MD5 == "" && f.SHA256 == ""
}

// extractDir is where f's archive is unpacked, relative to its raw folder.
func (f *PlannedFile) extractDir() string {
	if f.ExtractToStem {
		return archiveStem(f.Name)
	}
	return "."
}

// ChallengePlan is the plan for one Source.
type ChallengePlan struct {
	Source Source
	Files  []*PlannedFile
	// Shared lists files this source needs that an earlier source of the
	// same raw folder already planned (the same remote file): they are
	// fetched once, by that source, and count as this source's too.
	Shared []*PlannedFile
	// Err is why the source could not be resolved (its files are then unknown).
	Err error
}

// DownloadPlan is the resolved work of a Fetch (the result of Plan).
type DownloadPlan struct {
	Challenges []*ChallengePlan
	rawRoot    string
}

// Failed lists the sources that could not be planned (ChallengePlan.Err set).
func (p *DownloadPlan) Failed() []*ChallengePlan {
	var out []*ChallengePlan
	for _, c := range p.Challenges {
		if c.Err != nil {
			out = append(out, c)
		}
	}
	return out
}

// Err joins the errors of the sources that could not be planned (nil when
// every source was planned). A dry run reports it as its exit status, as
// the real fetch does for these sources' failures: a plan that lists
// errors must not look like success.
func (p *DownloadPlan) Err() error {
	failed := p.Failed()
	if len(failed) == 0 {
		return nil
	}
	errs := make([]error, 0, len(failed))
	for _, c := range failed {
		errs = append(errs, fmt.Errorf("%s: %w", c.Source.Label(), c.Err))
	}
	what := fmt.Sprintf("%d of %d sources", len(failed), len(p.Challenges))
	if len(failed) == len(p.Challenges) {
		what = fmt.Sprintf("none of the %d sources", len(p.Challenges))
		return fmt.Errorf("%s could be planned: %w", what, errors.Join(errs...))
	}
	return fmt.Errorf("%s could not be planned: %w", what, errors.Join(errs...))
}

// Files lists every planned file in challenge order.
func (p *DownloadPlan) Files() []*PlannedFile {
	var out []*PlannedFile
	for _, c := range p.Challenges {
		out = append(out, c.Files...)
	}
	return out
}

// ToDownload is the total number of bytes to transfer (unknown sizes count 0).
func (p *DownloadPlan) ToDownload() int64 {
	var n int64
	for _, f := range p.Files() {
		n += f.ToDownload()
	}
	return n
}

// Print writes the dry-run view: per challenge its files, sizes and actions,
// a per-challenge total, manual instructions, and a grand total.
func (p *DownloadPlan) Print(w io.Writer) error {
	var b strings.Builder
	var grand, grandDown int64
	nFiles, unknown, nShared, nFailed := 0, 0, 0, 0
	for _, c := range p.Challenges {
		s := c.Source
		fmt.Fprintf(&b, "%s (%s", s.Label(), s.Kind)
		if s.Record != "" {
			fmt.Fprintf(&b, " %s", s.Record)
		}
		if s.Kind == KindURL {
			if u, err := url.Parse(s.URL); err == nil {
				fmt.Fprintf(&b, " %s", redactURL(u))
			}
		}
		fmt.Fprintf(&b, ") → %s\n", filepath.Join(p.rawRoot, s.Challenge))
		if c.Err != nil {
			nFailed++
			fmt.Fprintf(&b, "  ERROR: %v\n\n", c.Err)
			continue
		}
		var total, down int64
		for _, f := range c.Files {
			nFiles++
			size := "?"
			if f.Size > 0 {
				size = FormatBytes(f.Size)
				total += f.Size
			} else {
				unknown++
			}
			act := f.Action.String()
			if f.Action == ActionResume {
				act = fmt.Sprintf("resume from %s", FormatBytes(f.PartBytes))
			}
			if f.SameAs != "" && (f.Action == ActionDownload || f.Action == ActionResume) {
				act = "link to the copy of " + f.SameAs
			}
			if f.Extract && f.Action != ActionSkip && f.Action != ActionExtract {
				act += " + extract"
			}
			if f.Pinned {
				act += fmt.Sprintf(" (checked against the first download of %s)", f.PinnedAt.UTC().Format("2006-01-02"))
			}
			fmt.Fprintf(&b, "  %-48s %10s  %s\n", f.Name, size, act)
			down += f.ToDownload()
		}
		for _, f := range c.Shared {
			nShared++
			size := "?"
			if f.Size > 0 {
				size = FormatBytes(f.Size)
			}
			fmt.Fprintf(&b, "  %-48s %10s  shared: planned by %s\n", f.Name, size, f.Source)
		}
		if s.Kind == KindManual {
			for _, line := range strings.Split(strings.TrimSpace(s.Instructions), "\n") {
				if line != "" {
					fmt.Fprintf(&b, "  | %s\n", line)
				}
			}
			fmt.Fprintf(&b, "  | then put %s in %s\n", strings.Join(s.Files, ", "), filepath.Join(p.rawRoot, s.Challenge))
		}
		fmt.Fprintf(&b, "  total %s, to download %s\n\n", FormatBytes(total), FormatBytes(down))
		grand += total
		grandDown += down
	}
	fmt.Fprintf(&b, "%d sources (%d could not be planned), %d files, %s in all, %s to download", len(p.Challenges), nFailed, nFiles, FormatBytes(grand), FormatBytes(grandDown))
	if unknown > 0 {
		fmt.Fprintf(&b, " (+%d files of unknown size)", unknown)
	}
	if nShared > 0 {
		fmt.Fprintf(&b, "; %d files shared between sources of one folder, fetched once", nShared)
	}
	b.WriteString("\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// Plan resolves every source's files (names, URLs, sizes, checksums) from its
// metadata and decides what Fetch must do with each. A source that cannot be
// resolved gets ChallengePlan.Err; the others are planned regardless. The
// error is non-nil only for invalid options.
func Plan(ctx context.Context, sources []Source, opts Options) (*DownloadPlan, error) {
	f, err := newFetcher(opts)
	if err != nil {
		return nil, err
	}
	return f.plan(ctx, sources), nil
}

// remoteFile is one file as a metadata API describes it.
type remoteFile struct {
	Name string
	URL  string
	Size int64
	MD5  string
}

type recordKey struct{ kind, id string }

// plan resolves all sources, fetching each distinct record's metadata once.
func (f *fetcher) plan(ctx context.Context, sources []Source) *DownloadPlan {
	p := &DownloadPlan{rawRoot: f.opts.RawRoot}
	records, recErr := f.resolveRecords(ctx, sources)
	dests := map[string]*PlannedFile{}
	for _, s := range sources {
		cp := &ChallengePlan{Source: s}
		p.Challenges = append(p.Challenges, cp)
		if err := s.validate(); err != nil {
			cp.Err = err
			continue
		}
		remote, err := f.remoteFiles(s, records, recErr)
		if err != nil {
			cp.Err = err
			continue
		}
		lf, err := f.locks.get(s.Challenge)
		if err != nil {
			cp.Err = err
			continue
		}
		fresh, shared, err := alreadyPlanned(s, remote, dests)
		if err != nil {
			cp.Err = err
			continue
		}
		cp.Shared = shared
		for _, r := range fresh {
			pf := &PlannedFile{
				Challenge: s.Challenge, Kind: s.Kind, Name: r.Name, URL: r.URL, Size: r.Size, MD5: r.MD5,
				Extract: s.Extract && isArchive(r.Name), ExtractToStem: s.ExtractToStem,
				Dest:         filepath.Join(f.opts.RawDir(s.Challenge), r.Name),
				Instructions: s.Instructions,
				Source:       s.Label(),
			}
			if len(remote) == 1 && s.Kind != KindZenodo && s.Kind != KindFigshare {
				pf.SHA256 = strings.ToLower(s.SHA256)
			}
			dests[filepath.Join(s.Challenge, r.Name)] = pf
			pinFirstUse(pf, lf)
			f.decide(pf, lf)
			cp.Files = append(cp.Files, pf)
		}
	}
	groupPlan(p) // marks SameAs
	return p
}

// resolveRecords lists the files of every Zenodo and Figshare record the
// sources name, each record once, in parallel; a record not reached before
// ctx ends is "not resolved: interrupted".
func (f *fetcher) resolveRecords(ctx context.Context, sources []Source) (map[recordKey][]remoteFile, map[recordKey]error) {
	records := map[recordKey][]remoteFile{}
	recErr := map[recordKey]error{}
	var keys []recordKey
	for _, s := range sources {
		if s.Kind != KindZenodo && s.Kind != KindFigshare || s.Record == "" {
			continue
		}
		k := recordKey{s.Kind, s.Record}
		if _, seen := recErr[k]; !seen {
			recErr[k] = errors.New("not resolved: interrupted")
			keys = append(keys, k)
		}
	}
	files := make([][]remoteFile, len(keys))
	errs := make([]error, len(keys))
	done := make([]bool, len(keys))
	workpool.Each(ctx, len(keys), f.opts.Concurrency, func(i int) {
		files[i], errs[i] = f.resolveRecord(ctx, keys[i])
		done[i] = true
	})
	for i, k := range keys {
		if done[i] {
			records[k], recErr[k] = files[i], errs[i]
		}
	}
	return records, recErr
}

// remoteFiles are the files a source names: selected from its record, its
// single URL or Google Drive file, or the files to be placed by hand.
func (f *fetcher) remoteFiles(s Source, records map[recordKey][]remoteFile, recErr map[recordKey]error) ([]remoteFile, error) {
	var remote []remoteFile
	switch s.Kind {
	case KindZenodo, KindFigshare:
		k := recordKey{s.Kind, s.Record}
		if err := recErr[k]; err != nil {
			return nil, err
		}
		sel, err := selectFiles(records[k], s.Files)
		if err != nil {
			return nil, fmt.Errorf("%s record %s: %w", s.Kind, s.Record, err)
		}
		remote = sel
	case KindURL, KindGDrive:
		name, err := s.singleFileName()
		if err != nil {
			return nil, err
		}
		u := s.URL
		if s.Kind == KindGDrive {
			u = f.gdriveURL(s.Record)
		}
		remote = []remoteFile{{Name: name, URL: u, Size: s.Size, MD5: strings.ToLower(s.MD5)}}
	case KindManual:
		for i, n := range s.Files {
			rf := remoteFile{Name: n}
			if i == 0 && len(s.Files) == 1 {
				rf.Size, rf.MD5 = s.Size, strings.ToLower(s.MD5)
			}
			remote = append(remote, rf)
		}
	}
	return remote, nil
}

// alreadyPlanned sorts a source's files against those earlier sources
// planned (dests, by challenge and name): a file of the same folder
// already planned is shared when it is the same remote file (the PUMA,
// PANTHER, TopCoW and TopBrain tasks list one record each); a different
// file under the same name is a conflict.
func alreadyPlanned(s Source, remote []remoteFile, dests map[string]*PlannedFile) (fresh []remoteFile, shared []*PlannedFile, err error) {
	var conflicts []string
	for _, r := range remote {
		prev := dests[filepath.Join(s.Challenge, r.Name)]
		switch {
		case prev == nil:
			fresh = append(fresh, r)
		case sameRemote(prev, s.Kind, r):
			shared = append(shared, prev)
		default:
			conflicts = append(conflicts, fmt.Sprintf("%s (already planned by %s from %s)", r.Name, prev.Source, prev.Kind))
		}
	}
	if len(conflicts) > 0 {
		return nil, nil, fmt.Errorf("challenge %s: %s already planned from another source of the same folder with different content; give the files distinct names or drop one source",
			s.Challenge, strings.Join(conflicts, ", "))
	}
	return fresh, shared, nil
}

// sameRemote reports whether r (from a source of kind) is the remote file
// prev was planned from: the same kind and address, or, across kinds, the
// same published size and MD5.
func sameRemote(prev *PlannedFile, kind string, r remoteFile) bool {
	if prev.Kind == KindManual || kind == KindManual {
		return prev.Kind == kind
	}
	if prev.Kind == kind && prev.URL == r.URL {
		return (prev.MD5 == "" || r.MD5 == "" || strings.EqualFold(prev.MD5, r.MD5)) &&
			(prev.Size == 0 || r.Size == 0 || prev.Size == r.Size)
	}
	return prev.MD5 != "" && strings.EqualFold(prev.MD5, r.MD5) && prev.Size > 0 && prev.Size == r.Size
}

// pinFirstUse gives a single-file download whose source publishes no
// checksum (a Google Drive file, a plain URL) the size and checksums its lock
// entry recorded at the first download, so that later downloads and the
// copy on disk are checked against them (trust on first use). A source that
// states a size pins nothing when the record disagrees with it: the stated
// size wins and the file is fetched again.
func pinFirstUse(pf *PlannedFile, lf *LockFile) {
	if pf.Kind != KindGDrive && pf.Kind != KindURL || pf.MD5 != "" || pf.SHA256 != "" {
		return
	}
	e := lf.Entry(pf.Name)
	if e == nil || e.SHA256 == "" || e.Size <= 0 || (e.URL != "" && e.URL != pf.URL) {
		return
	}
	if pf.Size > 0 && pf.Size != e.Size {
		return
	}
	pf.Size, pf.SHA256, pf.MD5 = e.Size, strings.ToLower(e.SHA256), strings.ToLower(e.MD5)
	pf.Pinned, pf.PinnedAt = true, e.FetchedAt
	if e.FirstFetchedAt != nil {
		pf.PinnedAt = *e.FirstFetchedAt
	}
}

// selectFiles keeps the record files named in want (all when want is empty);
// a wanted name missing from the record is an error.
func selectFiles(all []remoteFile, want []string) ([]remoteFile, error) {
	if len(all) == 0 {
		return nil, fmt.Errorf("record lists no files")
	}
	if len(want) == 0 {
		return all, nil
	}
	byName := map[string]remoteFile{}
	for _, r := range all {
		byName[r.Name] = r
	}
	var out []remoteFile
	var missing []string
	for _, w := range want {
		r, ok := byName[w]
		if !ok {
			missing = append(missing, w)
			continue
		}
		out = append(out, r)
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("files not in the record: %s", strings.Join(missing, ", "))
	}
	return out, nil
}

// decide sets pf.Action from the lock file and what is on disk.
func (f *fetcher) decide(pf *PlannedFile, lf *LockFile) {
	if e := lf.Entry(pf.Name); e != nil && lockMatches(e, pf) {
		if st, err := os.Stat(pf.Dest); err == nil && st.Mode().IsRegular() && st.Size() == e.Size {
			ec := *e
			pf.Locked = &ec
			pf.Action = ActionSkip
			if pf.Size == 0 {
				pf.Size = e.Size
			}
			if pf.Extract && e.ExtractedTo != pf.extractDir() {
				pf.Action = ActionExtract
			}
			return
		}
	}
	if st, err := os.Stat(pf.Dest); err == nil && st.Mode().IsRegular() {
		pf.Action = ActionAdopt
		return
	}
	if pf.Kind == KindManual {
		pf.Action = ActionManual
		return
	}
	if st, err := os.Stat(pf.Dest + ".part"); err == nil && st.Mode().IsRegular() && st.Size() > 0 {
		pf.Action, pf.PartBytes = ActionResume, st.Size()
		return
	}
	pf.Action = ActionDownload
}

// lockMatches reports whether a lock entry agrees with what the source expects.
func lockMatches(e *LockEntry, pf *PlannedFile) bool {
	return (pf.Size == 0 || e.Size == pf.Size) &&
		(pf.MD5 == "" || strings.EqualFold(e.MD5, pf.MD5)) &&
		(pf.SHA256 == "" || strings.EqualFold(e.SHA256, pf.SHA256))
}

// resolveRecord lists a Zenodo record's or Figshare article's files.
func (f *fetcher) resolveRecord(ctx context.Context, k recordKey) ([]remoteFile, error) {
	switch k.kind {
	case KindZenodo:
		return f.zenodoFiles(ctx, k.id)
	case KindFigshare:
		return f.figshareFiles(ctx, k.id)
	}
	return nil, fmt.Errorf("no metadata API for kind %q", k.kind)
}

type zenodoRecord struct {
	Files []struct {
		Key      string `json:"key"`
		Size     int64  `json:"size"`
		Checksum string `json:"checksum"`
		Links    struct {
			Self    string `json:"self"`
			Content string `json:"content"`
		} `json:"links"`
	} `json:"files"`
}

// zenodoFiles reads GET {base}/api/records/{id}.
func (f *fetcher) zenodoFiles(ctx context.Context, id string) ([]remoteFile, error) {
	u := strings.TrimRight(f.opts.ZenodoBaseURL, "/") + "/api/records/" + url.PathEscape(id)
	var rec zenodoRecord
	if err := f.getJSON(ctx, u, &rec); err != nil {
		return nil, fmt.Errorf("zenodo record %s: %w", id, err)
	}
	var out []remoteFile
	for _, z := range rec.Files {
		if err := checkName(z.Key); err != nil {
			return nil, fmt.Errorf("zenodo record %s: file %q: %w", id, z.Key, err)
		}
		link := z.Links.Self
		if link == "" {
			link = z.Links.Content
		}
		if link == "" {
			return nil, fmt.Errorf("zenodo record %s: file %s has no download link", id, z.Key)
		}
		md5 := ""
		if algo, sum, ok := strings.Cut(z.Checksum, ":"); ok && strings.EqualFold(algo, "md5") {
			md5 = strings.ToLower(sum)
		}
		out = append(out, remoteFile{Name: z.Key, URL: link, Size: z.Size, MD5: md5})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("zenodo record %s lists no files", id)
	}
	return out, nil
}

// figshareFile is one entry of GET /v2/articles/{id}/files.
type figshareFile struct {
	Name        string `json:"name"`
	Size        int64  `json:"size"`
	ComputedMD5 string `json:"computed_md5"`
	SuppliedMD5 string `json:"supplied_md5"`
	DownloadURL string `json:"download_url"`
	IsLinkOnly  bool   `json:"is_link_only"`
}

// figsharePageSize is the page size asked of the Figshare files listing
// (the API's maximum is 1000).
const figsharePageSize = 1000

// figshareFiles lists an article's files page by page with
// GET {base}/v2/articles/{id}/files?page=N&page_size=1000 (the files array
// inside the article details is capped for large articles).
func (f *fetcher) figshareFiles(ctx context.Context, id string) ([]remoteFile, error) {
	base := strings.TrimRight(f.opts.FigshareBaseURL, "/") + "/v2/articles/" + url.PathEscape(id) + "/files"
	var out []remoteFile
	for page := 1; ; page++ {
		var files []figshareFile
		u := fmt.Sprintf("%s?page=%d&page_size=%d", base, page, figsharePageSize)
		if err := f.getJSON(ctx, u, &files); err != nil {
			return nil, fmt.Errorf("figshare article %s: %w", id, err)
		}
		for _, fl := range files {
			if err := checkName(fl.Name); err != nil {
				return nil, fmt.Errorf("figshare article %s: file %q: %w", id, fl.Name, err)
			}
			if fl.DownloadURL == "" || fl.IsLinkOnly {
				return nil, fmt.Errorf("figshare article %s: file %s has no direct download", id, fl.Name)
			}
			md5 := fl.ComputedMD5
			if md5 == "" {
				md5 = fl.SuppliedMD5
			}
			out = append(out, remoteFile{Name: fl.Name, URL: fl.DownloadURL, Size: fl.Size, MD5: strings.ToLower(md5)})
		}
		if len(files) < figsharePageSize || page >= 100 {
			break
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("figshare article %s lists no files", id)
	}
	return out, nil
}

// gdriveURL is the direct-download address of a Google Drive file.
func (f *fetcher) gdriveURL(id string) string {
	return strings.TrimRight(f.opts.GDriveBaseURL, "/") + "/uc?export=download&id=" + url.QueryEscape(id)
}

// FormatBytes prints n with binary units ("1.5 GiB").
func FormatBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit && exp < 5; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}
