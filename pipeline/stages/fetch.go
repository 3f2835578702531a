package stages

import (
	"context"
	"fmt"
	"os"

	"github.com/rexmle/rexmle/pipeline/fetch"
)

// Fetch downloads the selected challenges' raw data (REXMLE_DRY_RUN=1: print the plan).
func Fetch(ctx context.Context, o Options) error {
	e, err := load(o)
	if err != nil {
		return err
	}
	if e.profile.Data == "synthetic" {
		fmt.Printf("fetch: profile %q uses synthetic data; nothing to download (REXMLE_PROFILE=paper fetches the real datasets)\n", o.Profile)
		return nil
	}
	var sources []fetch.Source
	for _, c := range e.challenges {
		for _, s := range c.Sources {
			folder := c.ID
			if s.Folder != "" {
				folder = s.Folder
			}
			fs := fetch.Source{Challenge: folder, Kind: s.Kind, Record: s.Record, Files: s.Files, URL: s.URL, SHA256: s.SHA256, MD5: s.MD5,
				Size: s.Size, Extract: s.Extract, ExtractToStem: s.ExtractToStem, Instructions: s.Instructions}
			if s.Name != "" && len(fs.Files) == 0 {
				fs.Files = []string{s.Name}
			}
			sources = append(sources, fs)
		}
	}
	st, _ := os.Stderr.Stat()
	opts := fetch.Options{RawRoot: e.b.Path(e.b.Paths.Data) + "/raw", Progress: os.Stderr, IsTTY: st != nil && st.Mode()&os.ModeCharDevice != 0,
		Logger: e.log, TokenEnv: "REXMLE_FETCH_TOKEN"}
	if o.DryRun {
		p, err := fetch.Plan(ctx, sources, opts)
		if p != nil {
			p.Print(os.Stdout)
		}
		return err
	}
	sum, err := fetch.Fetch(ctx, sources, opts)
	if sum != nil {
		sum.Print(os.Stdout)
	}
	if err != nil {
		return fmt.Errorf("fetch: %w", err)
	}
	return sum.Err()
}
