// Package report builds the static results site: an overview with the
// ReX-MLE rank of every agent configuration and the Table 3 equivalent, one
// page per challenge, capabilities, ablations, compute, the reproduction
// check against the paper's printed numbers, the reference graders' known
// issues, provenance and downloads. It reads only the store (and the CSV
// exports folder); it never grades or ranks anything itself.
package report

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/rexmle/rexmle/pipeline/fsutil"
	"github.com/rexmle/rexmle/pipeline/workpool"

	_ "github.com/rexmle/rexmle/pipeline/challenges/all" // register every challenge: metric cards and quirks
	"github.com/rexmle/rexmle/pipeline/config"
	"github.com/rexmle/rexmle/pipeline/paper"
	"github.com/rexmle/rexmle/pipeline/store"
	"github.com/rexmle/rexmle/templates"
	"github.com/rexmle/rexmle/third_party/echarts"
)

// Options configures Build.
type Options struct {
	Store      *store.Store      // the pipeline store, opened by the caller
	Benchmark  *config.Benchmark // the loaded benchmark.toml
	OutDir     string            // where the site goes; default "site"
	ResultsDir string            // the CSV exports folder; its *.csv files are offered as downloads ("" for none)
	DataDir    string            // prepared data (data/<id>/manifest.json for checksums); default Benchmark.Paths.Data
	// Datasets, when not nil, are the prepared datasets the provenance page
	// lists instead of reading DataDir (a site built from a results bundle).
	Datasets  []Dataset
	GitCommit string // shown on the provenance page; empty: ask git (rev-parse HEAD), "unknown" if that fails
	// Profile is the benchmark.toml profile the site is built for (e.g.
	// "demo", "paper"). A profile whose data is not "fetched" puts a banner
	// on every page. Empty: inferred from the runs in the store (a banner
	// when any run comes from a source that is not comparable with the
	// human leaderboards).
	Profile string
	Logger  *slog.Logger // nil: slog.Default()
}

// Result says what Build wrote.
type Result struct {
	OutDir        string
	Pages         []string // site-relative paths of the HTML pages, sorted
	Tables        int      // tables offered as CSV and JSON
	Files         int      // every file written
	Disagreements int      // comparisons with the paper that did not match
}

// site is the state of one build.
type site struct {
	b     *config.Benchmark
	opts  Options
	data  *dataset
	repro *reproduction
	// banner is the notice every page of a non-paper build carries ("" for none).
	banner string
	// humans is the human column of each S-table as the paper prints it,
	// by table ("S2"); nil without results/paper.
	humans map[string]paper.AppendixHuman
	log    *slog.Logger
	pages  []*page
	files  map[string][]byte // extra files: PNG plots, copied exports
	mu     sync.Mutex
}

// Build reads the store and writes the site into opts.OutDir, replacing the
// files it writes (other files in the folder are left alone). Output is
// deterministic: the same store gives byte-identical files.
func Build(ctx context.Context, opts Options) (*Result, error) {
	if opts.Store == nil {
		return nil, errors.New("report: no store")
	}
	if opts.Benchmark == nil {
		return nil, errors.New("report: no benchmark")
	}
	if opts.OutDir == "" {
		opts.OutDir = "site"
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.DataDir == "" && opts.Benchmark.Paths.Data != "" {
		opts.DataDir = opts.Benchmark.Path(opts.Benchmark.Paths.Data)
	}
	data, err := load(ctx, opts.Store)
	if err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	if data.Boot, err = loadBoot(ctx, opts.Store); err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	s := &site{b: opts.Benchmark, opts: opts, data: data, log: opts.Logger, files: map[string][]byte{}}
	if s.humans, err = printedHumans(opts.Benchmark); err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	s.banner = s.bannerText()
	if s.repro, err = s.reproduce(ctx); err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	if err := s.buildPages(ctx); err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	res, err := s.write(ctx)
	if err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	for _, c := range s.repro.Checks {
		if c.Class != classMatch {
			res.Disagreements++
		}
	}
	s.log.Info("report written", "dir", opts.OutDir, "pages", len(res.Pages), "tables", res.Tables, "files", res.Files, "disagreements", res.Disagreements)
	return res, nil
}

// buildPages assembles every page's content.
func (s *site) buildPages(ctx context.Context) error {
	builders := []func() ([]*page, error){
		s.overviewPage, s.challengePages, s.agentPages, s.capabilitiesPage, s.ablationsPage,
		s.computePage, s.reproductionPage, s.quirksPage, s.provenancePage,
	}
	out := make([][]*page, len(builders))
	errs := make([]error, len(builders))
	var wg sync.WaitGroup
	for i, fn := range builders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i], errs[i] = fn()
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	for _, ps := range out {
		s.pages = append(s.pages, ps...)
	}
	s.finish()
	dl, err := s.downloadsPage()
	if err != nil {
		return err
	}
	s.pages = append(s.pages, dl...)
	s.finish()
	return nil
}

