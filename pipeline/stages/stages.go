// Package stages wires the pipeline's stages for the Mage targets: it reads
// the options from the environment, loads the configuration, opens the
// store and calls into the stage packages. Every target is one call here.
package stages

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/rexmle/rexmle/pipeline/challenge"
	"github.com/rexmle/rexmle/pipeline/config"
	"github.com/rexmle/rexmle/pipeline/rankstage"
	"github.com/rexmle/rexmle/pipeline/store"
)

// Options are the settings a user gives through environment variables.
type Options struct {
	Config     string   // REXMLE_CONFIG, default benchmark.toml
	Profile    string   // REXMLE_PROFILE, default demo
	Challenges []string // REXMLE_CHALLENGES, comma-separated; empty = the profile's or all
	Mode       string   // REXMLE_MODE: reference or official; default from config
	Force      bool     // REXMLE_FORCE=1: redo work that is up to date
	DryRun     bool     // REXMLE_DRY_RUN=1: say what would be done
	BothModes  bool     // REXMLE_BOTH_MODES=1: gradeOne also grades the other mode and reports differences
	// LockWait is how long a stage waits for another stage holding the
	// checkout's lock (REXMLE_LOCK_WAIT, a duration; default DefaultLockWait;
	// 0: fail at once).
	LockWait time.Duration
	// SynthSize is the size of the synthetic (demo) data that prepare writes
	// and run and grade expect (REXMLE_SYNTH_CASES: default, full or a case
	// count); fetched data ignore it.
	SynthSize challenge.SynthSize

	problems []string // what FromEnv could not accept; reported by every stage before any work
}

// DefaultLockWait is how long a stage waits for the checkout's lock by default.
const DefaultLockWait = 2 * time.Hour

// FromEnv reads the options. Values it cannot accept (a misspelt mode, a
// flag that is neither true nor false, a bad duration) are kept and reported
// by the first stage that runs, before it does any work (see Validate).
func FromEnv() Options {
	o := Options{
		Config:   os.Getenv("REXMLE_CONFIG"),
		Profile:  os.Getenv("REXMLE_PROFILE"),
		Mode:     strings.TrimSpace(os.Getenv("REXMLE_MODE")),
		LockWait: DefaultLockWait,
	}
	flag := func(name string, dst *bool) {
		v, ok := parseBool(os.Getenv(name))
		if !ok {
			o.problems = append(o.problems, fmt.Sprintf("%s=%q: want 1, true, yes or on (or 0, false, no, off)", name, clipEnv(os.Getenv(name))))
		}
		*dst = v
	}
	flag("REXMLE_FORCE", &o.Force)
	flag("REXMLE_DRY_RUN", &o.DryRun)
	flag("REXMLE_BOTH_MODES", &o.BothModes)
	if s := strings.TrimSpace(os.Getenv("REXMLE_LOCK_WAIT")); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil || d < 0 {
			o.problems = append(o.problems, fmt.Sprintf("REXMLE_LOCK_WAIT=%q: want a duration of 0 or more such as \"30m\" (0: do not wait)", clipEnv(s)))
		} else {
			o.LockWait = d
		}
	}
	if size, err := challenge.SynthSizeFromEnv(); err != nil {
		o.problems = append(o.problems, err.Error())
	} else {
		o.SynthSize = size
	}
	if o.Config == "" {
		o.Config = "benchmark.toml"
	}
	if o.Profile == "" {
		o.Profile = "demo"
	}
	if s := os.Getenv("REXMLE_CHALLENGES"); s != "" {
		for _, id := range strings.Split(s, ",") {
			if id = strings.TrimSpace(id); id != "" {
				o.Challenges = append(o.Challenges, id)
			}
		}
		if len(o.Challenges) == 0 {
			o.problems = append(o.problems, fmt.Sprintf("REXMLE_CHALLENGES=%q names no challenge: want comma-separated ids, or leave it unset for all", clipEnv(s)))
		}
	}
	return o
}

// Validate checks the options that do not need the configuration: the
// environment values FromEnv could not read and the grading mode. load
// calls it, so every stage fails on a typo before doing anything.
func (o Options) Validate() error {
	probs := append([]string(nil), o.problems...)
	if o.Mode != "" {
		if _, err := challenge.ParseMode(o.Mode); err != nil {
			probs = append(probs, fmt.Sprintf("REXMLE_MODE=%q: want \"reference\" or \"official\" (or unset: the configuration's grading.mode)", clipEnv(o.Mode)))
		}
	}
	if o.LockWait < 0 {
		probs = append(probs, fmt.Sprintf("lock wait %s: want 0 or more", o.LockWait))
	}
	if len(probs) == 0 {
		return nil
	}
	return fmt.Errorf("invalid settings:\n  %s", strings.Join(probs, "\n  "))
}

// clipEnv shortens an environment value for a message.
func clipEnv(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}

// parseBool reads a flag: empty is false; ok is false for a value that is
// neither true nor false.
func parseBool(s string) (v, ok bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "1", "true", "yes", "on":
		return true, true
	case "", "0", "false", "no", "off":
		return false, true
	}
	return false, false
}

func truthy(s string) bool {
	v, _ := parseBool(s)
	return v
}

