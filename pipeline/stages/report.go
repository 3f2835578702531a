package stages

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/rexmle/rexmle/pipeline/report"
)

// Report builds the static site from the store and the CSV exports, or,
// on a checkout without the store, from the profile's results bundle. With
// neither (a fresh clone) there is nothing to report: it says what to run
// and fails, instead of building an empty site. When nothing it depends on
// changed since it last built the site, it says so and does nothing.
func Report(ctx context.Context, o Options) error {
	e, err := load(o)
	if err != nil {
		return err
	}
	if dir, ok := bundleToReport(e); ok {
		return reportFromBundle(ctx, e, dir)
	}
	db := e.b.Path(e.b.Paths.Database)
	if _, err := os.Stat(db); errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("report: nothing to report: no store at %s and no results bundle of profile %s (run `mage all` for the demo, or `mage rank` to put the paper's recorded results in a store, then `mage report`)", rel(db), e.opt.Profile)
	}
	st, err := e.open(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	out := e.b.Path(e.b.Paths.Site)
	_, data := dataRoots(e.b, e.profile.Data)
	index := rel(filepath.Join(out, "index.html"))
	if d, err := reportDigest(ctx, e, st, data); err == nil {
		if since, ok := e.skipIfUnchanged("report", d); ok {
			say("report: up to date (store, exports and site unchanged since %s), skipped; open %s", sinceText(since), index)
			return nil
		}
	} else {
		e.log.Warn("report: up-to-date check failed; building", "err", err)
	}
	e.dropStamp("report")
	changedInThisProcess.Store(true)
	start := time.Now()
	res, err := report.Build(ctx, report.Options{Store: st, Benchmark: e.b, OutDir: out,
		ResultsDir: e.b.Path(e.b.Paths.Results), DataDir: data, Profile: e.opt.Profile, Logger: e.log})
	if err != nil {
		if ctx.Err() != nil {
			return interrupted(ctx, "report", -1)
		}
		return err
	}
	say("report: %d pages, %d downloadable tables in %s; open %s", len(res.Pages), res.Tables,
		time.Since(start).Round(time.Millisecond), index)
	if d, err := reportDigest(ctx, e, st, data); err == nil {
		e.writeStamp("report", stageStamp{Digest: d})
	}
	return nil
}
