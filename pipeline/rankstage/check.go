package rankstage

import (
	"fmt"
	"math"
	"math/big"
	"sort"
	"strconv"
	"strings"

	"github.com/rexmle/rexmle/metrics/num"
	"github.com/rexmle/rexmle/pipeline/config"
	"github.com/rexmle/rexmle/pipeline/paper"
	"github.com/rexmle/rexmle/pipeline/rank"
)

// Classes of a comparison between the computation and the paper.
const (
	ClassMatch         = "match"         // the computed number prints as the paper printed it
	ClassRounding      = "rounding"      // the printed value is a rounding of what we compute
	ClassInconsistency = "inconsistency" // no rounding explains it: the paper contradicts itself
	ClassUndetermined  = "undetermined"  // the printed digits do not decide it
)

// Kinds of compared number (Comparison.What; positions are "position:<metric>").
const (
	KindPosition   = "position"
	KindMeanRank   = "mean_rank"
	KindPercentile = "percentile"
	KindValue      = "primary_value" // the primary value printed in Tables 3–5 against the S-table's print
	KindOverall    = "overall"
)

// Comparison is one number the paper printed compared with the computation.
type Comparison struct {
	RunID                    string // the recorded run; empty for overall means
	Table                    string // "S1".."S20", "3", "4", "5"
	Challenge, Agent         string // ids; Challenge empty for overall means
	Setting, Backend         string
	What                     string // a Kind* constant
	Where                    string // human-readable place, e.g. "Table 3 (24h, gpt-5), DENTEX, ML-Master"
	Computed, Printed, Class string
	Why                      string
}

// with returns a copy for one compared number, classified as a match.
func (c Comparison) with(what, computed, printed string) Comparison {
	c.What, c.Computed, c.Printed, c.Class = what, computed, printed, ClassMatch
	return c
}

// Label is Where plus the kind of number, for messages.
func (c Comparison) Label() string {
	what := strings.ReplaceAll(c.What, "_", " ")
	if m, ok := strings.CutPrefix(c.What, KindPosition+":"); ok {
		what = "position of " + m
	}
	if c.What == KindValue {
		what = "value"
	}
	if c.What == KindOverall {
		return c.Where
	}
	return c.Where + ", " + what
}

// Tally counts matches of one kind of number.
type Tally struct{ Match, Total int }

func (t *Tally) add(ok bool) {
	t.Total++
	if ok {
		t.Match++
	}
}

// Check compares what the stage computed with what the paper printed.
type Check struct {
	Positions, MeanRanks, Percentiles Tally // S1–S20
	Table3Percentiles, Table3Values   Tally
	SummaryRows                       Tally // Tables 4 and 5 rows checked for consistency
	Overall                           []OverallCheck
	Comparisons                       []Comparison // every compared number, matches included
	Disagreements                     []Comparison // those that do not match
	Cells                             []CellCheck  // per challenge × agent, S-table runs
}

func (ck *Check) record(c Comparison) {
	ck.Comparisons = append(ck.Comparisons, c)
	if c.Class != ClassMatch {
		ck.Disagreements = append(ck.Disagreements, c)
	}
}

// CellCheck is one challenge × agent cell of the reproduction table.
type CellCheck struct {
	Challenge, Agent             string
	Computed, PrintedS, Printed3 string
}

// OverallCheck is one agent's overall mean percentile, three ways.
type OverallCheck struct {
	Table, Setting, Backend, Agent string
	Exact                          float64 // mean of exact percentiles
	PaperMethod                    float64 // mean of the whole-number Table 3 percentiles, computed
	Printed                        string
}

// pyRound2 prints a mean rank as the paper does: Python's str(round(x, 2)).
func pyRound2(x float64) string {
	s := strconv.FormatFloat(num.Round(x, 2), 'f', -1, 64)
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	return s
}

// decimals is the number of digits after the point in a printed number.
func decimals(s string) int {
	if i := strings.IndexByte(s, '.'); i >= 0 {
		return len(s) - i - 1
	}
	return 0
}

// printedInterval is the interval of values that print as s.
func printedInterval(s string) (lo, hi float64) {
	v, _ := strconv.ParseFloat(s, 64)
	h := 0.5 * math.Pow(10, -float64(decimals(s)))
	return v - h, v + h
}

