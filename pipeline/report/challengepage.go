package report

import (
	"fmt"
	"html/template"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/rexmle/rexmle/pipeline/challenge"
	"github.com/rexmle/rexmle/pipeline/config"
	"github.com/rexmle/rexmle/pipeline/paper"
	"github.com/rexmle/rexmle/pipeline/rank"
)

// Limits on the per-case tables, to keep pages readable.
const (
	maxCaseRuns = 12
	maxCases    = 300
)

// challengePages are challenges/index.html and challenges/<id>.html.
func (s *site) challengePages() ([]*page, error) {
	idx := &page{Path: "challenges/index.html", Title: "Challenges"}
	// Runs are counted per world: the paper's recorded runs, new runs on
	// the real data, and synthetic runs (never added together).
	t := &table{ID: "challenges", Caption: "The benchmark's challenges, with the runs of each kind", Head: []string{"Challenge", "Name", "Modality", "Task", "Category", "Primary metric", "Leaderboard rows", "Paper's runs", "New runs on real data", "Synthetic runs"},
		DataHead: []string{"challenge", "name", "modality", "task", "category", "primary_metric", "leaderboard_rows", "paper_runs", "new_real_runs", "synthetic_runs"}}
	var out []*page
	for _, c := range s.b.Challenges {
		var nPaper, nNew, nSyn int
		for _, r := range s.data.Runs {
			switch {
			case r.Challenge != c.ID:
			case r.Source == printedSource:
				nPaper++
			case s.comparable(r.Source):
				nNew++
			default:
				nSyn++
			}
		}
		metric := c.PrimaryName()
		t.Rows = append(t.Rows, row{Cells: []cell{{Text: c.ShortName, Href: c.ID + ".html"}, {Text: c.Name}, {Text: c.Modality}, {Text: c.TaskType},
			{Text: c.Category}, {Text: metric}, {Text: strconv.Itoa(len(c.Leaderboard)), Class: "num"}, {Text: strconv.Itoa(nPaper), Class: "num"},
			{Text: strconv.Itoa(nNew), Class: "num"}, {Text: strconv.Itoa(nSyn), Class: "num"}},
			Data: []any{c.ID, c.Name, c.Modality, c.TaskType, c.Category, c.PrimaryMetric, len(c.Leaderboard), nPaper, nNew, nSyn}})
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
		{Name: "Primary metric", Text: primaryText(c)},
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
	labels := map[string]string{}
	for _, m := range c.Metrics {
		labels[m.Name] = metricLabel(m)
	}
	name := func(id string) string {
		if l := labels[id]; l != "" {
			return l
		}
		return id
	}
	if reg, ok := challenge.Lookup(c.ID); ok {
		var texts []string
		for _, m := range reg.Metrics() {
			texts = append(texts, m.Card)
		}
		shared := sharedNote(texts)
		for _, m := range reg.Metrics() {
			card := strings.TrimSpace(strings.TrimSuffix(m.Card, shared))
			tc.Metrics = append(tc.Metrics, metricCard{Name: name(m.Name), ID: m.Name, Direction: dirText(string(m.Direction)), Card: quirkProse(card), Ranked: m.Ranked, Primary: m.Name == c.PrimaryMetric})
		}
		if shared != "" {
			tc.Shared = quirkProse(shared)
			tc.SharedCount = len(texts)
		}
		for _, q := range reg.Quirks() {
			var ms []string
			for _, m := range q.Metrics {
				ms = append(ms, name(m))
			}
			which := strings.Join(ms, ", ")
			if len(ms) > 1 && len(ms) == len(texts) {
				which = fmt.Sprintf("all %d metrics", len(ms))
			}
			tc.Quirks = append(tc.Quirks, quirkCard{ID: q.ID, Name: quirkName(q.ID), Metrics: which, Reference: q.Reference, Official: q.Official})
		}
	} else {
		for _, m := range c.Metrics {
			tc.Metrics = append(tc.Metrics, metricCard{Name: metricLabel(m), ID: m.Name, Direction: dirText(m.Direction), Ranked: true, Primary: m.Name == c.PrimaryMetric})
		}
	}
	return tc
}

// sharedNote is the text that ends every one of several metric cards (at
// least a sentence of 60 characters), to be stated once; "" when none.
func sharedNote(cards []string) string {
	if len(cards) < 2 {
		return ""
	}
	suf := cards[0]
	for _, c := range cards[1:] {
		n := 0
		for n < len(suf) && n < len(c) && suf[len(suf)-1-n] == c[len(c)-1-n] {
			n++
		}
		suf = suf[len(suf)-n:]
	}
	// Start at a sentence: at the first space that follows a full stop.
	start := len(cards[0]) - len(suf)
	cut := -1
	for i := 0; i < len(suf); i++ {
		if suf[i] == ' ' && start+i > 0 && cards[0][start+i-1] == '.' {
			cut = i
			break
		}
	}
	if cut < 0 {
		return ""
	}
	suf = suf[cut:]
	if len(strings.TrimSpace(suf)) < 60 {
		return ""
	}
	return suf
}

// quirkName is a quirk's id in words: "category-ids" → "Category ids".
func quirkName(id string) string {
	w := strings.ReplaceAll(id, "-", " ")
	if w == "" {
		return w
	}
	return strings.ToUpper(w[:1]) + w[1:]
}

// quirkMention finds the metric cards' log-style quirk references.
var quirkMention = regexp.MustCompile(`\bQUIRK ([a-z0-9-]+):|\bQuirk ([a-z0-9-]+) also applies\.`)

// quirkProse turns a card's "QUIRK id:" and "Quirk id also applies."
// into sentences that link to the quirk's one explanation on the page.
func quirkProse(text string) template.HTML {
	var b strings.Builder
	last := 0
	for _, m := range quirkMention.FindAllStringSubmatchIndex(text, -1) {
		b.WriteString(template.HTMLEscapeString(text[last:m[0]]))
		if m[2] >= 0 {
			id := text[m[2]:m[3]]
			fmt.Fprintf(&b, `Known issue <a href="#quirk-%s">%s</a>:`, template.HTMLEscapeString(id), template.HTMLEscapeString(quirkName(id)))
		} else {
			id := text[m[4]:m[5]]
			fmt.Fprintf(&b, `The known issue <a href="#quirk-%s">%s</a> also applies.`, template.HTMLEscapeString(id), template.HTMLEscapeString(quirkName(id)))
		}
		last = m[1]
	}
	b.WriteString(template.HTMLEscapeString(text[last:]))
	return template.HTML(strings.TrimSpace(b.String()))
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

// topHuman is the leaderboard's best entry and how rank.Rank places its
// values among the leaderboard rows (itself included).
func topHuman(c *config.Challenge) (config.HumanEntry, rank.Result, bool) {
	if len(c.Leaderboard) == 0 {
		return config.HumanEntry{}, rank.Result{}, false
	}
	top := c.Leaderboard[0]
	for _, h := range c.Leaderboard {
		if h.Rank < top.Rank {
			top = h
		}
	}
	return top, rank.Rank(c.Board(), top.Values), true
}

// paperTopHumanPct is what every S-table prints as the top human's percentile.
const paperTopHumanPct = "100.0%"

func (s *site) challengePage(c *config.Challenge) *page {
	p := &page{Path: "challenges/" + c.ID + ".html", Title: c.ShortName + ": " + c.Name, TOC: true}
	var runs, demo []*runData
	for _, r := range s.challengeRuns(c.ID) {
		if s.comparable(r.Source) {
			runs = append(runs, r)
		} else {
			demo = append(demo, r)
		}
	}
	dec := s.metricDecimals(c.ID)
	decOf := func(m string) int {
		if d, ok := dec[m]; ok {
			return d
		}
		return 4
	}
	if lead := s.challengeLead(c, runs); lead != "" {
		p.Lead = append(p.Lead, leadHTML(lead))
	}
	// S-table equivalent, computed: the results first.
	st := s.valuesTable("s-"+c.ID, "Results per run, computed: mean rank, percentile and the paper's check first, then every metric value (position)", c, runs, decOf, true)
	p.Sections = append(p.Sections, &section{ID: "values", Title: "Results (S-table equivalent, computed)",
		Paragraphs: []string{"Values as graded (unrounded, printed with the paper's decimals); the position among the human leaderboard rows is in brackets. Percentiles are half-up from the exact position sum. The paper prints 100.0% for the top human team in every S-table; where the computed percentile of that team differs, both are shown and flagged (⚑)."},
		Tables:     []*table{st}})
	lbSec := s.leaderboardSection(c, runs, decOf)
	p.Sections = append(p.Sections, s.percentileSections(c)...)
	// Then the paper's table as printed, the task card and the leaderboard.
	if sec := s.printedSTable(c); sec != nil {
		p.Sections = append(p.Sections, sec)
	}
	p.Sections = append(p.Sections, &section{ID: "task", Title: "Task card", Card: s.taskCard(c)}, lbSec)
	if len(demo) > 0 {
		dt := s.valuesTable("synthetic-"+c.ID, "Synthetic runs on "+c.ShortName+" (not comparable)", c, demo, decOf, false)
		p.Sections = append(p.Sections, &section{ID: "synthetic", Title: "Synthetic runs (not comparable)", Class: "section-demo",
			Paragraphs: []string{"Runs on synthetic data, ranked against the real leaderboard only to check the pipeline: these numbers are not results and are not inserted into the leaderboard above."},
			Tables:     []*table{dt}})
	}
	p.Sections = append(p.Sections, s.challengeUncertainty(c)...)
	p.Sections = append(p.Sections, s.caseSection(c, false))
	if sec := s.caseSection(c, true); sec != nil {
		p.Sections = append(p.Sections, sec)
	}
	return p
}

// leaderboardSection is the human leaderboard with the comparable ranked
// runs inserted at their mean positions.
func (s *site) leaderboardSection(c *config.Challenge, runs []*runData, decOf func(string) int) *section {
	lb := &table{ID: "leaderboard-" + c.ID, Caption: "Human leaderboard with every comparable ranked run inserted at its mean position", Head: []string{"Rank", "Entry", "Mean position"}}
	for _, m := range c.Metrics {
		lb.Head = append(lb.Head, metricLabel(m))
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
			rw.Cells = append(rw.Cells, cell{Text: fmtStored(v, ok, decOf(m.Name)), Class: "num", Sort: sortKey(v)})
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
	return &section{ID: "leaderboard", Title: "Leaderboard",
		Paragraphs: []string{"Human entries keep their published rank and mean position; a run's mean position is its mean rank over the leaderboard's metrics. Failed runs and synthetic runs are not inserted."},
		Tables:     []*table{lb}}
}

// percentileSections are the percentile charts of the comparable configurations, one per rank
// world (issue 30 items 3 and "three worlds"): the paper's
// configurations ranked on every challenge, with the paper's printed
// value; new runs on the real data ranked on every challenge; and the
// ablations and partial runs (fewer challenges, often only a reachable
// range), so that their ranges never stand on the paper's axis.
func (s *site) percentileSections(c *config.Challenge) []*section {
	byWorld := map[rankWorld][]pctBar{}
	for _, g := range s.data.Groups {
		if !s.comparable(g.Source) {
			continue
		}
		cv := s.cellOf(g, c.ID, c.PrimaryMetric, "")
		if len(cv.Runs) == 0 {
			continue
		}
		printed, ptable := printedChallengePct(cv.Runs)
		b := pctBar{Label: s.label(g.groupKey), Hi: math.NaN(), Printed: printed}
		switch {
		case cv.Fail:
			b.Fail, b.Tip = true, b.Label+": FAIL (no valid submission)"
		case !math.IsNaN(cv.Lo):
			b.Value, b.Hi = 100*cv.Lo, 100*cv.Hi
			b.Tip = b.Label + ": " + pctRange(cv.Lo, cv.Hi, 1) + " (reachable range; only the primary metric is recorded)"
		default:
			b.Value = 100 * cv.Pct
			b.Tip = b.Label + ": " + fmtFrac(cv.Pct, 1)
		}
		if !math.IsNaN(b.Printed) {
			b.Tip += "; the paper's Table " + ptable + " prints " + chartNum(b.Printed, " %")
		}
		w := s.world(g)
		if w != worldOther {
			b = s.challengeCI(b, g, c.ID)
		}
		byWorld[w] = append(byWorld[w], b)
	}
	bars := byWorld[worldPaper]
	ps := &section{ID: "percentiles", Title: "Percentile per agent configuration"}
	switch {
	case len(bars) == 0:
		ps.Paragraphs = []string{"No configuration of the paper ranked on this challenge yet."}
	case !nonZero(bars):
		ps.Paragraphs = []string{fmt.Sprintf("All %d configuration(s) of the paper are at the 0th percentile on %s: every run ranks below every human team, so there is no chart to draw.", len(bars), c.ShortName)}
	default:
		ps.Charts = []chart{pctChart(chartID("pct", c.ID), "Percentile on "+c.ShortName+", the paper's configurations", "0 % = below every human team; FAIL = no valid submission; diamond = the paper's print", bars,
			"Bar chart of the percentile (%, axis 0–100 %) each of the paper's configurations ranked on every challenge reaches on "+c.ShortName+" (mean over seeds, failed runs 0, FAIL in red), with the paper's printed value as a diamond")}
		ps.Paragraphs = append(ps.Paragraphs, s.challengeCINote(c.ID, s.inWorld(worldPaper)))
	}
	secs := []*section{ps}
	if fresh := byWorld[worldNew]; len(fresh) > 0 && nonZero(fresh) {
		secs = append(secs, &section{ID: "percentiles-new", Title: "Percentile of new runs on the real data",
			Paragraphs: []string{fmt.Sprintf("New runs on the real challenge data, ranked on all %d challenges under the paper's rules; drawn apart from the paper's configurations above.", len(s.b.Challenges)),
				s.challengeCINote(c.ID, s.inWorld(worldNew))},
			Charts: []chart{pctChart(chartID("pct", "new", c.ID), "Percentile on "+c.ShortName+", new runs on the real data", "0 % = below every human team; FAIL = no valid submission", fresh,
				"Bar chart of the percentile (%, axis 0–100 %) each new configuration on the real data reaches on "+c.ShortName+" (mean over seeds, failed runs 0, FAIL in red)")}})
	}
	if other := byWorld[worldOther]; len(other) > 0 && nonZero(other) {
		secs = append(secs, &section{ID: "percentiles-other", Title: "Percentile of the ablations and partial runs (fewer challenges)",
			Paragraphs: []string{"Configurations run on fewer challenges (the paper's ablations, Tables 4 and 5) or ranked only partially. Where only the primary metric is recorded, the percentile is a reachable range: the lowest and highest percentile the run could have with any values of the unrecorded metrics. They are drawn apart from the configurations ranked on every challenge."},
			Charts: []chart{pctChart(chartID("pct", "other", c.ID), "Ablations and partial runs on "+c.ShortName, "bar = percentile or reachable range; diamond = the paper's print", other,
				"Bar chart of the percentile or reachable percentile range (%, axis 0–100 %) of each ablation or partially ranked configuration on "+c.ShortName+", with the paper's printed value as a diamond")}})
	}
	return secs
}

// valuesTable is the S-table equivalent of runs: every ranked metric value
// with its position, mean rank, percentile, the paper's print with its
// check and the status; with the top human entry first when human is set.
func (s *site) valuesTable(id, caption string, c *config.Challenge, runs []*runData, decOf func(string) int, human bool) *table {
	// The key columns (mean rank, percentile, the paper's print and its
	// check, status) come right after the run, then one column per metric:
	// a reader sees the result without scrolling sideways.
	st := &table{ID: id, Caption: caption, Class: "keyfirst", Head: []string{"Run", "Seed", "Mean rank", "Percentile", "Paper", "Status"}, DataHead: []string{"run", "source", "setting", "backend", "agent", "seed"}}
	for _, m := range c.Metrics {
		st.Head = append(st.Head, metricLabel(m))
		st.DataHead = append(st.DataHead, m.Name, m.Name+":position")
	}
	st.DataHead = append(st.DataHead, "mean_rank", "percentile_pct", "percentile_lo_pct", "percentile_hi_pct", "paper_percentile", "check", "status")
	if top, res, ok := topHuman(c); ok && human {
		rw := row{Class: "human", Cells: []cell{{Text: "Top human: " + top.Team}, {Text: ""}}, Data: []any{"top human: " + top.Team, "leaderboard", "", "", "", nil}}
		var mcells []cell
		for _, m := range c.Metrics {
			v, ok := top.Values[m.Name]
			txt := fmtValue(v, ok, decOf(m.Name))
			var pos any
			if p, okp := res.Positions[m.Name]; okp {
				txt += " (" + strconv.Itoa(p) + ")"
				pos = p
			}
			mcells = append(mcells, cell{Text: txt, Class: "num", Sort: sortKey(v)})
			rw.Data = append(rw.Data, valNum(v, ok), pos)
		}
		computed := runPct(&runData{Ranked: true, RankStatus: "ok", PosSum: res.PosSum, K: res.K, N: res.N, MeanRank: res.MeanRank, Pct: res.Percentile}, 1)
		if res.Status != rank.OK {
			computed = "FAIL"
		}
		pc := cell{Text: paperTopHumanPct + " (paper)", Class: "num", Sort: "1"}
		if computed != paperTopHumanPct {
			pc.Note = "computed " + computed
			pc.Badge, pc.BadgeClass, pc.BadgeTitle = "⚑", "warn", "The paper prints 100.0% for the top human team; ranking its own values among the leaderboard rows gives "+computed
		}
		rw.Cells = append(rw.Cells, cell{Text: fmtMeanRank(res.MeanRank), Class: "num", Sort: sortKey(res.MeanRank)}, pc, cell{}, cell{Text: "leaderboard rank " + strconv.Itoa(top.Rank)})
		rw.Cells = append(rw.Cells, mcells...)
		rw.Data = append(rw.Data, valNum(res.MeanRank, res.Status == rank.OK), pctNum(res.Percentile), nil, nil, 100.0, nil, "leaderboard rank "+strconv.Itoa(top.Rank))
		st.Rows = append(st.Rows, rw)
	}
	for _, r := range runs {
		lbl := s.label(groupKey{r.Source, r.Setting, r.Backend, r.Agent})
		rw := row{Class: "agent", Cells: []cell{{Text: lbl, Href: "../" + s.agentPageOf(r) + "#" + c.ID}, {Text: strconv.Itoa(r.Seed), Class: "num"}},
			Data: []any{r.ID, r.Source, r.Setting, r.Backend, r.Agent, r.Seed}}
		failed := r.Ranked && !r.ok() && !r.partial()
		var mcells []cell
		for _, m := range c.Metrics {
			v, ok := r.Values[m.Name]
			txt := fmtValue(v, ok, decOf(m.Name))
			if !ok && failed {
				txt = "FAIL"
			}
			var pos any
			if p, okp := r.Positions[m.Name]; okp {
				txt += " (" + strconv.Itoa(p) + ")"
				pos = p
			}
			mcells = append(mcells, cell{Text: txt, Class: "num", Sort: sortKey(v)})
			rw.Data = append(rw.Data, valNum(v, ok), pos)
		}
		mr := "—"
		switch {
		case r.ok():
			mr = fmtMeanRank(r.MeanRank)
		case failed:
			mr = "FAIL"
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
		pct := r.Pct
		if !r.ok() {
			pct = math.NaN()
		}
		rw.Cells = append(rw.Cells, cell{Text: mr, Class: "num", Sort: sortKey(r.MeanRank)}, cell{Text: runPct(r, 1), Class: "num", Sort: sortKey(r.Pct)},
			cell{Text: pr, Badge: b, BadgeClass: bc, BadgeTitle: bt}, cell{Text: status})
		rw.Cells = append(rw.Cells, mcells...)
		var prAny any
		for t, x := range r.Printed {
			if strings.HasPrefix(t, "S") {
				prAny = plainValue(x["percentile"])
			}
		}
		rw.Data = append(rw.Data, valNum(r.MeanRank, r.ok()), pctNum(pct), pctNum(r.PctLo), pctNum(r.PctHi), prAny, classOf(ck), status)
		st.Rows = append(st.Rows, rw)
	}
	return st
}

// printedSTable reproduces the paper's S-table of a challenge exactly as
// printed: each agent's printed values (with printed positions), unranked
// metrics, FAILs, mean rank, percentile and overall, and the human column
// (the top team's values from the leaderboard, with the paper's 100.0%).
// Every printed number carries data-paper (how many numbers the cell
// prints); nil when the paper has no S-table for the challenge.
func (s *site) printedSTable(c *config.Challenge) *section {
	tbl, cols := s.printedSColumns(c)
	if len(cols) == 0 {
		return nil
	}
	t := &table{ID: "paper-" + strings.ToLower(tbl), Class: "compact", Caption: "Table " + tbl + " of the paper, as printed: value (position)", Head: []string{"Metric"},
		DataHead: []string{"row"}}
	for _, cl := range cols {
		t.Head = append(t.Head, s.agentName(cl.agent))
		t.DataHead = append(t.DataHead, cl.agent, cl.agent+":position")
	}
	t.Head = append(t.Head, "Human")
	t.DataHead = append(t.DataHead, "human")
	top, res, hasTop := topHuman(c)
	for _, m := range c.Metrics {
		t.Rows = append(t.Rows, s.printedSMetricRow(m, tbl, cols, top, res, hasTop))
	}
	for _, u := range unrankedNames(cols) {
		rw := row{Cells: []cell{{Text: u + " (not ranked)"}}, Data: []any{u}}
		for _, cl := range cols {
			v := cl.pr["unranked:"+u]
			rw.Cells = append(rw.Cells, cell{Text: orDash(v), Class: "num", Printed: printedCount(v)})
			rw.Data = append(rw.Data, plainValue(v), nil)
		}
		rw.Cells = append(rw.Cells, cell{Text: "N/A", Class: "num"})
		rw.Data = append(rw.Data, nil)
		t.Rows = append(t.Rows, rw)
	}
	// The paper's row order where it recorded one (S3 prints its unranked
	// rows first).
	if hp, ok := s.humans[tbl]; ok && len(hp.Rows) > 0 {
		place := map[string]int{}
		for i, r := range hp.Rows {
			place[r] = i
		}
		sort.SliceStable(t.Rows, func(i, j int) bool {
			pi, oki := place[t.Rows[i].Data[0].(string)]
			pj, okj := place[t.Rows[j].Data[0].(string)]
			if !oki || !okj {
				return oki && !okj
			}
			return pi < pj
		})
	}
	t.Rows = append(t.Rows, s.printedSSummaryRows(tbl, cols, res)...)
	humanNote := "The human column is the leaderboard's top team (values from the leaderboard, positions computed): the recorded paper results hold no printed human column for this table."
	if _, ok := s.humans[tbl]; ok {
		humanNote = "The human column is the paper's too (its top team, with the positions, mean rank and overall the paper prints for it)."
	}
	return &section{ID: "paper", Title: "The paper's Table " + tbl + " as printed",
		Paragraphs: []string{"Every number the paper prints for this challenge, with the paper's precision: the agents ran 24 h with GPT-5. " + humanNote + " The computed results are in the table above."},
		Tables:     []*table{t}}
}

// printedSCol is one agent's column of an S-table: what the paper prints
// for it, by key.
type printedSCol struct {
	agent string
	pr    map[string]string
}

// printedSColumns are the agents' columns of the challenge's S-table, in the
// paper's agent order, and the table's name.
func (s *site) printedSColumns(c *config.Challenge) (tbl string, cols []printedSCol) {
	for _, r := range s.data.Runs {
		if r.Source != printedSource || r.Challenge != c.ID {
			continue
		}
		for t, pr := range r.Printed {
			if strings.HasPrefix(t, "S") {
				tbl = t
				cols = append(cols, printedSCol{r.Agent, pr})
			}
		}
	}
	order := map[string]int{"aide": 0, "rd-agent": 1, "ml-master": 2}
	sort.SliceStable(cols, func(i, j int) bool { return order[cols[i].agent] < order[cols[j].agent] })
	return tbl, cols
}

// printedCount is how many printed numbers a cell shows: "" for none, "1"
// for a value.
func printedCount(x string) string {
	if x == "" {
		return ""
	}
	return "1"
}

// unrankedNames are the unranked rows, in the paper's order where the store
// records it, then the others sorted.
func unrankedNames(cols []printedSCol) []string {
	var unranked []string
	seen := map[string]bool{}
	for _, cl := range cols {
		for _, u := range strings.Split(cl.pr[paper.OrderKey], "\t") {
			if u != "" && !seen[u] {
				seen[u] = true
				unranked = append(unranked, u)
			}
		}
	}
	var rest []string
	for _, cl := range cols {
		for k := range cl.pr {
			if u, ok := strings.CutPrefix(k, "unranked:"); ok && !seen[u] {
				seen[u] = true
				rest = append(rest, u)
			}
		}
	}
	sort.Strings(rest)
	return append(unranked, rest...)
}

// printedSMetricRow is a ranked metric's row: each agent's printed value
// (position), then the human's, printed or else the leaderboard's top team.
func (s *site) printedSMetricRow(m config.Metric, tbl string, cols []printedSCol, top config.HumanEntry, res rank.Result, hasTop bool) row {
	rw := row{Cells: []cell{{Text: metricLabel(m)}}, Data: []any{m.Name}}
	for _, cl := range cols {
		v, pos := cl.pr[m.Name], cl.pr["position:"+m.Name]
		txt, n := v, printedCount(v)
		if pos != "" {
			txt += " (" + pos + ")"
			n = "2"
		}
		rw.Cells = append(rw.Cells, cell{Text: orDash(txt), Class: "num", Printed: n})
		rw.Data = append(rw.Data, plainValue(v), plainValue(pos))
	}
	if hp, ok := s.humans[tbl]; ok {
		v := hp.Values[m.Name]
		txt, n := v, printedCount(v)
		if p, ok := hp.PrintedPositions[m.Name]; ok {
			txt += " (" + strconv.Itoa(p) + ")"
			n = "2"
		}
		rw.Cells = append(rw.Cells, cell{Text: orDash(txt), Class: "num", Printed: n})
		rw.Data = append(rw.Data, plainValue(v))
	} else {
		hv, hok := top.Values[m.Name]
		ht := fmtValue(hv, hok && hasTop, decimalsOf(firstPrinted(cols[0].pr, m.Name)))
		if p, ok := res.Positions[m.Name]; ok {
			ht += " (" + strconv.Itoa(p) + ")"
		}
		rw.Cells = append(rw.Cells, cell{Text: ht, Class: "num", Title: "from the leaderboard (top team " + top.Team + "); position computed"})
		rw.Data = append(rw.Data, valNum(hv, hok && hasTop))
	}
	return rw
}

// printedSSummaryRows are the mean rank, percentile and overall rows the
// table prints, the human's printed or computed from the top team.
func (s *site) printedSSummaryRows(tbl string, cols []printedSCol, res rank.Result) []row {
	var rows []row
	for _, k := range []struct{ key, name string }{{"mean_rank", "Mean Rank"}, {"percentile", "Percentile"}, {"overall", "Overall"}} {
		present := false
		for _, cl := range cols {
			if cl.pr[k.key] != "" {
				present = true
			}
		}
		if !present {
			continue
		}
		rw := row{Class: "agent", Cells: []cell{{Text: k.name}}, Data: []any{k.name}}
		for _, cl := range cols {
			v := cl.pr[k.key]
			rw.Cells = append(rw.Cells, cell{Text: orDash(v), Class: "num", Printed: printedCount(v)})
			rw.Data = append(rw.Data, plainValue(v), nil)
		}
		hp, printedHuman := s.humans[tbl]
		hv := map[string]string{"mean_rank": hp.PrintedMeanRank, "percentile": hp.PrintedPercentile, "overall": hp.PrintedOverall}[k.key]
		switch {
		case printedHuman:
			rw.Cells = append(rw.Cells, cell{Text: orDash(hv), Class: "num", Printed: printedCount(hv)})
			rw.Data = append(rw.Data, plainValue(hv))
		case k.key == "mean_rank":
			rw.Cells = append(rw.Cells, cell{Text: fmtMeanRank(res.MeanRank), Class: "num", Title: "computed from the top team's values"})
			rw.Data = append(rw.Data, valNum(res.MeanRank, res.Status == rank.OK))
		case k.key == "percentile":
			rw.Cells = append(rw.Cells, cell{Text: paperTopHumanPct, Class: "num", Printed: "1", Title: "the paper prints 100.0% for the top human team"})
			rw.Data = append(rw.Data, 100.0)
		default:
			rw.Cells = append(rw.Cells, cell{Text: "", Class: "num"})
			rw.Data = append(rw.Data, nil)
		}
		rows = append(rows, rw)
	}
	return rows
}

// firstPrinted is the printed text of a metric, for its decimals.
func firstPrinted(pr map[string]string, m string) string {
	if v := pr[m]; v != "" && v != "FAIL" {
		return v
	}
	return "0.0000"
}

// agentPageOf is the site path of a run's configuration page.
func (s *site) agentPageOf(r *runData) string {
	return "agents/" + groupSlug(groupKey{r.Source, r.Setting, r.Backend, r.Agent}) + ".html"
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

// caseSection shows per-case values, one table per metric: of the
// comparable runs, or (synthetic set) of the synthetic runs in their own
// marked section, nil when there are none.
func (s *site) caseSection(c *config.Challenge, synthetic bool) *section {
	sec := &section{ID: "cases", Title: "Per-case values"}
	idp := "cases-"
	if synthetic {
		sec = &section{ID: "cases-synthetic", Title: "Per-case values of the synthetic runs (not comparable)", Class: "section-demo"}
		idp = "cases-synthetic-"
	}
	source := map[string]string{}
	for _, r := range s.challengeRuns(c.ID) {
		source[r.ID] = r.Source
	}
	var cvs []caseValue
	for _, cv := range s.data.Cases[c.ID] {
		if src, ok := source[cv.RunID]; ok && s.comparable(src) != synthetic {
			cvs = append(cvs, cv)
		}
	}
	if len(cvs) == 0 {
		if synthetic {
			return nil
		}
		sec.Paragraphs = []string{"No per-case values are stored for this challenge's comparable runs."}
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
		caption := "Per-case " + m
		if synthetic {
			caption += " (synthetic runs)"
		}
		t := &table{ID: idp + c.ID + "-" + slug(m), Caption: caption, Head: []string{"Case"}}
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

// printedChallengePct is the percentile the paper prints for a
// configuration's runs on one challenge, percent, and the table that prints
// it: its results table (3, 4 or 5) first, then its S-table (which prints
// one decimal, and in one case another value: S13 prints ML-Master 0.0 %
// on TopCoW track 1 task 1 where Table 3 prints 3 %); NaN when it prints
// none or prints FAIL.
func printedChallengePct(runs []*runData) (float64, string) {
	var tables []string
	for _, r := range runs {
		for t := range r.Printed {
			tables = append(tables, t)
		}
	}
	sort.SliceStable(tables, func(i, j int) bool {
		si, sj := strings.HasPrefix(tables[i], "S"), strings.HasPrefix(tables[j], "S")
		if si != sj {
			return sj
		}
		return tables[i] < tables[j]
	})
	for _, t := range tables {
		for _, r := range runs {
			if r.Source != printedSource {
				continue
			}
			if v, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(r.Printed[t]["percentile"]), "%"), 64); err == nil {
				return v, t
			}
		}
	}
	return math.NaN(), ""
}

// inWorld selects the comparable configurations of one rank world.
func (s *site) inWorld(w rankWorld) func(*group) bool {
	return func(g *group) bool { return s.comparable(g.Source) && s.world(g) == w }
}

// challengeLead is a challenge page's one-line result: the best comparable
// configuration's percentile and primary value beside the top human team's
// ("" when nothing comparable ran here).
func (s *site) challengeLead(c *config.Challenge, runs []*runData) string {
	if len(runs) == 0 {
		return ""
	}
	metric := c.PrimaryName()
	dec := s.metricDecimals(c.ID)[c.PrimaryMetric]
	if dec == 0 {
		dec = 4
	}
	var best []string
	bestPct, bestVal, bestOK := math.Inf(-1), 0.0, false
	for _, g := range s.data.Groups {
		if !s.comparable(g.Source) {
			continue
		}
		cv := s.cellOf(g, c.ID, c.PrimaryMetric, "")
		if len(cv.Runs) == 0 || cv.Fail || math.IsNaN(cv.Pct) {
			continue
		}
		switch {
		case cv.Pct > bestPct:
			best, bestPct, bestVal, bestOK = []string{s.label(g.groupKey)}, cv.Pct, cv.Value, cv.HasValue
		case cv.Pct == bestPct:
			best = append(best, s.label(g.groupKey))
		}
	}
	if len(best) == 0 {
		return "No comparable run on " + c.ShortName + " is fully ranked: every one failed or has only its primary metric recorded."
	}
	var msg string
	switch {
	case bestPct == 0:
		msg = fmt.Sprintf("Every agent configuration ranked here is at the 0th percentile, below every human team (%d configuration(s))", len(best))
	case len(best) > 1:
		msg = fmt.Sprintf("Best agents here: %s at the %s percentile of the human teams", strings.Join(best, ", "), ordinal(bestPct))
	default:
		msg = fmt.Sprintf("Best agent here: %s at the %s percentile of the human teams (%s %s)", best[0], ordinal(bestPct), metric, fmtValue(bestVal, bestOK, dec))
	}
	if top, _, ok := topHuman(c); ok {
		hv, hok := top.Values[c.PrimaryMetric]
		msg += fmt.Sprintf("; the top human team, %s, has %s %s", top.Team, metric, fmtValue(hv, hok, dec))
	}
	return msg + "."
}

// ordinal is a percentile fraction as "0th", "56th", "100th" (whole numbers).
func ordinal(p float64) string {
	n := int(math.Floor(100*p + 0.5))
	suf := "th"
	if n%100 < 11 || n%100 > 13 {
		switch n % 10 {
		case 1:
			suf = "st"
		case 2:
			suf = "nd"
		case 3:
			suf = "rd"
		}
	}
	return strconv.Itoa(n) + suf
}

// metricLabel is a metric's name as the paper prints it (the challenge
// file's label), or its id when the file gives none.
func metricLabel(m config.Metric) string {
	if m.Label != "" {
		return m.Label
	}
	return m.Name
}

// primaryText names a challenge's primary metric as the paper does, with
// the grader's id: "AP (ap_mean)".
func primaryText(c *config.Challenge) string {
	name := c.PrimaryMetric
	if m, ok := c.Metric(c.PrimaryMetric); ok && m.Label != "" {
		name = m.Label
	}
	if c.PrimaryLabel != "" {
		name = c.PrimaryLabel
	}
	if name == c.PrimaryMetric {
		return name
	}
	return name + " (" + c.PrimaryMetric + ")"
}
