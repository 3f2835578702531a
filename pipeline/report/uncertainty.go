package report

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"

	"github.com/rexmle/rexmle/pipeline/config"
	"github.com/rexmle/rexmle/pipeline/rank"
	"github.com/rexmle/rexmle/pipeline/store"
)

// How sure is a rank (issue 18): the rank stage's case-level bootstrap
// (boot_* tables) drawn on the site — 95 % error bars on the percentile
// charts, value and position intervals per metric, the significance map and
// the rank blobs across resamples, seed spread — and the ReX-MLE rank per
// GPU-hour and per kWh where telemetry exists. The site only reads what the
// rank stage stored; it never resamples anything itself.

// ciName is the legend name of the error bars.
const ciName = "95 % bootstrap interval"

// noBootNote is shown when the store has no bootstrap row at all.
const noBootNote = "no bootstrap in the store (run the rank stage with REXMLE_BOOT > 0)"

// bootData is what the rank stage stored about uncertainty, and the GPU
// summaries for the compute-normalised view.
type bootData struct {
	Runs       map[string]store.BootRun
	Metrics    map[string]map[string]store.BootMetric // run → metric
	Overall    map[groupKey]store.BootOverall
	Challenges map[groupKey]map[string]store.BootChallenge
	Pairs      []store.BootPair
	Counts     []store.BootRankCount
	Tests      []store.BootTest
	Tasks      map[string]store.BootTaskStability
	Universes  []store.BootUniverse
	GPU        map[string]store.GPUSummary
}

// loadBoot reads the bootstrap tables and GPU summaries (empty when the
// store predates them).
func loadBoot(ctx context.Context, st *store.Store) (*bootData, error) {
	bd := &bootData{Runs: map[string]store.BootRun{}, Metrics: map[string]map[string]store.BootMetric{}, Overall: map[groupKey]store.BootOverall{},
		Challenges: map[groupKey]map[string]store.BootChallenge{}, GPU: map[string]store.GPUSummary{}, Tasks: map[string]store.BootTaskStability{}}
	hasBoot, hasGPU, err := st.BootTablesPresent(ctx)
	if err != nil {
		return nil, err
	}
	if hasGPU {
		gs, err := st.GPUSummaries(ctx)
		if err != nil {
			return nil, err
		}
		for id, g := range gs {
			bd.GPU[id] = g
		}
	}
	if !hasBoot {
		return bd, nil
	}
	runs, err := st.BootRuns(ctx)
	if err != nil {
		return nil, err
	}
	for _, r := range runs {
		bd.Runs[r.RunID] = r
	}
	ms, err := st.BootMetrics(ctx)
	if err != nil {
		return nil, err
	}
	for _, m := range ms {
		if bd.Metrics[m.RunID] == nil {
			bd.Metrics[m.RunID] = map[string]store.BootMetric{}
		}
		bd.Metrics[m.RunID][m.Metric] = m
	}
	ov, err := st.BootOverall(ctx)
	if err != nil {
		return nil, err
	}
	for _, o := range ov {
		bd.Overall[groupKey{o.Source, o.Setting, o.Backend, o.Agent}] = o
	}
	cs, err := st.BootChallenges(ctx)
	if err != nil {
		return nil, err
	}
	for _, c := range cs {
		k := groupKey{c.Source, c.Setting, c.Backend, c.Agent}
		if bd.Challenges[k] == nil {
			bd.Challenges[k] = map[string]store.BootChallenge{}
		}
		bd.Challenges[k][c.Challenge] = c
	}
	if bd.Pairs, err = st.BootPairwise(ctx); err != nil {
		return nil, err
	}
	if bd.Counts, err = st.BootRankCounts(ctx); err != nil {
		return nil, err
	}
	if bd.Tests, err = st.BootTests(ctx); err != nil {
		return nil, err
	}
	ts, err := st.BootTaskStabilities(ctx)
	if err != nil {
		return nil, err
	}
	for _, t := range ts {
		bd.Tasks[t.Challenge] = t
	}
	if bd.Universes, err = st.BootUniverses(ctx); err != nil {
		return nil, err
	}
	return bd, nil
}

// boot is the site's bootstrap data, never nil.
func (s *site) boot() *bootData {
	if s.data.Boot == nil {
		s.data.Boot = &bootData{}
	}
	return s.data.Boot
}

func hasInterval(lo, hi float64) bool { return !math.IsNaN(lo) && !math.IsNaN(hi) }

// ciText prints an interval of fractions as "lo–hi %".
func ciText(lo, hi float64, digits int) string {
	return fmt.Sprintf("%.*f–%.*f %%", digits, 100*lo, digits, 100*hi)
}

// paperNoCI is why the paper's runs have no interval, in words (the rank
// stage stores the same sentence as the note of their bootstrap rows).
const paperNoCI = "the paper records no per-case values for its runs, so there is nothing to resample"

// whyNoCI is the reason a configuration (or its challenge) has no interval.
func whyNoCI(source, note string) string {
	switch {
	case note != "":
		return note
	case source == printedSource:
		return paperNoCI
	}
	return noBootNote
}

// overallCI adds a configuration's ReX-MLE rank interval to its bar.
func (s *site) overallCI(b pctBar, g *group) pctBar {
	o, ok := s.boot().Overall[g.groupKey]
	switch {
	case ok && hasInterval(o.Lo, o.Hi):
		b.CI, b.CILo, b.CIHi = true, 100*o.Lo, 100*o.Hi
		b.Tip += fmt.Sprintf("; 95 %% bootstrap interval %s (%d resamples)", ciText(o.Lo, o.Hi, 1), o.NBoot)
	default:
		b.Tip += "; no interval: " + whyNoCI(g.Source, o.Note)
	}
	return b
}

// challengeCI adds a configuration's percentile interval on challenge ch to its bar.
func (s *site) challengeCI(b pctBar, g *group, ch string) pctBar {
	c, ok := s.boot().Challenges[g.groupKey][ch]
	switch {
	case b.Fail:
	case ok && hasInterval(c.PctLo, c.PctHi):
		b.CI, b.CILo, b.CIHi = true, 100*c.PctLo, 100*c.PctHi
		b.Tip += fmt.Sprintf("; 95 %% bootstrap interval %s (%d resamples)", ciText(c.PctLo, c.PctHi, 1), c.NBoot)
	default:
		note := c.Note
		if !ok {
			note = s.boot().Overall[g.groupKey].Note
		}
		b.Tip += "; no interval: " + whyNoCI(g.Source, note)
	}
	return b
}

// ciNote says which bars of a chart have error bars and why the others do not.
func ciNote(bars []pctBar, why map[string]int) string {
	n := 0
	for _, b := range bars {
		if b.CI {
			n++
		}
	}
	reasons := make([]string, 0, len(why))
	for w := range why {
		reasons = append(reasons, w)
	}
	sort.Strings(reasons)
	if n == 0 && len(reasons) == 1 {
		return "No bar has an error bar: " + reasons[0] + "."
	}
	var txt string
	if n == len(bars) {
		txt = fmt.Sprintf("Each bar's error bar is its 95 %% case-level bootstrap interval (percentile method).")
	} else {
		txt = fmt.Sprintf("Error bars are 95 %% case-level bootstrap intervals (percentile method), drawn on %d of the %d bars.", n, len(bars))
	}
	for _, w := range reasons {
		if why[w] == 1 {
			txt += " One bar has none: " + w + "."
		} else {
			txt += fmt.Sprintf(" %d bars have none: %s.", why[w], w)
		}
	}
	return txt
}

