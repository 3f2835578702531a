// Package stages wires the pipeline's stages for the Mage targets: it takes
// the options package settings read (FromSettings), loads the
// configuration, opens the store and calls into the stage packages. Every
// target is one call here.
package stages

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"github.com/rexmle/rexmle/pipeline/challenge"
	"github.com/rexmle/rexmle/pipeline/config"
	"github.com/rexmle/rexmle/pipeline/rankstage"
	"github.com/rexmle/rexmle/pipeline/settings"
	"github.com/rexmle/rexmle/pipeline/store"
)

// Options are the user's settings as the stages take them (package
// settings reads and checks them; FromSettings converts). Tests build them
// directly.
type Options struct {
	Config      string         // benchmark file, default benchmark.toml
	Profile     string         // default demo
	Challenges  []string       // empty = the profile's or all
	Mode        challenge.Mode // reference or official; "": the configuration's grading.mode
	Force       bool           // redo work that is up to date
	DryRun      bool           // say what would be done
	BothModes   bool           // gradeOne also grades the other mode and reports differences
	RetryFailed bool           // run reruns the runs that ended failed
	// LockWait is how long a stage waits for another stage holding the
	// checkout's lock (0: fail at once).
	LockWait time.Duration
	// SynthSize is the size of the synthetic (demo) data that prepare writes
	// and run and grade expect; fetched data ignore it.
	SynthSize challenge.SynthSize
	// Rank are the rank stage's bootstrap settings (zero: the defaults).
	Rank rankstage.Options
	// Engine is the container engine of agents that set none ("": docker).
	Engine string
	// FetchToken is the data sources' API token ("" for none).
	FetchToken string
	// Host is the environment the variables the configuration names (API
	// keys, endpoints) are read from.
	Host settings.Environ
	// BinRoot is the folder whose bin/ holds the agent binaries: the
	// checkout the Mage targets build them in, whatever folder the
	// benchmark file is in ("": the benchmark's folder).
	BinRoot string
}

// DefaultLockWait is how long a stage waits for the checkout's lock by default.
const DefaultLockWait = settings.DefaultLockWait

// FromSettings is the stages' view of the settings Load read.
func FromSettings(s settings.Settings) Options {
	return Options{Config: s.Config, Profile: s.Profile, Challenges: s.Challenges, Mode: s.Mode, Force: s.Force,
		DryRun: s.DryRun, BothModes: s.BothModes, RetryFailed: s.RetryFailed, LockWait: s.LockWait, SynthSize: s.SynthSize,
		Rank:   rankstage.Options{Boot: s.Boot, BootSeed: s.BootSeed, Confidence: rankstage.DefaultOptions().Confidence},
		Engine: s.Engine, FetchToken: s.FetchToken, Host: s.Host}
}

// Validate checks what package settings cannot: options built in code.
// load calls it, so every stage fails on a bad option before doing
// anything.
func (o Options) Validate() error {
	var probs []string
	switch o.Mode {
	case "", challenge.Reference, challenge.Official:
	default:
		probs = append(probs, fmt.Sprintf("grading mode %q: want \"reference\" or \"official\"", o.Mode))
	}
	if o.LockWait < 0 {
		probs = append(probs, fmt.Sprintf("lock wait %s: want 0 or more", o.LockWait))
	}
	if len(probs) == 0 {
		return nil
	}
	return fmt.Errorf("invalid settings:\n  %s", strings.Join(probs, "\n  "))
}

// env is what every stage needs: the configuration, the profile and the
// selected challenges.
type env struct {
	opt        Options
	mode       challenge.Mode // the grading mode: the option, else the configuration's
	b          *config.Benchmark
	profile    config.Profile
	challenges []*config.Challenge
	log        *slog.Logger
}

// load validates the options, loads the configuration and takes the
// checkout's lock: every stage calls it before doing anything.
func load(o Options) (*env, error) {
	e, err := loadNoLock(o)
	if err != nil {
		return nil, err
	}
	if err := lockCheckout(context.Background(), e.b.Root, e.opt.LockWait); err != nil {
		return nil, err
	}
	return e, nil
}

// loadNoLock is load for the stages that write nothing (gradeOne).
func loadNoLock(o Options) (*env, error) {
	if err := o.Validate(); err != nil {
		return nil, badSettings(err)
	}
	b, err := config.Load(o.Config)
	if err != nil {
		return nil, badSettings(err)
	}
	p, err := b.Profile(o.Profile)
	if err != nil {
		return nil, badSettings(fmt.Errorf("REXMLE_PROFILE: %w", err))
	}
	ids := o.Challenges
	if len(ids) == 0 {
		ids = p.Challenges
	}
	cs, err := b.Select(ids)
	if err != nil {
		return nil, badSettings(fmt.Errorf("REXMLE_CHALLENGES: %w", err))
	}
	mode := o.Mode
	if mode == "" {
		mode = challenge.Mode(b.Grading.Mode) // checked by config.Load
	}
	log := newLogger()
	slog.SetDefault(log) // the packages that log through slog's default speak alike (details with -v only)
	return &env{opt: o, mode: mode, b: b, profile: p, challenges: cs, log: log}, nil
}

