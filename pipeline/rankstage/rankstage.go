// Package rankstage is the pipeline's rank stage: it brings the challenges
// and the paper's recorded results into the store, ranks every run that has
// metric values, writes the CSV exports, and checks the computation against
// what the paper printed.
package rankstage

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/rexmle/rexmle/pipeline/challenge"
	"github.com/rexmle/rexmle/pipeline/config"
	"github.com/rexmle/rexmle/pipeline/paper"
	"github.com/rexmle/rexmle/pipeline/rank"
	"github.com/rexmle/rexmle/pipeline/store"
)

// Ranked is one run with its computed standing.
type Ranked struct {
	Run    store.Run
	Values map[string]float64
	Result rank.Result
	// Partial runs (the paper's Table 4/5 rows, primary metric only) carry the
	// percentile range the unknown positions allow.
	Partial        bool
	PctLo, PctHi   float64
	PrimaryMissing bool
	Boot           *RunBoot // the case-level bootstrap (never nil after Run)
	cases          []challenge.Case
}

// Group is the runs of one agent configuration: (source, setting, backend, agent).
type Group struct {
	Source, Setting, Backend, Agent string
	NChallenges                     int
	NPartial                        int
	Overall                         float64 // NaN when some challenge is only partially known
	OverallLo, OverallHi            float64
	PerChallenge                    map[string]float64 // mean percentile over seeds (fail = 0)
	// PartialChallenge holds the reachable percentile range of each
	// challenge known by its primary metric only.
	PartialChallenge map[string][2]float64
	Boot             *GroupBoot // overall interval and seeds (never nil after Run)
}

// Outcome is what the stage computed.
type Outcome struct {
	Runs   []*Ranked
	Groups []*Group
	Check  *Check // nil without recorded paper results
	// Stability compares the configurations that have an overall bootstrap.
	Stability *Stability
	Options   Options
	// Significance: per challenge, the Wilcoxon–Holm tests between configurations.
	Significance []ChallengeTests
	universes    map[string]*caseUniverse // by challenge
}

// Run executes the stage with the default options (DefaultOptions; the
// rank target passes REXMLE_BOOT and REXMLE_BOOT_SEED through RunWith).
func Run(ctx context.Context, b *config.Benchmark, st *store.Store) (*Outcome, error) {
	return RunWith(ctx, b, st, DefaultOptions())
}

