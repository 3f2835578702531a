package report

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/rexmle/rexmle/pipeline/challenge"
	"github.com/rexmle/rexmle/pipeline/config"
)

// Limits on the per-case tables, to keep pages readable.
const (
	maxCaseRuns = 12
	maxCases    = 300
)

// challengePages are challenges/index.html and challenges/<id>.html.
func (s *site) challengePages() ([]*page, error) {
	idx := &page{Path: "challenges/index.html", Title: "Challenges"}
	t := &table{ID: "challenges", Caption: "The benchmark's challenges", Head: []string{"Challenge", "Name", "Modality", "Task", "Category", "Primary metric", "Leaderboard rows", "Runs"}}
	var out []*page
	for _, c := range s.b.Challenges {
		n := 0
		for _, r := range s.data.Runs {
			if r.Challenge == c.ID {
				n++
			}
		}
		t.Rows = append(t.Rows, row{Cells: []cell{{Text: c.ShortName, Href: c.ID + ".html"}, {Text: c.Name}, {Text: c.Modality}, {Text: c.TaskType},
			{Text: c.Category}, {Text: c.PrimaryMetric}, {Text: strconv.Itoa(len(c.Leaderboard)), Class: "num"}, {Text: strconv.Itoa(n), Class: "num"}}})
		out = append(out, s.challengePage(c))
	}
	idx.Sections = []*section{{Tables: []*table{t}}}
	return append([]*page{idx}, out...), nil
}

func (s *site) taskCard(c *config.Challenge) *taskCard {
	tc := &taskCard{Facts: []fact{
		{Name: "Challenge", Text: competitionText(c)},
		{Name: "Modality", Text: c.Modality},
		{Name: "Task type", Text: c.TaskType},
		{Name: "Category", Text: c.Category},
		{Name: "Primary metric", Text: c.PrimaryMetric},
		{Name: "Data source", Text: sourcesText(c)},
		{Name: "Licence", Text: orDash(c.License)},
		{Name: "Human leaderboard", Text: fmt.Sprintf("%d entries, %d ranked metrics", len(c.Leaderboard), len(c.Metrics))},
	}}
	if c.URL != "" {
		tc.Facts = append(tc.Facts, fact{Name: "Website", Text: c.URL, Href: c.URL})
	}
	dir := map[string]string{}
	for _, m := range c.Metrics {
		dir[m.Name] = m.Direction
	}
	if reg, ok := challenge.Lookup(c.ID); ok {
		for _, m := range reg.Metrics() {
			tc.Metrics = append(tc.Metrics, metricCard{Name: m.Name, Direction: dirText(string(m.Direction)), Card: m.Card, Ranked: m.Ranked, Primary: m.Name == c.PrimaryMetric})
		}
		for _, q := range reg.Quirks() {
			tc.Quirks = append(tc.Quirks, quirkCard{ID: q.ID, Metrics: strings.Join(q.Metrics, ", "), Reference: q.Reference, Official: q.Official})
		}
	} else {
		for _, m := range c.Metrics {
			tc.Metrics = append(tc.Metrics, metricCard{Name: m.Name, Direction: dirText(m.Direction), Card: m.Label, Ranked: true, Primary: m.Name == c.PrimaryMetric})
		}
	}
	return tc
}

// competitionText names the competition, with its year unless the name has it.
func competitionText(c *config.Challenge) string {
	y := strconv.Itoa(c.Year)
	if c.Year == 0 || strings.Contains(c.Competition, y) {
		return orDash(c.Competition)
	}
	return strings.TrimSpace(c.Competition + " " + y)
}

func dirText(d string) string {
	switch d {
	case "higher_better":
		return "higher is better"
	case "lower_better":
		return "lower is better"
	}
	return d
}

func sourcesText(c *config.Challenge) string {
	var parts []string
	for _, src := range c.Sources {
		p := src.Kind
		if src.Record != "" {
			p += " " + src.Record
		}
		parts = append(parts, p)
	}
	if len(parts) == 0 {
		return "—"
	}
	return strings.Join(parts, "; ")
}

