package report

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// agentPages are agents/index.html and one page per agent configuration:
// every challenge it ran with values, positions, percentiles and failures,
// each challenge's row an anchor (agents/<config>.html#<challenge>), and the
// configuration's capability scores.
func (s *site) agentPages() ([]*page, error) {
	idx := &page{Path: "agents/index.html", Title: "Agent configurations", Intro: []string{
		"One page per agent configuration (agent, LLM backend, time budget, source). Each challenge row on a configuration's page has a permalink: agents/<configuration>.html#<challenge id>.",
	}}
	// One table per rank world: ranks are compared only within one.
	worlds := []struct {
		id, title, caption, class, note string
		keep                            func(*group) bool
	}{
		{"agents", "The paper's configurations", fmt.Sprintf("The paper's configurations ranked on all %d challenges", len(s.b.Challenges)), "", "",
			func(g *group) bool { return s.world(g) == worldPaper }},
		{"agents-new", "New runs on the real data", fmt.Sprintf("New configurations on the real data ranked on all %d challenges", len(s.b.Challenges)), "", "",
			func(g *group) bool { return s.world(g) == worldNew }},
		{"agents-other", "Fewer challenges or partial runs", "Configurations run on fewer challenges or ranked partially (ablations): not comparable with the tables above", "",
			"Their means are over other challenges, so their ranks are not comparable with the configurations ranked on every challenge.",
			func(g *group) bool { return s.world(g) == worldOther && s.comparable(g.Source) }},
		{"agents-synthetic", "Synthetic runs (not comparable)", "Configurations run on synthetic data (pipeline check only)", "section-demo", "",
			func(g *group) bool { return !s.comparable(g.Source) }},
	}
	out := []*page{idx}
	for _, w := range worlds {
		t := &table{ID: w.id, Caption: w.caption, Filter: true, FilterCols: "Backend,Setting,Source,Data",
			Head:     []string{"Configuration", "Backend", "Setting", "Source", "Data", "Runs", "Failed runs", "Challenges", "ReX-MLE rank"},
			DataHead: []string{"configuration", "backend", "setting", "source", "data", "challenges", "runs", "failed_runs", "rexmle_rank_pct", "rexmle_rank_lo_pct", "rexmle_rank_hi_pct"}}
		for _, g := range s.data.Groups {
			if !w.keep(g) {
				continue
			}
			failed := 0
			for _, r := range g.Runs {
				if !r.ok() && !r.partial() {
					failed++
				}
			}
			val := fmtFrac(g.Overall, 2)
			if len(g.Partial) > 0 {
				val = pctRange(g.Lo, g.Hi, 2)
			}
			data := s.dataKind(g.Source)
			t.Rows = append(t.Rows, row{Cells: []cell{{Text: s.label(g.groupKey), Href: groupSlug(g.groupKey) + ".html"}, {Text: g.Backend}, {Text: g.Setting}, {Text: shortSource(g.Source)},
				{Text: data}, {Text: strconv.Itoa(len(g.Runs)), Class: "num"}, {Text: strconv.Itoa(failed), Class: "num"}, {Text: strconv.Itoa(g.NChallenges), Class: "num"},
				{Text: val, Class: "num", Sort: sortKey(midpoint(g))}},
				Data: []any{s.label(g.groupKey), g.Backend, g.Setting, g.Source, data, g.NChallenges, len(g.Runs), failed, pctNum(g.Overall), pctNum(g.Lo), pctNum(g.Hi)}})
			out = append(out, s.agentPage(g))
		}
		if len(t.Rows) == 0 {
			continue
		}
		sec := &section{ID: w.id, Title: w.title, Class: w.class, Tables: []*table{t}}
		if w.note != "" {
			sec.Paragraphs = []string{w.note}
		}
		idx.Sections = append(idx.Sections, sec)
	}
	if len(idx.Sections) == 0 {
		idx.Sections = []*section{{Paragraphs: []string{"No ranked runs in the store yet."}}}
	}
	return out, nil
}