func agentName(b *config.Benchmark, id string) string {
	if a, ok := b.Agent(id); ok {
		return a.Name
	}
	return id
}

func check(b *config.Benchmark, rec *paper.Recorded, o *Outcome) *Check {
	ck := &Check{}
	byID := map[string]*Ranked{}
	for _, r := range o.Runs {
		byID[r.Run.ID] = r
	}
	ck.checkAppendix(b, rec.Appendix, byID)
	t3sum := ck.checkSummary(b, rec, byID)
	ck.checkOverall(b, rec, o, t3sum)
	return ck
}

// checkAppendix compares every position, mean rank and percentile of the
// appendix tables (S1–S20) with the computed ones.
func (ck *Check) checkAppendix(b *config.Benchmark, a paper.Appendix, byID map[string]*Ranked) {
	// S1–S20.
	for _, ar := range a.Runs {
		id := paper.RunID(a.Setting, a.Backend, ar.Challenge, ar.Agent)
		r := byID[id]
		if r == nil {
			continue
		}
		c, _ := b.Challenge(ar.Challenge)
		base := Comparison{RunID: id, Table: ar.Table, Challenge: ar.Challenge, Agent: ar.Agent, Setting: a.Setting, Backend: a.Backend,
			Where: fmt.Sprintf("%s, %s, %s", ar.Table, c.ShortName, agentName(b, ar.Agent))}
		for _, m := range c.Metrics {
			p, ok := ar.PrintedPositions[m.Name]
			if !ok {
				continue
			}
			got := r.Result.Positions[m.Name]
			ck.Positions.add(got == p)
			x := base.with(KindPosition+":"+m.Name, strconv.Itoa(got), strconv.Itoa(p))
			if got != p {
				x.Class, x.Why = ClassInconsistency, "the printed value ranks elsewhere among the leaderboard rows"
			}
			ck.record(x)
		}
		comp := "FAIL"
		if r.Result.Status == rank.OK {
			comp = pyRound2(r.Result.MeanRank)
		}
		if ar.PrintedMeanRank != "FAIL" || comp != "FAIL" {
			ck.MeanRanks.add(comp == ar.PrintedMeanRank)
			x := base.with(KindMeanRank, comp, ar.PrintedMeanRank)
			if comp != ar.PrintedMeanRank {
				x.Class = ClassInconsistency // positions are integers: the mean rank is exact
			}
			ck.record(x)
		}
		pct := "FAIL"
		if r.Result.Status == rank.OK {
			pct = rank.FormatPercent(r.Result.ExactPercent(), 1)
		}
		ck.Percentiles.add(pct == ar.PrintedPercentile)
		x := base.with(KindPercentile, pct, ar.PrintedPercentile)
		if pct != ar.PrintedPercentile {
			x.Class = ClassInconsistency
			x.Why = fmt.Sprintf("computed from position sum %d over %d metrics and %d rows", r.Result.PosSum, r.Result.K, r.Result.N)
		}
		ck.record(x)
		ck.Cells = append(ck.Cells, CellCheck{Challenge: ar.Challenge, Agent: ar.Agent, Computed: pct, PrintedS: ar.PrintedPercentile})
	}
}

