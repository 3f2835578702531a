// Package prepare is the pipeline's prepare stage: for every selected
// challenge it synthesizes the demo's raw data (synthetic profiles) or
// checks the fetched download, then builds the agent-visible public folder
// and the private answers with the reference's split, into a fresh folder
// swapped in whole. A challenge whose prepared folder still matches its
// input is skipped; that check reads file sizes and times, never the data.
package prepare

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/rexmle/rexmle/pipeline/challenge"
	"github.com/rexmle/rexmle/pipeline/config"
	"github.com/rexmle/rexmle/pipeline/fsutil"
	"github.com/rexmle/rexmle/pipeline/publicview"
	"github.com/rexmle/rexmle/pipeline/workpool"
)

// SynthSeed is the seed of the demo profile's synthetic datasets.
const SynthSeed = 1

// prepareVersion changes when preparation output changes for the same input,
// so prepared folders made by an older rexmle are redone.
const prepareVersion = "1"

// rawFingerprint summarises a raw folder: every file's path, size and
// modification time (hashing tens of GB of raw data on each run would be slow).
func rawFingerprint(dir string) (string, error) {
	// Files unpacked from archives in the folder are determined by the
	// archives (which are fingerprinted): leaving them out keeps a task's
	// preparation up to date when it, or another task sharing the folder,
	// unpacks an archive.
	unpacked := challenge.ExtractedFiles(dir)
	all, err := fsutil.StatTree(dir, fsutil.StatOptions{Skip: func(rel string, d fs.DirEntry) bool {
		return challenge.IsExtractionEntry(d.Name()) && path.Dir(rel) == "."
	}})
	if err != nil {
		return "", err
	}
	var ents []fsutil.FileStamp
	for _, e := range all {
		if !unpacked[e.Path] {
			ents = append(ents, e)
		}
	}
	sort.Slice(ents, func(i, j int) bool { return ents[i].Path < ents[j].Path })
	h := sha256.New()
	fmt.Fprintf(h, "prepare-v%s\n", prepareVersion)
	for _, e := range ents {
		fmt.Fprintf(h, "%s\x00%d\x00%d\n", e.Path, e.Size, e.ModNano)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// unfinishedDownload returns the first file under raw that fetch is still
// writing (a ".part" file), relative to raw, or "".
func unfinishedDownload(raw string) (string, error) {
	found := ""
	err := filepath.WalkDir(raw, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(d.Name(), ".part") {
			found, _ = filepath.Rel(raw, p)
			return fs.SkipAll
		}
		return nil
	})
	return found, err
}

// upToDate reports whether dataDir holds a preparation of the same input
// (and synthetic size) whose files are all still as the manifest lists them.
// It compares every file's size and modification time with the stat stamp
// written beside the folder when it was prepared; only when they differ
// (or there is no stamp) are the files hashed against the manifest, and the
// stamp renewed when they still match. A no-op rerun reads no data.
func upToDate(dataDir, inputHash, kind string, size challenge.SynthSize) bool {
	m, err := challenge.ReadManifest(dataDir)
	if err != nil || m.InputHash != inputHash || m.Data != kind || m.Size() != size.String() {
		return false
	}
	now, err := statTree(dataDir)
	if err != nil {
		return false
	}
	if had, err := readStatStamp(dataDir); err == nil && had.InputHash == inputHash && equalStats(had.Files, now) {
		return true
	}
	files, err := challenge.HashTree(dataDir)
	if err != nil || len(files) != len(m.Files) {
		return false
	}
	for k, v := range m.Files {
		if files[k] != v {
			return false
		}
	}
	writeStatStamp(dataDir, inputHash, now) // best effort: without it the next check hashes again
	return true
}

// statStamp is what upToDate compares: the size and modification time of
// every regular file of a prepared folder (the manifest included), as they
// were when the folder was prepared or last hashed.
type statStamp struct {
	InputHash string              `json:"input_hash"`
	Files     map[string]fileStat `json:"files"`
}

type fileStat struct {
	Size    int64 `json:"size"`
	ModNano int64 `json:"mod_ns"`
}

// statStampPath is the stamp of a prepared folder: beside it, not in it,
// so it is no part of what the manifest lists.
func statStampPath(dataDir string) string {
	return filepath.Join(filepath.Dir(dataDir), "."+filepath.Base(dataDir)+".stat.json")
}

func statTree(dir string) (map[string]fileStat, error) {
	files, err := fsutil.StatTree(dir, fsutil.StatOptions{})
	out := map[string]fileStat{}
	for _, f := range files {
		out[f.Path] = fileStat{f.Size, f.ModNano}
	}
	return out, err
}

func equalStats(a, b map[string]fileStat) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func readStatStamp(dataDir string) (*statStamp, error) {
	b, err := challenge.ReadFileMax(statStampPath(dataDir), challenge.MaxJSONBytes)
	if err != nil {
		return nil, err
	}
	var s statStamp
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, err
	}
	return &s, nil
}