// inChallengeOrder returns a copy of runs in the benchmark's challenge
// order, by seed within a challenge.
func (s *site) inChallengeOrder(runs []*runData) []*runData {
	runs = append([]*runData(nil), runs...)
	order := map[string]int{}
	for i, c := range s.b.Challenges {
		order[c.ID] = i
	}
	sort.SliceStable(runs, func(i, j int) bool {
		if order[runs[i].Challenge] != order[runs[j].Challenge] {
			return order[runs[i].Challenge] < order[runs[j].Challenge]
		}
		return runs[i].Seed < runs[j].Seed
	})
	return runs
}

func (s *site) agentPage(g *group) *page {
	lbl := s.label(g.groupKey)
	p := &page{Path: "agents/" + groupSlug(g.groupKey) + ".html", Title: lbl, TOC: true}
	val := fmtFrac(g.Overall, 2)
	if len(g.Partial) > 0 {
		val = pctRange(g.Lo, g.Hi, 2) + " (reachable range: some challenges have only the primary metric recorded)"
	}
	p.Intro = []string{fmt.Sprintf("Agent %s, backend %s, time budget %s, source %s (%s). ReX-MLE rank %s over %d challenge(s).",
		s.agentName(g.Agent), orDash(g.Backend), orDash(g.Setting), g.Source, s.dataKind(g.Source), val, g.NChallenges)}
	if pr, ck := s.printedOverall(g); pr != "" {
		b, _, _ := ck.badge()
		p.Intro = append(p.Intro, "The paper prints "+pr+" for it: "+strings.TrimSpace(b)+".")
	}
	sec := &section{ID: "challenges", Title: "Per challenge"}
	if !s.comparable(g.Source) {
		sec.Class = "section-demo"
		sec.Paragraphs = []string{"These runs are on synthetic data: their percentiles against the real human leaderboards are a pipeline check, not results."}
	}
	t := &table{ID: "agent-" + groupSlug(g.groupKey), Caption: lbl + ": every run", Head: []string{"Challenge", "Seed", "Primary value", "Positions", "Mean rank", "Percentile", "Paper", "Status"},
		DataHead: []string{"challenge", "seed", "primary_metric", "primary_value", "positions", "mean_rank", "percentile_pct", "percentile_lo_pct", "percentile_hi_pct", "paper_value", "paper_percentile", "check", "status"}}
	runs := s.inChallengeOrder(g.Runs)
	anchored := map[string]bool{}
	for _, r := range runs {
		c, ok := s.b.Challenge(r.Challenge)
		if !ok {
			continue
		}
		v, hv := r.Values[c.PrimaryMetric]
		failed := r.Ranked && !r.ok() && !r.partial()
		vt := fmtValue(v, hv, 4)
		if !hv && failed {
			vt = "FAIL"
		}
		var pos []string
		for _, m := range c.Metrics {
			if p, ok := r.Positions[m.Name]; ok {
				pos = append(pos, strconv.Itoa(p))
			}
		}
		mr := "—"
		switch {
		case r.ok():
			mr = fmtMeanRank(r.MeanRank)
		case failed:
			mr = "FAIL"
		}
		// The paper's cell in the table that printed this run (Table 3, 4 or
		// 5), with the stored checks of its value and percentile.
		var ptxt, pv, pp string
		var vc, pc *check
		for _, tb := range []string{"3", "4", "5"} {
			if pr := r.Printed[tb]; pr != nil {
				pv, pp = pr["primary"], pr["percentile"]
				ptxt = printedCell(pv, pp) + " (Table " + tb + ")"
				vc, pc = s.repro.Value[r.ID+"/"+tb], s.repro.Primary[r.ID+"/"+tb]
				break
			}
		}
		b, bc, bt := cellBadge(vc, pc)
		status := r.RankStatus
		if r.Reason != "" {
			status += ": " + r.Reason
		}
		rw := row{Cells: []cell{{Text: c.ShortName, Href: "../challenges/" + c.ID + ".html"}, {Text: strconv.Itoa(r.Seed), Class: "num"},
			{Text: vt + " " + c.PrimaryMetric, Class: "num", Sort: sortKey(v)}, {Text: strings.Join(pos, ", ")}, {Text: mr, Class: "num", Sort: sortKey(r.MeanRank)},
			{Text: runPct(r, 1), Class: "num", Sort: sortKey(r.Pct)}, {Text: ptxt, Badge: b, BadgeClass: bc, BadgeTitle: bt}, {Text: status}}}
		pct := r.Pct
		if !r.ok() {
			pct = math.NaN()
		}
		var pvAny, ppAny any
		if x := plainValue(pv); x != nil {
			pvAny = x
		}
		if x := plainValue(pp); x != nil {
			ppAny = x
		}
		var cls any
		if w := worse(vc, pc); w != nil {
			cls = w.Class
		}
		rw.Data = []any{c.ID, r.Seed, c.PrimaryMetric, valNum(v, hv), strings.Join(pos, " "), valNum(r.MeanRank, r.ok()), pctNum(pct), pctNum(r.PctLo), pctNum(r.PctHi), pvAny, ppAny, cls, status}
		if !anchored[c.ID] {
			rw.ID = c.ID
			anchored[c.ID] = true
		} else {
			rw.ID = c.ID + "-seed-" + strconv.Itoa(r.Seed)
		}
		t.Rows = append(t.Rows, rw)
	}
	sec.Tables = []*table{t}
	p.Sections = append(p.Sections, sec)
	p.Sections = append(p.Sections, s.agentUncertainty(g)...)
	p.Sections = append(p.Sections, s.agentCapSection(g))
	return p
}