// challengeRuns lists the challenge's runs in group order, then seed.
func (s *site) challengeRuns(id string) []*runData {
	var out []*runData
	for _, g := range s.data.Groups {
		for _, r := range g.Runs {
			if r.Challenge == id {
				out = append(out, r)
			}
		}
	}
	return out
}

// metricDecimals is how many decimals a metric prints with: the paper's
// print where there is one, else 4.
func (s *site) metricDecimals(id string) map[string]int {
	out := map[string]int{}
	for _, r := range s.data.Runs {
		if r.Challenge != id {
			continue
		}
		for t, pr := range r.Printed {
			if !strings.HasPrefix(t, "S") {
				continue
			}
			for k, v := range pr {
				if _, err := strconv.ParseFloat(v, 64); err == nil && !strings.Contains(k, ":") {
					out[k] = decimalsOf(v)
				}
			}
		}
	}
	return out
}

func (s *site) challengePage(c *config.Challenge) *page {
	p := &page{Path: "challenges/" + c.ID + ".html", Title: c.ShortName + ": " + c.Name, TOC: true}
	p.Sections = append(p.Sections, &section{ID: "task", Title: "Task card", Card: s.taskCard(c)})
	runs := s.challengeRuns(c.ID)
	dec := s.metricDecimals(c.ID)
	decOf := func(m string) int {
		if d, ok := dec[m]; ok {
			return d
		}
		return 4
	}
	// S-table equivalent.
	st := &table{ID: "s-" + c.ID, Caption: "Every metric value (position) per run, with the top human entry", Head: []string{"Run", "Seed"}}
	for _, m := range c.Metrics {
		st.Head = append(st.Head, m.Name)
	}
	st.Head = append(st.Head, "Mean rank", "Percentile", "Paper", "Status")
	if len(c.Leaderboard) > 0 {
		top := c.Leaderboard[0]
		for _, h := range c.Leaderboard {
			if h.Rank < top.Rank {
				top = h
			}
		}
		rw := row{Class: "human", Cells: []cell{{Text: "Top human: " + top.Team}, {Text: ""}}}
		for _, m := range c.Metrics {
			v, ok := top.Values[m.Name]
			rw.Cells = append(rw.Cells, cell{Text: fmtValue(v, ok, decOf(m.Name)), Class: "num", Sort: sortKey(v)})
		}
		rw.Cells = append(rw.Cells, cell{Text: strconv.FormatFloat(top.MeanPosition, 'f', 2, 64), Class: "num", Sort: sortKey(top.MeanPosition)},
			cell{Text: fmtFrac(1-(top.MeanPosition-1)/float64(len(c.Leaderboard)), 1), Class: "num"}, cell{}, cell{Text: "leaderboard rank " + strconv.Itoa(top.Rank)})
		st.Rows = append(st.Rows, rw)
	}
	for _, r := range runs {
		rw := row{Class: "agent", Cells: []cell{{Text: s.label(groupKey{r.Source, r.Setting, r.Backend, r.Agent})}, {Text: strconv.Itoa(r.Seed), Class: "num"}}}
		for _, m := range c.Metrics {
			v, ok := r.Values[m.Name]
			txt := fmtValue(v, ok, decOf(m.Name))
			if pos, okp := r.Positions[m.Name]; okp {
				txt += " (" + strconv.Itoa(pos) + ")"
			}
			rw.Cells = append(rw.Cells, cell{Text: txt, Class: "num", Sort: sortKey(v)})
		}
		mr := "—"
		if r.ok() {
			mr = fmtMeanRank(r.MeanRank)
		}
		pr, ck := "", s.repro.STable[r.ID]
		for t, x := range r.Printed {
			if strings.HasPrefix(t, "S") {
				pr = x["percentile"] + " (" + t + ")"
			}
		}
		b, bc, bt := ck.badge()
		status := r.RankStatus
		if r.Reason != "" {
			status += ": " + r.Reason
		}
		rw.Cells = append(rw.Cells, cell{Text: mr, Class: "num", Sort: sortKey(r.MeanRank)}, cell{Text: runPct(r, 1), Class: "num", Sort: sortKey(r.Pct)},
			cell{Text: pr, Badge: b, BadgeClass: bc, BadgeTitle: bt}, cell{Text: status})
		st.Rows = append(st.Rows, rw)
	}
	p.Sections = append(p.Sections, &section{ID: "values", Title: "Metric values and positions (S-table equivalent)",
		Paragraphs: []string{"Values as graded (unrounded, printed with the paper's decimals); the position among the human leaderboard rows is in brackets. Percentiles are half-up from the exact position sum."},
		Tables:     []*table{st}})

	// Leaderboard with agents inserted.
	lb := &table{ID: "leaderboard-" + c.ID, Caption: "Human leaderboard with every ranked run inserted at its mean position", Head: []string{"Rank", "Entry", "Mean position"}}
	for _, m := range c.Metrics {
		lb.Head = append(lb.Head, m.Name)
	}
	type entry struct {
		mean  float64
		human bool
		rw    row
	}
	var es []entry
	for _, h := range c.Leaderboard {
		rw := row{Class: "human", Cells: []cell{{Text: strconv.Itoa(h.Rank), Class: "num", Sort: strconv.Itoa(h.Rank)}, {Text: h.Team}, {Text: strconv.FormatFloat(h.MeanPosition, 'f', 2, 64), Class: "num", Sort: sortKey(h.MeanPosition)}}}
		for _, m := range c.Metrics {
			v, ok := h.Values[m.Name]
			rw.Cells = append(rw.Cells, cell{Text: fmtValue(v, ok, decOf(m.Name)), Class: "num", Sort: sortKey(v)})
		}
		es = append(es, entry{h.MeanPosition, true, rw})
	}
	for _, r := range runs {
		if !r.ok() {
			continue
		}
		name := s.label(groupKey{r.Source, r.Setting, r.Backend, r.Agent})
		if r.Seed != 1 || s.multiSeed(runs, r) {
			name += " seed " + strconv.Itoa(r.Seed)
		}
		rw := row{Class: "agent", Cells: []cell{{Text: "", Class: "num"}, {Text: name}, {Text: fmtMeanRank(r.MeanRank), Class: "num", Sort: sortKey(r.MeanRank)}}}
		for _, m := range c.Metrics {
			v, ok := r.Values[m.Name]
			rw.Cells = append(rw.Cells, cell{Text: fmtValue(v, ok, decOf(m.Name)), Class: "num", Sort: sortKey(v)})
		}
		es = append(es, entry{r.MeanRank, false, rw})
	}
	sort.SliceStable(es, func(i, j int) bool {
		if es[i].mean != es[j].mean {
			return es[i].mean < es[j].mean
		}
		return es[i].human && !es[j].human
	})
	for i := range es {
		if !es[i].human {
			es[i].rw.Cells[0].Text = "(" + strconv.Itoa(i+1) + ")"
			es[i].rw.Cells[0].Sort = strconv.Itoa(i + 1)
		}
		lb.Rows = append(lb.Rows, es[i].rw)
	}
	p.Sections = append(p.Sections, &section{ID: "leaderboard", Title: "Leaderboard",
		Paragraphs: []string{"Human entries keep their published rank and mean position; a run's mean position is its mean rank over the leaderboard's metrics. Failed runs are not inserted."},
		Tables:     []*table{lb}})

	// Percentile chart.
	var cats []string
	ex := barSeries{Name: "percentile", Stack: "p"}
	rg := barSeries{Name: "reachable range", Stack: "p"}
	anyRange := false
	for _, g := range s.data.Groups {
		if pc, ok := g.PerChallenge[c.ID]; ok {
			cats = append(cats, s.label(g.groupKey))
			ex.Values = append(ex.Values, 100*pc)
			rg.Values = append(rg.Values, math.NaN())
		} else if lh, ok := g.Partial[c.ID]; ok {
			cats = append(cats, s.label(g.groupKey))
			ex.Values = append(ex.Values, 100*lh[0])
			rg.Values = append(rg.Values, 100*(lh[1]-lh[0]))
			anyRange = true
		}
	}
	ps := &section{ID: "percentiles", Title: "Percentile per agent configuration"}
	if len(cats) == 0 {
		ps.Paragraphs = []string{"No ranked runs on this challenge yet."}
	} else {
		series := []barSeries{ex}
		if anyRange {
			series = append(series, rg)
		}
		ps.Charts = []chart{barChart(chartID("pct", c.ID), "Percentile on "+c.ShortName, "%", cats, series, true,
			"Bar chart of the percentile (%) each agent configuration reaches on "+c.ShortName+" (mean over seeds, failed runs 0)")}
	}
	p.Sections = append(p.Sections, ps)
	p.Sections = append(p.Sections, s.caseSection(c))
	return p
}

