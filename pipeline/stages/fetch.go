package stages

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/rexmle/rexmle/pipeline/config"
	"github.com/rexmle/rexmle/pipeline/fetch"
)

// Fetch downloads the selected challenges' raw data (REXMLE_DRY_RUN=1: print
// the plan, offline first, then live when the sources answer, exiting
// non-zero when an answering source cannot be planned; REXMLE_FORCE=1:
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
		Logger: e.log, Token: o.FetchToken,
		// REXMLE_FORCE=1 re-hashes the files already recorded in FETCHED.lock
		// (a file that changed on disk is fetched again) instead of
		// trusting the record's size.
		Verify: o.Force}
	if o.DryRun {
		return fetchDryRun(ctx, os.Stdout, sources, opts)
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

// fetchDryRun prints the plan from the challenge files at once (no
// network), then, only when the metadata hosts answer, the live plan with
// every record's files, sizes and what is already on disk. A host that does
// not answer is one line, and the offline plan stands (exit 0).
func fetchDryRun(ctx context.Context, w io.Writer, sources []fetch.Source, opts fetch.Options) error {
	fmt.Fprint(w, "Download plan (from the challenge files, offline):\n\n")
	if err := fetch.PrintOffline(w, sources, opts.RawRoot); err != nil {
		return fmt.Errorf("fetch dry run: %w", err)
	}
	fmt.Fprintln(w)
	if err := fetch.Probe(ctx, sources, opts); err != nil {
		fmt.Fprintf(w, "live check skipped: %v; the plan above is from the challenge files alone\n", err)
		return nil
	}
	fmt.Fprint(w, "Live check (the sources' metadata, and what is already on disk):\n\n")
	p, err := fetch.Plan(ctx, sources, opts)
	if err != nil {
		return fmt.Errorf("fetch dry run: %w", err)
	}
	if err := p.Print(w); err != nil {
		return fmt.Errorf("fetch dry run: %w", err)
	}
	if err := p.Err(); err != nil {
		return fmt.Errorf("fetch dry run: %w", err)
	}
	return nil
}

// FetchVerify re-hashes every file recorded in the selected challenges'
// FETCHED.lock files and compares size and checksums with the record,
// printing one line per file; any file that fails, or any raw folder of
// files without a record (placed by hand, never checked), makes it exit
// non-zero. It downloads nothing.
func FetchVerify(ctx context.Context, o Options) error {
	e, err := load(o)
	if err != nil {
		return err
	}
	if e.profile.Data == "synthetic" {
		fmt.Printf("fetchVerify: profile %q uses synthetic data; nothing was downloaded to verify (REXMLE_PROFILE=paper)\n", o.Profile)
		return nil
	}
	opts := fetch.Options{RawRoot: e.b.Path(e.b.Paths.Data) + "/raw", Logger: e.log, Token: o.FetchToken}
	rep, err := fetch.Verify(ctx, fetchSources(e.challenges), opts)
	if err != nil {
		return fmt.Errorf("fetch verify: %w", err)
	}
	if err := rep.Print(os.Stdout); err != nil {
		return fmt.Errorf("fetch verify: %w", err)
	}
	// The site's data provenance reads what this check found.
	for dir, files := range rep.HandFolders() {
		if err := fetch.WriteHandRecord(dir, files, time.Now()); err != nil {
			return fmt.Errorf("fetch verify: record the check of %s: %w", dir, err)
		}
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
				Size: s.Size, Extract: s.Extract, ExtractToStem: s.ExtractToStem, Instructions: s.Instructions,
				Landing: c.URL, License: c.License, Terms: s.Terms, ApproxSize: int64(s.ApproxSizeGB * 1e9)}
			if s.Name != "" && len(fs.Files) == 0 {
				fs.Files = []string{s.Name}
			}
			for _, p := range s.Published {
				fs.Published = append(fs.Published, fetch.FileSum{Name: p.Name, MD5: p.MD5, SHA256: p.SHA256, Size: p.Size})
			}
			sources = append(sources, fs)
		}
	}
	return sources
}
