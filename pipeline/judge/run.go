package judge

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/rexmle/rexmle/pipeline/fsutil"
)

// RunLogs describes one agent run whose logs are judged.
type RunLogs struct {
	RunID     string
	Challenge string
	Agent     string
	Backend   string // LLM backend of the agent, "" when unknown
	Seed      int
	LogDir    string
	// Format forces a log reader for this run ("" = Config.Ingest.Format).
	Format Format
	// Group is the run group (the profile the run belongs to) from
	// run.json, else the run id.
	Group string
	// Status is the run's status from run.json (done, timed_out, failed,
	// interrupted, running); "" when there is no readable run.json.
	Status string
}

// Excluded reports whether the run is left out of capability profiles: it
// failed, was interrupted, or never finished (run.json says so). Runs that
// ended normally or at their time limit, and runs without run.json, are
// judged.
func (r RunLogs) Excluded() bool {
	switch r.Status {
	case "", "done", "timed_out":
		return false
	}
	return true
}

// FilterGroup keeps the runs of one run group (profile); "" keeps all.
func FilterGroup(runs []RunLogs, group string) []RunLogs {
	if group == "" {
		return runs
	}
	var out []RunLogs
	for _, r := range runs {
		if r.Group == group {
			out = append(out, r)
		}
	}
	return out
}

// Key identifies the run uniquely: "<run-id>/<challenge>/<agent>/seed-<n>".
func (r RunLogs) Key() string {
	return fmt.Sprintf("%s/%s/%s/seed-%d", r.RunID, r.Challenge, r.Agent, r.Seed)
}

// DiscoverRuns finds every log directory laid out as
// <root>/<run-id>/<challenge>/<agent>/seed-<n>/logs/ and returns one RunLogs
// each, sorted by Key. Backend, group and status are read from an optional
// <root>/<run-id>/<challenge>/<agent>/seed-<n>/run.json ({"backend": "...",
// "group": "...", "status": "..."}, other fields ignored); a missing or
// unreadable run.json leaves backend and status empty and the group the run
// id. Directories that do not fit the layout are ignored; a missing root is
// an error.
func DiscoverRuns(root string) ([]RunLogs, error) {
	if _, err := os.Stat(root); err != nil {
		return nil, fmt.Errorf("discover runs: %w", err)
	}
	matches, err := filepath.Glob(filepath.Join(root, "*", "*", "*", "seed-*", "logs"))
	if err != nil {
		return nil, fmt.Errorf("discover runs in %s: %w", root, err)
	}
	var out []RunLogs
	for _, m := range matches {
		if fi, err := os.Lstat(m); err != nil || !fi.IsDir() {
			continue
		}
		seedDir := filepath.Dir(m)
		seed, err := strconv.Atoi(strings.TrimPrefix(filepath.Base(seedDir), "seed-"))
		if err != nil || seed < 0 {
			continue
		}
		agentDir := filepath.Dir(seedDir)
		chDir := filepath.Dir(agentDir)
		runDir := filepath.Dir(chDir)
		r := RunLogs{
			RunID:     filepath.Base(runDir),
			Challenge: filepath.Base(chDir),
			Agent:     filepath.Base(agentDir),
			Seed:      seed,
			LogDir:    m,
			Group:     filepath.Base(runDir),
		}
		if b, err := fsutil.ReadFileIn(seedDir, "run.json", 1<<20); err == nil {
			var meta struct {
				Backend string `json:"backend"`
				Group   string `json:"group"`
				Status  string `json:"status"`
			}
			if json.Unmarshal(b, &meta) == nil {
				r.Backend, r.Status = meta.Backend, meta.Status
				if meta.Group != "" {
					r.Group = meta.Group
				}
			}
		}
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key() < out[j].Key() })
	return out, nil
}

// Judge selection values of Config.Judge.
const (
	JudgeHeuristic = "heuristic"
	JudgeOpenAI    = "openai"
)

// Config configures Run.
type Config struct {
	// RubricPath is the rubric TOML (default DefaultRubricPath).
	RubricPath string
	// Judge selects the judge: JudgeHeuristic (default) or JudgeOpenAI.
	Judge string
	// OpenAI configures the LLM judge when Judge is JudgeOpenAI.
	OpenAI OpenAIConfig
	// Impl, when non-nil, is used instead of Judge/OpenAI (tests, custom judges).
	Impl Judge
	// Ingest controls log reading, sectioning and truncation.
	Ingest IngestOptions
	// Force re-judges sections that are in the cache.
	Force bool
	// Concurrency is the number of sections judged at once; default: the
	// LLM judge's Concurrency, or GOMAXPROCS for the heuristic.
	Concurrency int
	// Progress, when set, is called after every section (from one goroutine).
	Progress func(Progress)
	// Logger receives progress and warnings (default slog.Default()).
	Logger *slog.Logger
}