// env is what every stage needs: the configuration, the profile and the
// selected challenges.
type env struct {
	opt        Options
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
		return nil, err
	}
	b, err := config.Load(o.Config)
	if err != nil {
		return nil, err
	}
	p, err := b.Profile(o.Profile)
	if err != nil {
		return nil, fmt.Errorf("REXMLE_PROFILE: %w", err)
	}
	ids := o.Challenges
	if len(ids) == 0 {
		ids = p.Challenges
	}
	cs, err := b.Select(ids)
	if err != nil {
		return nil, fmt.Errorf("REXMLE_CHALLENGES: %w", err)
	}
	if o.Mode == "" {
		o.Mode = b.Grading.Mode
	}
	return &env{opt: o, b: b, profile: p, challenges: cs, log: slog.New(slog.NewTextHandler(os.Stderr, nil))}, nil
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
// prints the reproduction table.
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
	out, err := rankstage.Run(ctx, e.b, st)
	if err != nil {
		return err
	}
	dir := e.b.Path(e.b.Paths.Results)
	if err := rankstage.WriteCSVs(dir, e.b, out); err != nil {
		return fmt.Errorf("rank: write exports: %w", err)
	}
	rankstage.Print(os.Stdout, e.b, out)
	fmt.Printf("Wrote %s, %s and %s (%d ranked runs).\n", rel(filepath.Join(dir, "positions.csv")), rel(filepath.Join(dir, "ranks.csv")), rel(filepath.Join(dir, "overall.csv")), len(out.Runs))
	return nil
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

// Summary prints where the pipeline's outputs are.
func Summary(ctx context.Context, o Options) error {
	e, err := load(o)
	if err != nil {
		return err
	}
	res := e.b.Path(e.b.Paths.Results)
	fmt.Println()
	fmt.Printf("Done (profile %s).\n", o.Profile)
	if err := printStandings(ctx, e); err != nil {
		return err
	}
	fmt.Println("Outputs:")
	fmt.Printf("  %-23s %s\n", "database", rel(e.b.Path(e.b.Paths.Database)))
	for _, f := range []string{"positions.csv", "ranks.csv", "overall.csv", "metric_intervals.csv", "challenge_intervals.csv", "pairwise.csv", "rank_counts.csv", "grades.jsonl", "capabilities.csv"} {
		fmt.Printf("  %-23s %s\n", f, rel(filepath.Join(res, f)))
	}
	fmt.Printf("  %-23s %s\n", "runs", rel(e.b.Path(e.b.Paths.Runs)))
	fmt.Printf("  %-23s %s (open in a browser)\n", "site", rel(filepath.Join(e.b.Path(e.b.Paths.Site), "index.html")))
	return nil
}

// printStandings prints the ReX-MLE rank of every agent configuration as
// the rank stage computed it (results/overall.csv: the one owner of that
// number; nothing is recomputed here), one world at a time, since ranks
// are compared only within one: the paper's configurations ranked on every
// challenge, new runs on the real data ranked on every challenge, then the
// configurations run on fewer challenges (ablations, partial runs) and
// the runs on synthetic data, each set apart. The number of challenges is
// beside every rank.
func printStandings(ctx context.Context, e *env) error {
	res := e.b.Path(e.b.Paths.Results)
	overall, err := challenge.ReadCSV(filepath.Join(res, "overall.csv"))
	if err != nil {
		return fmt.Errorf("standings: %w (run `go run mage.go rank`)", err)
	}
	ranks, err := challenge.ReadCSV(filepath.Join(res, "ranks.csv"))
	if err != nil {
		return fmt.Errorf("standings: %w (run `go run mage.go rank`)", err)
	}
	return writeStandings(os.Stdout, e.b, overall, ranks)
}

// writeStandings writes the standings of overall.csv and ranks.csv to w.
func writeStandings(w io.Writer, b *config.Benchmark, overall, ranks *challenge.Table) error {
	col := func(t *challenge.Table, name string) int {
		for i, h := range t.Header {
			if h == name {
				return i
			}
		}
		return -1
	}
	type key struct{ src, setting, backend, agent string }
	okRuns, allRuns := map[key]int{}, map[key]int{}
	rs, rse, rb, ra, rst := col(ranks, "source"), col(ranks, "setting"), col(ranks, "backend"), col(ranks, "agent"), col(ranks, "status")
	osrc, ose, ob, oa, on, or, op := col(overall, "source"), col(overall, "setting"), col(overall, "backend"), col(overall, "agent"),
		col(overall, "n_challenges"), col(overall, "rexmle_rank"), col(overall, "n_partial")
	if osrc < 0 || ose < 0 || ob < 0 || oa < 0 || on < 0 || or < 0 || op < 0 || rs < 0 || rse < 0 || rb < 0 || ra < 0 || rst < 0 {
		return fmt.Errorf("standings: %s or %s lacks a column this summary reads", overall.Path, ranks.Path)
	}
	for _, r := range ranks.Rows {
		k := key{r[rs], r[rse], r[rb], r[ra]}
		allRuns[k]++
		if r[rst] == "ok" {
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
	for _, r := range overall.Rows {
		if r[op] != "0" || r[or] == "" {
			continue // a Table 4/5 configuration known by its primary metric only: a range, on the site
		}
		k := key{r[osrc], r[ose], r[ob], r[oa]}
		v, err := strconv.ParseFloat(r[or], 64)
		if err != nil {
			return fmt.Errorf("standings: %s rexmle_rank %q: %w", overall.Path, r[or], err)
		}
		n, err := strconv.Atoi(r[on])
		if err != nil {
			return fmt.Errorf("standings: %s n_challenges %q: %w", overall.Path, r[on], err)
		}
		name := k.agent
		if a, found := b.Agent(k.agent); found {
			name = a.Name
		}
		l := line{fmt.Sprintf("  %-20s %-10s %-6s %-18s %6.2f%% over %2d challenge(s)  (%d of %d runs ranked)", name, k.src, k.setting, k.backend, 100*v, n, okRuns[k], allRuns[k]), v}
		full := n == len(b.Challenges)
		switch {
		case k.src != "paper" && b.Profiles[k.src].Data != "fetched":
			worlds[synthetic] = append(worlds[synthetic], l)
		case !full:
			worlds[fewer] = append(worlds[fewer], l)
		case k.src == "paper":
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