// finish sets every page's root prefix, navigation and table back-links.
func (s *site) finish() {
	nav := s.nav()
	for _, p := range s.pages {
		p.Nav = nil
		p.Banner = s.banner
		p.Root = strings.Repeat("../", strings.Count(p.Path, "/"))
		for _, n := range nav {
			p.Nav = append(p.Nav, navLink{Href: n.Href, Text: n.Text, Current: n.Href == p.Path})
		}
		for _, sec := range p.Sections {
			if len(sec.Charts) > 0 {
				p.HasCharts = true
			}
			for _, t := range sec.Tables {
				t.Root, t.Page = p.Root, p.Path
			}
		}
	}
}

func (s *site) nav() []navLink {
	return []navLink{
		{Href: "index.html", Text: "Overview"},
		{Href: "challenges/index.html", Text: "Challenges"},
		{Href: "agents/index.html", Text: "Agents"},
		{Href: "capabilities.html", Text: "Capabilities"},
		{Href: "ablations.html", Text: "Ablations"},
		{Href: "compute.html", Text: "Compute"},
		{Href: "reproduction.html", Text: "Reproduction"},
		{Href: "known-issues.html", Text: "Known issues"},
		{Href: "provenance.html", Text: "Provenance"},
		{Href: "downloads.html", Text: "Downloads"},
	}
}

// write renders the pages and writes every file.
func (s *site) write(ctx context.Context) (*Result, error) {
	tpl, err := template.ParseFS(templates.FS, "*.html")
	if err != nil {
		return nil, fmt.Errorf("parse templates: %w", err)
	}
	files := map[string][]byte{}
	for k, v := range s.files {
		files[k] = v
	}
	files["assets/echarts.min.js"] = echarts.MinJS
	if err := fs.WalkDir(templates.FS, "assets", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(templates.FS, p)
		files[p] = b
		return err
	}); err != nil {
		return nil, fmt.Errorf("read assets: %w", err)
	}
	// Pages render in parallel.
	type rendered struct {
		path string
		b    []byte
		err  error
	}
	outs := make([]rendered, len(s.pages))
	workpool.Each(context.Background(), len(s.pages), 8, func(i int) {
		p := s.pages[i]
		var buf bytes.Buffer
		err := tpl.ExecuteTemplate(&buf, "page", p)
		outs[i] = rendered{p.Path, buf.Bytes(), err}
	})
	res := &Result{OutDir: s.opts.OutDir}
	for _, o := range outs {
		if o.err != nil {
			return nil, fmt.Errorf("render %s: %w", o.path, o.err)
		}
		files[o.path] = o.b
		res.Pages = append(res.Pages, o.path)
	}
	sort.Strings(res.Pages)
	for _, t := range s.tables() {
		c, j, err := tableFiles(t)
		if err != nil {
			return nil, err
		}
		files["data/"+t.ID+".csv"] = c
		files["data/"+t.ID+".json"] = j
		res.Tables++
	}
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if err := writeFile(filepath.Join(s.opts.OutDir, filepath.FromSlash(n)), files[n]); err != nil {
			return nil, err
		}
	}
	if err := s.removeStale(names); err != nil {
		return nil, err
	}
	res.Files = len(files)
	return res, nil
}

