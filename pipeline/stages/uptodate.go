package stages

import (
	"context"
	"crypto/sha256"
	"debug/elf"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/rexmle/rexmle/pipeline/challenge"
	"github.com/rexmle/rexmle/pipeline/fsutil"
	"github.com/rexmle/rexmle/pipeline/store"
)

// Up-to-date checks of the stages that recompute everything they write
// (rank, judge, report): each stage's stamp, results/.stamps/<stage>.json,
// holds a digest of everything its result depends on and everything it
// wrote, taken when it last finished: the program (the running
// executable's size and time: a changed rexmle is a new mage binary), the
// settings it reads, the configuration files, the rows of the store tables
// it reads or writes (store.Digest: content, not file bytes), and the size
// and time of the files it reads or writes. While the digest taken now is
// the same, running the stage again would write the same things, so it is
// skipped and says so. REXMLE_FORCE=1 runs it anyway.

// stampsDir is where the stages' stamps live, under the results folder.
const stampsDir = ".stamps"

type stageStamp struct {
	Digest string    `json:"digest"`
	At     time.Time `json:"at"`
	// Table is a hash of the rank stage's printed reproduction table: it is
	// printed again only when it changed (or with -v).
	Table string `json:"table,omitempty"`
}

func (e *env) stampPath(stage string) string {
	return filepath.Join(e.b.Path(e.b.Paths.Results), stampsDir, stage+".json")
}

func (e *env) readStamp(stage string) (stageStamp, bool) {
	var s stageStamp
	b, err := challenge.ReadFileMax(e.stampPath(stage), challenge.MaxJSONBytes)
	if err != nil || json.Unmarshal(b, &s) != nil || s.Digest == "" {
		return stageStamp{}, false
	}
	return s, true
}

// writeStamp records a stage's digest; a stamp that cannot be written only
// means the next run does the work again.
func (e *env) writeStamp(stage string, s stageStamp) {
	s.At = time.Now().UTC()
	b, err := json.Marshal(s)
	if err == nil {
		err = fsutil.WriteFile(e.stampPath(stage), b, 0o644)
	}
	if err != nil {
		e.log.Warn("stamp not written; the next run does this stage's work again", "stage", stage, "err", err)
	}
}

// dropStamp forgets a stage's stamp (before it writes, so an interrupted
// stage is never taken for up to date).
func (e *env) dropStamp(stage string) {
	if err := os.Remove(e.stampPath(stage)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		e.log.Warn("stamp not removed", "stage", stage, "err", err)
	}
}

// fingerprint hashes what a stage depends on and wrote.
type fingerprint struct{ h hash.Hash }

func newFingerprint(stage string) *fingerprint {
	f := &fingerprint{sha256.New()}
	fmt.Fprintf(f.h, "stage %s v1\n", stage)
	return f
}

func (f *fingerprint) value(name string, v any) { fmt.Fprintf(f.h, "value %s %+v\n", name, v) }

// program records the running program: its Go build ID, which changes
// with any source it is built from (mage rewrites its binary on every
// start, so the file's time says nothing), or else a hash of its bytes.
func (f *fingerprint) program() error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	if ef, err := elf.Open(exe); err == nil {
		defer ef.Close()
		if s := ef.Section(".note.go.buildid"); s != nil {
			if b, err := s.Data(); err == nil && len(b) > 0 {
				fmt.Fprintf(f.h, "program build id %x\n", b)
				return nil
			}
		}
	}
	r, err := os.Open(exe)
	if err != nil {
		return err
	}
	defer r.Close()
	h := sha256.New()
	if _, err := io.Copy(h, r); err != nil {
		return err
	}
	fmt.Fprintf(f.h, "program sha256 %x\n", h.Sum(nil))
	return nil
}

// file records one file's size and time, or that it is missing.
func (f *fingerprint) file(name, path string) error {
	st, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		fmt.Fprintf(f.h, "file %s missing\n", name)
		return nil
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(f.h, "file %s %d %d\n", name, st.Size(), st.ModTime().UnixNano())
	return nil
}

// tree records every regular file under dir (or directly in it when flat)
// with its size and time, leaving out names for which skip is true.
func (f *fingerprint) tree(name, dir string, flat bool, skip func(name string) bool) error {
	opt := fsutil.StatOptions{Flat: flat, MissingOK: true}
	if skip != nil {
		opt.Skip = func(_ string, d fs.DirEntry) bool { return skip(d.Name()) }
	}
	files, err := fsutil.StatTree(dir, opt)
	if err != nil {
		return err
	}
	var lines []string
	for _, s := range files {
		if s.Path == "." { // dir itself, were it a file
			continue
		}
		lines = append(lines, fmt.Sprintf("%s %d %d", s.Path, s.Size, s.ModNano))
	}
	sort.Strings(lines)
	fmt.Fprintf(f.h, "tree %s %d\n%s\n", name, len(lines), strings.Join(lines, "\n"))
	return nil
}

// tables records the rows of the store's tables that keep returns true for.
func (f *fingerprint) tables(ctx context.Context, st *store.Store, keep func(table string) bool) error {
	all, err := st.Tables(ctx)
	if err != nil {
		return err
	}
	var names []string
	for _, t := range all {
		if keep(t) {
			names = append(names, t)
		}
	}
	d, err := st.Digest(ctx, names...)
	if err != nil {
		return err
	}
	fmt.Fprintf(f.h, "tables %s %s\n", strings.Join(names, ","), d)
	return nil
}

