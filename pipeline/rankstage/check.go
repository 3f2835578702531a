package rankstage

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/rexmle/rexmle/metrics/num"
	"github.com/rexmle/rexmle/pipeline/config"
	"github.com/rexmle/rexmle/pipeline/paper"
	"github.com/rexmle/rexmle/pipeline/rank"
)

// Classes of disagreement between the computation and the paper.
const (
	ClassRounding      = "rounding"      // the printed value is a rounding of what we compute
	ClassInconsistency = "inconsistency" // no rounding explains it: the paper contradicts itself
	ClassUndetermined  = "undetermined"  // the printed digits do not decide it
)

// Disagreement is one place where the computed and printed numbers differ.
type Disagreement struct {
	Where    string // e.g. "Table 3, TopCoW-CTA-Seg, ML-Master, percentile"
	Computed string
	Printed  string
	Class    string
	Why      string
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
	Disagreements                     []Disagreement
	Cells                             []CellCheck // per challenge × agent, S-table runs
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
	a := rec.Appendix
	// S1–S20.
	for _, ar := range a.Runs {
		r := byID[paper.RunID(a.Setting, a.Backend, ar.Challenge, ar.Agent)]
		if r == nil {
			continue
		}
		c, _ := b.Challenge(ar.Challenge)
		where := fmt.Sprintf("%s, %s, %s", ar.Table, c.ShortName, agentName(b, ar.Agent))
		for m, p := range ar.PrintedPositions {
			got := r.Result.Positions[m]
			ck.Positions.add(got == p)
			if got != p {
				ck.Disagreements = append(ck.Disagreements, Disagreement{Where: where + ", position of " + m,
					Computed: strconv.Itoa(got), Printed: strconv.Itoa(p), Class: ClassInconsistency,
					Why: "the printed value ranks elsewhere among the leaderboard rows"})
			}
		}
		comp := "FAIL"
		if r.Result.Status == rank.OK {
			comp = pyRound2(r.Result.MeanRank)
		}
		if ar.PrintedMeanRank != "FAIL" || comp != "FAIL" {
			ck.MeanRanks.add(comp == ar.PrintedMeanRank)
			if comp != ar.PrintedMeanRank {
				ck.Disagreements = append(ck.Disagreements, Disagreement{Where: where + ", mean rank", Computed: comp, Printed: ar.PrintedMeanRank, Class: ClassInconsistency})
			}
		}
		pct := "FAIL"
		if r.Result.Status == rank.OK {
			pct = rank.FormatPercent(r.Result.ExactPercent(), 1)
		}
		ck.Percentiles.add(pct == ar.PrintedPercentile)
		if pct != ar.PrintedPercentile {
			ck.Disagreements = append(ck.Disagreements, Disagreement{Where: where + ", percentile", Computed: pct, Printed: ar.PrintedPercentile, Class: ClassInconsistency})
		}
		ck.Cells = append(ck.Cells, CellCheck{Challenge: ar.Challenge, Agent: ar.Agent, Computed: pct, PrintedS: ar.PrintedPercentile})
	}
	// Tables 3, 4, 5.
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
		where := fmt.Sprintf("Table %s (%s, %s), %s, %s", cell.Table, cell.Setting, cell.Backend, c.ShortName, agentName(b, cell.Agent))
		full := r.Result.Status == rank.OK && !primaryOnly(r.Run)
		if cell.Table == "3" {
			if i, ok := cellIdx[cell.Challenge+"/"+cell.Agent]; ok {
				ck.Cells[i].Printed3 = cell.PrintedPercentile
			}
			if v, err := strconv.ParseFloat(strings.TrimSuffix(cell.PrintedPercentile, "%"), 64); err == nil {
				t3sum[cell.Agent] += v
			}
		}
		// The primary value printed beside the full S-table value.
		if full && cell.Value != "FAIL" {
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
				switch {
				case same:
				case overlap:
					ck.Disagreements = append(ck.Disagreements, Disagreement{Where: where + ", value", Computed: sv, Printed: cell.Value, Class: ClassRounding,
						Why: fmt.Sprintf("an unrounded value in [%g, %g) prints as both", math.Max(lo1, lo2), math.Min(hi1, hi2))})
				default:
					ck.Disagreements = append(ck.Disagreements, Disagreement{Where: where + ", value", Computed: sv, Printed: cell.Value, Class: ClassInconsistency,
						Why: fmt.Sprintf("the S-table prints %s; no unrounded value prints as both", sv)})
				}
			}
		}
		// The percentile.
		switch {
		case full:
			got := rank.FormatPercent(r.Result.ExactPercent(), 0)
			ok := got == cell.PrintedPercentile
			if cell.Table == "3" {
				ck.Table3Percentiles.add(ok)
			} else {
				ck.SummaryRows.add(ok)
			}
			if !ok {
				ck.Disagreements = append(ck.Disagreements, Disagreement{Where: where + ", percentile", Computed: got, Printed: cell.PrintedPercentile,
					Class: ClassInconsistency, Why: fmt.Sprintf("S-table values give mean rank %s", pyRound2(r.Result.MeanRank))})
			}
		case cell.Value == "FAIL" || r.Result.Status == rank.Fail && !r.Partial:
			ok := cell.PrintedPercentile == ""
			if cell.Table == "3" {
				ck.Table3Percentiles.add(ok)
			} else {
				ck.SummaryRows.add(ok)
			}
		default:
			// Only the 2-decimal primary value is known: which printed percentiles can it reach?
			okRange, why := reachable(c, cell)
			ck.SummaryRows.add(okRange)
			cls := ClassUndetermined
			if !okRange {
				cls = ClassInconsistency
			}
			if !okRange || strings.Contains(why, "depends") {
				ck.Disagreements = append(ck.Disagreements, Disagreement{Where: where + ", percentile", Computed: "—", Printed: cell.PrintedPercentile, Class: cls, Why: why})
			}
		}
	}
	// Overall means.
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
		where := fmt.Sprintf("Table %s, overall mean percentile, %s", ov.Table, agentName(b, ov.Agent))
		printedV, _ := strconv.ParseFloat(strings.TrimSuffix(ov.Printed, "%"), 64)
		switch {
		case g.NPartial > 0:
			lo, hi := 100*g.OverallLo, 100*g.OverallHi
			var sum float64
			var n int
			for _, cell := range rec.Summary.Cells {
				if cell.Table == ov.Table && cell.Setting == ov.Setting && cell.Backend == ov.Backend && cell.Agent == ov.Agent {
					v, _ := strconv.ParseFloat(strings.TrimSuffix(cell.PrintedPercentile, "%"), 64)
					sum += v
					n++
				}
			}
			if n > 0 && math.Abs(sum/float64(n)-printedV) < 1e-9 {
				ck.Disagreements = append(ck.Disagreements, Disagreement{Where: where, Computed: fmt.Sprintf("%.2f–%.2f%%", lo, hi), Printed: ov.Printed, Class: ClassUndetermined,
					Why: fmt.Sprintf("%d of %d challenges have only the primary metric recorded; the printed value is the mean of the table's %d printed whole-number percentiles, each consistent with its recorded value", g.NPartial, g.NChallenges, n)})
			} else if printedV >= lo-1e-9 && printedV <= hi+1e-9 {
				ck.Disagreements = append(ck.Disagreements, Disagreement{Where: where, Computed: fmt.Sprintf("%.2f–%.2f%%", lo, hi), Printed: ov.Printed, Class: ClassUndetermined,
					Why: fmt.Sprintf("%d of %d challenges have only the primary metric recorded; the printed value lies in the reachable range", g.NPartial, g.NChallenges)})
			} else {
				ck.Disagreements = append(ck.Disagreements, Disagreement{Where: where, Computed: fmt.Sprintf("%.2f–%.2f%%", lo, hi), Printed: ov.Printed, Class: ClassInconsistency})
			}
		case fmt.Sprintf("%.2f", 100*oc.Exact) == fmt.Sprintf("%.2f", printedV):
		case pm == ov.Printed || fmt.Sprintf("%.2f", 100*oc.PaperMethod) == fmt.Sprintf("%.2f", printedV):
			ck.Disagreements = append(ck.Disagreements, Disagreement{Where: where, Computed: exact, Printed: ov.Printed, Class: ClassRounding,
				Why: fmt.Sprintf("the paper averages Table 3's whole-number percentiles (%s); the exact mean is %s", pm, exact)})
		default:
			why := fmt.Sprintf("neither the exact mean (%s) nor the mean of Table 3's whole numbers (%s) gives it", exact, pm)
			if s, ok := t3sum[ov.Agent]; ok {
				for n := g.NChallenges - 3; n <= g.NChallenges+3; n++ {
					if n > 0 && n != g.NChallenges && fmt.Sprintf("%.2f", s/float64(n)) == fmt.Sprintf("%.2f", printedV) {
						why += fmt.Sprintf("; it equals the sum of the printed Table 3 percentiles (%g) divided by %d instead of %d", s, n, g.NChallenges)
					}
				}
			}
			ck.Disagreements = append(ck.Disagreements, Disagreement{Where: where, Computed: exact, Printed: ov.Printed, Class: ClassInconsistency, Why: why})
		}
	}
	return ck
}

