package rankstage

import (
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"

	"github.com/rexmle/rexmle/pipeline/config"
	"github.com/rexmle/rexmle/pipeline/paper"
	"github.com/rexmle/rexmle/pipeline/rank"
)

// Print writes the reproduction table: per challenge × agent the computed
// percentile beside the paper's printed ones, the overall means, new runs,
// and every disagreement with its class.
func Print(w io.Writer, b *config.Benchmark, o *Outcome) {
	if ck := o.Check; ck != nil {
		printCells(w, b, ck)
		printOverall(w, b, ck)
		printDisagreements(w, ck)
	}
	// New runs beside the paper's.
	var newGroups []*Group
	for _, g := range o.Groups {
		if g.Source != paper.Source {
			newGroups = append(newGroups, g)
		}
	}
	if len(newGroups) > 0 {
		printNewRuns(w, b, newGroups)
		if s := o.Stability; s != nil && len(s.Pairs) > 0 {
			printPairwise(w, s)
		}
		fails := 0
		for _, r := range o.Runs {
			if r.Run.Source != paper.Source && r.Result.Status == rank.Fail {
				fails++
			}
		}
		if fails > 0 {
			fmt.Fprintf(w, "%d new run(s) failed to rank (see results/ranks.csv, column reason).\n", fails)
		}
	}
}

// printCells writes per challenge × agent the computed percentile beside
// the S-table's and Table 3's, marked where they differ, and the counts of
// what reproduces.
func printCells(w io.Writer, b *config.Benchmark, ck *Check) {
	agents := []string{}
	seen := map[string]bool{}
	for _, c := range ck.Cells {
		if !seen[c.Agent] {
			seen[c.Agent] = true
			agents = append(agents, c.Agent)
		}
	}
	cell := map[string]CellCheck{}
	for _, c := range ck.Cells {
		cell[c.Challenge+"/"+c.Agent] = c
	}
	fmt.Fprintln(w, "Reproduction of the paper (Tables S1–S20 and 3; 24 h, GPT-5): computed percentile | S-table | Table 3")
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	hdr := []string{"challenge"}
	for _, a := range agents {
		hdr = append(hdr, agentName(b, a))
	}
	fmt.Fprintln(tw, strings.Join(hdr, "\t"))
	for _, c := range b.Challenges {
		row := []string{c.ShortName}
		for _, a := range agents {
			x, ok := cell[c.ID+"/"+a]
			if !ok {
				row = append(row, "—")
				continue
			}
			mark := "✓"
			t3 := x.Printed3
			if t3 == "" {
				t3 = "–"
			}
			whole := strings.TrimSuffix(x.Computed, "%")
			if x.Computed != x.PrintedS {
				mark = "✗"
			} else if x.Computed != "FAIL" && x.Printed3 != roundWhole(whole) {
				mark = "✗3"
			}
			row = append(row, fmt.Sprintf("%s | %s | %s %s", x.Computed, x.PrintedS, t3, mark))
		}
		fmt.Fprintln(tw, strings.Join(row, "\t"))
	}
	tw.Flush()
	fmt.Fprintln(w)
	fmt.Fprintf(w, "S1–S20: %d/%d positions, %d/%d mean ranks, %d/%d percentiles reproduce; Table 3: %d/%d percentiles, %d/%d values; Tables 4–5: %d/%d rows consistent.\n\n",
		ck.Positions.Match, ck.Positions.Total, ck.MeanRanks.Match, ck.MeanRanks.Total, ck.Percentiles.Match, ck.Percentiles.Total,
		ck.Table3Percentiles.Match, ck.Table3Percentiles.Total, ck.Table3Values.Match, ck.Table3Values.Total, ck.SummaryRows.Match, ck.SummaryRows.Total)
}

