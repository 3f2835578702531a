package report

import (
	"fmt"
	"math"
	"sort"
)

// overviewPage is index.html: the ReX-MLE rank of every configuration
// (paper Figure 1) and the Table 3 equivalent with the paper's prints.
func (s *site) overviewPage() ([]*page, error) {
	p := &page{Path: "index.html", Title: "ReX-MLE results", TOC: true, Intro: []string{
		fmt.Sprintf("%s (%s): %d challenges, %d agent configurations with ranked runs. The ReX-MLE rank is the mean over challenges of each run's leaderboard percentile (a failed run counts 0; seeds are averaged).",
			s.b.Meta.Name, s.b.Meta.Paper, len(s.b.Challenges), len(s.data.Groups)),
	}}
	// Figure 1.
	gs := append([]*group(nil), s.data.Groups...)
	sort.SliceStable(gs, func(i, j int) bool { return midpoint(gs[i]) > midpoint(gs[j]) })
	var cats []string
	exact := barSeries{Name: "ReX-MLE rank", Stack: "r"}
	rng := barSeries{Name: "reachable range (partially recorded runs)", Stack: "r"}
	t := &table{ID: "overall", Caption: "ReX-MLE rank per agent configuration", Head: []string{"Agent", "Backend", "Setting", "Source", "Challenges", "ReX-MLE rank", "Paper", "Check"}}
	anyRange := false
	for _, g := range gs {
		cats = append(cats, s.label(g.groupKey))
		if len(g.Partial) > 0 {
			exact.Values = append(exact.Values, 100*g.Lo)
			rng.Values = append(rng.Values, 100*(g.Hi-g.Lo))
			anyRange = true
		} else {
			exact.Values = append(exact.Values, 100*g.Overall)
			rng.Values = append(rng.Values, math.NaN())
		}
		val := fmtFrac(g.Overall, 2)
		if len(g.Partial) > 0 {
			val = pctRange(g.Lo, g.Hi, 2)
		}
		printed, ck := s.printedOverall(g)
		b, bc, bt := ck.badge()
		t.Rows = append(t.Rows, row{Cells: []cell{
			{Text: s.agentName(g.Agent)}, {Text: g.Backend}, {Text: g.Setting}, {Text: shortSource(g.Source)},
			{Text: fmt.Sprint(g.NChallenges), Class: "num"},
			{Text: val, Class: "num", Sort: sortKey(midpoint(g))},
			{Text: printed, Class: "num"},
			{Text: "", Badge: b, BadgeClass: bc, BadgeTitle: bt},
		}})
	}
	series := []barSeries{exact}
	if anyRange {
		series = append(series, rng)
	}
	fig := &section{ID: "rank", Title: "ReX-MLE rank (paper Figure 1)",
		Paragraphs: []string{"Runs the paper recorded only by their primary metric (Tables 4 and 5) have a range: the bar shows the lowest reachable rank and the lighter part the rest of the range."},
		Tables:     []*table{t}}
	if len(cats) > 0 {
		fig.Charts = []chart{barChart(chartID("overall"), "ReX-MLE rank", "%", cats, series, true,
			"Bar chart of the ReX-MLE rank (mean percentile, %) of every agent configuration, best first")}
	} else {
		fig.Paragraphs = append(fig.Paragraphs, "No ranked runs in the store yet: run the rank stage.")
	}
	p.Sections = append(p.Sections, fig, s.table3Section())
	links := &section{ID: "pages", Title: "Challenges"}
	for _, c := range s.b.Challenges {
		links.List = append(links.List, listItem{Text: c.ShortName, Href: "challenges/" + c.ID + ".html", Note: c.Modality + " · " + c.TaskType})
	}
	p.Sections = append(p.Sections, links)
	return []*page{p}, nil
}

// midpoint orders configurations: the overall rank, or the middle of its range.
func midpoint(g *group) float64 {
	if len(g.Partial) > 0 {
		return (g.Lo + g.Hi) / 2
	}
	return g.Overall
}