// figure1CINote explains Figure 1's error bars.
func (s *site) figure1CINote() string {
	var gs []*group
	for _, g := range s.data.Groups {
		if s.headlineGroup(g) {
			gs = append(gs, g)
		}
	}
	return s.overallCINote(gs)
}

// demoCINote explains the synthetic runs' chart's error bars.
func (s *site) demoCINote() string {
	var gs []*group
	for _, g := range s.demoGroups() {
		if !math.IsNaN(g.Overall) {
			gs = append(gs, g)
		}
	}
	return s.overallCINote(gs)
}

// overallCINote explains the error bars of a chart of configurations' ReX-MLE ranks.
func (s *site) overallCINote(gs []*group) string {
	var bars []pctBar
	why := map[string]int{}
	for _, g := range gs {
		b := s.overallCI(pctBar{}, g)
		bars = append(bars, b)
		if !b.CI {
			why[whyNoCI(g.Source, s.boot().Overall[g.groupKey].Note)]++
		}
	}
	return ciNote(bars, why)
}

// challengeCINote explains the error bars of the challenge chart that
// draws the configurations for which in is true.
func (s *site) challengeCINote(ch string, in func(*group) bool) string {
	var bars []pctBar
	why := map[string]int{}
	for _, g := range s.data.Groups {
		if !in(g) || len(runsOf(g, ch)) == 0 {
			continue
		}
		b := s.challengeCI(pctBar{}, g, ch)
		bars = append(bars, b)
		if !b.CI {
			c, ok := s.boot().Challenges[g.groupKey][ch]
			note := c.Note
			if !ok {
				note = s.boot().Overall[g.groupKey].Note
			}
			why[whyNoCI(g.Source, note)]++
		}
	}
	return ciNote(bars, why)
}

// ---- challenge pages -------------------------------------------------

// challengeUncertainty is a challenge page's intervals: per run, each
// ranked metric's value and position interval and the percentile interval;
// the synthetic runs apart, with their own percentile chart and error bars.
func (s *site) challengeUncertainty(c *config.Challenge) []*section {
	var runs, demo []*runData
	nPaper := 0
	for _, r := range s.challengeRuns(c.ID) {
		switch {
		case !r.Ranked:
			continue
		case r.Source == printedSource:
			nPaper++
		case s.comparable(r.Source):
			runs = append(runs, r)
		default:
			demo = append(demo, r)
		}
	}
	dec := s.metricDecimals(c.ID)
	sec := &section{ID: "intervals", Title: "How sure: bootstrap intervals per metric"}
	sec.Paragraphs = []string{"The rank stage resamples the test cases with replacement (one draw per resample for every configuration and seed, and for the tasks that grade the same cases — see the resampling design on the overview), recomputes every ranked metric the way the challenge aggregates it, and ranks each resample against the fixed human leaderboard: the 95 % intervals of the value, the position and the percentile are below, with the interval method of the metric's aggregation. Runs without per-case values (the paper's rows) have none, and the note says why.",
		smallNNote, humanBoardNote}
	sec.Tables = s.intervalTables("int-"+c.ID, c, runs, dec)
	if nPaper > 0 {
		sec.Paragraphs = append(sec.Paragraphs, fmt.Sprintf("The paper's %d recorded run(s) on this challenge have no intervals: %s.", nPaper, paperNoCI))
	}
	if len(runs) == 0 {
		sec.Paragraphs = append(sec.Paragraphs, "No run graded by rexmle on the real data of this challenge yet.")
		sec.Tables = nil
	}
	out := []*section{sec}
	if sg := s.significanceSection(c.ID); sg != nil {
		out = append(out, sg)
	}
	if len(demo) > 0 {
		ds := &section{ID: "synthetic-intervals", Title: "Synthetic runs: bootstrap intervals (not comparable)", Class: "section-demo",
			Paragraphs: []string{"Runs on synthetic data: their intervals show that the pipeline works, not how good an agent is."}}
		var bars []pctBar
		for _, g := range s.demoGroups() {
			cv := s.cellOf(g, c.ID, c.PrimaryMetric, "")
			if len(cv.Runs) == 0 {
				continue
			}
			b := pctBar{Label: s.label(g.groupKey) + " [synthetic]", Hi: math.NaN(), Printed: math.NaN()}
			switch {
			case cv.Fail:
				b.Fail, b.Tip = true, b.Label+": FAIL (no valid submission)"
			case !math.IsNaN(cv.Lo):
				b.Value, b.Hi = 100*cv.Lo, 100*cv.Hi
				b.Tip = b.Label + ": " + pctRange(cv.Lo, cv.Hi, 1) + " (reachable range)"
			default:
				b.Value = 100 * cv.Pct
				b.Tip = b.Label + ": " + fmtFrac(cv.Pct, 1) + " on synthetic data"
			}
			bars = append(bars, s.challengeCI(b, g, c.ID))
		}
		if nonZero(bars) || anyCI(bars) {
			ds.Charts = []chart{pctChart(chartID("synthetic-pct", c.ID), "Synthetic runs on "+c.ShortName+" (pipeline check)", "percentile on synthetic data (%), 95 % bootstrap interval", bars,
				"Bar chart of the percentile (%, axis 0–100 %) of each synthetic configuration on "+c.ShortName+", with 95 % bootstrap error bars; not comparable with the human leaderboard")}
			ds.Paragraphs = append(ds.Paragraphs, s.challengeCINote(c.ID, func(g *group) bool { return !s.comparable(g.Source) }))
		} else if len(bars) > 0 {
			ds.Paragraphs = append(ds.Paragraphs, "Every synthetic configuration is at 0 % on this challenge, without an interval: no chart is drawn.")
		}
		ds.Tables = s.intervalTables("synthetic-int-"+c.ID, c, demo, dec)
		out = append(out, ds)
	}
	return out
}

func anyCI(bars []pctBar) bool {
	for _, b := range bars {
		if b.CI {
			return true
		}
	}
	return false
}

