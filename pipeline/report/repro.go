package report

import (
	"fmt"
	"math"
	"math/big"
	"sort"
	"strconv"
	"strings"

	"github.com/rexmle/rexmle/pipeline/rank"
)

// Classes of comparison between a computed number and the paper's print.
const (
	classMatch         = "match"         // the computed number prints as the paper printed it
	classRounding      = "rounding"      // both are roundings of one unrounded value
	classInconsistency = "inconsistency" // no rounding explains it
	classUndetermined  = "undetermined"  // the printed digits do not decide it
)

// check is one comparison of a computed number with a printed one.
type check struct {
	Table, Challenge, Agent, Setting, Backend, What string
	Computed, Printed, Class, Why                   string
}

func (c check) where() string {
	s := "Table " + c.Table
	if c.Challenge != "" {
		s += ", " + c.Challenge
	}
	return s + ", " + c.Agent + ", " + c.What
}

// badge returns the cell badge for a check.
func (c *check) badge() (text, class, title string) {
	if c == nil {
		return "", "", ""
	}
	switch c.Class {
	case classMatch:
		return "✓ matches", "ok", "computed " + c.Computed + ", printed " + c.Printed
	case classRounding:
		return "≈ rounding", "warn", c.Why
	case classUndetermined:
		return "? undetermined", "warn", c.Why
	}
	why := c.Why
	if why == "" {
		why = "computed " + c.Computed + ", printed " + c.Printed
	}
	return "✗ differs", "bad", why
}

// printedInterval is the interval of values that print as s.
func printedInterval(s string) (lo, hi float64, ok bool) {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, 0, false
	}
	h := 0.5 * math.Pow(10, -float64(decimalsOf(s)))
	return v - h, v + h, true
}

// compareText classifies computed vs printed numbers given as text: equal
// text matches; overlapping print intervals are a rounding; else inconsistent.
func compareText(computed, printed string) (string, string) {
	if computed == printed {
		return classMatch, ""
	}
	lo1, hi1, ok1 := printedInterval(strings.TrimSuffix(computed, "%"))
	lo2, hi2, ok2 := printedInterval(strings.TrimSuffix(printed, "%"))
	if ok1 && ok2 && math.Max(lo1, lo2) < math.Min(hi1, hi2) {
		return classRounding, fmt.Sprintf("an unrounded value in [%g, %g) prints as both", math.Max(lo1, lo2), math.Min(hi1, hi2))
	}
	return classInconsistency, ""
}

// reproduction is every comparison, indexed for the tables that show badges.
type reproduction struct {
	Checks  []check
	Primary map[string]*check // run id + "/" + table → percentile check of Tables 3–5
	STable  map[string]*check // run id → S-table percentile check
	Overall map[string]*check // table/setting/backend/agent → overall check
}