// checkSummary compares the cells of Tables 3, 4 and 5: the primary value
// printed beside the S-table's and the percentile. It returns the sum of
// Table 3's printed percentiles per agent.
func (ck *Check) checkSummary(b *config.Benchmark, rec *paper.Recorded, byID map[string]*Ranked) map[string]float64 {
	cellIdx := map[string]int{}
	for i, c := range ck.Cells {
		cellIdx[c.Challenge+"/"+c.Agent] = i
	}
	t3sum := map[string]float64{}
	for _, cell := range rec.Summary.Cells {
		c, _ := b.Challenge(cell.Challenge)
		id := paper.RunID(cell.Setting, cell.Backend, cell.Challenge, cell.Agent)
		r := byID[id]
		if r == nil {
			continue
		}
		base := Comparison{RunID: id, Table: cell.Table, Challenge: cell.Challenge, Agent: cell.Agent, Setting: cell.Setting, Backend: cell.Backend,
			Where: fmt.Sprintf("Table %s (%s, %s), %s, %s", cell.Table, cell.Setting, cell.Backend, c.ShortName, agentName(b, cell.Agent))}
		full := r.Result.Status == rank.OK && !primaryOnly(r.Run)
		if cell.Table == "3" {
			if i, ok := cellIdx[cell.Challenge+"/"+cell.Agent]; ok {
				ck.Cells[i].Printed3 = cell.PrintedPercentile
			}
			if v, err := strconv.ParseFloat(strings.TrimSuffix(cell.PrintedPercentile, "%"), 64); err == nil {
				t3sum[cell.Agent] += v
			}
		}
		if full && cell.Value != "FAIL" {
			ck.checkPrimaryValue(rec.Appendix, c, cell, base)
		}
		ck.checkSummaryPercentile(c, cell, r, base, full)
	}
	return t3sum
}

// checkPrimaryValue compares the primary value printed in a summary cell
// with the full S-table value it rounds.
func (ck *Check) checkPrimaryValue(a paper.Appendix, c *config.Challenge, cell paper.Cell, base Comparison) {
	sv := ""
	for _, ar := range a.Runs {
		if ar.Challenge == cell.Challenge && ar.Agent == cell.Agent {
			sv = ar.Values[c.PrimaryMetric]
		}
	}
	if sv != "" && cell.Setting == a.Setting && cell.Backend == a.Backend {
		lo1, hi1 := printedInterval(sv)
		lo2, hi2 := printedInterval(cell.Value)
		svf, _ := strconv.ParseFloat(sv, 64)
		same := strconv.FormatFloat(svf, 'f', decimals(cell.Value), 64) == cell.Value
		overlap := math.Max(lo1, lo2) < math.Min(hi1, hi2)
		if cell.Table == "3" {
			ck.Table3Values.add(overlap)
		}
		x := base.with(KindValue, sv, cell.Value)
		switch {
		case same:
		case overlap:
			x.Class, x.Why = ClassRounding, fmt.Sprintf("an unrounded value in [%g, %g) prints as both", math.Max(lo1, lo2), math.Min(hi1, hi2))
		default:
			x.Class, x.Why = ClassInconsistency, fmt.Sprintf("the S-table prints %s; no unrounded value prints as both", sv)
		}
		ck.record(x)
	}
}

// checkSummaryPercentile compares a summary cell's printed percentile with
// the computed one, or, where only the primary value is recorded, with
// those it can reach.
func (ck *Check) checkSummaryPercentile(c *config.Challenge, cell paper.Cell, r *Ranked, base Comparison, full bool) {
	switch {
	case full:
		got := rank.FormatPercent(r.Result.ExactPercent(), 0)
		ok := got == cell.PrintedPercentile
		if cell.Table == "3" {
			ck.Table3Percentiles.add(ok)
		} else {
			ck.SummaryRows.add(ok)
		}
		x := base.with(KindPercentile, got, cell.PrintedPercentile)
		if !ok {
			x.Class, x.Why = ClassInconsistency, fmt.Sprintf("S-table values give mean rank %s", pyRound2(r.Result.MeanRank))
		}
		ck.record(x)
	case cell.Value == "FAIL" || r.Result.Status == rank.Fail && !r.Partial:
		ok := cell.PrintedPercentile == ""
		if cell.Table == "3" {
			ck.Table3Percentiles.add(ok)
		} else {
			ck.SummaryRows.add(ok)
		}
		x := base.with(KindPercentile, "FAIL", cell.PrintedPercentile)
		if !ok {
			x.Class, x.Why = ClassInconsistency, "the run failed: "+r.Result.Reason
		}
		ck.record(x)
	default:
		// Only the 2-decimal primary value is known: which printed percentiles can it reach?
		class, reach, why := reachable(c, cell)
		ck.SummaryRows.add(class != ClassInconsistency)
		x := base.with(KindPercentile, reach, cell.PrintedPercentile)
		x.Class, x.Why = class, why
		ck.record(x)
	}
}