// intervalTables are a set of runs' per-metric intervals and percentile intervals.
func (s *site) intervalTables(id string, c *config.Challenge, runs []*runData, dec map[string]int) []*table {
	decOf := func(m string) int {
		if d, ok := dec[m]; ok {
			return d
		}
		return 4
	}
	mt := &table{ID: id + "-metrics", Caption: "Value and position intervals per ranked metric (95 %, case-level bootstrap)", Class: "compact",
		Head:     []string{"Run", "Seed", "Metric", "Value", "95 % value interval", "Position", "95 % position interval", "Aggregation / note"},
		DataHead: []string{"run", "seed", "metric", "value", "value_lo", "value_hi", "position", "position_lo", "position_hi", "aggregation", "note"}}
	pt := &table{ID: id + "-percentile", Caption: "Percentile interval per run (95 %, case-level bootstrap)", Class: "compact",
		Head:     []string{"Run", "Seed", "Percentile", "95 % interval", "Cases", "Resamples", "Note"},
		DataHead: []string{"run", "seed", "percentile_pct", "percentile_lo_pct", "percentile_hi_pct", "n_cases", "n_boot", "boot_seed", "n_undefined", "note"}}
	for _, r := range runs {
		lbl := s.runLabel(r)
		br, hasRun := s.boot().Runs[r.ID]
		note := br.Note
		if !hasRun {
			note = whyNoCI(r.Source, "")
		}
		for _, m := range c.Metrics {
			v, hv := r.Values[m.Name]
			bm, ok := s.boot().Metrics[r.ID][m.Name]
			vi, pi, agg := "—", "—", note
			var vlo, vhi, plo, phi any
			if ok {
				agg = bm.Aggregation
				if bm.Method != "" {
					agg += " · " + bm.Method
				}
				if br.NCases > 0 && br.NCases < rank.SmallN && hasInterval(bm.ValueLo, bm.ValueHi) {
					agg += " · " + smallNFlag(br.NCases)
				}
				if bm.Note != "" {
					agg = strings.TrimSpace(agg + " " + bm.Note)
				}
				if hasInterval(bm.ValueLo, bm.ValueHi) {
					vi = "[" + fmtValue(bm.ValueLo, true, decOf(m.Name)) + ", " + fmtValue(bm.ValueHi, true, decOf(m.Name)) + "]"
					vlo, vhi = valNum(bm.ValueLo, true), valNum(bm.ValueHi, true) // an unbounded end (bootstrap-t at small n) is null
				}
				if hasInterval(bm.PositionLo, bm.PositionHi) {
					pi = fmt.Sprintf("%s–%s", strconv.FormatFloat(bm.PositionLo, 'f', -1, 64), strconv.FormatFloat(bm.PositionHi, 'f', -1, 64))
					plo, phi = bm.PositionLo, bm.PositionHi
				}
			}
			pos, hp := r.Positions[m.Name]
			ptxt := "—"
			var pAny any
			if hp {
				ptxt, pAny = strconv.Itoa(pos), pos
			}
			mt.Rows = append(mt.Rows, row{Cells: []cell{{Text: lbl}, {Text: strconv.Itoa(r.Seed), Class: "num"}, {Text: metricLabel(m)},
				{Text: fmtValue(v, hv, decOf(m.Name)), Class: "num", Sort: sortKey(v)}, {Text: vi, Class: "num"}, {Text: ptxt, Class: "num"}, {Text: pi, Class: "num"}, {Text: orDash(agg)}},
				Data: []any{r.ID, r.Seed, m.Name, valNum(v, hv), vlo, vhi, pAny, plo, phi, bm.Aggregation, agg}})
		}
		pct := r.Pct
		if !r.ok() {
			pct = math.NaN()
		}
		ci := "—"
		if hasInterval(br.PctLo, br.PctHi) {
			ci = ciText(br.PctLo, br.PctHi, 1)
			if br.NCases < rank.SmallN {
				note = strings.TrimSpace(smallNFlag(br.NCases) + ". " + note)
			}
		}
		pt.Rows = append(pt.Rows, row{Cells: []cell{{Text: lbl}, {Text: strconv.Itoa(r.Seed), Class: "num"}, {Text: runPct(r, 1), Class: "num", Sort: sortKey(pct)},
			{Text: ci, Class: "num", Sort: sortKey(br.PctLo)}, {Text: strconv.Itoa(br.NCases), Class: "num"}, {Text: strconv.Itoa(br.NBoot), Class: "num"}, {Text: orDash(note)}},
			Data: []any{r.ID, r.Seed, pctNum(pct), pctNum(nanIf(!hasRun, br.PctLo)), pctNum(nanIf(!hasRun, br.PctHi)), br.NCases, br.NBoot, br.BootSeed, br.NUndefined, note}})
	}
	return []*table{pt, mt}
}

// nanIf is NaN when cond holds, else v.
func nanIf(cond bool, v float64) float64 {
	if cond {
		return math.NaN()
	}
	return v
}

// ---- overview: significance map and rank blobs -------------------------

// stabilitySections are the overview's rank-stability views: the
// significance map and the blob plot of overall ranks across resamples,
// for the comparable configurations (main) and, apart, the synthetic ones
// (demo).
func (s *site) stabilitySections() (main, demo []*section) {
	bd := s.boot()
	byLabel := map[string]store.BootOverall{}
	for _, o := range bd.Overall {
		byLabel[o.Label()] = o
	}
	var comp, synth []string
	seen := map[string]bool{}
	for _, p := range bd.Pairs {
		for _, l := range []string{p.A, p.B} {
			if seen[l] {
				continue
			}
			seen[l] = true
			o, ok := byLabel[l]
			if ok && s.comparable(o.Source) {
				comp = append(comp, l)
			} else {
				synth = append(synth, l)
			}
		}
	}
	for _, l := range bd.countConfigs() {
		if !seen[l] {
			seen[l] = true
			if o, ok := byLabel[l]; ok && s.comparable(o.Source) {
				comp = append(comp, l)
			} else {
				synth = append(synth, l)
			}
		}
	}
	order := func(ls []string) {
		sort.SliceStable(ls, func(i, j int) bool {
			a, b := byLabel[ls[i]].Rank, byLabel[ls[j]].Rank
			if a != b && !math.IsNaN(a) && !math.IsNaN(b) {
				return a > b
			}
			return ls[i] < ls[j]
		})
	}
	order(comp)
	order(synth)
	nBoot, seed := 0, int64(0)
	for _, p := range bd.Pairs {
		nBoot, seed = p.NBoot, p.BootSeed
	}
	for _, o := range bd.Overall {
		if o.NBoot > 0 {
			nBoot, seed = o.NBoot, o.BootSeed
		}
	}
	mixed := len(comp) > 0 && len(synth) > 0
	ms := &section{ID: "stability", Title: "How sure is the order? Significance map and rank blobs"}
	src := "From the rank stage's case-level bootstrap (no configuration was bootstrapped: the store holds no resamples)"
	if nBoot > 0 {
		src = fmt.Sprintf("From the rank stage's case-level bootstrap (n_boot = %d resamples, boot_seed = %d)", nBoot, seed)
	}
	ms.Paragraphs = []string{src + ": each resample recomputes every run's percentile and every configuration's ReX-MLE rank, with the same case draw for every configuration (paired). The map below is a bootstrap probability, not a test: for each pair, the share of resamples in which the row's configuration ranks above the column's (ties count ½); ≥ 95 % or ≤ 5 % marks an order the resampling does not shake (outlined cells). The significance test (one-sided Wilcoxon signed-rank on paired per-case values, Holm-adjusted per challenge, α = 0.05, as challengeR) is on each challenge's page and in results/significance.csv. The blob plot shows how often each configuration takes each overall place."}
	if len(comp) < 2 {
		ms.Paragraphs = append(ms.Paragraphs, fmt.Sprintf("Comparable configurations with a bootstrap: %d. The paper's recorded rows have no per-case values, so they cannot be resampled; the map needs at least two configurations run and graded by rexmle on the real data.", len(comp)))
	} else {
		ms.Charts = append(ms.Charts, s.sigMap(chartID("sigmap"), "Bootstrap probability map (not a test): P(row ranks above column)", comp, byLabel, nBoot))
		if !mixed {
			ms.Charts = append(ms.Charts, s.blobChart(chartID("blobs"), "Overall rank across resamples", comp, byLabel, nBoot))
			ms.Tables = append(ms.Tables, s.podiumTable("rank-stability", comp, byLabel, nBoot, seed))
		}
	}
	main = append(main, s.designSection(), ms)
	if len(synth) > 0 {
		ds := &section{ID: "synthetic-stability", Title: "Synthetic runs: significance map and rank blobs (not comparable)", Class: "section-demo",
			Paragraphs: []string{fmt.Sprintf("The same views for the configurations run on synthetic data (n_boot = %d, boot_seed = %d): a check that the pipeline works, not a comparison of agents.", nBoot, seed)}}
		if mixed {
			ds.Paragraphs = append(ds.Paragraphs, "The stored overall ranks were counted over every bootstrapped configuration, synthetic and real together, so the blob plot is shown here, apart, for all of them.")
		}
		if len(synth) >= 2 {
			ds.Charts = append(ds.Charts, s.sigMap(chartID("sigmap", "synthetic"), "Bootstrap probability map (synthetic runs, not a test): P(row ranks above column)", synth, byLabel, nBoot))
		} else {
			ds.Paragraphs = append(ds.Paragraphs, "Only one synthetic configuration has a bootstrap: no pair to compare.")
		}
		all := synth
		if mixed {
			all = append(append([]string(nil), comp...), synth...)
			order(all)
		}
		ds.Charts = append(ds.Charts, s.blobChart(chartID("blobs", "synthetic"), "Overall rank across resamples (synthetic runs)", all, byLabel, nBoot))
		ds.Tables = append(ds.Tables, s.podiumTable("synthetic-rank-stability", all, byLabel, nBoot, seed))
		demo = append(demo, ds)
	}
	return main, demo
}