// reproduce compares the stored computation with the paper's printed
// numbers (tables printed and printed_overall). S-tables: each printed
// position, the mean rank (two decimals) and the percentile (one decimal,
// half-up from the exact position sum). Tables 3–5: the whole-number
// percentile; runs known only by their primary metric are checked against
// the percentile range the unknown positions allow; the primary value is
// checked against the S-table's print of the same run. Overall means: the
// exact mean, then the paper's method (mean of whole-number percentiles).
func (s *site) reproduce() *reproduction {
	rp := &reproduction{Primary: map[string]*check{}, STable: map[string]*check{}, Overall: map[string]*check{}}
	add := func(c check) *check {
		rp.Checks = append(rp.Checks, c)
		return &rp.Checks[len(rp.Checks)-1]
	}
	var idx []struct {
		key  string
		kind string
		i    int
	}
	for _, r := range s.data.Runs {
		if len(r.Printed) == 0 {
			continue
		}
		ch := s.shortName(r.Challenge)
		agent := s.agentName(r.Agent)
		tbls := make([]string, 0, len(r.Printed))
		for t := range r.Printed {
			tbls = append(tbls, t)
		}
		sort.Strings(tbls)
		for _, t := range tbls {
			pr := r.Printed[t]
			base := check{Table: t, Challenge: ch, Agent: agent, Setting: r.Setting, Backend: r.Backend}
			if strings.HasPrefix(t, "S") {
				keys := make([]string, 0, len(pr))
				for k := range pr {
					keys = append(keys, k)
				}
				sort.Strings(keys)
				for _, k := range keys {
					p := pr[k]
					c := base
					switch {
					case strings.HasPrefix(k, "position:"):
						m := strings.TrimPrefix(k, "position:")
						c.What = "position of " + m
						if got, ok := r.Positions[m]; ok {
							c.Computed = strconv.Itoa(got)
						} else {
							c.Computed = "—"
						}
						c.Printed = p
						c.Class = classMatch
						if c.Computed != p {
							c.Class, c.Why = classInconsistency, "the printed value ranks elsewhere among the leaderboard rows"
						}
					case k == "mean_rank":
						c.What, c.Printed = "mean rank", p
						c.Computed = "FAIL"
						if r.ok() {
							c.Computed = fmtMeanRank(r.MeanRank)
						}
						c.Class, c.Why = compareText(c.Computed, p)
						if c.Class == classRounding {
							c.Class = classInconsistency // positions are integers: the mean rank is exact
							c.Why = ""
						}
					case k == "percentile":
						c.What, c.Printed = "percentile", p
						c.Computed = runPct(r, 1)
						c.Class = classMatch
						if c.Computed != p {
							c.Class = classInconsistency
							c.Why = fmt.Sprintf("computed from position sum %d over %d metrics and %d rows", r.PosSum, r.K, r.N)
						}
						ptr := add(c)
						idx = append(idx, struct {
							key, kind string
							i         int
						}{r.ID, "S", len(rp.Checks) - 1})
						_ = ptr
						continue
					default:
						continue // printed metric values are the recorded input, not a computation
					}
					add(c)
				}
				continue
			}
			// Tables 3, 4, 5.
			if p, ok := pr["primary"]; ok && p != "FAIL" && p != "" {
				if sv := s.sPrinted(r); sv != "" {
					c := base
					c.What, c.Computed, c.Printed = "primary value (S-table print)", sv, p
					c.Class, c.Why = compareText(sv, p)
					if c.Class == classRounding || c.Class == classMatch {
						lo1, hi1, _ := printedInterval(sv)
						lo2, hi2, _ := printedInterval(p)
						if c.Class == classMatch || strconv.FormatFloat(mustFloat(sv), 'f', decimalsOf(p), 64) == p {
							c.Class, c.Why = classMatch, ""
						} else {
							c.Why = fmt.Sprintf("an unrounded value in [%g, %g) prints as both", math.Max(lo1, lo2), math.Min(hi1, hi2))
						}
					} else {
						c.Why = fmt.Sprintf("the S-table prints %s; no unrounded value prints as both", sv)
					}
					add(c)
				}
			}
			p, ok := pr["percentile"]
			if !ok {
				continue
			}
			c := base
			c.What, c.Printed = "percentile", p
			switch {
			case r.ok():
				c.Computed = runPct(r, 0)
				c.Class = classMatch
				if c.Computed != p {
					c.Class = classInconsistency
					c.Why = fmt.Sprintf("the stored positions give mean rank %s", fmtMeanRank(r.MeanRank))
				}
			case r.partial():
				c.Computed = runPct(r, 0)
				if s.reachable(r, pr["primary"], p) {
					c.Class = classUndetermined
					c.Why = "only the primary metric is recorded; positions of the other metrics exist that give the printed percentile"
				} else {
					c.Class = classInconsistency
					c.Why = "only the primary metric is recorded, and no positions of the other metrics reach the printed percentile"
				}
			default:
				c.Computed = ""
				if r.Ranked {
					c.Computed = "FAIL"
				}
				c.Class = classMatch
				if p != "" && p != "FAIL" && p != "0%" {
					c.Class = classInconsistency
					c.Why = "the run failed: " + r.Reason
				}
			}
			add(c)
			idx = append(idx, struct {
				key, kind string
				i         int
			}{r.ID + "/" + t, "P", len(rp.Checks) - 1})
		}
	}
	// Overall means.
	for _, o := range s.data.Overall {
		g := s.group(groupKey{"paper", o.Setting, o.Backend, o.Agent})
		if g == nil {
			continue
		}
		c := check{Table: o.Table, Agent: s.agentName(o.Agent), Setting: o.Setting, Backend: o.Backend, What: "overall mean percentile (" + o.Setting + ", " + o.Backend + ")", Printed: o.Text}
		pv, err := strconv.ParseFloat(strings.TrimSuffix(o.Text, "%"), 64)
		switch {
		case len(g.Partial) > 0:
			c.Computed = pctRange(g.Lo, g.Hi, 2)
			if m, n := s.printedCellMean(o); err == nil && n > 0 && fmt.Sprintf("%.2f", m) == fmt.Sprintf("%.2f", pv) {
				c.Class = classUndetermined
				c.Why = fmt.Sprintf("%d of %d challenges have only the primary metric recorded; the printed value is the mean of the table's %d printed whole-number percentiles", len(g.Partial), g.NChallenges, n)
			} else if err == nil && pv >= 100*g.Lo-0.005 && pv <= 100*g.Hi+0.005 {
				c.Class = classUndetermined
				c.Why = fmt.Sprintf("%d of %d challenges have only the primary metric recorded; the printed value lies in the reachable range", len(g.Partial), g.NChallenges)
			} else {
				c.Class = classInconsistency
				c.Why = fmt.Sprintf("%d of %d challenges have only the primary metric recorded; the printed value lies outside the reachable range", len(g.Partial), g.NChallenges)
			}
		default:
			c.Computed = fmtFrac(g.Overall, 2)
			pm := paperMethod(g)
			switch {
			case err == nil && fmt.Sprintf("%.2f", 100*g.Overall) == fmt.Sprintf("%.2f", pv):
				c.Class = classMatch
			case err == nil && fmt.Sprintf("%.2f", 100*pm) == fmt.Sprintf("%.2f", pv):
				c.Class = classRounding
				c.Why = fmt.Sprintf("the paper averages whole-number percentiles (%.2f%%); the exact mean is %.2f%%", 100*pm, 100*g.Overall)
			default:
				c.Class = classInconsistency
				c.Why = fmt.Sprintf("neither the exact mean (%.2f%%) nor the mean of whole-number percentiles (%.2f%%) gives it", 100*g.Overall, 100*pm)
				if sum, n := s.printedCellMean(o); n > 0 && err == nil {
					sum *= float64(n)
					for d := g.NChallenges - 3; d <= g.NChallenges+3; d++ {
						if d > 0 && d != g.NChallenges && fmt.Sprintf("%.2f", sum/float64(d)) == fmt.Sprintf("%.2f", pv) {
							c.Why += fmt.Sprintf("; it equals the sum of the table's printed percentiles (%g) divided by %d instead of %d", sum, d, g.NChallenges)
						}
					}
				}
			}
		}
		add(c)
		idx = append(idx, struct {
			key, kind string
			i         int
		}{o.Table + "/" + o.Setting + "/" + o.Backend + "/" + o.Agent, "O", len(rp.Checks) - 1})
	}
	for _, x := range idx {
		c := &rp.Checks[x.i]
		switch x.kind {
		case "S":
			rp.STable[x.key] = c
		case "P":
			rp.Primary[x.key] = c
		case "O":
			rp.Overall[x.key] = c
		}
	}
	return rp
}