// checkOverall compares each agent's printed overall mean percentile with
// the exact mean and with the paper's method (the mean of Table 3's
// whole-number percentiles), explaining a difference where it can.
func (ck *Check) checkOverall(b *config.Benchmark, rec *paper.Recorded, o *Outcome, t3sum map[string]float64) {
	for _, ov := range rec.Summary.Overall {
		var g *Group
		for _, x := range o.Groups {
			if x.Source == paper.Source && x.Setting == ov.Setting && x.Backend == ov.Backend && x.Agent == ov.Agent {
				g = x
			}
		}
		if g == nil {
			continue
		}
		oc := OverallCheck{Table: ov.Table, Setting: ov.Setting, Backend: ov.Backend, Agent: ov.Agent, Exact: g.Overall, PaperMethod: math.NaN(), Printed: ov.Printed}
		if g.NPartial == 0 {
			var sum float64
			for _, p := range g.PerChallenge {
				whole, _ := rank.RoundHalfUp(new(big.Rat).SetFloat64(100*p), 0).Float64()
				sum += whole
			}
			oc.PaperMethod = sum / float64(g.NChallenges) / 100
		}
		ck.Overall = append(ck.Overall, oc)
		exact := fmt.Sprintf("%.2f%%", 100*oc.Exact)
		pm := fmt.Sprintf("%.2f%%", 100*oc.PaperMethod)
		base := Comparison{Table: ov.Table, Agent: ov.Agent, Setting: ov.Setting, Backend: ov.Backend,
			Where: fmt.Sprintf("Table %s, overall mean percentile, %s", ov.Table, agentName(b, ov.Agent))}
		printedV, _ := strconv.ParseFloat(strings.TrimSuffix(ov.Printed, "%"), 64)
		var x Comparison
		switch {
		case g.NPartial > 0:
			x = partialOverall(base, g, rec, ov, printedV)
		case fmt.Sprintf("%.2f", 100*oc.Exact) == fmt.Sprintf("%.2f", printedV):
			x = base.with(KindOverall, exact, ov.Printed)
		case pm == ov.Printed || fmt.Sprintf("%.2f", 100*oc.PaperMethod) == fmt.Sprintf("%.2f", printedV):
			x = base.with(KindOverall, exact, ov.Printed)
			x.Class, x.Why = ClassRounding, fmt.Sprintf("the paper averages whole-number percentiles: the mean of the computed whole-number percentiles is %s; the exact mean is %s", pm, exact)
		default:
			x = base.with(KindOverall, exact, ov.Printed)
			why := fmt.Sprintf("neither the exact mean (%s) nor the mean of the computed whole-number percentiles (%s) gives it", exact, pm)
			if s, ok := t3sum[ov.Agent]; ok && ov.Table == "3" && g.NChallenges > 0 {
				why += fmt.Sprintf("; the whole-number percentiles printed in Table 3 average %.2f%%", s/float64(g.NChallenges))
				for n := g.NChallenges - 3; n <= g.NChallenges+3; n++ {
					if n > 0 && n != g.NChallenges && fmt.Sprintf("%.2f", s/float64(n)) == fmt.Sprintf("%.2f", printedV) {
						why += fmt.Sprintf("; it equals the sum of the printed Table 3 percentiles (%g) divided by %d instead of %d", s, n, g.NChallenges)
					}
				}
			}
			x.Class, x.Why = ClassInconsistency, why
		}
		ck.record(x)
	}
}