func writeStatStamp(dataDir, inputHash string, files map[string]fileStat) error {
	b, err := json.Marshal(statStamp{InputHash: inputHash, Files: files})
	if err != nil {
		return err
	}
	return fsutil.WriteFile(statStampPath(dataDir), b, 0o644)
}

// Data kinds: what a profile's data is, recorded in every prepared
// folder's manifest.
const (
	Synthetic = "synthetic" // generated by the challenge's Synthesize (demo)
	Fetched   = "fetched"   // downloaded by `mage fetch` from the sources of record
)

// SyntheticMarker is the file Synthesize's output carries; a fetched raw
// folder that holds it is synthetic data in the wrong place (an older
// rexmle synthesized into data/raw) and is refused.
const SyntheticMarker = ".rexmle-synthetic"

// CheckPrepared returns an error unless dataDir holds a preparation of
// data of kind, and synthetic data of the size the settings ask for: run and
// grade never use synthetic answers for the paper profile, nor downloads for
// the demo, nor a demo dataset of another size than REXMLE_SYNTH_CASES says.
//
// show turns a path into how messages name it (nil: as it is).
func CheckPrepared(dataDir, kind, profile string, size challenge.SynthSize, show func(string) string) error {
	rel := showPath(show)
	m, err := challenge.ReadManifest(dataDir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("%s is not prepared (no %s): run `REXMLE_PROFILE=%s go run mage.go prepare`", rel(dataDir), challenge.ManifestName, profile)
		}
		return fmt.Errorf("prepared data %s: %w", rel(dataDir), err)
	}
	if m.Data != kind {
		had := m.Data
		if had == "" {
			had = "unrecorded (an older rexmle)"
		}
		return fmt.Errorf("%s holds %s data, but profile %s uses %s data: run `REXMLE_PROFILE=%s go run mage.go prepare`", rel(dataDir), had, profile, kind, profile)
	}
	if kind == Synthetic && m.Size() != size.String() {
		return fmt.Errorf("%s holds synthetic data of size %s, but %s=%s: set %s=%s, or run `%s=%s REXMLE_PROFILE=%s go run mage.go prepare`",
			rel(dataDir), m.Size(), challenge.SynthCasesEnv, size, challenge.SynthCasesEnv, m.Size(), challenge.SynthCasesEnv, size, profile)
	}
	return nil
}

// synthMarker is the content of the synthetic marker: the seed, the
// version and, when not the default, the size (so the default's marker, and
// with it the raw folder's fingerprint, is what it always was).
func synthMarker(size challenge.SynthSize) string {
	if size.IsDefault() {
		return fmt.Sprintf("seed %d version %s\n", SynthSeed, prepareVersion)
	}
	return fmt.Sprintf("seed %d version %s size %s\n", SynthSeed, prepareVersion, size)
}

// synthesize writes the demo's raw data of c into raw unless it is there
// already (same seed, version and size), through a temporary folder and a
// rename, so a raw folder is never seen half-written.
func synthesize(ctx context.Context, c challenge.Preparer, raw string, size challenge.SynthSize, force bool) error {
	marker := filepath.Join(raw, SyntheticMarker)
	want := synthMarker(size)
	if b, err := os.ReadFile(marker); err == nil && string(b) == want && !force {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(raw), 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(raw), "."+c.ID()+".synthesizing-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if err := c.Synthesize(ctx, tmp, SynthSeed, size); err != nil {
		return fmt.Errorf("synthesize: %w", err)
	}
	if err := fsutil.WriteFile(filepath.Join(tmp, SyntheticMarker), []byte(want), 0o644); err != nil {
		return err
	}
	return fsutil.SwapDir(tmp, raw)
}