// reachable checks a primary-only row: the primary value is known to two
// printed decimals, every other metric's position is unknown in [1, N+1].
func reachable(c *config.Challenge, cell paper.Cell) (bool, string) {
	m, _ := c.Metric(c.PrimaryMetric)
	lo, hi := printedInterval(cell.Value)
	col := make([]float64, len(c.Leaderboard))
	for i, e := range c.Leaderboard {
		col[i] = e.Values[m.Name]
	}
	// positions reachable by values in [lo, hi): check the interval ends and every leaderboard value inside.
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
	var reach []string
	found := false
	for p := range posSet {
		// every sum of the other k−1 positions in [k−1, (k−1)(N+1)]
		for rest := k - 1; rest <= (k-1)*(n+1); rest++ {
			res := rank.Result{Status: rank.OK, PosSum: p + rest, K: k, N: n}
			s := strings.TrimSuffix(rank.FormatPercent(res.ExactPercent(), 0), "%")
			if s == printed {
				found = true
			}
			if k == 1 {
				reach = append(reach, s+"%")
			}
		}
	}
	if k == 1 && len(posSet) > 1 {
		return found, fmt.Sprintf("the printed value %s allows positions giving %s: it depends on undisplayed digits", cell.Value, strings.Join(reach, " or "))
	}
	if found {
		return true, "reachable"
	}
	return false, fmt.Sprintf("no positions of the other metrics give %s with %s = %s", cell.PrintedPercentile, m.Name, cell.Value)
}