// partialOverall explains an overall mean over challenges of which some
// have only the primary metric recorded: the printed value is compared with
// the mean of the table's printed percentiles and with the reachable range.
func partialOverall(base Comparison, g *Group, rec *paper.Recorded, ov paper.OverallRow, printedV float64) Comparison {
	lo, hi := 100*g.OverallLo, 100*g.OverallHi
	x := base.with(KindOverall, fmt.Sprintf("%.2f–%.2f%%", lo, hi), ov.Printed)
	var sum float64
	var n int
	for _, cell := range rec.Summary.Cells {
		if cell.Table == ov.Table && cell.Setting == ov.Setting && cell.Backend == ov.Backend && cell.Agent == ov.Agent {
			v, _ := strconv.ParseFloat(strings.TrimSuffix(cell.PrintedPercentile, "%"), 64)
			sum += v
			n++
		}
	}
	switch {
	case n > 0 && math.Abs(sum/float64(n)-printedV) < 1e-9:
		x.Class, x.Why = ClassUndetermined, fmt.Sprintf("%d of %d challenges have only the primary metric recorded; the printed value is the mean of the table's %d printed whole-number percentiles, each consistent with its recorded value", g.NPartial, g.NChallenges, n)
	case printedV >= lo-1e-9 && printedV <= hi+1e-9:
		x.Class, x.Why = ClassUndetermined, fmt.Sprintf("%d of %d challenges have only the primary metric recorded; the printed value lies in the reachable range", g.NPartial, g.NChallenges)
	default:
		x.Class, x.Why = ClassInconsistency, fmt.Sprintf("%d of %d challenges have only the primary metric recorded; the printed value lies outside the reachable range", g.NPartial, g.NChallenges)
	}
	return x
}

// WhyReachable is the reason given for a primary-only row whose printed
// percentile some positions of the unrecorded metrics reach.
const WhyReachable = "only the primary metric is recorded; positions of the other metrics exist that give the printed percentile"

// reachable checks a primary-only row: the primary value is known to its
// printed decimals, every other metric's position is unknown in [1, N+1]. It
// returns the class of the printed percentile (a match when only it is
// reachable, undetermined when it is one of several, an inconsistency when it
// is not reachable), the reachable whole-number percentiles as text, and why.
func reachable(c *config.Challenge, cell paper.Cell) (class, reach, why string) {
	m, _ := c.Metric(c.PrimaryMetric)
	lo, hi := printedInterval(cell.Value)
	col := make([]float64, len(c.Leaderboard))
	for i, e := range c.Leaderboard {
		col[i] = e.Values[m.Name]
	}
	// positions reachable by values in [lo, hi): the interval ends and every leaderboard value inside.
	cands := []float64{lo, math.Nextafter(hi, math.Inf(-1))}
	for _, v := range col {
		if v >= lo && v < hi {
			cands = append(cands, v, math.Nextafter(v, math.Inf(1)), math.Nextafter(v, math.Inf(-1)))
		}
	}
	posSet := map[int]bool{}
	for _, v := range cands {
		if v < lo || v >= hi {
			continue
		}
		p, _ := rank.Position(v, col, m.HigherBetter())
		posSet[p] = true
	}
	k, n := len(c.Metrics), len(c.Leaderboard)
	printed := strings.TrimSuffix(cell.PrintedPercentile, "%")
	seen := map[int]bool{}
	found := false
	for p := range posSet {
		// every sum of the other k−1 positions in [k−1, (k−1)(N+1)]
		for rest := k - 1; rest <= (k-1)*(n+1); rest++ {
			res := rank.Result{Status: rank.OK, PosSum: p + rest, K: k, N: n}
			s := strings.TrimSuffix(rank.FormatPercent(res.ExactPercent(), 0), "%")
			v, _ := strconv.Atoi(s)
			seen[v] = true
			if s == printed {
				found = true
			}
		}
	}
	vals := make([]int, 0, len(seen))
	for v := range seen {
		vals = append(vals, v)
	}
	sort.Ints(vals)
	switch {
	case len(vals) == 1:
		reach = fmt.Sprintf("%d%%", vals[0])
	case len(vals) <= 3:
		parts := make([]string, len(vals))
		for i, v := range vals {
			parts[i] = fmt.Sprintf("%d%%", v)
		}
		reach = strings.Join(parts, " or ")
	default:
		reach = fmt.Sprintf("%d–%d%%", vals[0], vals[len(vals)-1])
	}
	switch {
	case !found:
		return ClassInconsistency, reach, fmt.Sprintf("no positions of the other metrics give %s with %s = %s", cell.PrintedPercentile, m.Name, cell.Value)
	case len(vals) == 1:
		return ClassMatch, reach, ""
	case k == 1:
		return ClassUndetermined, reach, fmt.Sprintf("the printed value %s allows positions giving %s: it depends on undisplayed digits", cell.Value, reach)
	}
	return ClassUndetermined, reach, WhyReachable
}