// manifestName lists, in the site folder, the files the last build wrote.
const manifestName = ".rexmle-site-files"

// removeStale deletes the files the previous build wrote that this one did
// not (a challenge or table that no longer exists), and records this
// build's files. Files the site did not write are never touched.
func (s *site) removeStale(names []string) error {
	path := filepath.Join(s.opts.OutDir, manifestName)
	now := map[string]bool{}
	for _, n := range names {
		now[n] = true
	}
	if old, err := os.ReadFile(path); err == nil {
		for _, n := range strings.Split(string(old), "\n") {
			if n == "" || now[n] || strings.Contains(n, "..") || filepath.IsAbs(n) {
				continue
			}
			if err := os.Remove(filepath.Join(s.opts.OutDir, filepath.FromSlash(n))); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("remove stale %s: %w", n, err)
			}
		}
	}
	return writeFile(path, []byte(strings.Join(names, "\n")+"\n"))
}

// writeFile writes b to path unless the file already holds exactly b.
func writeFile(path string, b []byte) error {
	if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, b) {
		return nil
	}
	return fsutil.WriteFile(path, b, 0o644)
}

// tables lists every table with an ID, in page order.
func (s *site) tables() []*table {
	var out []*table
	seen := map[string]bool{}
	for _, p := range s.pages {
		for _, sec := range p.Sections {
			for _, t := range sec.Tables {
				if t.ID != "" && !seen[t.ID] {
					seen[t.ID] = true
					out = append(out, t)
				}
			}
		}
	}
	return out
}

// tableFiles renders a table as CSV and as JSON (an object with the
// columns and an array of rows keyed by column). Downloads hold plain
// values: a table with DataHead exports its rows' Data (numbers as numbers,
// nil as empty / null); otherwise each cell's text, as a number when it is
// one, with badges as an extra "(check)" column holding the check's class.
func tableFiles(t *table) ([]byte, []byte, error) {
	cols, recs := exportRows(t)
	if t.DataHead != nil {
		for i, r := range recs {
			if len(r) != len(cols) {
				return nil, nil, fmt.Errorf("table %s: row %d has %d data values for %d columns", t.ID, i+1, len(r), len(cols))
			}
		}
	}
	var cb bytes.Buffer
	w := csv.NewWriter(&cb)
	if err := w.Write(cols); err != nil {
		return nil, nil, err
	}
	objs := make([]map[string]any, 0, len(recs))
	for _, rec := range recs {
		line := make([]string, len(cols))
		obj := map[string]any{}
		for i, c := range cols {
			var v any
			if i < len(rec) {
				v = rec[i]
			}
			obj[c] = v
			line[i] = csvText(v)
		}
		if err := w.Write(line); err != nil {
			return nil, nil, err
		}
		objs = append(objs, obj)
	}
	w.Flush()
	if err := w.Error(); err != nil {
		return nil, nil, fmt.Errorf("table %s: %w", t.ID, err)
	}
	j, err := json.MarshalIndent(map[string]any{"id": t.ID, "caption": t.Caption, "columns": cols, "rows": objs}, "", " ")
	if err != nil {
		return nil, nil, fmt.Errorf("table %s: %w", t.ID, err)
	}
	return cb.Bytes(), append(j, '\n'), nil
}