// Progress is a snapshot passed to Config.Progress.
type Progress struct {
	Total     int    // sections to judge in this call
	Done      int    // sections finished (judged, cached or failed)
	CacheHits int    // sections answered from the cache (or an identical text)
	Errors    int    // sections with status error
	Partial   int    // sections with status partial
	Run       string // key of the run the last section belongs to
}

// Report summarises one Run call.
type Report struct {
	Judge      string // judge name (model, or "heuristic-v1")
	JudgeKind  string // KindLLM or KindHeuristic
	RubricPath string // rubric file used
	RubricHash string // its SHA-256
	Runs       int    // runs given
	// Excluded maps the keys of runs left out of the profiles (failed,
	// interrupted, unfinished: RunLogs.Excluded) to their status.
	Excluded map[string]string
	// RunErrors maps run keys to log-reading errors (those runs have no
	// new scores; earlier ones are kept).
	RunErrors map[string]string
	// Unstored lists runs with a section the judge failed on that had been
	// judged before: their new results were not stored, so their earlier
	// scores stay (the complete answers among them are cached). A run judged
	// for the first time is stored with its failed sections as missing
	// coverage.
	Unstored []string
	// RunsWithoutSections lists run keys whose logs held no judgeable text.
	RunsWithoutSections []string
	Sections            int // sections found
	// CacheHits counts sections answered from the cache, or from an
	// identical section text judged earlier in this call.
	CacheHits int
	// Judged counts distinct section texts sent to the judge in this call.
	Judged              int
	OK, Partial, Errors int // by status
	// MissingStrategies counts (section, strategy) pairs left undecided.
	MissingStrategies int
	HTTPCalls         int   // requests made (LLM judge)
	Usage             Usage // tokens and cost of this call's requests
	Profiles          Profiles
}