func mustFloat(s string) float64 {
	v, _ := strconv.ParseFloat(s, 64)
	return v
}

// paperMethod is the mean over the group's challenges of the per-challenge
// percentiles first rounded half-up to whole percents, as the paper averages.
func paperMethod(g *group) float64 {
	chs := make([]string, 0, len(g.PerChallenge))
	for ch := range g.PerChallenge {
		chs = append(chs, ch)
	}
	sort.Strings(chs)
	var sum float64
	for _, ch := range chs {
		w, _ := rank.RoundHalfUp(new(big.Rat).SetFloat64(100*g.PerChallenge[ch]), 0).Float64()
		sum += w
	}
	return sum / float64(g.NChallenges) / 100
}

// sPrinted is the S-table print of the run's primary metric ("" if none).
func (s *site) sPrinted(r *runData) string {
	c, ok := s.b.Challenge(r.Challenge)
	if !ok {
		return ""
	}
	for t, pr := range r.Printed {
		if strings.HasPrefix(t, "S") {
			if v, ok := pr[c.PrimaryMetric]; ok {
				return v
			}
		}
	}
	return ""
}

// printedCellMean is the mean of the printed whole-number percentiles of the
// table's cells for the overall row's configuration (a FAIL or empty cell
// counts 0), and how many cells there are.
func (s *site) printedCellMean(o overallPrinted) (float64, int) {
	var sum float64
	var n int
	for _, r := range s.data.Runs {
		if r.Source != "paper" || r.Setting != o.Setting || r.Backend != o.Backend || r.Agent != o.Agent {
			continue
		}
		pr, ok := r.Printed[o.Table]
		if !ok {
			continue
		}
		v, _ := strconv.ParseFloat(strings.TrimSuffix(pr["percentile"], "%"), 64)
		sum += v
		n++
	}
	if n == 0 {
		return 0, 0
	}
	return sum / float64(n), n
}

// reachable reports whether a run known only by its printed primary value
// can have the printed whole-number percentile. The primary metric's
// position is any position of a value that prints as primary (its printed
// interval [v − h, v + h), h half a unit of the last digit); each of the
// other K − 1 positions is unknown in [1, N + 1], so their sum is any
// integer in [K − 1, (K − 1)(N + 1)]. The percentile of position sum S is
// 100·(NK − S + K)/(NK), printed half-up with no decimals.
func (s *site) reachable(r *runData, primary, printedPct string) bool {
	c, ok := s.b.Challenge(r.Challenge)
	if !ok || r.K == 0 || r.N == 0 {
		return false
	}
	m, ok := c.Metric(c.PrimaryMetric)
	if !ok {
		return false
	}
	col := make([]float64, len(c.Leaderboard))
	for i, e := range c.Leaderboard {
		col[i] = e.Values[m.Name]
	}
	lo, hi, ok := printedInterval(primary)
	if !ok {
		return false
	}
	// Candidate values: the interval's ends and each leaderboard value inside it, with its neighbours.
	cands := []float64{lo, math.Nextafter(hi, math.Inf(-1))}
	for _, v := range col {
		if v >= lo && v < hi {
			cands = append(cands, v, math.Nextafter(v, math.Inf(1)), math.Nextafter(v, math.Inf(-1)))
		}
	}
	positions := map[int]bool{}
	for _, v := range cands {
		if v < lo || v >= hi {
			continue
		}
		if p, err := rank.Position(v, col, m.HigherBetter()); err == nil {
			positions[p] = true
		}
	}
	k, n := r.K, r.N
	for p := range positions {
		for rest := k - 1; rest <= (k-1)*(n+1); rest++ {
			res := rank.Result{Status: rank.OK, PosSum: p + rest, K: k, N: n}
			if rank.FormatPercent(res.ExactPercent(), 0) == printedPct {
				return true
			}
		}
	}
	return false
}