// countConfigs lists the configurations in boot_rank_counts.
func (bd *bootData) countConfigs() []string {
	seen := map[string]bool{}
	var out []string
	for _, c := range bd.Counts {
		if !seen[c.Config] {
			seen[c.Config] = true
			out = append(out, c.Config)
		}
	}
	return out
}

// configName is how a configuration label from the bootstrap tables is shown.
func (s *site) configName(l string, byLabel map[string]store.BootOverall) string {
	o, ok := byLabel[l]
	if !ok {
		return l
	}
	n := s.label(groupKey{o.Source, o.Setting, o.Backend, o.Agent})
	if !s.comparable(o.Source) {
		n += " [synthetic]"
	}
	return n
}

// pairP is P(a ranks above b); NaN when not stored.
func (bd *bootData) pairP(a, b string) float64 {
	for _, p := range bd.Pairs {
		if p.A == a && p.B == b {
			return p.PAbove
		}
	}
	return math.NaN()
}

// sigMap draws the pairwise probabilities (percent) as a heat map, rows
// and columns in the order of the configurations' ReX-MLE ranks.
func (s *site) sigMap(id, name string, cfgs []string, byLabel map[string]store.BootOverall, nBoot int) chart {
	names := make([]string, len(cfgs))
	for i, c := range cfgs {
		names[i] = s.configName(c, byLabel)
	}
	var data []heatCell
	tbl := &chartTable{Caption: name + " (% of resamples in which the row ranks above the column)", Head: append([]string{""}, names...)}
	for i, a := range cfgs {
		r := []string{names[i]}
		for j, b := range cfgs {
			if i == j {
				r = append(r, "—")
				continue
			}
			p := s.boot().pairP(a, b)
			r = append(r, chartNum(100*p, " %"))
			if math.IsNaN(p) {
				continue
			}
			cell := heatCell{HeatMapData: opts.HeatMapData{Value: []any{j, i, round4(100 * p)},
				Name: fmt.Sprintf("%s ranks above %s in %.1f %% of %d resamples", names[i], names[j], 100*p, nBoot)}}
			if p >= 0.95 || p <= 0.05 {
				// An order the resampling does not shake: outlined, bold.
				cell.Name += " (stable order)"
				cell.ItemStyle = &opts.ItemStyle{BorderColor: textColour, BorderWidth: 2}
				cell.Label = &opts.Label{FontWeight: "bold"}
			}
			data = append(data, cell)
		}
		tbl.Rows = append(tbl.Rows, r)
	}
	hm := charts.NewHeatMap()
	hm.SetGlobalOptions(append(common(name, "cell = % of resamples in which the row ranks above the column"),
		charts.WithTooltipOpts(opts.Tooltip{Trigger: "item"}),
		charts.WithLegendOpts(noLegend()),
		charts.WithGridOpts(opts.Grid{ContainLabel: opts.Bool(true), Left: "4", Right: "8", Top: "56", Bottom: "64"}),
		charts.WithXAxisOpts(opts.XAxis{Type: "category", Data: names, AxisLabel: &opts.AxisLabel{Interval: "0", Rotate: 30, Color: textColour, Width: 110, Overflow: "truncate"}}),
		charts.WithYAxisOpts(opts.YAxis{Type: "category", Data: names, Inverse: opts.Bool(true), AxisLabel: categoryLabels(150)}),
		charts.WithVisualMapOpts(opts.VisualMap{Calculable: opts.Bool(false), Min: 0, Max: 100, Orient: "horizontal", Left: "center", Bottom: "0", Text: []string{"100 %", "0 %"},
			InRange: &opts.VisualMapInRange{Color: []string{"#d6604d", "#f7f7f7", "#4393c3"}}, TextStyle: &opts.TextStyle{Color: textColour}}),
	)...)
	hm.AddSeries("P(row above column), %", nil, withHeatCells(data),
		charts.WithLabelOpts(opts.Label{Show: opts.Bool(true), Color: textColour, Formatter: "{@[2]} %"}),
		charts.WithSeriesTooltipOpts(opts.SeriesTooltip{Formatter: "{b}"}))
	return chart{ID: id, Option: optionJSON(hm, &extensions{confine: true}), Tips: mustJSON([]string{}), Height: 190 + 36*len(cfgs), Table: tbl,
		Alt: "Heat map: for each pair of configurations, the percentage of bootstrap resamples in which the row's configuration ranks above the column's"}
}