// multiSeed reports whether r's configuration has several seeds in runs.
func (s *site) multiSeed(runs []*runData, r *runData) bool {
	for _, x := range runs {
		if x != r && x.Source == r.Source && x.Setting == r.Setting && x.Backend == r.Backend && x.Agent == r.Agent {
			return true
		}
	}
	return false
}

// caseSection shows per-case values, one table per metric.
func (s *site) caseSection(c *config.Challenge) *section {
	sec := &section{ID: "cases", Title: "Per-case values"}
	cvs := s.data.Cases[c.ID]
	if len(cvs) == 0 {
		sec.Paragraphs = []string{"No per-case values are stored for this challenge's runs."}
		return sec
	}
	byMetric := map[string]map[string]map[string]float64{} // metric → case → run → value
	runSet := map[string]bool{}
	for _, cv := range cvs {
		if byMetric[cv.Metric] == nil {
			byMetric[cv.Metric] = map[string]map[string]float64{}
		}
		if byMetric[cv.Metric][cv.Case] == nil {
			byMetric[cv.Metric][cv.Case] = map[string]float64{}
		}
		byMetric[cv.Metric][cv.Case][cv.RunID] = cv.Value
		runSet[cv.RunID] = true
	}
	var runs []*runData
	for _, r := range s.challengeRuns(c.ID) {
		if runSet[r.ID] {
			runs = append(runs, r)
		}
	}
	if len(runs) > maxCaseRuns {
		sec.Paragraphs = append(sec.Paragraphs, fmt.Sprintf("Showing the first %d of %d runs with per-case values; the downloads hold them all.", maxCaseRuns, len(runs)))
		runs = runs[:maxCaseRuns]
	}
	metrics := make([]string, 0, len(byMetric))
	for m := range byMetric {
		metrics = append(metrics, m)
	}
	sort.Strings(metrics)
	for _, m := range metrics {
		cases := make([]string, 0, len(byMetric[m]))
		for k := range byMetric[m] {
			cases = append(cases, k)
		}
		sort.Strings(cases)
		t := &table{ID: "cases-" + c.ID + "-" + slug(m), Caption: "Per-case " + m, Head: []string{"Case"}}
		for _, r := range runs {
			h := s.label(groupKey{r.Source, r.Setting, r.Backend, r.Agent})
			if s.multiSeed(runs, r) {
				h += " seed " + strconv.Itoa(r.Seed)
			}
			t.Head = append(t.Head, h)
		}
		if len(cases) > maxCases {
			sec.Paragraphs = append(sec.Paragraphs, fmt.Sprintf("%s: showing %d of %d cases.", m, maxCases, len(cases)))
			cases = cases[:maxCases]
		}
		for _, k := range cases {
			rw := row{Cells: []cell{{Text: k}}}
			for _, r := range runs {
				v, ok := byMetric[m][k][r.ID]
				rw.Cells = append(rw.Cells, cell{Text: fmtValue(v, ok, 4), Class: "num", Sort: sortKey(v)})
			}
			t.Rows = append(t.Rows, rw)
		}
		sec.Tables = append(sec.Tables, t)
	}
	return sec
}

// slug makes a file-name-safe id.
func slug(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			b.WriteRune(r)
		} else {
			b.WriteByte('-')
		}
	}
	return b.String()
}