// agentCapSection is the configuration's capability profile as the judge
// stage stored it (mean judge score per strategy over its runs' sections),
// and the paper's stated scores for its agent.
func (s *site) agentCapSection(g *group) *section {
	sec := &section{ID: "capabilities", Title: "Capability scores from the logs"}
	type acc struct {
		name         string
		mean         float64
		n, undecided int
	}
	per := map[int]*acc{}
	var order []int
	var judges []string
	for _, c := range s.data.Profiles {
		if c.Source == g.Source && c.Agent == g.Agent && c.Backend == g.Backend && !slices.Contains(judges, c.JudgeName) {
			judges = append(judges, c.JudgeName)
		}
	}
	sort.Strings(judges)
	if len(judges) > 1 {
		sec.Paragraphs = append(sec.Paragraphs, fmt.Sprintf("Judges with a profile of this configuration: %s; shown: %s (the capabilities page shows every judge).",
			strings.Join(judges, ", "), judges[0]))
	}
	for _, c := range s.data.Profiles {
		if len(judges) == 0 || c.Source != g.Source || c.Agent != g.Agent || c.Backend != g.Backend || c.JudgeName != judges[0] || per[c.StrategyID] != nil {
			continue
		}
		per[c.StrategyID] = &acc{name: c.Strategy, mean: c.Mean, n: c.NSections, undecided: c.NMissing}
		order = append(order, c.StrategyID)
	}
	sort.Ints(order)
	paper := map[int]string{}
	if g.Source == printedSource {
		for _, c := range s.data.PaperCap {
			if c.Agent == g.Agent && c.Setting == g.Setting && c.Backend == g.Backend {
				paper[c.StrategyID] = c.Printed
				if per[c.StrategyID] == nil {
					per[c.StrategyID] = &acc{name: c.Strategy}
					order = append(order, c.StrategyID)
				}
			}
		}
		sort.Ints(order)
	}
	if len(order) == 0 {
		sec.Paragraphs = []string{"No capability scores are stored for this configuration's runs (the judge stage has not scored them)."}
		return sec
	}
	t := &table{ID: "agent-cap-" + groupSlug(g.groupKey), Caption: "Mean strategy score (0–1) over this configuration's judged sections", Head: []string{"Strategy", "Mean score", "Decided", "Undecided", "Paper states"},
		DataHead: []string{"strategy_id", "strategy", "mean_score", "decided", "undecided", "paper"}}
	for _, id := range order {
		a := per[id]
		m := math.NaN()
		if a.n > 0 {
			m = a.mean
		}
		t.Rows = append(t.Rows, row{Cells: []cell{{Text: a.name}, {Text: meanText(m), Class: "num", Sort: sortKey(m)}, {Text: strconv.Itoa(a.n), Class: "num"},
			{Text: strconv.Itoa(a.undecided), Class: "num"}, {Text: orDash(paper[id]), Class: "num"}},
			Data: []any{id, a.name, valNum(m, a.n > 0), a.n, a.undecided, plainValue(paper[id])}})
	}
	sec.Tables = []*table{t}
	return sec
}