// printedOverall returns what the paper printed for a configuration's
// overall mean percentile and its check (nil for new runs).
func (s *site) printedOverall(g *group) (string, *check) {
	if g.Source != "paper" {
		return "", nil
	}
	for _, o := range s.data.Overall {
		if o.Setting == g.Setting && o.Backend == g.Backend && o.Agent == g.Agent {
			return o.Text + " (Table " + o.Table + ")", s.repro.Overall[o.Table+"/"+o.Setting+"/"+o.Backend+"/"+o.Agent]
		}
	}
	return "", nil
}

// table3Groups are the columns of the Table 3 equivalent: the paper's
// S-table configuration (24 h, GPT-5) and every new configuration.
func (s *site) table3Groups() []*group {
	var out []*group
	for _, g := range s.data.Groups {
		if g.Source != "paper" {
			out = append(out, g)
			continue
		}
		for _, r := range g.Runs {
			if _, ok := r.Printed["3"]; ok {
				out = append(out, g)
				break
			}
		}
	}
	return out
}

// runsOf returns the group's runs on one challenge.
func runsOf(g *group, ch string) []*runData {
	var out []*runData
	for _, r := range g.Runs {
		if r.Challenge == ch {
			out = append(out, r)
		}
	}
	return out
}

// table3Section is the challenge × agent table of primary values and
// percentiles with the paper's prints and a reproduction badge per cell.
func (s *site) table3Section() *section {
	gs := s.table3Groups()
	t := &table{ID: "table3", Caption: "Primary metric and percentile per challenge × agent (Table 3 equivalent); computed · paper", Head: []string{"Challenge", "Primary metric"}}
	for _, g := range gs {
		t.Head = append(t.Head, s.label(g.groupKey))
		if g.Source == "paper" {
			t.Head = append(t.Head, s.agentName(g.Agent)+": paper")
		}
	}
	for _, c := range s.b.Challenges {
		rw := row{Cells: []cell{{Text: c.ShortName, Href: "challenges/" + c.ID + ".html"}, {Text: c.PrimaryLabel}}}
		if rw.Cells[1].Text == "" {
			rw.Cells[1].Text = c.PrimaryMetric
		}
		for _, g := range gs {
			rs := runsOf(g, c.ID)
			if len(rs) == 0 {
				rw.Cells = append(rw.Cells, cell{Text: "—"})
				if g.Source == "paper" {
					rw.Cells = append(rw.Cells, cell{Text: "—"})
				}
				continue
			}
			// Mean over seeds of the primary value and percentile.
			var vs, ps float64
			var nv int
			for _, r := range rs {
				if v, ok := r.Values[c.PrimaryMetric]; ok && !math.IsNaN(v) {
					vs += v
					nv++
				}
			}
			pct := "FAIL"
			if pc, ok := g.PerChallenge[c.ID]; ok {
				ps = pc
				pct = fmtFrac(ps, 0)
				if len(rs) == 1 {
					pct = runPct(rs[0], 0)
				}
			} else if lh, ok := g.Partial[c.ID]; ok {
				pct = pctRange(lh[0], lh[1], 0)
			}
			val := "—"
			if nv > 0 {
				dec := 2
				val = fmtValue(vs/float64(nv), true, dec)
			}
			rw.Cells = append(rw.Cells, cell{Text: val + " · " + pct, Class: "num", Sort: sortKey(ps)})
			if g.Source == "paper" {
				r := rs[0]
				pr := r.Printed["3"]
				txt := "—"
				if pr != nil {
					txt = pr["primary"] + " · " + orDash(pr["percentile"])
				}
				b, bc, bt := s.repro.Primary[r.ID+"/3"].badge()
				rw.Cells = append(rw.Cells, cell{Text: txt, Class: "num", Badge: b, BadgeClass: bc, BadgeTitle: bt})
			}
		}
		t.Rows = append(t.Rows, rw)
	}
	return &section{ID: "table3", Title: "Per challenge (paper Table 3)",
		Paragraphs: []string{"Each computed cell is the primary metric value (2 decimals, as the paper prints it) and the whole-number percentile, half-up from the exact position sum; the paper's cell is beside it with the reproduction check (hover for the reason)."},
		Tables:     []*table{t}}
}

func orDash(s string) string {
	if s == "" {
		return "–"
	}
	return s
}
