package judge

import (
	"context"
	"database/sql"
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
}

// Key identifies the run uniquely: "<run-id>/<challenge>/<agent>/seed-<n>".
func (r RunLogs) Key() string {
	return fmt.Sprintf("%s/%s/%s/seed-%d", r.RunID, r.Challenge, r.Agent, r.Seed)
}

// DiscoverRuns finds every log directory laid out as
// <root>/<run-id>/<challenge>/<agent>/seed-<n>/logs/ and returns one RunLogs
// each, sorted by Key. The backend is read from an optional
// <root>/<run-id>/<challenge>/<agent>/seed-<n>/run.json ({"backend": "..."});
// a missing or unreadable run.json leaves it empty. Directories that do not
// fit the layout are ignored; a missing root is an error.
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
		if fi, err := os.Stat(m); err != nil || !fi.IsDir() {
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
		}
		if b, err := os.ReadFile(filepath.Join(seedDir, "run.json")); err == nil {
			var meta struct {
				Backend string `json:"backend"`
			}
			if json.Unmarshal(b, &meta) == nil {
				r.Backend = meta.Backend
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
	// RunErrors maps run keys to log-reading errors (those runs have no scores).
	RunErrors map[string]string
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

// Run judges every section of every run's logs, stores the results in db
// (creating the tables if needed), and returns a report with the capability
// profiles of these runs. Sections already in the cache (same judge, rubric
// hash and section text) cost no call unless cfg.Force; identical texts are
// judged once per call. A run whose logs cannot be read is reported in
// RunErrors and skipped; a section whose judging fails is stored with status
// error and its strategies as missing coverage. Each run's rows are written
// in one transaction once all its sections are done.
func Run(ctx context.Context, db *sql.DB, cfg Config, runs []RunLogs) (*Report, error) {
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
	if err := Migrate(ctx, db); err != nil {
		return nil, err
	}
	rep := &Report{Judge: j.Name(), JudgeKind: j.Kind(), RubricPath: path, RubricHash: rub.Hash,
		Runs: len(runs), RunErrors: map[string]string{}}

	// Read every run's sections.
	secs := make([][]Section, len(runs))
	scores := make([][]SectionScore, len(runs))
	pending := make([]int, len(runs))
	readOK := make([]bool, len(runs))
	for i, r := range runs {
		opts := cfg.Ingest
		if r.Format != "" {
			opts.Format = r.Format
		}
		s, err := ReadLogDir(r.LogDir, r.Agent, opts)
		if err != nil {
			rep.RunErrors[r.Key()] = err.Error()
			log.Warn("judge: cannot read logs", "run", r.Key(), "error", err)
			continue
		}
		if len(s) == 0 {
			rep.RunsWithoutSections = append(rep.RunsWithoutSections, r.Key())
		}
		readOK[i] = true
		secs[i] = s
		scores[i] = make([]SectionScore, len(s))
		pending[i] = len(s)
		rep.Sections += len(s)
	}

	prog := Progress{Total: rep.Sections}
	report := func(run string, sc SectionScore) {
		prog.Done++
		prog.Run = run
		if sc.CacheHit {
			prog.CacheHits++
		}
		switch sc.Status {
		case StatusError:
			prog.Errors++
		case StatusPartial:
			prog.Partial++
		}
		if cfg.Progress != nil {
			cfg.Progress(prog)
		}
	}
	finishRun := func(i int) error {
		js := make([]judgedSection, len(secs[i]))
		for k := range secs[i] {
			js[k] = judgedSection{Section: secs[i][k], Score: scores[i][k]}
		}
		return storeRun(ctx, db, runs[i], j.Name(), j.Kind(), rub, js)
	}
	place := func(i, k int, sc SectionScore) error {
		scores[i][k] = sc
		rep.MissingStrategies += len(sc.Missing)
		switch sc.Status {
		case StatusOK:
			rep.OK++
		case StatusPartial:
			rep.Partial++
		default:
			rep.Errors++
		}
		if sc.CacheHit {
			rep.CacheHits++
		}
		report(runs[i].Key(), sc)
		pending[i]--
		if pending[i] == 0 {
			return finishRun(i)
		}
		return nil
	}

	// Cache look-ups, and grouping of identical texts into one job.
	jobs := map[string]*job{}
	var order []*job
	for i := range runs {
		for k, s := range secs[i] {
			h := s.Hash()
			if !cfg.Force {
				sc, ok, err := cachedCall(ctx, db, j.Name(), rub.Hash, h)
				if err != nil {
					return rep, err
				}
				if ok {
					if err := place(i, k, sc); err != nil {
						return rep, err
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
	for i := range runs {
		// Runs without sections are stored now (clearing older rows).
		if readOK[i] && len(secs[i]) == 0 {
			if err := finishRun(i); err != nil {
				return rep, err
			}
		}
	}

	workers := cfg.Concurrency
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
					log.Warn("judge: section failed", "section", jb.sec.Label, "error", err)
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
		rep.Judged++
		rep.HTTPCalls += res.score.Attempts
		rep.Usage.add(res.score.Usage)
		for n, st := range res.job.sites {
			sc := res.score
			sc.Scores = append([]StrategyScore(nil), sc.Scores...)
			if n > 0 {
				// The same text elsewhere: stored from this one answer, as a
				// cache hit that cost nothing more.
				sc.CacheHit = sc.Status == StatusOK
				sc.Attempts, sc.Usage = 0, Usage{}
			}
			if err := place(st.run, st.sec, sc); err != nil && firstErr == nil {
				firstErr = err
			}
		}
	}
	if firstErr != nil {
		return rep, firstErr
	}
	if err := ctx.Err(); err != nil {
		return rep, fmt.Errorf("judge run: %w", err)
	}

	keys := map[string]bool{}
	for _, r := range runs {
		keys[r.Key()] = true
	}
	rows, err := LoadScores(ctx, db, j.Name(), rub.Hash)
	if err != nil {
		return rep, err
	}
	kept := rows[:0]
	for _, r := range rows {
		if keys[r.RunKey] {
			kept = append(kept, r)
		}
	}
	rep.Profiles = Aggregate(kept, rub)
	log.Info("judge: done", "judge", rep.Judge, "kind", rep.JudgeKind, "sections", rep.Sections,
		"cache_hits", rep.CacheHits, "judged", rep.Judged, "errors", rep.Errors, "partial", rep.Partial,
		"http_calls", rep.HTTPCalls, "tokens", rep.Usage.TotalTokens)
	return rep, nil
}
