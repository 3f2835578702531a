package report

import (
	"encoding/csv"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// capProfile is one agent configuration's capability profile under one judge.
type capProfile struct {
	Agent, Backend, Judge, Kind, Rubric string
	Synthetic                           bool  // scored on runs on synthetic data
	Strategies                          []int // strategy ids, sorted
	Names                               map[int]string
	Mean                                map[int]float64 // NaN when no section decided it
	Decided, Missing                    map[int]int
	Evidence                            map[int][]string
}

func (p *capProfile) label(s *site) string {
	l := p.name(s)
	if p.Synthetic {
		l = "[synthetic demo] " + l
	}
	return l
}

// name is the profile's agent and backend, without its world's mark (for
// charts and tables inside a section that carries the mark).
func (p *capProfile) name(s *site) string {
	l := s.agentName(p.Agent)
	if p.Backend != "" && p.Backend != "none" {
		l += " (" + p.Backend + ")"
	}
	return l
}

// capProfiles are the capability profiles the judge stage stored
// (capability_profiles): per run group, agent, backend and judge, the mean
// over sections of each strategy's 0/1 score, undecided scores left out and
// counted as missing. Only the site's profile's run group is shown (every
// group when the profile is not given).
func (s *site) capProfiles() []*capProfile {
	type key struct {
		src, a, b, j, k, r string
	}
	idx := map[key]*capProfile{}
	var keys []key
	for _, c := range s.data.Profiles {
		if s.opts.Profile != "" && c.Source != s.opts.Profile {
			continue
		}
		k := key{c.Source, c.Agent, c.Backend, c.JudgeName, c.JudgeKind, c.RubricHash}
		p := idx[k]
		if p == nil {
			p = &capProfile{Agent: c.Agent, Backend: c.Backend, Judge: c.JudgeName, Kind: c.JudgeKind, Rubric: c.RubricHash, Synthetic: !s.comparable(c.Source),
				Names: map[int]string{}, Mean: map[int]float64{}, Decided: map[int]int{}, Missing: map[int]int{}, Evidence: map[int][]string{}}
			idx[k] = p
			keys = append(keys, k)
		}
		p.Strategies = append(p.Strategies, c.StrategyID)
		p.Names[c.StrategyID] = c.Strategy
		p.Mean[c.StrategyID] = c.Mean
		p.Decided[c.StrategyID], p.Missing[c.StrategyID] = c.NSections, c.NMissing
		for _, ev := range c.Evidence {
			if ev = strings.TrimSpace(ev); ev != "" {
				p.Evidence[c.StrategyID] = append(p.Evidence[c.StrategyID], ev)
			}
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		if a.a != b.a {
			return a.a < b.a
		}
		if a.b != b.b {
			return a.b < b.b
		}
		if a.j != b.j {
			return a.j < b.j
		}
		if a.src != b.src {
			return a.src < b.src
		}
		return a.r < b.r
	})
	out := make([]*capProfile, 0, len(keys))
	for _, k := range keys {
		p := idx[k]
		sort.Ints(p.Strategies)
		out = append(out, p)
	}
	return out
}

// capProfilesFromCSV reads the judge stage's capabilities.csv export when
// the store holds no capability scores.
func capProfilesFromCSV(path string) ([]*capProfile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if len(recs) < 1 {
		return nil, nil
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	for _, h := range []string{"agent", "backend", "strategy_id", "strategy", "mean_score", "n_sections", "n_missing", "judge", "judge_kind"} {
		if _, ok := col[h]; !ok {
			return nil, fmt.Errorf("read %s: no column %q", path, h)
		}
	}
	idx := map[string]*capProfile{}
	var out []*capProfile
	for _, r := range recs[1:] {
		if len(r) < len(recs[0]) {
			continue
		}
		k := r[col["agent"]] + "\x00" + r[col["backend"]] + "\x00" + r[col["judge"]]
		p := idx[k]
		if p == nil {
			p = &capProfile{Agent: r[col["agent"]], Backend: r[col["backend"]], Judge: r[col["judge"]], Kind: r[col["judge_kind"]],
				Names: map[int]string{}, Mean: map[int]float64{}, Decided: map[int]int{}, Missing: map[int]int{}, Evidence: map[int][]string{}}
			idx[k] = p
			out = append(out, p)
		}
		id, err := strconv.Atoi(r[col["strategy_id"]])
		if err != nil {
			return nil, fmt.Errorf("read %s: strategy_id %q: %w", path, r[col["strategy_id"]], err)
		}
		p.Strategies = append(p.Strategies, id)
		p.Names[id] = r[col["strategy"]]
		p.Mean[id] = math.NaN()
		if v, err := strconv.ParseFloat(r[col["mean_score"]], 64); err == nil {
			p.Mean[id] = v
		}
		p.Decided[id], _ = strconv.Atoi(r[col["n_sections"]])
		p.Missing[id], _ = strconv.Atoi(r[col["n_missing"]])
	}
	for _, p := range out {
		sort.Ints(p.Strategies)
	}
	return out, nil
}

// capabilitiesPage shows paper Figure 4 (a radar per agent), the agent ×
// strategy heat map, evidence drill-down, and the judge's kind and coverage.
func (s *site) capabilitiesPage() ([]*page, error) {
	p := &page{Path: "capabilities.html", Title: "Capabilities", TOC: true, Intro: []string{
		"An LLM judge (or the offline heuristic judge) reads each run's logs and code and scores, per section, whether the agent used each strategy of the rubric (1 used, 0 not used, undecided left out). Scores are means over sections.",
	}}
	profiles := s.capProfiles()
	src := "the judge stage's capability profiles in the store"
	if len(profiles) == 0 && s.opts.ResultsDir != "" {
		pp, err := capProfilesFromCSV(filepath.Join(s.opts.ResultsDir, "capabilities.csv"))
		if err != nil && !os.IsNotExist(err) {
			return nil, err
		}
		for _, x := range pp {
			x.Synthetic = s.syntheticBuild()
		}
		profiles, src = pp, "results/capabilities.csv"
	}
	p.Sections = append(p.Sections, s.paperCapSections(profiles)...)
	if len(profiles) == 0 {
		p.Sections = append(p.Sections, &section{ID: "none", Title: "No capability scores from new runs", Paragraphs: []string{"The judge stage has not run: the store holds no capability scores and there is no capabilities.csv."}})
		return []*page{p}, nil
	}
	p.Intro = append(p.Intro, "Source: "+src+".")
	// Profiles of runs on the real data, then, in their own marked
	// section, those of synthetic runs: never on one chart or table.
	var realP, synP []*capProfile
	for _, pr := range profiles {
		if pr.Synthetic {
			synP = append(synP, pr)
		} else {
			realP = append(realP, pr)
		}
	}
	if len(realP) > 0 {
		p.Sections = append(p.Sections, s.capProfileSections(realP, false)...)
	} else {
		p.Sections = append(p.Sections, &section{ID: "radar", Title: "Capability profiles of new runs on the real data", Paragraphs: []string{"No new run on the real data has been judged yet."}})
	}
	if len(synP) > 0 {
		p.Sections = append(p.Sections, s.capProfileSections(synP, true)...)
	}
	p.Sections = append(p.Sections, s.judgeSection())
	return []*page{p}, nil
}

// capProfileSections shows capability profiles of one world: a radar per
// agent, the agent × strategy heat map with its table, and the evidence;
// for synthetic runs all in one marked section.
func (s *site) capProfileSections(profiles []*capProfile, synthetic bool) []*section {
	// The strategy axis: the union over profiles, by id.
	names := map[int]string{}
	var ids []int
	for _, pr := range profiles {
		for _, id := range pr.Strategies {
			if _, ok := names[id]; !ok {
				names[id] = pr.Names[id]
				ids = append(ids, id)
			}
		}
	}
	sort.Ints(ids)
	axes := make([]string, len(ids))
	for i, id := range ids {
		axes[i] = names[id]
	}
	// Radar per agent.
	radar := &section{ID: "radar", Title: "Capability profile per agent, new runs on the real data"}
	suffix, tableID := "", "capabilities"
	if synthetic {
		suffix, tableID = "-synthetic", "capabilities-demo"
	}
	var rows []string
	var grid [][]float64
	multiJudge := false
	for _, pr := range profiles {
		if pr.Judge != profiles[0].Judge {
			multiJudge = true
		}
	}
	for _, pr := range profiles {
		lbl := pr.name(s)
		if multiJudge {
			lbl += " · " + pr.Judge
		}
		vals := make([]float64, len(ids))
		for i, id := range ids {
			v, ok := pr.Mean[id]
			if !ok {
				v = math.NaN()
			}
			vals[i] = v
		}
		rows = append(rows, lbl)
		grid = append(grid, vals)
		radar.Charts = append(radar.Charts, radarChart(chartID("radar"+suffix, pr.Agent, pr.Backend, pr.Judge), lbl, axes, vals,
			"Radar chart of "+lbl+"'s mean strategy scores (0 to 1) over the rubric's strategies"))
	}
	heat := &section{ID: "heatmap", Title: "Agent × strategy",
		Charts: []chart{heatMap(chartID("heat"+suffix), "Mean strategy score", axes, rows, transpose(grid, len(axes)), "Heat map of mean strategy scores (0 to 1), strategies by rows and agents by columns; empty cells were never decided")}}
	t := &table{ID: tableID, Caption: "Mean strategy score per agent (decided sections / undecided)", Head: append([]string{"Agent", "Judge"}, axes...)}
	for i, pr := range profiles {
		rw := row{Cells: []cell{{Text: pr.name(s)}, {Text: pr.Judge + " (" + pr.Kind + ")"}}}
		for j, id := range ids {
			v := grid[i][j]
			txt := "—"
			if !math.IsNaN(v) {
				txt = strconv.FormatFloat(v, 'f', 2, 64)
			}
			rw.Cells = append(rw.Cells, cell{Text: txt, Class: "num", Sort: sortKey(v), Title: fmt.Sprintf("%d decided, %d undecided", pr.Decided[id], pr.Missing[id])})
		}
		t.Rows = append(t.Rows, rw)
	}
	heat.Tables = []*table{t}
	ev := &section{ID: "evidence", Title: "Evidence", Paragraphs: []string{"The first evidence snippets (up to three) per agent and strategy, as the judge quoted them."}}
	for _, pr := range profiles {
		for _, id := range pr.Strategies {
			ev.Details = append(ev.Details, detail{Summary: fmt.Sprintf("%s · %s: %s (%d decided, %d undecided)", pr.name(s), pr.Names[id], meanText(pr.Mean[id]), pr.Decided[id], pr.Missing[id]), Items: pr.Evidence[id]})
		}
	}
	if synthetic {
		demo := &section{ID: "profiles-synthetic", Title: "Synthetic runs: capability profiles (not comparable)", Class: "section-demo",
			Paragraphs: []string{"Capability profiles of runs on synthetic data: they show that the judge works, not what the agents can do."}}
		demo.Charts = append(append(demo.Charts, radar.Charts...), heat.Charts...)
		demo.Tables = heat.Tables
		demo.Details = ev.Details
		return []*section{demo}
	}
	return []*section{radar, heat, ev}
}

func meanText(v float64) string {
	if math.IsNaN(v) {
		return "undecided"
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}

// paperCapSections shows the capability scores the paper states (Figure 4)
// in a chart and table of the paper's agents only; new runs' mean scores on
// the same strategies get their own chart and table: one for runs on real
// data, one (marked) for runs on synthetic data. nil when the store holds
// no paper scores.
func (s *site) paperCapSections(profiles []*capProfile) []*section {
	pc := s.data.PaperCap
	if len(pc) == 0 {
		return nil
	}
	sec := &section{ID: "paper", Title: "The paper's capability scores (Figure 4)",
		Paragraphs: []string{fmt.Sprintf("The paper states %d of Figure 4's scores as numbers in its text (the mean over the 20 challenges of GPT-5's 0/1 judgement per strategy, agents run %s with %s); the rest of the figure is drawn only, so it is not reproduced here. Only the paper's agents are in this chart and its table; new runs' scores on the same strategies are in their own sections below.", len(pc), pc[0].Setting, pc[0].Backend)}}
	var ids []int
	names := map[int]string{}
	for _, c := range pc {
		if _, ok := names[c.StrategyID]; !ok {
			ids = append(ids, c.StrategyID)
			names[c.StrategyID] = c.Strategy
		}
	}
	sort.Ints(ids)
	agents := []string{}
	seenA := map[string]bool{}
	for _, c := range pc {
		if !seenA[c.Agent] {
			seenA[c.Agent] = true
			agents = append(agents, c.Agent)
		}
	}
	cats := make([]string, len(ids))
	for i, id := range ids {
		cats[i] = names[id]
	}
	paper := capScores{}
	for _, a := range agents {
		row := make([]float64, len(ids))
		txt := make([]string, len(ids))
		for i, id := range ids {
			row[i] = math.NaN()
			for _, c := range pc {
				if c.Agent == a && c.StrategyID == id {
					row[i], txt[i] = c.Value, c.Printed
				}
			}
		}
		paper.add(s.agentName(a)+" (paper)", a+":paper", row, txt)
	}
	sec.Charts, sec.Tables = paper.render(s, "paper", "Capability scores the paper states (Figure 4)", ids, cats,
		"Grouped bar chart of the capability scores the paper states (0 to 1) for the paper's agents only; a missing bar is a score the paper does not state")
	out := []*section{sec}
	real, synth := capScores{}, capScores{}
	for _, pr := range profiles {
		row := make([]float64, len(ids))
		for i, id := range ids {
			row[i] = math.NaN()
			if v, ok := pr.Mean[id]; ok {
				row[i] = v
			}
		}
		dst := &real
		if pr.Synthetic {
			dst = &synth
		}
		dst.add(pr.label(s)+" · "+pr.Judge, pr.Agent+":"+pr.Backend+":"+pr.Judge, row, nil)
	}
	if len(real.series) > 0 {
		ns := &section{ID: "paper-new", Title: "New runs on real data: scores on Figure 4's strategies",
			Paragraphs: []string{"Capability scores of new runs on the real challenge data, on the strategies whose scores the paper states; compare them with the paper's chart above, judge and rubric permitting."}}
		ns.Charts, ns.Tables = real.render(s, "new", "New runs' capability scores on real data, Figure 4's strategies", ids, cats,
			"Grouped bar chart of new runs' capability scores (0 to 1) on real data, on the strategies whose scores the paper states")
		out = append(out, ns)
	}
	if len(synth.series) > 0 {
		ds := &section{ID: "paper-synthetic", Title: "Synthetic runs: scores on Figure 4's strategies (not comparable)", Class: "section-demo",
			Paragraphs: []string{"Capability scores of runs on synthetic data (the demo profile): they show that the judge works, not what the agents can do, and are not comparable with the paper's Figure 4."}}
		ds.Charts, ds.Tables = synth.render(s, "synthetic", "Synthetic runs' capability scores, Figure 4's strategies (not comparable)", ids, cats,
			"Grouped bar chart of the capability scores (0 to 1) of runs on synthetic data, on the strategies whose scores the paper states; not comparable with the paper")
		out = append(out, ds)
	}
	return out
}

// capScores are the series of one capability chart and its table: a name,
// a download column, the scores per strategy and, optionally, their printed
// texts.
type capScores struct {
	series, cols []string
	vals         [][]float64
	texts        [][]string
}

func (c *capScores) add(name, col string, vals []float64, texts []string) {
	c.series = append(c.series, name)
	c.cols = append(c.cols, col)
	c.vals = append(c.vals, vals)
	c.texts = append(c.texts, texts)
}

// render draws the scores as a grouped bar chart and the table
// capabilities-<suffix> (its own CSV and JSON download).
func (c *capScores) render(s *site, suffix, caption string, ids []int, cats []string, alt string) ([]chart, []*table) {
	t := &table{ID: "capabilities-" + suffix, Caption: caption, Head: append([]string{"Strategy"}, c.series...),
		DataHead: append([]string{"strategy_id", "strategy"}, c.cols...)}
	for i, id := range ids {
		rw := row{Cells: []cell{{Text: cats[i]}}, Data: []any{id, cats[i]}}
		for j := range c.series {
			v := c.vals[j][i]
			txt := "—"
			if !math.IsNaN(v) {
				txt = strconv.FormatFloat(v, 'f', 3, 64)
				if c.texts[j] != nil && c.texts[j][i] != "" {
					txt = c.texts[j][i]
				}
			}
			rw.Cells = append(rw.Cells, cell{Text: txt, Class: "num", Sort: sortKey(v)})
			rw.Data = append(rw.Data, valNum(v, true))
		}
		t.Rows = append(t.Rows, rw)
	}
	return []chart{scoreBars(chartID("capabilities", suffix), caption+" (0–1)", cats, c.series, c.vals, alt)}, []*table{t}
}

// judgeSection shows which judge scored and how much of the material it covered.
func (s *site) judgeSection() *section {
	sec := &section{ID: "judge", Title: "Judge and coverage"}
	j := s.b.Judge
	sec.Paragraphs = append(sec.Paragraphs, fmt.Sprintf("Configured judge: kind %s, model %s, rubric %s.", orDash(j.Kind), orDash(j.Model), orDash(j.Rubric)))
	if len(s.data.Sections) == 0 {
		sec.Paragraphs = append(sec.Paragraphs, "No judged sections are stored.")
		return sec
	}
	type key struct{ j, k, r string }
	type acc struct {
		n, ok, missing, cached, trunc int
		first, last                   string
	}
	m := map[key]*acc{}
	var keys []key
	for _, x := range s.data.Sections {
		k := key{x.Judge, x.Kind, x.Rubric}
		a := m[k]
		if a == nil {
			a = &acc{first: x.JudgedAt, last: x.JudgedAt}
			m[k] = a
			keys = append(keys, k)
		}
		a.n++
		if x.Status == "ok" {
			a.ok++
		}
		if x.NMissing > 0 {
			a.missing++
		}
		if x.CacheHit {
			a.cached++
		}
		if x.Truncated {
			a.trunc++
		}
		if x.JudgedAt < a.first {
			a.first = x.JudgedAt
		}
		if x.JudgedAt > a.last {
			a.last = x.JudgedAt
		}
	}
	t := &table{ID: "judge-coverage", Caption: "Judged sections per judge", Head: []string{"Judge", "Kind", "Rubric hash", "Sections", "Complete", "With undecided strategies", "From cache", "Truncated", "Judged"}}
	for _, k := range keys {
		a := m[k]
		t.Rows = append(t.Rows, row{Cells: []cell{{Text: k.j}, {Text: k.k}, {Text: shortHash(k.r)}, {Text: strconv.Itoa(a.n), Class: "num"}, {Text: strconv.Itoa(a.ok), Class: "num"},
			{Text: strconv.Itoa(a.missing), Class: "num"}, {Text: strconv.Itoa(a.cached), Class: "num"}, {Text: strconv.Itoa(a.trunc), Class: "num"}, {Text: dateRange(a.first, a.last)}}})
	}
	sec.Tables = []*table{t}
	return sec
}

func shortHash(h string) string {
	h = strings.TrimPrefix(h, "sha256:")
	if len(h) > 12 {
		return h[:12]
	}
	return h
}

func dateRange(a, b string) string {
	a, b = day(a), day(b)
	if a == b {
		return a
	}
	return a + " – " + b
}

func day(ts string) string {
	if len(ts) >= 10 {
		return ts[:10]
	}
	return ts
}

// transpose turns rows × n into n × rows.
func transpose(g [][]float64, n int) [][]float64 {
	out := make([][]float64, n)
	for j := range out {
		out[j] = make([]float64, len(g))
		for i := range g {
			out[j][i] = g[i][j]
		}
	}
	return out
}