func (f *fingerprint) sum() string { return hex.EncodeToString(f.h.Sum(nil)) }

// configFiles records the benchmark file and the benchmark/ folder beside it.
func (f *fingerprint) configFiles(e *env) error {
	if err := f.file("config", e.opt.Config); err != nil {
		return err
	}
	return f.tree("benchmark", filepath.Join(e.b.Root, "benchmark"), false, nil)
}

// resultFile is true for the files of the results folder the stages write
// and read (the store and hidden files aside).
func notResultFile(name string) bool {
	return strings.HasPrefix(name, ".") || strings.HasPrefix(name, "rexmle.sqlite")
}

// judgeTable is true for the tables only the judge stage writes.
func judgeTable(t string) bool {
	return strings.HasPrefix(t, "judge_") || strings.HasPrefix(t, "capability_")
}

// judgeFile is true for the files of the results folder the judge stage
// writes or reads.
func judgeFile(name string) bool {
	return name == "capabilities.csv" || name == "judge-agreement.csv" || name == humanLabels
}

// humanLabels is the judge's human labels file in the results folder.
const humanLabels = "judge-labels.csv"

// rankDigest is what the rank stage depends on and writes: the program,
// the bootstrap settings, the configuration, the paper's recorded results,
// every store table but the judge's, and the exports in the results folder.
func rankDigest(ctx context.Context, e *env, st *store.Store) (string, error) {
	f := newFingerprint("rank")
	f.value("options", e.rankOptions())
	results := e.b.Path(e.b.Paths.Results)
	for _, step := range []func() error{
		f.program,
		func() error { return f.configFiles(e) },
		func() error { return f.tree("paper", e.b.Path(e.b.Paths.PaperResults), false, nil) },
		func() error { return f.tables(ctx, st, func(t string) bool { return !judgeTable(t) }) },
		func() error {
			return f.tree("results", results, true, func(n string) bool { return notResultFile(n) || judgeFile(n) })
		},
	} {
		if err := step(); err != nil {
			return "", fmt.Errorf("rank: check whether it is up to date: %w", err)
		}
	}
	return f.sum(), nil
}

// judgeDigest is what the judge stage depends on and writes: the program,
// the judge's configuration and rubric, the profile's run folders, the runs
// and the judge's tables in the store, and its files in the results folder.
func judgeDigest(ctx context.Context, e *env, st *store.Store) (string, error) {
	f := newFingerprint("judge")
	f.value("judge", e.b.Judge)
	f.value("profile", e.opt.Profile+" "+e.profile.Judge)
	results := e.b.Path(e.b.Paths.Results)
	for _, step := range []func() error{
		f.program,
		func() error { return f.file("rubric", e.b.Path(e.b.Judge.Rubric)) },
		func() error {
			// What the judge reads: run.json and logs/, not the agents' workspaces, homes or submissions.
			skip := func(n string) bool { return n == "workspace" || n == "submission" || n == "home" }
			return f.tree("runs", filepath.Join(e.b.Path(e.b.Paths.Runs), e.opt.Profile), false, skip)
		},
		func() error { return f.tables(ctx, st, func(t string) bool { return t == "runs" || judgeTable(t) }) },
		func() error {
			return f.tree("results", results, true, func(n string) bool { return !judgeFile(n) })
		},
	} {
		if err := step(); err != nil {
			return "", fmt.Errorf("judge: check whether it is up to date: %w", err)
		}
	}
	return f.sum(), nil
}

// reportDigest is what the report stage depends on and writes: the
// program (templates included), the profile, the configuration, every
// table of the store, the results folder's files, the paper's recorded
// results, the prepared data's manifests and the site itself.
func reportDigest(ctx context.Context, e *env, st *store.Store, dataDir string) (string, error) {
	f := newFingerprint("report")
	f.value("profile", e.opt.Profile)
	results := e.b.Path(e.b.Paths.Results)
	for _, step := range []func() error{
		f.program,
		func() error { return f.configFiles(e) },
		func() error { return f.tables(ctx, st, func(string) bool { return true }) },
		func() error { return f.tree("results", results, true, notResultFile) },
		func() error { return f.tree("paper", e.b.Path(e.b.Paths.PaperResults), false, nil) },
		func() error {
			ms, err := filepath.Glob(filepath.Join(dataDir, "*", challenge.ManifestName))
			if err != nil {
				return err
			}
			sort.Strings(ms)
			for _, m := range ms {
				if err := f.file(m, m); err != nil {
					return err
				}
			}
			return nil
		},
		func() error { return f.tree("site", e.b.Path(e.b.Paths.Site), false, nil) },
	} {
		if err := step(); err != nil {
			return "", fmt.Errorf("report: check whether it is up to date: %w", err)
		}
	}
	return f.sum(), nil
}

// skipIfUnchanged returns the time of the stage's stamp when its digest
// now is the one recorded (the stage can be skipped), and the digest.
func (e *env) skipIfUnchanged(stage string, digest string) (since time.Time, ok bool) {
	if e.opt.Force {
		return time.Time{}, false
	}
	s, found := e.readStamp(stage)
	if !found || s.Digest != digest {
		return time.Time{}, false
	}
	return s.At, true
}

// sinceText says when a stamp was written, in local time.
func sinceText(t time.Time) string {
	lt := t.Local()
	if time.Since(t) < 20*time.Hour {
		return lt.Format("15:04:05")
	}
	return lt.Format("2006-01-02 15:04")
}