// printOverall writes each printed overall mean percentile beside the
// computed ones (exact, and the paper's mean of whole-number cells).
func printOverall(w io.Writer, b *config.Benchmark, ck *Check) {
	fmt.Fprintln(w, "Overall mean percentile (ReX-MLE rank):")
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "table\tsetting\tbackend\tagent\texact\tmean of whole-number cells\tpaper")
	for _, oc := range ck.Overall {
		ex, pm := "—", "—"
		if !math.IsNaN(oc.Exact) {
			ex = fmt.Sprintf("%.2f%%", 100*oc.Exact)
		}
		if !math.IsNaN(oc.PaperMethod) {
			pm = fmt.Sprintf("%.2f%%", 100*oc.PaperMethod)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", oc.Table, oc.Setting, oc.Backend, agentName(b, oc.Agent), ex, pm, oc.Printed)
	}
	tw.Flush()
	fmt.Fprintln(w)
}

// printDisagreements writes every disagreement with the paper and its class
// (the Table 4/5 percentiles only consistent with their value are counted).
func printDisagreements(w io.Writer, ck *Check) {
	reachableOnly := 0
	for _, d := range ck.Disagreements {
		if d.Why == WhyReachable {
			reachableOnly++
		}
	}
	fmt.Fprintf(w, "Where the computation and the paper disagree (%d; %d more Table 4/5 percentiles are consistent with their recorded primary value but cannot be checked exactly, see the site's reproduction page):\n",
		len(ck.Disagreements)-reachableOnly, reachableOnly)
	for _, d := range ck.Disagreements {
		if d.Why == WhyReachable {
			continue
		}
		fmt.Fprintf(w, "  [%s] %s: computed %s, printed %s", d.Class, d.Label(), d.Computed, d.Printed)
		if d.Why != "" {
			fmt.Fprintf(w, " — %s", d.Why)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w)
}

// printNewRuns writes each new configuration's ReX-MLE rank with its
// bootstrap interval and seed summary.
func printNewRuns(w io.Writer, b *config.Benchmark, newGroups []*Group) {
	fmt.Fprintln(w, "New runs:")
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "source\tsetting\tagent\tchallenges\tReX-MLE rank\t95% bootstrap interval\tseeds (mean ± SE)")
	for _, g := range newGroups {
		ci, seeds := "—", "—"
		if gb := g.Boot; gb != nil {
			if !math.IsNaN(gb.Overall.Lo) {
				ci = fmt.Sprintf("%.2f–%.2f%% (B=%d, seed %d, %d run(s) fixed)", 100*gb.Overall.Lo, 100*gb.Overall.Hi, gb.NBoot, gb.BootSeed, gb.NFixed)
			}
			switch {
			case len(gb.Seeds) > 1:
				seeds = fmt.Sprintf("%d: %.2f ± %.2f%%, %d failed run(s)", len(gb.Seeds), 100*gb.SeedSummary.Mean, 100*gb.SeedSummary.SE, gb.FailedRuns)
			case len(gb.Seeds) == 1:
				seeds = "1"
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%.2f%%\t%s\t%s\n", g.Source, g.Setting, agentName(b, g.Agent), g.NChallenges, 100*g.Overall, ci, seeds)
	}
	tw.Flush()
}

// printPairwise writes the bootstrap probability that each configuration
// ranks above each other.
func printPairwise(w io.Writer, s *Stability) {
	fmt.Fprintln(w, "Bootstrap probability that the row ranks above the column (results/pairwise.csv):")
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "\t"+strings.Join(s.Configs, "\t"))
	p := map[[2]string]float64{}
	for _, x := range s.Pairs {
		p[[2]string{x.A, x.B}] = x.PAbove
	}
	for _, a := range s.Configs {
		row := []string{a}
		for _, c := range s.Configs {
			if a == c {
				row = append(row, "—")
				continue
			}
			row = append(row, fmt.Sprintf("%.3f", p[[2]string{a, c}]))
		}
		fmt.Fprintln(tw, strings.Join(row, "\t"))
	}
	tw.Flush()
}

func roundWhole(oneDecimal string) string {
	var v float64
	if _, err := fmt.Sscanf(oneDecimal, "%g", &v); err != nil {
		return ""
	}
	// the one-decimal print is itself rounded; Table 3 rounds the exact value, which Print does not have here
	return fmt.Sprintf("%.0f%%", math.Floor(v+0.5))
}
