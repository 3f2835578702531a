package stages

import (
	"context"
	"fmt"
	"os"

	"github.com/rexmle/rexmle/internal/config"
	"github.com/rexmle/rexmle/internal/fetch"
)

// Fetch downloads the selected challenges' raw data (REXMLE_DRY_RUN=1: print
// the plan, exiting non-zero when a source cannot be planned; REXMLE_FORCE=1:
// re-hash the recorded files too).
func Fetch(ctx context.Context, o Options) error {
	e, err := load(o)
	if err != nil {
		return err
	}
	if e.profile.Data == "synthetic" {
		fmt.Printf("fetch: profile %q uses synthetic data; nothing to download (REXMLE_PROFILE=paper fetches the real datasets)\n", o.Profile)
		return nil
	}
	sources := fetchSources(e.challenges)
	st, _ := os.Stderr.Stat()
	opts := fetch.Options{RawRoot: e.b.Path(e.b.Paths.Data) + "/raw", Progress: os.Stderr, IsTTY: st != nil && st.Mode()&os.ModeCharDevice != 0,
		Logger: e.log, TokenEnv: "REXMLE_FETCH_TOKEN",
		// REXMLE_FORCE=1 re-hashes the files already recorded in FETCHED.lock
		// (a file that changed on disk is fetched again) instead of
		// trusting the record's size.
		Verify: o.Force}
	if o.DryRun {
		p, err := fetch.Plan(ctx, sources, opts)
		if err != nil {
			return fmt.Errorf("fetch dry run: %w", err)
		}
		if err := p.Print(os.Stdout); err != nil {
			return fmt.Errorf("fetch dry run: %w", err)
		}
		if err := p.Err(); err != nil {
			return fmt.Errorf("fetch dry run: %w", err)
		}
		return nil
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

// FetchVerify re-hashes every file recorded in the selected challenges'
// FETCHED.lock files and compares size and checksums with the record,
// printing one line per file; any file that fails makes it exit non-zero.
// It downloads nothing.
func FetchVerify(ctx context.Context, o Options) error {
	e, err := load(o)
	if err != nil {
		return err
	}
	if e.profile.Data == "synthetic" {
		fmt.Printf("fetchVerify: profile %q uses synthetic data; nothing was downloaded to verify (REXMLE_PROFILE=paper)\n", o.Profile)
		return nil
	}
	opts := fetch.Options{RawRoot: e.b.Path(e.b.Paths.Data) + "/raw", Logger: e.log, TokenEnv: "REXMLE_FETCH_TOKEN"}
	rep, err := fetch.Verify(ctx, fetchSources(e.challenges), opts)
	if err != nil {
		return fmt.Errorf("fetch verify: %w", err)
	}
	if err := rep.Print(os.Stdout); err != nil {
		return fmt.Errorf("fetch verify: %w", err)
	}
	if err := rep.Err(); err != nil {
		return fmt.Errorf("fetch verify: %w", err)
	}
	return nil
}

// fetchSources turns the challenges' [[source]] tables into fetch sources:
// one per table, in challenge order, filling the table's raw folder (the
// challenge id unless the table names a folder shared by several tasks).
// Tasks of one competition list the same record; Plan shares the files they
// have in common and downloads each once.
func fetchSources(challenges []*config.Challenge) []fetch.Source {
	var sources []fetch.Source
	for _, c := range challenges {
		for _, s := range c.Sources {
			folder := c.ID
			if s.Folder != "" {
				folder = s.Folder
			}
			fs := fetch.Source{Challenge: folder, For: c.ID, Kind: s.Kind, Record: s.Record, Files: s.Files, URL: s.URL, SHA256: s.SHA256, MD5: s.MD5,
				Size: s.Size, Extract: s.Extract, ExtractToStem: s.ExtractToStem, Instructions: s.Instructions}
			if s.Name != "" && len(fs.Files) == 0 {
				fs.Files = []string{s.Name}
			}
			sources = append(sources, fs)
		}
	}
	return sources
}
