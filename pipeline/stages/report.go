package stages

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/rexmle/rexmle/pipeline/report"
)

// Report builds the static site from the store and the CSV exports, or,
// on a checkout without the store, from the profile's results bundle.
func Report(ctx context.Context, o Options) error {
	e, err := load(o)
	if err != nil {
		return err
	}
	if dir, ok := bundleToReport(e); ok {
		return reportFromBundle(ctx, e, dir)
	}
	st, err := e.open(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	start := time.Now()
	out := e.b.Path(e.b.Paths.Site)
	_, data := dataRoots(e.b, e.profile.Data)
	res, err := report.Build(ctx, report.Options{Store: st, Benchmark: e.b, OutDir: out,
		ResultsDir: e.b.Path(e.b.Paths.Results), DataDir: data, Profile: e.opt.Profile, Logger: e.log})
	if err != nil {
		return err
	}
	fmt.Printf("report: %d pages, %d downloadable tables in %s; open %s\n", len(res.Pages), res.Tables,
		time.Since(start).Round(time.Millisecond), rel(filepath.Join(out, "index.html")))
	return nil
}