// showPath returns show, or the identity when it is nil.
func showPath(show func(string) string) func(string) string {
	if show == nil {
		return func(p string) string { return p }
	}
	return show
}

// Options configures Run. The caller (pipeline/stages) turns the settings
// into these.
type Options struct {
	Benchmark   *config.Benchmark
	ProfileName string
	Profile     config.Profile
	Challenges  []*config.Challenge
	Mode        challenge.Mode           // the grading mode (the paper's public folder describes it)
	Force       bool                     // prepare again even what is up to date
	SynthSize   challenge.SynthSize      // the size of synthetic data (synthetic profiles only)
	Progress    func(total int) Progress // nil: no progress
	Rel         func(path string) string // how paths are shown; nil: as they are
}

// Progress is told of every finished challenge.
type Progress interface {
	Step(item string, ok bool)
	Finish()
}

// Outcome is one challenge's result.
type Outcome struct {
	ID      string
	Did     bool          // prepared (false: up to date, failed or not started)
	Err     error         // why it failed; nil when it is prepared or up to date
	Started bool          // false: the stage was interrupted before it began or finished it
	Elapsed time.Duration // time spent on it
}

// Summary is what the stage did.
type Summary struct {
	Outcomes []Outcome // in the order of Options.Challenges that have a preparer
	// NoPreparer lists the selected challenges this build of rexmle has no
	// preparer (grader) for; they are skipped.
	NoPreparer []string
}

// Counts returns how many challenges were prepared, found up to date,
// failed and never started (interrupted).
func (s *Summary) Counts() (prepared, upToDate, failed, notStarted int) {
	for _, o := range s.Outcomes {
		switch {
		case !o.Started:
			notStarted++
		case o.Err != nil:
			failed++
		case o.Did:
			prepared++
		default:
			upToDate++
		}
	}
	return
}

