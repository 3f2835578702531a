package stages

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/rexmle/rexmle/pipeline/bundle"
	"github.com/rexmle/rexmle/pipeline/fsutil"
	"github.com/rexmle/rexmle/pipeline/rankstage"
	"github.com/rexmle/rexmle/pipeline/report"
	"github.com/rexmle/rexmle/pipeline/store"
)

// Publish writes the results bundle of the store for the active profile
// (results/bundle/<profile>/): the inputs the rank stage and the site need,
// as text to commit, from which `report` on a checkout without the store
// (a fresh clone, the Pages workflow) builds the same site.
func Publish(ctx context.Context, o Options) error {
	e, err := load(o)
	if err != nil {
		return err
	}
	db := e.b.Path(e.b.Paths.Database)
	if _, err := os.Stat(db); err != nil {
		return fmt.Errorf("publish: no store at %s (run the pipeline first: `go run mage.go all`): %w", rel(db), err)
	}
	st, err := e.open(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	if holds, err := st.HoldsRuns(ctx); err != nil {
		return fmt.Errorf("publish: %w", err)
	} else if !holds {
		return fmt.Errorf("publish: the store %s holds no runs to publish (run `go run mage.go all` first)", rel(db))
	}
	opt := e.rankOptions()
	if err := sameBootSettings(ctx, st, opt); err != nil {
		return fmt.Errorf("publish: %w", err)
	}
	results := e.b.Path(e.b.Paths.Results)
	exports, err := judgeExports(results)
	if err != nil {
		return fmt.Errorf("publish: %w", err)
	}
	_, data := dataRoots(e.b, e.profile.Data)
	dir := bundle.Dir(results, e.opt.Profile)
	m, err := bundle.Write(ctx, st, dir, bundle.WriteOptions{Profile: e.opt.Profile, ToolCommit: report.GitCommit(e.b.Root), ToolDirty: gitDirty(e.b.Root),
		Boot: opt.Boot, BootSeed: opt.BootSeed, Datasets: report.ReadDatasets(data, e.b), Exports: exports})
	if err != nil {
		return fmt.Errorf("publish: %w", err)
	}
	runs := 0
	for _, f := range m.Files {
		if f.Name == "runs.jsonl" {
			runs = f.Rows
		}
	}
	fmt.Printf("publish: wrote %s (%d runs of %s, %d files); commit it (git add %s) and push: the Pages workflow builds the site from it\n",
		rel(dir), runs, strings.Join(m.Sources, ", "), len(m.Files)+1, rel(dir))
	return nil
}

// sameBootSettings refuses to publish with bootstrap settings other than
// those the store was ranked with: the bundle records them, and the site
// built from it ranks again with them.
func sameBootSettings(ctx context.Context, st *store.Store, opt rankstage.Options) error {
	runs, err := st.BootRuns(ctx)
	if err != nil {
		return err
	}
	for _, r := range runs {
		if r.BootSeed != int64(opt.BootSeed) || (r.NBoot > 0 && r.NBoot != opt.Boot) {
			return fmt.Errorf("the store was ranked with REXMLE_BOOT=%d REXMLE_BOOT_SEED=%d (run %s), not %d and %d: publish with the settings of the rank stage, or rank again",
				r.NBoot, r.BootSeed, r.RunID, opt.Boot, opt.BootSeed)
		}
	}
	return nil
}

// judgeExports are the results folder's CSV files that the rank stage does
// not write (the judge's capabilities.csv and judge-agreement.csv, human
// labels): the bundle carries them as they are.
func judgeExports(results string) ([]string, error) {
	names, err := filepath.Glob(filepath.Join(results, "*.csv"))
	if err != nil {
		return nil, err
	}
	own := rankstage.CSVNames()
	var out []string
	for _, n := range names {
		if !slices.Contains(own, filepath.Base(n)) {
			out = append(out, n)
		}
	}
	return out, nil
}

// gitDirty reports whether the checkout at dir has uncommitted changes to
// tracked files (false outside git).
func gitDirty(dir string) bool {
	cmd := exec.Command("git", "status", "--porcelain", "--untracked-files=no")
	cmd.Dir = dir
	out, err := cmd.Output()
	return err == nil && len(strings.TrimSpace(string(out))) > 0
}

// bundleToReport is the bundle the report stage builds from: the active
// profile's, when the checkout has no store (a fresh clone, a Pages
// runner). ok is false otherwise.
func bundleToReport(e *env) (dir string, ok bool) {
	if _, err := os.Stat(e.b.Path(e.b.Paths.Database)); !errors.Is(err, fs.ErrNotExist) {
		return "", false
	}
	return bundle.Find(e.b.Path(e.b.Paths.Results), e.opt.Profile)
}

// reportFromBundle builds the site from the bundle in dir: its rows go into
// a temporary store, the rank stage ranks them (with the bundle's bootstrap
// settings) beside the paper's recorded results into temporary CSV
// exports, and the site is built from those with the bundle's commit and
// datasets on the provenance page. Nothing but the site is written.
func reportFromBundle(ctx context.Context, e *env, dir string) error {
	start := time.Now()
	bd, err := bundle.Open(dir)
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	m := bd.Manifest
	if m.Profile != e.opt.Profile {
		return fmt.Errorf("report: bundle %s: field profile is %q, REXMLE_PROFILE is %q", rel(filepath.Join(dir, bundle.ManifestFile)), m.Profile, e.opt.Profile)
	}
	tmp, err := os.MkdirTemp("", "rexmle-bundle-")
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	defer os.RemoveAll(tmp)
	st, err := store.Open(ctx, filepath.Join(tmp, "rexmle.sqlite"))
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	defer st.Close()
	if err := bd.Restore(ctx, st, e.b); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	opt := rankstage.DefaultOptions()
	opt.Boot, opt.BootSeed = m.Boot, uint64(m.BootSeed)
	out, err := rankstage.RunWith(ctx, e.b, st, opt)
	if err != nil {
		return fmt.Errorf("report: bundle %s: %w", rel(dir), err)
	}
	results := filepath.Join(tmp, "results")
	if err := os.MkdirAll(results, 0o755); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	if err := rankstage.WriteCSVs(results, e.b, out); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	for _, p := range bd.Exports() {
		name := filepath.Base(p)
		if slices.Contains(rankstage.CSVNames(), name) {
			return fmt.Errorf("report: bundle %s: exports/%s would replace the rank stage's own export", rel(dir), name)
		}
		if err := fsutil.CopyFile(p, filepath.Join(results, name)); err != nil {
			return fmt.Errorf("report: %w", err)
		}
	}
	site := e.b.Path(e.b.Paths.Site)
	res, err := report.Build(ctx, report.Options{Store: st, Benchmark: e.b, OutDir: site, ResultsDir: results, Datasets: bd.Datasets,
		GitCommit: m.ToolCommit, Profile: m.Profile, Logger: e.log})
	if err != nil {
		return err
	}
	fmt.Printf("report: built from the results bundle %s (%s, commit %s): %d pages, %d downloadable tables in %s; open %s\n",
		rel(dir), strings.Join(m.Sources, ", "), m.ToolCommit, len(res.Pages), res.Tables, time.Since(start).Round(time.Millisecond), rel(filepath.Join(site, "index.html")))
	return nil
}