// blobChart draws, per configuration, a blob at each overall rank sized by
// how often it took that rank across the resamples.
func (s *site) blobChart(id, name string, cfgs []string, byLabel map[string]store.BootOverall, nBoot int) chart {
	names := make([]string, len(cfgs))
	idx := map[string]int{}
	for i, c := range cfgs {
		names[i] = s.configName(c, byLabel)
		idx[c] = i
	}
	maxRank := 1
	var data []opts.ScatterData
	tbl := &chartTable{Caption: name, Head: []string{"Configuration", "Overall rank", "Share of resamples"}}
	for _, rc := range s.boot().Counts {
		i, ok := idx[rc.Config]
		if !ok || rc.Count == 0 || rc.NBoot == 0 {
			continue
		}
		maxRank = max(maxRank, rc.Rank)
		f := float64(rc.Count) / float64(rc.NBoot)
		data = append(data, opts.ScatterData{Value: []any{rc.Rank, i}, SymbolSize: int(math.Round(6 + 30*math.Sqrt(f))),
			Name: fmt.Sprintf("%s: rank %d in %.1f %% of %d resamples", names[i], rc.Rank, 100*f, rc.NBoot)})
		tbl.Rows = append(tbl.Rows, []string{names[i], strconv.Itoa(rc.Rank), fmt.Sprintf("%.1f %%", 100*f)})
	}
	sc := charts.NewScatter()
	sc.SetGlobalOptions(append(common(name, "blob area ∝ share of resamples at that rank"),
		charts.WithTooltipOpts(opts.Tooltip{Trigger: "item"}),
		charts.WithLegendOpts(noLegend()),
		charts.WithGridOpts(opts.Grid{ContainLabel: opts.Bool(true), Left: "4", Right: "24", Top: "56", Bottom: "40"}),
		charts.WithXAxisOpts(opts.XAxis{Type: "value", Name: "overall rank (1 = best)", NameLocation: "middle", NameGap: 24, Min: 0, Max: maxRank + 1, MinInterval: 1, MaxInterval: 1,
			AxisLabel: &opts.AxisLabel{Color: textColour, ShowMinLabel: opts.Bool(false), ShowMaxLabel: opts.Bool(false), HideOverlap: opts.Bool(true)}}),
		charts.WithYAxisOpts(opts.YAxis{Type: "category", Data: names, Inverse: opts.Bool(true), AxisLabel: categoryLabels(170)}),
	)...)
	sc.AddSeries("share of resamples", data, charts.WithItemStyleOpts(opts.ItemStyle{Color: seriesColours[0], Opacity: opts.Float(0.8)}),
		charts.WithSeriesTooltipOpts(opts.SeriesTooltip{Formatter: "{b}"}))
	return chart{ID: id, Option: optionJSON(sc, &extensions{confine: true}), Tips: mustJSON([]string{}), Height: 140 + 44*len(cfgs), Table: tbl,
		Alt: "Blob plot: for each configuration, how often it took each overall rank across the bootstrap resamples"}
}

// rankStats are the share at rank 1, the median rank and the 95 % rank
// interval from a configuration's counts.
func (bd *bootData) rankStats(cfg string) (first float64, median, lo, hi int, n int) {
	var rcs []store.BootRankCount
	for _, rc := range bd.Counts {
		if rc.Config == cfg {
			rcs = append(rcs, rc)
			n = rc.NBoot
		}
	}
	sort.Slice(rcs, func(i, j int) bool { return rcs[i].Rank < rcs[j].Rank })
	total := 0
	for _, rc := range rcs {
		total += rc.Count
		if rc.Rank == 1 && rc.NBoot > 0 {
			first = float64(rc.Count) / float64(rc.NBoot)
		}
	}
	if total == 0 {
		return 0, 0, 0, 0, n
	}
	at := func(q float64) int { // smallest rank whose cumulative share reaches q
		cum := 0
		for _, rc := range rcs {
			cum += rc.Count
			if float64(cum) >= q*float64(total) {
				return rc.Rank
			}
		}
		return rcs[len(rcs)-1].Rank
	}
	return first, at(0.5), at(0.025), at(0.975), n
}

// podiumTable lists each configuration's overall rank across resamples.
func (s *site) podiumTable(id string, cfgs []string, byLabel map[string]store.BootOverall, nBoot int, seed int64) *table {
	t := &table{ID: id, Caption: fmt.Sprintf("Overall rank across %d resamples (boot_seed %d)", nBoot, seed), Class: "compact",
		Head:     []string{"Configuration", "Challenges", "ReX-MLE rank", "95 % interval", "P(rank 1)", "Median rank", "95 % rank interval"},
		DataHead: []string{"config", "rexmle_rank_pct", "rexmle_rank_lo_pct", "rexmle_rank_hi_pct", "p_rank_1", "median_rank", "rank_lo", "rank_hi", "n_boot", "boot_seed"}}
	for _, c := range cfgs {
		o := byLabel[c]
		first, med, lo, hi, n := s.boot().rankStats(c)
		ci := "—"
		if hasInterval(o.Lo, o.Hi) {
			ci = ciText(o.Lo, o.Hi, 1)
		}
		nc := "—"
		if g := s.group(groupKey{o.Source, o.Setting, o.Backend, o.Agent}); g != nil {
			nc = strconv.Itoa(g.NChallenges)
		}
		t.Rows = append(t.Rows, row{Cells: []cell{{Text: s.configName(c, byLabel)}, {Text: nc, Class: "num"}, {Text: fmtFrac(o.Rank, 2), Class: "num", Sort: sortKey(o.Rank)}, {Text: ci, Class: "num"},
			{Text: fmt.Sprintf("%.1f %%", 100*first), Class: "num", Sort: sortKey(first)}, {Text: strconv.Itoa(med), Class: "num"}, {Text: fmt.Sprintf("%d–%d", lo, hi), Class: "num"}},
			Data: []any{c, pctNum(o.Rank), pctNum(o.Lo), pctNum(o.Hi), round4(first), med, lo, hi, n, seed}})
	}
	return t
}

// ---- agent pages: seed spread ---------------------------------------------