// prepareOne synthesizes (demo) and prepares one challenge; it returns
// whether work was done.
func prepareOne(ctx context.Context, o *Options, c challenge.Challenge, cc *config.Challenge) (bool, error) {
	rel := showPath(o.Rel)
	kind := o.Profile.Data
	rawRoot, dataRoot := o.Benchmark.DataRoots(kind)
	dataDir := filepath.Join(dataRoot, c.ID())
	// Folders a killed stage left half-written (the checkout lock says no
	// other stage is writing them now).
	for _, pat := range []string{filepath.Join(dataRoot, "."+c.ID()+".preparing-*"), filepath.Join(rawRoot, "."+c.ID()+".synthesizing-*")} {
		stale, _ := filepath.Glob(pat)
		for _, d := range stale {
			os.RemoveAll(d)
		}
	}
	var raw string
	if kind == Synthetic {
		raw = filepath.Join(rawRoot, c.ID())
		if err := synthesize(ctx, c, raw, o.SynthSize, o.Force); err != nil {
			return false, err
		}
	} else {
		raw = filepath.Join(rawRoot, cc.RawFolder())
		if _, err := os.Stat(raw); err != nil {
			if dl, ok := c.(challenge.Downloader); ok {
				return false, &challenge.MissingDownloadsError{Challenge: c.ID(), RawDir: rel(raw), Missing: challenge.CheckDownloads(raw, dl.Downloads())}
			}
			return false, fmt.Errorf("no raw data at %s: run `go run mage.go fetch` first", rel(raw))
		}
		if _, err := os.Stat(filepath.Join(raw, SyntheticMarker)); err == nil {
			return false, fmt.Errorf("%s holds synthetic demo data (written there by an older rexmle), not a download: remove it and run `REXMLE_PROFILE=%s go run mage.go fetch`", rel(raw), o.ProfileName)
		}
		if part, err := unfinishedDownload(raw); err != nil {
			return false, fmt.Errorf("read raw data: %w", err)
		} else if part != "" {
			return false, fmt.Errorf("%s has an unfinished download (%s): run `REXMLE_PROFILE=%s go run mage.go fetch` to complete it before preparing", rel(raw), part, o.ProfileName)
		}
	}
	fp, err := rawFingerprint(raw)
	if err != nil {
		return false, fmt.Errorf("read raw data: %w", err)
	}
	inputHash := c.ID() + ":" + fp
	if o.Profile.PaperPublicFolder {
		// The agents' public folder as the paper's had it (leaderboard,
		// grading description, README): part of what was prepared.
		inputHash += ":paper-public-v1:" + string(o.Mode)
	}
	size := challenge.SynthSize{} // fetched data have no synthetic size
	if kind == Synthetic {
		size = o.SynthSize
	}
	if !o.Force && upToDate(dataDir, inputHash, kind, size) {
		return false, nil
	}
	// Prepare into a fresh folder beside the target and swap it in, so an
	// interrupted preparation never leaves a half-written data folder.
	tmp, err := os.MkdirTemp(dataRoot, "."+c.ID()+".preparing-")
	if err != nil {
		return false, err
	}
	defer os.RemoveAll(tmp)
	if err := c.Prepare(ctx, raw, tmp); err != nil {
		return false, err
	}
	if o.Profile.PaperPublicFolder {
		if err := publicview.Write(filepath.Join(tmp, "public"), cc, c, o.Mode); err != nil {
			return false, err
		}
	}
	if _, err := challenge.WriteManifestSized(tmp, c.ID(), inputHash, kind, size); err != nil {
		return false, err
	}
	os.Remove(statStampPath(dataDir)) // the stamp of the folder being replaced
	if err := fsutil.SwapDir(tmp, dataDir); err != nil {
		return false, err
	}
	if st, err := statTree(dataDir); err == nil {
		writeStatStamp(dataDir, inputHash, st) // best effort: without it the next check hashes
	}
	return true, nil
}

// Run synthesizes (synthetic profiles) and prepares every selected
// challenge in parallel, skipping those whose prepared folder matches their
// input. The error is nil when every challenge is prepared or up to date;
// otherwise it is the context's error (interrupted) or says how many
// failed, and the Summary says which and why.
func Run(ctx context.Context, o Options) (*Summary, error) {
	_, root := o.Benchmark.DataRoots(o.Profile.Data)
	if err := os.MkdirAll(root, 0o755); err != nil {
		return nil, fmt.Errorf("prepare: %w", err)
	}
	sum := &Summary{}
	var todo []challenge.Challenge
	var cfgs []*config.Challenge
	for _, cc := range o.Challenges {
		c, ok := challenge.Lookup(cc.ID)
		if !ok {
			sum.NoPreparer = append(sum.NoPreparer, cc.ID)
			continue
		}
		todo = append(todo, c)
		cfgs = append(cfgs, cc)
	}
	var bar Progress = noProgress{}
	if o.Progress != nil {
		bar = o.Progress(len(todo))
	}
	sum.Outcomes = make([]Outcome, len(todo))
	for i, c := range todo {
		sum.Outcomes[i] = Outcome{ID: c.ID()}
	}
	workpool.Each(ctx, len(todo), 0, func(i int) {
		c := todo[i]
		start := time.Now()
		did, err := prepareOne(ctx, &o, c, cfgs[i])
		// A challenge cut short by the interrupt counts as not done, not failed.
		cut := err != nil && ctx.Err() != nil
		sum.Outcomes[i] = Outcome{ID: c.ID(), Did: did, Err: err, Started: !cut, Elapsed: time.Since(start)}
		bar.Step(c.ID(), err == nil)
	})
	bar.Finish()
	if err := ctx.Err(); err != nil {
		return sum, err
	}
	if _, _, failed, _ := sum.Counts(); failed > 0 {
		return sum, fmt.Errorf("prepare: %d of %d challenges failed", failed, len(todo))
	}
	return sum, nil
}

type noProgress struct{}

func (noProgress) Step(string, bool) {}
func (noProgress) Finish()           {}