// exportRows is a table's download columns and rows.
func exportRows(t *table) ([]string, [][]any) {
	if t.DataHead != nil {
		recs := make([][]any, 0, len(t.Rows))
		for _, r := range t.Rows {
			if r.Group == "" {
				recs = append(recs, r.Data)
			}
		}
		return t.DataHead, recs
	}
	hasBadge := make([]bool, len(t.Head))
	for _, r := range t.Rows {
		for i, c := range r.Cells {
			if c.Badge != "" && i < len(hasBadge) {
				hasBadge[i] = true
			}
		}
	}
	var cols []string
	for i, h := range t.Head {
		cols = append(cols, h)
		if hasBadge[i] {
			cols = append(cols, h+" (check)")
		}
	}
	var recs [][]any
	for _, r := range t.Rows {
		if r.Group != "" {
			continue
		}
		var rec []any
		for i := range t.Head {
			var c cell
			if i < len(r.Cells) {
				c = r.Cells[i]
			}
			rec = append(rec, plainValue(c.Text))
			if hasBadge[i] {
				rec = append(rec, badgeClass(c.Badge))
			}
		}
		recs = append(recs, rec)
	}
	return cols, recs
}

// plainValue is a cell text as a number when it is one ("12.5", "12.5%"
// → 12.5), nil for an empty or dash cell, else the text.
func plainValue(s string) any {
	s = strings.TrimSpace(s)
	switch s {
	case "", "—", "–":
		return nil
	}
	if v, err := strconv.ParseFloat(strings.TrimSuffix(s, "%"), 64); err == nil && !math.IsNaN(v) && !math.IsInf(v, 0) {
		return v
	}
	return s
}

// badgeClass names a badge's verdict for downloads.
func badgeClass(b string) any {
	switch {
	case b == "":
		return nil
	case strings.HasPrefix(b, "✓"):
		return classMatch
	case strings.HasPrefix(b, "≈"):
		return classRounding
	case strings.HasPrefix(b, "?"):
		return classUndetermined
	case strings.HasPrefix(b, "✗"):
		return classInconsistency
	}
	return b
}

func csvText(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case int:
		return strconv.Itoa(x)
	case bool:
		return strconv.FormatBool(x)
	case string:
		return x
	}
	return fmt.Sprint(v)
}

// addFile records an extra file (PNG plot, copied export) to write.
func (s *site) addFile(path string, b []byte) {
	s.mu.Lock()
	s.files[path] = b
	s.mu.Unlock()
}

func (s *site) agentName(id string) string {
	if a, ok := s.b.Agent(id); ok && a.Name != "" {
		return a.Name
	}
	return id
}

func (s *site) shortName(id string) string {
	if c, ok := s.b.Challenge(id); ok && c.ShortName != "" {
		return c.ShortName
	}
	return id
}

func (s *site) group(k groupKey) *group {
	for _, g := range s.data.Groups {
		if g.groupKey == k {
			return g
		}
	}
	return nil
}

// label names an agent configuration.
func (s *site) label(k groupKey) string {
	l := s.agentName(k.Agent)
	var extra []string
	if k.Backend != "" && k.Backend != "none" {
		extra = append(extra, k.Backend)
	}
	if k.Setting != "" {
		extra = append(extra, k.Setting)
	}
	extra = append(extra, shortSource(k.Source))
	return l + " (" + strings.Join(extra, ", ") + ")"
}

// printedHumans reads the human columns of the paper's S-tables from the
// benchmark's recorded paper results (nil when there are none).
func printedHumans(b *config.Benchmark) (map[string]paper.AppendixHuman, error) {
	if b.Paths.PaperResults == "" {
		return nil, nil
	}
	dir := b.Path(b.Paths.PaperResults)
	if !paper.Exists(dir) {
		return nil, nil
	}
	rec, err := paper.Load(dir, b)
	if err != nil {
		return nil, err
	}
	out := map[string]paper.AppendixHuman{}
	for _, h := range rec.Appendix.Human {
		out[h.Table] = h
	}
	return out, nil
}