// agentUncertainty is an agent page's seed spread and compute-normalised rank.
func (s *site) agentUncertainty(g *group) []*section {
	o, ok := s.boot().Overall[g.groupKey]
	sec := &section{ID: "seeds", Title: "Seed spread and bootstrap interval"}
	if !s.comparable(g.Source) {
		sec.Class = "section-demo"
	}
	switch {
	case !ok:
		sec.Paragraphs = []string{"No seed summary: " + whyNoCI(g.Source, "") + "."}
	default:
		txt := fmt.Sprintf("%d seed(s)", o.NSeeds)
		if !math.IsNaN(o.SeedMean) {
			txt += ": ReX-MLE rank mean " + fmtFrac(o.SeedMean, 2)
			if !math.IsNaN(o.SeedSE) {
				txt += fmt.Sprintf(" ± %.2f %% (standard error over seeds)", 100*o.SeedSE)
			} else {
				txt += " (one seed: no standard error)"
			}
		}
		txt += fmt.Sprintf("; %d failed or missing run(s) (challenge × seed), each counted 0 as in the paper.", o.NFailed)
		if hasInterval(o.Lo, o.Hi) {
			txt += fmt.Sprintf(" 95 %% case-level bootstrap interval of the ReX-MLE rank: %s (n_boot = %d, boot_seed = %d", ciText(o.Lo, o.Hi, 2), o.NBoot, o.BootSeed)
			if o.NFixed > 0 {
				txt += fmt.Sprintf("; %d successful run(s) without an interval held fixed", o.NFixed)
			}
			txt += ")."
		} else {
			txt += " No bootstrap interval: " + whyNoCI(g.Source, o.Note) + "."
		}
		sec.Paragraphs = []string{txt}
		t := &table{ID: "seeds-" + groupSlug(g.groupKey), Caption: "ReX-MLE rank per seed", Class: "compact",
			Head: []string{"Seed", "ReX-MLE rank", "Failed runs"}, DataHead: []string{"seed", "rexmle_rank_pct", "failed_runs"}}
		var bars []pctBar
		for _, sv := range o.Seeds {
			nf := 0
			for _, r := range g.Runs {
				if r.Seed == sv.Seed && r.Ranked && !r.ok() && !r.partial() {
					nf++
				}
			}
			t.Rows = append(t.Rows, row{Cells: []cell{{Text: strconv.Itoa(sv.Seed), Class: "num"}, {Text: fmtFrac(sv.Value, 2), Class: "num", Sort: sortKey(sv.Value)}, {Text: strconv.Itoa(nf), Class: "num"}},
				Data: []any{sv.Seed, pctNum(sv.Value), nf}})
			bars = append(bars, pctBar{Label: "seed " + strconv.Itoa(sv.Seed), Value: 100 * sv.Value, Hi: math.NaN(), Printed: math.NaN(),
				Tip: fmt.Sprintf("seed %d: ReX-MLE rank %s (%d failed run(s))", sv.Seed, fmtFrac(sv.Value, 2), nf)})
		}
		if !math.IsNaN(o.Rank) {
			b := pctBar{Label: "all seeds", Value: 100 * o.Rank, Hi: math.NaN(), Printed: math.NaN(), Tip: "all seeds: ReX-MLE rank " + fmtFrac(o.Rank, 2)}
			if !math.IsNaN(o.SeedSE) {
				b.Tip += fmt.Sprintf(", mean ± SE %s ± %.2f %%", fmtFrac(o.SeedMean, 2), 100*o.SeedSE)
			}
			bars = append(bars, s.overallCI(b, g))
		}
		if len(o.Seeds) > 0 {
			sec.Tables = []*table{t}
		}
		if nonZero(bars) && (len(o.Seeds) > 1 || anyCI(bars)) { // one seed and no interval: the intro says it all
			sec.Charts = []chart{pctChart(chartID("seeds", groupSlug(g.groupKey)), "ReX-MLE rank per seed", "mean percentile (%); error bar: 95 % bootstrap interval", bars,
				"Bar chart of the ReX-MLE rank (%, axis 0–100 %) of each seed and of all seeds together, with its 95 % bootstrap interval")}
		}
	}
	return []*section{sec, s.agentComputeSection(g)}
}

// ---- compute-normalised view ----------------------------------------------

// runEnergy is a run's GPU-hours and kWh; NaN with the reason when unknown.
func (s *site) runEnergy(r *runData) (hours, kwh float64, why string) {
	if r.Source == printedSource {
		return math.NaN(), math.NaN(), "the paper's recorded runs carry no telemetry"
	}
	if g, ok := s.boot().GPU[r.ID]; ok {
		if !strings.HasPrefix(g.Telemetry, "unavailable") && g.Summary.GPUHours > 0 {
			return g.Summary.GPUHours, g.Summary.EnergyKWh, ""
		}
		if strings.HasPrefix(g.Telemetry, "unavailable") {
			return math.NaN(), math.NaN(), "telemetry " + g.Telemetry
		}
	}
	if ss := s.data.GPU[r.ID]; len(ss) > 0 {
		if rc := computeRun(r, ss, nil); rc.Hours > 0 {
			return rc.Hours, rc.EnergyWh / 1000, ""
		}
	}
	return math.NaN(), math.NaN(), "no GPU telemetry recorded"
}

// computeNorm is a configuration's ReX-MLE rank per mean GPU-hour and per
// mean kWh of its runs; NaN with the reason when some run lacks telemetry.
type computeNorm struct {
	Runs, WithHours, WithEnergy int
	MeanHours, MeanKWh          float64
	PerHour, PerKWh             float64 // percentage points of ReX-MLE rank per GPU-hour / kWh
	Why                         string
}

func (s *site) computeNormOf(g *group) computeNorm {
	cn := computeNorm{MeanHours: math.NaN(), MeanKWh: math.NaN(), PerHour: math.NaN(), PerKWh: math.NaN()}
	var hours, kwh float64
	why := map[string]int{}
	for _, r := range g.Runs {
		cn.Runs++
		h, e, w := s.runEnergy(r)
		if w != "" {
			why[w]++
		}
		if !math.IsNaN(h) {
			cn.WithHours++
			hours += h
		}
		if !math.IsNaN(e) {
			cn.WithEnergy++
			kwh += e
		}
	}
	var parts []string
	for w, n := range why {
		parts = append(parts, fmt.Sprintf("%d run(s): %s", n, w))
	}
	sort.Strings(parts)
	if cn.Runs > 0 && cn.WithHours == cn.Runs && !math.IsNaN(g.Overall) {
		cn.MeanHours = hours / float64(cn.Runs)
		cn.PerHour = 100 * g.Overall / cn.MeanHours
		if cn.WithEnergy == cn.Runs && kwh > 0 {
			cn.MeanKWh = kwh / float64(cn.Runs)
			cn.PerKWh = 100 * g.Overall / cn.MeanKWh
		}
	}
	switch {
	case cn.WithHours < cn.Runs:
		cn.Why = "unavailable: " + strings.Join(parts, "; ")
	case math.IsNaN(g.Overall):
		cn.Why = "no exact ReX-MLE rank (a challenge is known only by its primary metric)"
	case cn.WithEnergy < cn.Runs:
		cn.Why = "per kWh unavailable: some runs measured no energy"
	}
	return cn
}

// unitText prints v with its unit, or "unavailable".
func unitText(v float64, unit string) string {
	if math.IsNaN(v) {
		return "unavailable"
	}
	return strconv.FormatFloat(v, 'f', 2, 64) + " " + unit
}