// open opens the store and brings the benchmark's challenges, metrics and
// leaderboards into it, so every stage's rows can refer to them.
func (e *env) open(ctx context.Context) (*store.Store, error) {
	st, err := store.Open(ctx, e.b.Path(e.b.Paths.Database))
	if err != nil {
		return nil, err
	}
	if err := st.Update(ctx, func(tx *store.Tx) error { return tx.SyncChallenges(ctx, e.b.Challenges) }); err != nil {
		st.Close()
		return nil, fmt.Errorf("store challenges: %w", err)
	}
	return st, nil
}

// ErrNotImplemented is returned by targets that are not built yet.
var ErrNotImplemented = errors.New("not implemented yet")

// Rank ranks every run, writes results/{positions,ranks,overall}.csv and
// the bootstrap exports, and prints the reproduction table when it changed
// (always with -v). When nothing it depends on changed since it last ran,
// it says so and does nothing.
func Rank(ctx context.Context, o Options) error {
	e, err := load(o)
	if err != nil {
		return err
	}
	st, err := e.open(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	if d, err := rankDigest(ctx, e, st); err == nil {
		if since, ok := e.skipIfUnchanged("rank", d); ok {
			say("rank: up to date (store, settings and exports unchanged since %s), skipped", sinceText(since))
			return nil
		}
	} else {
		e.log.Warn("rank: up-to-date check failed; ranking", "err", err)
	}
	start := time.Now()
	prev, _ := e.readStamp("rank")
	changedInThisProcess.Store(true)
	e.dropStamp("rank")
	out, err := rankstage.RunWith(ctx, e.b, st, e.rankOptions())
	if err != nil {
		if ctx.Err() != nil {
			return interrupted(ctx, "rank", -1)
		}
		return err
	}
	dir := e.b.Path(e.b.Paths.Results)
	if err := rankstage.WriteCSVs(dir, e.b, out); err != nil {
		return fmt.Errorf("rank: write exports: %w", err)
	}
	var table bytes.Buffer
	rankstage.Print(&table, e.b, out)
	sum := sha256.Sum256(table.Bytes())
	tableHash := hex.EncodeToString(sum[:])
	if verbose() || tableHash != prev.Table {
		os.Stdout.Write(table.Bytes())
	} else {
		say("rank: reproduction table unchanged since %s (mage -v prints it)", sinceText(prev.At))
	}
	say("rank: %d runs ranked in %s; wrote %s, %s, %s and the bootstrap exports", len(out.Runs), time.Since(start).Round(time.Millisecond),
		rel(filepath.Join(dir, "positions.csv")), rel(filepath.Join(dir, "ranks.csv")), rel(filepath.Join(dir, "overall.csv")))
	if d, err := rankDigest(ctx, e, st); err == nil {
		e.writeStamp("rank", stageStamp{Digest: d, Table: tableHash})
	}
	return nil
}

// rankOptions are the rank stage's options: the defaults where the
// options leave them zero (options built in code).
func (e *env) rankOptions() rankstage.Options {
	if e.opt.Rank == (rankstage.Options{}) {
		return rankstage.DefaultOptions()
	}
	return e.opt.Rank
}

// rel shortens a path to one relative to the working folder when it can.
func rel(p string) string {
	wd, err := os.Getwd()
	if err != nil {
		return p
	}
	if r, err := filepath.Rel(wd, p); err == nil && !strings.HasPrefix(r, "..") {
		return r
	}
	return p
}

// Summary prints the standings and where the pipeline's outputs are, read
// from the store (the one owner of the ranks; nothing is recomputed). When
// every stage of this process found its work up to date it prints one line
// instead (all of it with -v).
func Summary(ctx context.Context, o Options) error {
	e, err := load(o)
	if err != nil {
		return err
	}
	site := rel(filepath.Join(e.b.Path(e.b.Paths.Site), "index.html"))
	if !verbose() && !changedInThisProcess.Load() {
		say("Done (profile %s): nothing changed; results in %s, site %s (mage -v prints the standings)", o.Profile, rel(e.b.Path(e.b.Paths.Results))+string(filepath.Separator), site)
		return nil
	}
	res := e.b.Path(e.b.Paths.Results)
	fmt.Println()
	fmt.Printf("Done (profile %s).\n", o.Profile)
	if err := printStandings(ctx, e); err != nil {
		return err
	}
	fmt.Printf("Outputs: the store %s, the CSV exports in %s (positions, ranks, overall, intervals, pairwise, grades.jsonl, capabilities), the runs in %s\n",
		rel(e.b.Path(e.b.Paths.Database)), rel(res)+string(filepath.Separator), rel(e.b.Path(e.b.Paths.Runs)))
	fmt.Printf("Site: %s (open in a browser)\n", site)
	return nil
}

// changedInThisProcess is set by every stage that did work (not only
// found it up to date), so the end-of-run summary knows whether anything
// changed.
var changedInThisProcess atomic.Bool

// printStandings prints the ReX-MLE rank of every agent configuration as
// the rank stage stored it (the standings; nothing is recomputed here),
// one world at a time, since ranks are compared only within one: the
// paper's configurations ranked on every challenge, new runs on the real
// data ranked on every challenge, then the configurations run on fewer
// challenges (ablations, partial runs) and the runs on synthetic data,
// each set apart. The number of challenges is beside every rank.
func printStandings(ctx context.Context, e *env) error {
	db := e.b.Path(e.b.Paths.Database)
	if _, err := os.Stat(db); err != nil {
		return fmt.Errorf("standings: no store at %s (run `mage rank`)", rel(db))
	}
	st, err := store.Open(ctx, db)
	if err != nil {
		return fmt.Errorf("standings: %w", err)
	}
	defer st.Close()
	ss, err := st.Standings(ctx)
	if err != nil {
		return fmt.Errorf("standings: %w", err)
	}
	runs, err := st.RankedRuns(ctx)
	if err != nil {
		return fmt.Errorf("standings: %w", err)
	}
	return writeStandings(os.Stdout, e.b, ss, runs)
}

// writeStandings writes the standings to w, with the number of runs of
// each configuration that were ranked ok out of those ranked.
func writeStandings(w io.Writer, b *config.Benchmark, ss []store.Standing, runs []store.RankedRun) error {
	type key struct{ src, setting, backend, agent string }
	okRuns, allRuns := map[key]int{}, map[key]int{}
	for _, r := range runs {
		if !r.Ranked {
			continue
		}
		k := key{r.Source, r.Setting, r.Backend, r.Agent}
		allRuns[k]++
		if r.RankStatus == "ok" {
			okRuns[k]++
		}
	}
	type line struct {
		text string
		rank float64
	}
	const (
		paper = iota
		fresh
		fewer
		synthetic
	)
	titles := [...]string{
		fmt.Sprintf("The paper's configurations, ranked on all %d challenges:", len(b.Challenges)),
		fmt.Sprintf("New runs on the real data, ranked on all %d challenges (not ranked with the paper's):", len(b.Challenges)),
		"Fewer challenges or partial runs (ablations; means over other challenges, not comparable with the above):",
		"On synthetic data (demo; not comparable with the human leaderboards):",
	}
	var worlds [4][]line
	for _, s := range ss {
		if s.NPartial != 0 || math.IsNaN(s.Overall) {
			continue // a Table 4/5 configuration known by its primary metric only: a range, on the site
		}
		k := key{s.Source, s.Setting, s.Backend, s.Agent}
		v, n := s.Overall, s.NChallenges
		name := k.agent
		if a, found := b.Agent(k.agent); found {
			name = a.Name
		}
		src := k.src
		if src == config.PrintedSource {
			src = "paper" // as the site shows it
		}
		l := line{fmt.Sprintf("  %-20s %-10s %-6s %-18s %6.2f%% over %2d challenge(s)  (%d of %d runs ranked)", name, src, k.setting, k.backend, 100*v, n, okRuns[k], allRuns[k]), v}
		full := n == len(b.Challenges)
		switch {
		case k.src != config.PrintedSource && b.Profiles[k.src].Data != "fetched":
			worlds[synthetic] = append(worlds[synthetic], l)
		case !full:
			worlds[fewer] = append(worlds[fewer], l)
		case k.src == config.PrintedSource:
			worlds[paper] = append(worlds[paper], l)
		default:
			worlds[fresh] = append(worlds[fresh], l)
		}
	}
	fmt.Fprintln(w, "ReX-MLE rank (mean percentile over challenges; failed runs count 0), compared only within each group:")
	for i, ls := range worlds {
		if len(ls) == 0 {
			continue
		}
		sort.SliceStable(ls, func(i, j int) bool { return ls[i].rank > ls[j].rank })
		fmt.Fprintln(w, titles[i])
		for _, l := range ls {
			fmt.Fprintln(w, l.text)
		}
	}
	return nil
}