// Err reports a judging that did not fully succeed: sections the judge
// failed on, or runs whose logs could not be read. Callers exit non-zero
// and keep earlier exports (capabilities.csv) when it is non-nil.
func (r *Report) Err() error {
	var parts []string
	if r.Errors > 0 {
		msg := fmt.Sprintf("the judge failed on %d of %d sections", r.Errors, r.Sections)
		if len(r.Unstored) > 0 {
			msg += fmt.Sprintf(" (%d runs kept their earlier scores)", len(r.Unstored))
		}
		parts = append(parts, msg)
	}
	if n := len(r.RunErrors); n > 0 {
		keys := make([]string, 0, n)
		for k := range r.RunErrors {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts = append(parts, fmt.Sprintf("the logs of %d runs could not be read (%s: %s)", n, keys[0], r.RunErrors[keys[0]]))
	}
	if len(parts) == 0 {
		return nil
	}
	return fmt.Errorf("judge %s: %s", r.Judge, strings.Join(parts, "; "))
}

// buildJudge returns the judge Config asks for.
func (c Config) buildJudge() (Judge, error) {
	if c.Impl != nil {
		return c.Impl, nil
	}
	switch c.Judge {
	case "", JudgeHeuristic:
		return NewHeuristic(), nil
	case JudgeOpenAI:
		oc := c.OpenAI
		if oc.Logger == nil {
			oc.Logger = c.Logger
		}
		return NewOpenAI(oc)
	}
	return nil, fmt.Errorf("unknown judge %q (want %q or %q)", c.Judge, JudgeHeuristic, JudgeOpenAI)
}

type job struct {
	sec   Section
	sites []site // every (run, section) with this text
}

type site struct{ run, sec int }

type result struct {
	job   *job
	score SectionScore
}

// Run judges every section of every run's logs, stores the results in the
// store, and returns a report with the capability
// profiles of these runs. Sections already in the cache (same judge, rubric
// hash and section text) cost no call unless cfg.Force; identical texts are
// judged once per call. A run whose logs cannot be read is reported in
// RunErrors and skipped; a section whose judging fails is stored with status
// error and its strategies as missing coverage. Each run's rows are written
// in one transaction once all its sections are done.
func Run(ctx context.Context, st Records, cfg Config, runs []RunLogs) (*Report, error) {
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	path := cfg.RubricPath
	if path == "" {
		path = DefaultRubricPath
	}
	rub, err := LoadRubric(path)
	if err != nil {
		return nil, err
	}
	j, err := cfg.buildJudge()
	if err != nil {
		return nil, err
	}
	g := &judging{ctx: ctx, st: st, cfg: cfg, log: log, rub: rub, j: j, all: runs,
		rep: &Report{Judge: j.Name(), JudgeKind: j.Kind(), RubricPath: path, RubricHash: rub.Hash,
			Runs: len(runs), RunErrors: map[string]string{}, Excluded: map[string]string{}}}
	rep := g.rep
	if err := g.leaveOutFailedRuns(); err != nil {
		return rep, err
	}
	g.readSections()
	order, err := g.placeCachedSections()
	if err != nil {
		return rep, err
	}
	if err := g.judgeSections(order); err != nil {
		return rep, err
	}
	if err := g.profiles(); err != nil {
		return rep, err
	}
	log.Info("judge: done", "judge", rep.Judge, "kind", rep.JudgeKind, "sections", rep.Sections,
		"cache_hits", rep.CacheHits, "judged", rep.Judged, "errors", rep.Errors, "partial", rep.Partial,
		"http_calls", rep.HTTPCalls, "tokens", rep.Usage.TotalTokens)
	return rep, nil
}

// judging is one Run's state: the runs judged and, per run, its sections,
// their scores so far and how many are still pending.
type judging struct {
	ctx context.Context
	st  Records
	cfg Config
	log *slog.Logger
	rub *Rubric
	j   Judge
	rep *Report

	all     []RunLogs // every run asked for, failed ones included
	runs    []RunLogs // the runs judged
	secs    [][]Section
	scores  [][]SectionScore
	pending []int
	readOK  []bool
	prog    Progress
}

// leaveOutFailedRuns keeps the runs that finished; a failed, interrupted
// or unfinished run is reported as excluded and its earlier scores go.
func (g *judging) leaveOutFailedRuns() error {
	for _, r := range g.all {
		if r.Excluded() {
			g.rep.Excluded[r.Key()] = r.Status
			g.log.Info("judge: run excluded from capability profiles", "run", r.Key(), "status", r.Status)
			// Scores stored before the run was known to have failed go.
			if err := g.st.ForgetJudgedRun(g.ctx, r.Key()); err != nil {
				return err
			}
			continue
		}
		g.runs = append(g.runs, r)
	}
	return nil
}

// readSections reads every run's sections; a run whose logs cannot be read
// is reported in RunErrors.
func (g *judging) readSections() {
	n := len(g.runs)
	g.secs, g.scores = make([][]Section, n), make([][]SectionScore, n)
	g.pending, g.readOK = make([]int, n), make([]bool, n)
	for i, r := range g.runs {
		opts := g.cfg.Ingest
		if r.Format != "" {
			opts.Format = r.Format
		}
		s, err := ReadLogDir(r.LogDir, r.Agent, opts)
		if err != nil {
			g.rep.RunErrors[r.Key()] = err.Error()
			g.log.Warn("judge: cannot read logs", "run", r.Key(), "error", err)
			continue
		}
		if len(s) == 0 {
			g.rep.RunsWithoutSections = append(g.rep.RunsWithoutSections, r.Key())
		}
		g.readOK[i] = true
		g.secs[i] = s
		g.scores[i] = make([]SectionScore, len(s))
		g.pending[i] = len(s)
		g.rep.Sections += len(s)
	}
	g.prog = Progress{Total: g.rep.Sections}
}

// progress counts one placed section and tells cfg.Progress.
func (g *judging) progress(run string, sc SectionScore) {
	g.prog.Done++
	g.prog.Run = run
	if sc.CacheHit {
		g.prog.CacheHits++
	}
	switch sc.Status {
	case StatusError:
		g.prog.Errors++
	case StatusPartial:
		g.prog.Partial++
	}
	if g.cfg.Progress != nil {
		g.cfg.Progress(g.prog)
	}
}

// finishRun stores run i's rows once all its sections are placed.
func (g *judging) finishRun(i int) error {
	js := make([]judgedSection, len(g.secs[i]))
	failed := false
	for k := range g.secs[i] {
		js[k] = judgedSection{Section: g.secs[i][k], Score: g.scores[i][k]}
		failed = failed || g.scores[i][k].Status == StatusError
	}
	if failed {
		// Never replace a run's earlier scores with a failed judging;
		// keep what was paid for in the cache. A run judged for the
		// first time is stored, its failed sections as missing coverage.
		earlier, err := g.st.HasJudgedRun(g.ctx, g.runs[i].Key(), g.j.Name(), g.rub.Hash)
		if err != nil {
			return err
		}
		if earlier {
			g.rep.Unstored = append(g.rep.Unstored, g.runs[i].Key())
			return storeCalls(g.ctx, g.st, g.runs[i], g.j.Name(), g.j.Kind(), g.rub, js)
		}
	}
	return storeRun(g.ctx, g.st, g.runs[i], g.j.Name(), g.j.Kind(), g.rub, js)
}

// place records the score of section k of run i, and stores the run when
// it was its last.
func (g *judging) place(i, k int, sc SectionScore) error {
	g.scores[i][k] = sc
	g.rep.MissingStrategies += len(sc.Missing)
	switch sc.Status {
	case StatusOK:
		g.rep.OK++
	case StatusPartial:
		g.rep.Partial++
	default:
		g.rep.Errors++
	}
	if sc.CacheHit {
		g.rep.CacheHits++
	}
	g.progress(g.runs[i].Key(), sc)
	g.pending[i]--
	if g.pending[i] == 0 {
		return g.finishRun(i)
	}
	return nil
}

// placeCachedSections places the sections found in the cache (unless
// cfg.Force), groups identical texts of the rest into one job each, in
// order of first appearance, and stores the runs without sections now
// (clearing older rows).
func (g *judging) placeCachedSections() ([]*job, error) {
	jobs := map[string]*job{}
	var order []*job
	for i := range g.runs {
		for k, s := range g.secs[i] {
			h := s.Hash()
			if !g.cfg.Force {
				sc, ok, err := cachedCall(g.ctx, g.st, g.j.Name(), g.rub.Hash, h)
				if err != nil {
					return nil, err
				}
				if ok {
					if err := g.place(i, k, sc); err != nil {
						return nil, err
					}
					continue
				}
			}
			jb := jobs[h]
			if jb == nil {
				jb = &job{sec: s}
				jobs[h] = jb
				order = append(order, jb)
			}
			jb.sites = append(jb.sites, site{i, k})
		}
	}
	for i := range g.runs {
		if g.readOK[i] && len(g.secs[i]) == 0 {
			if err := g.finishRun(i); err != nil {
				return nil, err
			}
		}
	}
	return order, nil
}

// judgeSections has the judge score each job on a pool of workers and
// places every answer at each site of its text.
func (g *judging) judgeSections(order []*job) error {
	ctx, j, rub := g.ctx, g.j, g.rub
	workers := g.cfg.Concurrency
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
		if o, ok := j.(*OpenAI); ok {
			workers = o.cfg.Concurrency
		}
	}
	jobCh := make(chan *job)
	resCh := make(chan result)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for jb := range jobCh {
				sc, err := j.Score(ctx, jb.sec, rub)
				if err != nil && sc.Status == "" {
					sc = SectionScore{Judge: j.Name(), Kind: j.Kind(), RubricHash: rub.Hash,
						SectionHash: jb.sec.Hash(), Missing: rub.IDs(), Error: err.Error()}
					sc.setStatus()
				}
				if err != nil {
					g.log.Warn("judge: section failed", "section", jb.sec.Label, "error", err)
				}
				resCh <- result{jb, sc}
			}
		}()
	}
	go func() {
		defer close(jobCh)
		for _, jb := range order {
			select {
			case jobCh <- jb:
			case <-ctx.Done():
				return
			}
		}
	}()
	go func() { wg.Wait(); close(resCh) }()

	var firstErr error
	for res := range resCh {
		g.rep.Judged++
		g.rep.HTTPCalls += res.score.Attempts
		g.rep.Usage.add(res.score.Usage)
		for n, st := range res.job.sites {
			sc := res.score
			sc.Scores = append([]StrategyScore(nil), sc.Scores...)
			if n > 0 {
				// The same text elsewhere: stored from this one answer, as a
				// cache hit that cost nothing more.
				sc.CacheHit = sc.Status == StatusOK
				sc.Attempts, sc.Usage = 0, Usage{}
			}
			if err := g.place(st.run, st.sec, sc); err != nil && firstErr == nil {
				firstErr = err
			}
		}
	}
	if firstErr != nil {
		return firstErr
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("judge run: %w", err)
	}
	return nil
}

// profiles aggregates the stored scores of the judged runs into the
// report's capability profiles, the failed runs counted.
func (g *judging) profiles() error {
	keys := map[string]bool{}
	for _, r := range g.runs {
		keys[r.Key()] = true
	}
	rows, err := LoadScores(g.ctx, g.st, g.j.Name(), g.rub.Hash)
	if err != nil {
		return err
	}
	kept := rows[:0]
	for _, r := range rows {
		if keys[r.RunKey] {
			kept = append(kept, r)
		}
	}
	g.rep.Profiles = Aggregate(kept, g.rub)
	addFailedRuns(&g.rep.Profiles, g.all, g.rub, JudgeLabel{g.j.Name(), g.j.Kind()})
	sort.Strings(g.rep.Unstored)
	return nil
}