func normText(v float64) string {
	if math.IsNaN(v) {
		return "unavailable"
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}

// computeNormTable lists configurations' compute-normalised ranks.
func (s *site) computeNormTable(id, caption string, gs []*group, root string) *table {
	t := &table{ID: id, Caption: caption, Class: "compact",
		Head:     []string{"Configuration", "Challenges", "ReX-MLE rank", "GPU-hours per run", "kWh per run", "Rank per GPU-hour (% / GPU-h)", "Rank per kWh (% / kWh)", "Note"},
		DataHead: []string{"agent", "backend", "setting", "source", "rexmle_rank_pct", "runs", "runs_with_gpu_hours", "runs_with_energy", "gpu_hours_per_run", "kwh_per_run", "pct_per_gpu_hour", "pct_per_kwh", "note"}}
	for _, g := range gs {
		cn := s.computeNormOf(g)
		lbl := s.label(g.groupKey)
		if !s.comparable(g.Source) {
			lbl += " [synthetic]"
		}
		t.Rows = append(t.Rows, row{Cells: []cell{{Text: lbl, Href: root + "agents/" + groupSlug(g.groupKey) + ".html"}, {Text: strconv.Itoa(g.NChallenges), Class: "num"}, {Text: fmtFrac(g.Overall, 2), Class: "num", Sort: sortKey(g.Overall)},
			{Text: normText(cn.MeanHours), Class: "num", Sort: sortKey(cn.MeanHours)}, {Text: normText(cn.MeanKWh), Class: "num", Sort: sortKey(cn.MeanKWh)},
			{Text: normText(cn.PerHour), Class: "num", Sort: sortKey(cn.PerHour)}, {Text: normText(cn.PerKWh), Class: "num", Sort: sortKey(cn.PerKWh)}, {Text: orDash(cn.Why)}},
			Data: []any{g.Agent, g.Backend, g.Setting, g.Source, pctNum(g.Overall), cn.Runs, cn.WithHours, cn.WithEnergy, jnum(cn.MeanHours), jnum(cn.MeanKWh), jnum(cn.PerHour), jnum(cn.PerKWh), cn.Why}})
	}
	return t
}

const computeNormIntro = "Compute-normalised rank: the ReX-MLE rank (mean percentile, %) divided by the mean GPU-hours (or kWh) of the configuration's runs, failed runs included — percentage points per GPU-hour of one run. It needs GPU telemetry (pipeline/gpu) for every run of the configuration; otherwise it is shown as unavailable, with the reason."

// computeNormSections is the compute page's compute-normalised view, the
// synthetic configurations apart.
func (s *site) computeNormSections() []*section {
	var comp, synth []*group
	for _, g := range s.data.Groups {
		if s.comparable(g.Source) {
			comp = append(comp, g)
		} else {
			synth = append(synth, g)
		}
	}
	sec := &section{ID: "normalised", Title: "ReX-MLE rank per GPU-hour and per kWh", Paragraphs: []string{computeNormIntro}}
	if len(comp) > 0 {
		// One table per rank world: ranks are compared only within one.
		var worlds [3][]*group
		for _, g := range comp {
			worlds[s.world(g)] = append(worlds[s.world(g)], g)
		}
		n := len(s.b.Challenges)
		for w, c := range []struct{ id, caption string }{
			{"compute-normalised", fmt.Sprintf("The paper's configurations, %d challenges: ReX-MLE rank per GPU-hour and per kWh", n)},
			{"compute-normalised-new", fmt.Sprintf("New runs on the real data, %d challenges: ReX-MLE rank per GPU-hour and per kWh", n)},
			{"compute-normalised-other", "Configurations run on fewer challenges or partially (not comparable with the tables above): ReX-MLE rank per GPU-hour and per kWh"},
		} {
			if len(worlds[w]) > 0 {
				sec.Tables = append(sec.Tables, s.computeNormTable(c.id, c.caption, worlds[w], ""))
			}
		}
	} else {
		sec.Paragraphs = append(sec.Paragraphs, "No comparable configuration is ranked yet.")
	}
	out := []*section{sec}
	if len(synth) > 0 {
		out = append(out, &section{ID: "synthetic-normalised", Title: "Synthetic runs: rank per GPU-hour and per kWh (not comparable)", Class: "section-demo",
			Tables: []*table{s.computeNormTable("synthetic-compute-normalised", "Synthetic runs: ReX-MLE rank per GPU-hour and per kWh (pipeline check)", synth, "")}})
	}
	return out
}

// agentComputeSection is an agent page's compute-normalised rank with its runs' telemetry.
func (s *site) agentComputeSection(g *group) *section {
	sec := &section{ID: "compute-normalised", Title: "Rank per GPU-hour and per kWh"}
	if !s.comparable(g.Source) {
		sec.Class = "section-demo"
	}
	cn := s.computeNormOf(g)
	txt := fmt.Sprintf("ReX-MLE rank %s; per GPU-hour: %s; per kWh: %s (%d of %d run(s) with GPU-hours, %d with energy).",
		fmtFrac(g.Overall, 2), unitText(cn.PerHour, "% / GPU-h"), unitText(cn.PerKWh, "% / kWh"), cn.WithHours, cn.Runs, cn.WithEnergy)
	if cn.Why != "" {
		txt += " " + strings.ToUpper(cn.Why[:1]) + cn.Why[1:] + "."
	}
	sec.Paragraphs = []string{txt}
	if cn.WithHours > 0 {
		sec.Paragraphs = append(sec.Paragraphs, fmt.Sprintf("Per run with telemetry: the percentile divided by the run's GPU-hours and kWh (%d run(s) without telemetry are left out of the table).", cn.Runs-cn.WithHours))
	}
	t := &table{ID: "compute-" + groupSlug(g.groupKey), Caption: "Percentile per GPU-hour and per kWh, per run", Class: "compact",
		Head:     []string{"Challenge", "Seed", "Percentile", "GPU-hours", "kWh", "% / GPU-h", "% / kWh", "Note"},
		DataHead: []string{"challenge", "seed", "percentile_pct", "gpu_hours", "kwh", "pct_per_gpu_hour", "pct_per_kwh", "note"}}
	for _, r := range g.Runs {
		h, e, why := s.runEnergy(r)
		if math.IsNaN(h) {
			continue
		}
		pct := 0.0
		if r.ok() {
			pct = r.Pct
		}
		if r.partial() {
			pct = math.NaN()
		}
		ph, pe := math.NaN(), math.NaN()
		if h > 0 {
			ph = 100 * pct / h
		}
		if e > 0 {
			pe = 100 * pct / e
		}
		t.Rows = append(t.Rows, row{Cells: []cell{{Text: s.shortName(r.Challenge), Href: "../challenges/" + r.Challenge + ".html"}, {Text: strconv.Itoa(r.Seed), Class: "num"},
			{Text: runPct(r, 1), Class: "num", Sort: sortKey(pct)}, {Text: normText(h), Class: "num", Sort: sortKey(h)}, {Text: normText(e), Class: "num", Sort: sortKey(e)},
			{Text: normText(ph), Class: "num", Sort: sortKey(ph)}, {Text: normText(pe), Class: "num", Sort: sortKey(pe)}, {Text: orDash(why)}},
			Data: []any{r.Challenge, r.Seed, pctNum(pct), jnum(h), jnum(e), jnum(ph), jnum(pe), why}})
	}
	if cn.WithHours > 0 {
		sec.Tables = []*table{t}
	}
	return sec
}

// ---- chart series ------------------------------------------------------

// ciSeries draws the bars' intervals as error bars: a boxplot series whose
// box collapses onto the bar's value and whose whiskers run to the interval
// ends (caps included). Nil when no bar has an interval.
func ciSeries(bars []pctBar) *charts.BoxPlot {
	data := make([]opts.BoxPlotData, len(bars))
	drawn := false
	for i, b := range bars {
		if !b.CI || b.Fail || math.IsNaN(b.CILo) || math.IsNaN(b.CIHi) {
			data[i] = opts.BoxPlotData{Value: []any{}}
			continue
		}
		drawn = true
		mid := math.Min(math.Max(b.Value, b.CILo), b.CIHi)
		data[i] = opts.BoxPlotData{Value: []any{jnum(b.CILo), jnum(mid), jnum(mid), jnum(mid), jnum(b.CIHi)}}
	}
	if !drawn {
		return nil
	}
	bp := charts.NewBoxPlot()
	bp.AddSeries(ciName, data, charts.WithItemStyleOpts(opts.ItemStyle{Color: "rgba(0,0,0,0)", BorderColor: textColour, BorderWidth: 1.5}))
	return bp
}

// ciExtra draws the error bars over the bars, 10 px wide.
var ciExtra = seriesExtra{Z: 5, BoxWidth: []int{10, 10}}

// ---- the resampling design and the significance tests (issue 33) -----

// smallNNote is said beside every table of intervals.
const smallNNote = "Intervals over fewer than 10 cases are flagged: the coverage study (rankstage TestIntervalCoverage) finds 55–80 % actual coverage of a nominal 95 % at 3 cases, whatever the method."

// humanBoardNote states what the intervals leave out.
const humanBoardNote = "What the intervals include: the variation of the test cases and, where a configuration ran several seeds, of its seeds. What they do not: the human leaderboard is held fixed (its entries' own sampling error is unknown), and the humans were scored on the challenges' hidden test sets while agents are scored on a split of the public training data, so a position against them carries a test-set shift no interval measures."

func smallNFlag(n int) string {
	return fmt.Sprintf("few cases (n = %d < %d): covers less than 95 %%", n, rank.SmallN)
}

// designSection states the resampling design once: a paragraph, the levels
// in a table and the case universes found in the store.
func (s *site) designSection() *section {
	sec := &section{ID: "resampling-design", Title: "How the intervals are made: the resampling design"}
	sec.Paragraphs = []string{"One design serves every interval, probability and rank count on this site: a hierarchical, paired bootstrap. In each resample the test cases of each case universe are drawn once with replacement and the same draw is used for every configuration and seed; each configuration's seeds are drawn with replacement as the outer level, so an interval carries both case and seed variation (the seed mean ± SE is shown beside it). Identical seeds therefore add nothing and do not narrow an interval.",
		humanBoardNote, smallNNote}
	dt := &table{ID: "resampling-levels", Caption: "Levels of the resampling", Class: "compact",
		Head: []string{"Level", "Resampled", "How", "Shared by"}}
	for _, r := range [][4]string{
		{"cases (inner)", "the test cases of a case universe", "n draws with replacement per resample, stream cases/<universe>", "every configuration and seed, every task of the universe"},
		{"seeds (outer)", "a configuration's seeds", "as many draws as seeds, with replacement, stream seeds/<configuration>", "all challenges of the configuration"},
		{"metric", "nothing: recomputed", "the challenge's own aggregation over the drawn cases (mean, median, RMSE, correlation, pooled F1, COCO AP)", "—"},
		{"interval", "nothing: read from the resamples", "means and COCO AP: expanded BCa; RMSE (through its square), pooled F1 and other smooth aggregations: studentized (bootstrap-t); medians, rank correlations and challenge percentiles: expanded percentile; overall: percentile", "position, mean rank and percentile are images of the value interval"},
		{"human leaderboard", "nothing: held fixed", "—", "—"},
	} {
		dt.Rows = append(dt.Rows, row{Cells: []cell{{Text: r[0]}, {Text: r[1]}, {Text: r[2]}, {Text: r[3]}}})
	}
	sec.Tables = append(sec.Tables, dt)
	if us := s.boot().Universes; len(us) > 0 {
		ut := &table{ID: "case-universes", Caption: "Case universes found in the store (tasks sharing a raw folder and case ids are drawn together)", Class: "compact",
			Head: []string{"Universe", "Challenges", "Cases"}}
		for _, u := range us {
			ut.Rows = append(ut.Rows, row{Cells: []cell{{Text: u.Key}, {Text: strings.Join(u.Challenges, ", ")}, {Text: strconv.Itoa(u.NCases), Class: "num"}}})
		}
		sec.Tables = append(sec.Tables, ut)
	}
	return sec
}

// significanceSection is a challenge's tests and rank stability.
func (s *site) significanceSection(ch string) *section {
	var tests []store.BootTest
	for _, t := range s.boot().Tests {
		if t.Challenge == ch {
			tests = append(tests, t)
		}
	}
	ts, hasTau := s.boot().Tasks[ch]
	if len(tests) == 0 && !hasTau {
		return nil
	}
	sec := &section{ID: "significance", Title: "Significance: Wilcoxon signed-rank tests, Holm-adjusted"}
	sec.Paragraphs = []string{"For every ordered pair of configurations with per-case values of the primary metric: a one-sided Wilcoxon signed-rank test that the first is better than the second on the cases both graded (each configuration's case value averaged over its seeds; scipy.stats.wilcoxon's defaults in scipy 1.10: exact below 51 pairs without zero differences, else the normal approximation with the tie correction and no continuity correction), the p-values of the challenge Holm-adjusted together, significant at adjusted p ≤ 0.05 (challengeR's rule). Configurations on synthetic data are tested too; their rows compare the pipeline's sample agents, not real ones."}
	if hasTau {
		if hasInterval(ts.TauLo, ts.TauHi) {
			sec.Paragraphs = append(sec.Paragraphs, fmt.Sprintf("Rank stability: Kendall's τ between the point ranking of the %d configurations on this challenge and their ranking in each resample: mean %.2f, median %.2f, 95 %% of resamples in [%.2f, %.2f] (results/task_stability.csv; blob-plot counts in results/challenge_rank_counts.csv).", ts.NConfigs, ts.TauMean, ts.TauMedian, ts.TauLo, ts.TauHi))
		} else if ts.Note != "" {
			sec.Paragraphs = append(sec.Paragraphs, "Rank stability: "+ts.Note+".")
		}
	}
	byLabel := map[string]store.BootOverall{}
	for _, o := range s.boot().Overall {
		byLabel[o.Label()] = o
	}
	tb := &table{ID: "sig-" + ch, Caption: "One-sided Wilcoxon signed-rank tests (A better than B), Holm-adjusted", Class: "compact",
		Head:     []string{"A", "B", "Pairs", "r+", "p", "Holm p", "Significant", "Method / note"},
		DataHead: []string{"config_a", "config_b", "n_pairs", "statistic", "p_value", "p_holm", "significant", "method", "note"}}
	for _, t := range tests {
		if t.A == "" {
			sec.Paragraphs = append(sec.Paragraphs, "No test: "+t.Note+".")
			continue
		}
		sig := "no"
		if t.Significant {
			sig = "yes"
		}
		f := func(v float64) string {
			if math.IsNaN(v) {
				return "—"
			}
			return strconv.FormatFloat(v, 'g', 4, 64)
		}
		tb.Rows = append(tb.Rows, row{Cells: []cell{{Text: s.configName(t.A, byLabel)}, {Text: s.configName(t.B, byLabel)}, {Text: strconv.Itoa(t.N), Class: "num"},
			{Text: f(t.Statistic), Class: "num"}, {Text: f(t.P), Class: "num"}, {Text: f(t.PHolm), Class: "num"}, {Text: sig}, {Text: orDash(strings.TrimSpace(t.Method + " " + t.Note))}},
			Data: []any{t.A, t.B, t.N, nanNil(t.Statistic), nanNil(t.P), nanNil(t.PHolm), t.Significant, t.Method, t.Note}})
	}
	if len(tb.Rows) > 0 {
		sec.Tables = append(sec.Tables, tb)
	}
	return sec
}

// nanNil is nil for NaN (an empty download cell), else v.
func nanNil(v float64) any {
	if math.IsNaN(v) {
		return nil
	}
	return v
}