// RunWith executes the stage with explicit options.
func RunWith(ctx context.Context, b *config.Benchmark, st *store.Store, opt Options) (*Outcome, error) {
	var rec *paper.Recorded
	if dir := b.Path(b.Paths.PaperResults); paper.Exists(dir) {
		var err error
		if rec, err = paper.Load(dir, b); err != nil {
			return nil, fmt.Errorf("rank: %w", err)
		}
	}
	out := &Outcome{Options: opt}
	err := st.Update(ctx, func(tx *store.Tx) error {
		if err := tx.SyncChallenges(ctx, b.Challenges); err != nil {
			return err
		}
		if rec != nil {
			if _, err := paper.Import(ctx, tx, rec, b); err != nil {
				return fmt.Errorf("import paper results: %w", err)
			}
		}
		runs, err := tx.Runs(ctx)
		if err != nil {
			return err
		}
		for _, r := range runs {
			c, ok := b.Challenge(r.Challenge)
			if !ok {
				continue // a challenge no longer in benchmark.toml
			}
			vals, err := tx.MetricValues(ctx, r.ID)
			if err != nil {
				return err
			}
			if r.Source != paper.Source && len(vals) == 0 && r.Status != "failed" && r.Status != "timed_out" && r.Status != "invalid" {
				continue // not graded yet
			}
			rk := rankRun(c, r, vals)
			if err := putRank(ctx, tx, r.ID, rk); err != nil {
				return err
			}
			if r.Source != paper.Source && rk.Result.Status == rank.OK {
				if rk.cases, err = tx.CaseValues(ctx, r.ID); err != nil {
					return err
				}
			}
			out.Runs = append(out.Runs, rk)
		}
		out.universes = caseUniverses(b, opt, out.Runs)
		for _, rk := range out.Runs {
			c, _ := b.Challenge(rk.Run.Challenge)
			var err error
			if rk.Boot, err = bootRun(ctx, opt, c, rk, out.universes[rk.Run.Challenge]); err != nil {
				return fmt.Errorf("bootstrap %s: %w", rk.Run.ID, err)
			}
			if err := putBoot(ctx, tx, rk.Run.ID, rk.Boot); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("rank: %w", err)
	}
	out.Groups = groups(out.Runs)
	bootGroups(opt, out.Runs, out.Groups)
	out.Stability = stability(opt, out.Groups)
	out.Stability.Universes = designUniverses(out.universes)
	out.Significance = significance(b, out.Runs, out.Groups)
	for _, r := range out.Runs {
		r.cases = nil // the per-case values are not needed past this point
	}
	if rec != nil {
		out.Check = check(b, rec, out)
	}
	err = st.Update(ctx, func(tx *store.Tx) error {
		if err := putStability(ctx, tx, out.Groups, out.Stability, out.Significance); err != nil {
			return err
		}
		var cs []store.Reproduced
		if out.Check != nil {
			for _, c := range out.Check.Comparisons {
				cs = append(cs, store.Reproduced{Check: store.Check{RunID: c.RunID, Table: c.Table, Challenge: c.Challenge, Agent: c.Agent,
					Setting: c.Setting, Backend: c.Backend, What: c.What, Computed: c.Computed, Printed: c.Printed, Class: c.Class, Why: c.Why}, Where: c.Where})
			}
		}
		if err := tx.ReplaceReproduction(ctx, cs); err != nil {
			return err
		}
		return tx.ReplaceStandings(ctx, standings(out.Groups))
	})
	if err != nil {
		return nil, fmt.Errorf("rank: store the bootstrap summaries and the reproduction check: %w", err)
	}
	return out, nil
}

// standings are the groups as the store keeps them: the one computation of
// every configuration's ReX-MLE rank, which the site reads.
func standings(gs []*Group) []store.Standing {
	out := make([]store.Standing, 0, len(gs))
	for _, g := range gs {
		st := store.Standing{Source: g.Source, Setting: g.Setting, Backend: g.Backend, Agent: g.Agent, NChallenges: g.NChallenges,
			NPartial: g.NPartial, Overall: g.Overall, Lo: g.OverallLo, Hi: g.OverallHi}
		chs := make([]string, 0, len(g.PerChallenge)+len(g.PartialChallenge))
		for ch := range g.PerChallenge {
			chs = append(chs, ch)
		}
		for ch := range g.PartialChallenge {
			chs = append(chs, ch)
		}
		sort.Strings(chs)
		for _, ch := range chs {
			if r, ok := g.PartialChallenge[ch]; ok {
				st.Challenges = append(st.Challenges, store.StandingChallenge{Challenge: ch, Pct: math.NaN(), Lo: r[0], Hi: r[1], Partial: true})
				continue
			}
			p := g.PerChallenge[ch]
			st.Challenges = append(st.Challenges, store.StandingChallenge{Challenge: ch, Pct: p, Lo: p, Hi: p})
		}
		out = append(out, st)
	}
	return out
}

// primaryOnly reports a recorded run of which the paper printed only the primary metric.
func primaryOnly(r store.Run) bool {
	return r.Source == paper.Source && strings.Contains(r.Detail, "primary metric only")
}

func rankRun(c *config.Challenge, r store.Run, vals map[string]float64) *Ranked {
	lb := c.Board()
	rk := &Ranked{Run: r, Values: vals, Result: rank.Rank(lb, vals)}
	if rk.Result.Status == rank.OK || !primaryOnly(r) || len(c.Metrics) == 1 {
		return rk
	}
	v, ok := vals[c.PrimaryMetric]
	if !ok {
		rk.PrimaryMissing = true
		return rk
	}
	// Only the primary metric is known: every other position lies in [1, N+1].
	m, _ := c.Metric(c.PrimaryMetric)
	col := make([]float64, len(c.Leaderboard))
	for i, e := range c.Leaderboard {
		col[i] = e.Values[m.Name]
	}
	p, err := rank.Position(v, col, m.HigherBetter())
	if err != nil {
		return rk
	}
	rk.Partial = true
	rk.PctLo, rk.PctHi = rank.PercentileRange([]int{p}, len(c.Metrics), len(c.Leaderboard))
	rk.Result.Positions = map[string]int{m.Name: p}
	rk.Result.Reason = fmt.Sprintf("only %s is recorded: percentile between %.1f%% and %.1f%%", m.Name, 100*rk.PctLo, 100*rk.PctHi)
	return rk
}

func putRank(ctx context.Context, tx *store.Tx, runID string, rk *Ranked) error {
	if err := tx.PutRank(ctx, runID, rk.Result); err != nil {
		return err
	}
	if rk.Partial {
		return tx.MarkRankPartial(ctx, runID, rk.PctLo, rk.PctHi)
	}
	return nil
}

func groups(runs []*Ranked) []*Group {
	type key struct{ s, set, b, a string }
	idx := map[key]*Group{}
	type acc struct {
		sum, lo, hi float64
		n           int
		partial     bool
	}
	per := map[key]map[string]*acc{}
	var order []key
	for _, r := range runs {
		k := key{r.Run.Source, r.Run.Setting, r.Run.Backend, r.Run.Agent}
		if idx[k] == nil {
			idx[k] = &Group{Source: k.s, Setting: k.set, Backend: k.b, Agent: k.a, PerChallenge: map[string]float64{}, PartialChallenge: map[string][2]float64{}}
			per[k] = map[string]*acc{}
			order = append(order, k)
		}
		a := per[k][r.Run.Challenge]
		if a == nil {
			a = &acc{}
			per[k][r.Run.Challenge] = a
		}
		a.n++
		switch {
		case r.Partial:
			a.partial = true
			a.lo += r.PctLo
			a.hi += r.PctHi
		case r.Result.Status == rank.OK:
			a.sum += r.Result.Percentile
			a.lo += r.Result.Percentile
			a.hi += r.Result.Percentile
		}
	}
	var out []*Group
	for _, k := range order {
		g := idx[k]
		exact := map[string]float64{}
		var lo, hi float64
		chs := make([]string, 0, len(per[k]))
		for ch := range per[k] {
			chs = append(chs, ch)
		}
		sort.Strings(chs) // a fixed summation order: byte-identical exports on every run
		for _, ch := range chs {
			a := per[k][ch]
			g.NChallenges++
			lo += a.lo / float64(a.n)
			hi += a.hi / float64(a.n)
			if a.partial {
				g.NPartial++
				g.PartialChallenge[ch] = [2]float64{a.lo / float64(a.n), a.hi / float64(a.n)}
				continue
			}
			exact[ch] = a.sum / float64(a.n)
			g.PerChallenge[ch] = exact[ch]
		}
		g.OverallLo, g.OverallHi = lo/float64(g.NChallenges), hi/float64(g.NChallenges)
		if g.NPartial == 0 {
			g.Overall = rank.Overall(exact, g.NChallenges)
		} else {
			g.Overall = math.NaN()
		}
		out = append(out, g)
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Source != b.Source {
			return a.Source > b.Source // paper first
		}
		if a.Setting != b.Setting {
			return a.Setting < b.Setting
		}
		if a.Backend != b.Backend {
			return a.Backend > b.Backend
		}
		return a.Agent < b.Agent
	})
	return out
}

// CSVNames are the files WriteCSVs writes (a site built from a results
// bundle takes them from the rank stage, never from the bundle).
func CSVNames() []string {
	return []string{"positions.csv", "metric_intervals.csv", "ranks.csv", "overall.csv", "challenge_intervals.csv", "pairwise.csv",
		"rank_counts.csv", "significance.csv", "task_stability.csv", "challenge_rank_counts.csv", "resampling_design.csv"}
}

// WriteCSVs writes results/positions.csv, ranks.csv, overall.csv and, from
// the bootstrap, metric_intervals.csv, challenge_intervals.csv, pairwise.csv
// and rank_counts.csv.
func WriteCSVs(dir string, b *config.Benchmark, o *Outcome) error {
	ff := func(v float64) string {
		if math.IsNaN(v) {
			return ""
		}
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	var pos, rks, mi [][]string
	for _, r := range o.Runs {
		c, _ := b.Challenge(r.Run.Challenge)
		for _, m := range c.Metrics {
			v, ok := r.Values[m.Name]
			p, okp := r.Result.Positions[m.Name]
			if !ok && !okp {
				continue
			}
			val, ps := "", ""
			if ok {
				val = ff(v)
			}
			if okp {
				ps = strconv.Itoa(p)
			}
			pos = append(pos, []string{r.Run.Source, r.Run.Setting, r.Run.Backend, r.Run.Challenge, r.Run.Agent, m.Name, val, ps})
			if mb := bootMetric(r, m.Name); mb != nil {
				mi = append(mi, []string{r.Run.Source, r.Run.Setting, r.Run.Backend, r.Run.Challenge, r.Run.Agent, strconv.Itoa(r.Run.Seed), m.Name,
					val, ff(mb.Value.Lo), ff(mb.Value.Hi), ps, ff(mb.Position.Lo), ff(mb.Position.Hi), mb.Aggregation,
					nboot(r.Boot.NBoot), bseed(r.Boot.NBoot, r.Boot.BootSeed), mb.Note, mb.Method, strconv.Itoa(r.Boot.NCases), smallN(r.Boot.NBoot, r.Boot.SmallN)})
			}
		}
		status, mr, pct := r.Result.Status, "", "0"
		if r.Partial {
			status, pct = "partial", ""
		}
		if r.Result.Status == rank.OK {
			mr, pct = ff(r.Result.MeanRank), ff(r.Result.Percentile)
		}
		row := []string{r.Run.Source, r.Run.Setting, r.Run.Backend, r.Run.Challenge, r.Run.Agent, status, mr, pct, strconv.Itoa(r.Run.Seed), r.Result.Reason}
		rb := r.Boot
		if rb == nil {
			rb = &RunBoot{MeanRank: noInterval, Pct: noInterval}
		}
		row = append(row, ff(rb.MeanRank.Lo), ff(rb.MeanRank.Hi), ff(rb.Pct.Lo), ff(rb.Pct.Hi), nboot(rb.NBoot), bseed(rb.NBoot, rb.BootSeed), strconv.Itoa(rb.NCases), rb.Note,
			rb.Method, smallN(rb.NBoot, rb.SmallN && rb.Method != ""))
		rks = append(rks, row)
	}
	ov := overallRows(o, ff)
	if err := challenge.WriteCSV(filepath.Join(dir, "positions.csv"),
		[]string{"source", "setting", "backend", "challenge", "agent", "metric", "value", "position"}, pos); err != nil {
		return err
	}
	if err := challenge.WriteCSV(filepath.Join(dir, "metric_intervals.csv"),
		[]string{"source", "setting", "backend", "challenge", "agent", "seed", "metric", "value", "value_lo", "value_hi",
			"position", "position_lo", "position_hi", "aggregation", "n_boot", "boot_seed", "note", "method", "n_cases", "small_n"}, mi); err != nil {
		return err
	}
	if err := challenge.WriteCSV(filepath.Join(dir, "ranks.csv"),
		[]string{"source", "setting", "backend", "challenge", "agent", "status", "mean_rank", "percentile", "seed", "reason",
			"mean_rank_lo", "mean_rank_hi", "percentile_lo", "percentile_hi", "n_boot", "boot_seed", "n_cases", "boot_note", "interval_method", "small_n"}, rks); err != nil {
		return err
	}
	if err := challenge.WriteCSV(filepath.Join(dir, "overall.csv"),
		[]string{"source", "setting", "backend", "agent", "n_challenges", "rexmle_rank", "n_partial", "rexmle_rank_min", "rexmle_rank_max",
			"rexmle_rank_lo", "rexmle_rank_hi", "n_boot", "boot_seed", "n_boot_fixed", "n_seeds", "seed_mean", "seed_se", "n_failed_seeds", "seed_values", "boot_note", "n_failed_runs"}, ov); err != nil {
		return err
	}
	var ci [][]string
	for _, g := range o.Groups {
		if g.Boot == nil {
			continue
		}
		for _, cb := range g.Boot.Challenges {
			ci = append(ci, []string{g.Source, g.Setting, g.Backend, g.Agent, cb.Challenge, ff(cb.Percentile), ff(cb.Pct.Lo), ff(cb.Pct.Hi),
				strconv.Itoa(cb.NSeeds), strconv.Itoa(cb.NFixed), nboot(g.Boot.NBoot), bseed(g.Boot.NBoot, g.Boot.BootSeed), cb.Note,
				strconv.Itoa(cb.NCases), smallN(g.Boot.NBoot, cb.SmallN && hasCI(cb.Pct))})
		}
	}
	if err := challenge.WriteCSV(filepath.Join(dir, "challenge_intervals.csv"),
		[]string{"source", "setting", "backend", "agent", "challenge", "percentile", "percentile_lo", "percentile_hi",
			"n_seeds", "n_boot_fixed", "n_boot", "boot_seed", "note", "n_cases", "small_n"}, ci); err != nil {
		return err
	}
	pw, rc := stabilityRows(o, ff)
	if err := challenge.WriteCSV(filepath.Join(dir, "pairwise.csv"),
		[]string{"config_a", "config_b", "p_a_above_b", "n_boot", "boot_seed"}, pw); err != nil {
		return err
	}
	if err := challenge.WriteCSV(filepath.Join(dir, "rank_counts.csv"),
		[]string{"config", "rank", "count", "n_boot", "boot_seed"}, rc); err != nil {
		return err
	}
	return writeDesignCSVs(dir, o, ff)
}

// overallRows are overall.csv's rows: one per agent configuration, with
// its bootstrap interval and spread over seeds.
func overallRows(o *Outcome, ff func(float64) string) [][]string {
	var ov [][]string
	for _, g := range o.Groups {
		row := []string{g.Source, g.Setting, g.Backend, g.Agent, strconv.Itoa(g.NChallenges), ff(g.Overall),
			strconv.Itoa(g.NPartial), ff(g.OverallLo), ff(g.OverallHi)}
		gb := g.Boot
		if gb == nil {
			gb = &GroupBoot{Overall: noInterval, SeedSummary: rank.SeedSummary{Mean: math.NaN(), SE: math.NaN()}}
		}
		ns := ""
		if len(gb.Seeds) > 0 {
			ns = strconv.Itoa(len(gb.Seeds))
		}
		row = append(row, ff(gb.Overall.Lo), ff(gb.Overall.Hi), nboot(gb.NBoot), bseed(gb.NBoot, gb.BootSeed), strconv.Itoa(gb.NFixed),
			ns, ff(gb.SeedSummary.Mean), ff(gb.SeedSummary.SE), strconv.Itoa(gb.FailedSeeds), seedValues(gb), gb.Note, strconv.Itoa(gb.FailedRuns))
		ov = append(ov, row)
	}
	return ov
}

// stabilityRows are pairwise.csv's rows (how often one configuration ranks
// above another) and rank_counts.csv's (how often each takes each rank).
func stabilityRows(o *Outcome, ff func(float64) string) (pw, rc [][]string) {
	if s := o.Stability; s != nil {
		for _, p := range s.Pairs {
			pw = append(pw, []string{p.A, p.B, ff(p.PAbove), strconv.Itoa(s.NBoot), strconv.FormatUint(s.BootSeed, 10)})
		}
		for c, row := range s.Counts {
			for r, n := range row {
				rc = append(rc, []string{s.Configs[c], strconv.Itoa(r + 1), strconv.Itoa(n), strconv.Itoa(s.NBoot), strconv.FormatUint(s.BootSeed, 10)})
			}
		}
	}
	return pw, rc
}

// writeDesignCSVs writes the significance tests (significance.csv), the
// per-challenge rank stability (task_stability.csv), its blob-plot counts
// (challenge_rank_counts.csv) and the case universes (resampling_design.csv).
func writeDesignCSVs(dir string, o *Outcome, ff func(float64) string) error {
	var sg, ts, crc, ud [][]string
	for _, ct := range o.Significance {
		if len(ct.Tests) == 0 {
			sg = append(sg, []string{ct.Challenge, ct.Metric, "", "", "0", "0", "", "", "", "", "", ct.Note})
		}
		for _, t := range ct.Tests {
			sig := "false"
			if t.Significant {
				sig = "true"
			}
			sg = append(sg, []string{ct.Challenge, ct.Metric, t.A, t.B, strconv.Itoa(t.N), strconv.Itoa(t.NZero), ff(t.Statistic), ff(t.P), ff(t.PHolm), sig, t.Method, t.Note})
		}
	}
	nb, seed := "", ""
	if s := o.Stability; s != nil {
		nb, seed = nboot(s.NBoot), bseed(s.NBoot, s.BootSeed)
		for _, t := range s.Tasks {
			ts = append(ts, []string{t.Challenge, strconv.Itoa(len(t.Configs)), ff(t.TauMean), ff(t.TauMedian), ff(t.TauLo), ff(t.TauHi), strconv.Itoa(t.NUndefined), nb, seed, t.Note})
			for c, row := range t.Counts {
				for r, n := range row {
					crc = append(crc, []string{t.Challenge, t.Configs[c], strconv.Itoa(r + 1), strconv.Itoa(n), nb, seed})
				}
			}
		}
		for _, u := range s.Universes {
			ud = append(ud, []string{u.Key, strings.Join(u.Challenges, ";"), strconv.Itoa(u.NCases), nb, seed})
		}
	}
	files := []struct {
		name   string
		header []string
		rows   [][]string
	}{
		{"significance.csv", []string{"challenge", "metric", "config_a", "config_b", "n_pairs", "n_zero", "statistic", "p_value", "p_holm", "significant", "method", "note"}, sg},
		{"task_stability.csv", []string{"challenge", "n_configs", "tau_mean", "tau_median", "tau_lo", "tau_hi", "n_undefined", "n_boot", "boot_seed", "note"}, ts},
		{"challenge_rank_counts.csv", []string{"challenge", "config", "rank", "count", "n_boot", "boot_seed"}, crc},
		{"resampling_design.csv", []string{"universe", "challenges", "n_cases", "n_boot", "boot_seed"}, ud},
	}
	for _, f := range files {
		if err := challenge.WriteCSV(filepath.Join(dir, f.name), f.header, f.rows); err != nil {
			return err
		}
	}
	return nil
}

// smallN prints the small-n flag: "true" for an interval over fewer than
// rank.SmallN cases, empty without a bootstrap.
func smallN(nBoot int, small bool) string {
	switch {
	case nBoot <= 0:
		return ""
	case small:
		return "true"
	}
	return "false"
}

func hasCI(iv Interval) bool { return !math.IsNaN(iv.Lo) && !math.IsNaN(iv.Hi) }

func bootMetric(r *Ranked, m string) *MetricBoot {
	if r.Boot == nil {
		return nil
	}
	return r.Boot.Metrics[m]
}

// nboot prints B, empty when there was no bootstrap.
func nboot(n int) string {
	if n <= 0 {
		return ""
	}
	return strconv.Itoa(n)
}

func bseed(n int, seed uint64) string {
	if n <= 0 {
		return ""
	}
	return strconv.FormatUint(seed, 10)
}
