package report

import (
	"fmt"
	"html/template"
	"math"
	"sort"
	"strconv"
	"strings"
)

const (
	paperURL = "https://arxiv.org/abs/2512.17838"
	codeURL  = "https://github.com/rexmle/rexmle"
)

// leadHTML builds a sentence with links: parts alternate text and
// [text, href] pairs; every text is escaped.
func leadHTML(parts ...any) template.HTML {
	var b strings.Builder
	for _, p := range parts {
		switch x := p.(type) {
		case string:
			b.WriteString(template.HTMLEscapeString(x))
		case [2]string:
			rel := ""
			if strings.HasPrefix(x[1], "http://") || strings.HasPrefix(x[1], "https://") {
				rel = ` rel="external"`
			}
			fmt.Fprintf(&b, `<a href="%s"%s>%s</a>`, template.HTMLEscapeString(x[1]), rel, template.HTMLEscapeString(x[0]))
		}
	}
	return template.HTML(b.String())
}

// headline is the paper's main result as computed from the store: the range
// of the ReX-MLE rank of the paper's Table 3 configurations and how many of
// their submissions sit at the 0th percentile.
type headline struct {
	Lo, Hi        float64 // fractions
	LoName        string
	HiName        string
	Agents        int
	Zero, Runs    int // runs at 0 % (failed ones included), all runs
	Challenges    int
	Setting, Back string
}

func (s *site) headline() (headline, bool) {
	h := headline{Lo: math.Inf(1), Hi: math.Inf(-1)}
	for _, g := range s.table3Groups() {
		if g.Source != printedSource || math.IsNaN(g.Overall) {
			continue
		}
		h.Agents++
		h.Setting, h.Back, h.Challenges = g.Setting, g.Backend, g.NChallenges
		if g.Overall < h.Lo {
			h.Lo, h.LoName = g.Overall, s.agentName(g.Agent)
		}
		if g.Overall > h.Hi {
			h.Hi, h.HiName = g.Overall, s.agentName(g.Agent)
		}
		for _, r := range g.Runs {
			h.Runs++
			if !r.ok() || r.Pct == 0 {
				h.Zero++
			}
		}
	}
	return h, h.Agents > 0
}

// printedHead is the paper's headline as printed: Table 3's overall mean
// percentile per agent and how many of Table 3's cells print a 0th
// percentile or a failure.
type printedHead struct {
	Setting, Backend string
	Names, Texts     []string
	Zero, Cells      int
}

// printedHeadline reads the paper's headline from its printed results in
// the store (imported from results/paper): false when none are stored.
func (s *site) printedHeadline() (printedHead, bool) {
	var h printedHead
	for _, o := range s.data.Overall {
		if o.Table != "3" {
			continue
		}
		h.Setting, h.Backend = o.Setting, o.Backend
		h.Names = append(h.Names, s.agentName(o.Agent))
		h.Texts = append(h.Texts, o.Text)
	}
	for _, r := range s.data.Runs {
		pr, ok := r.Printed["3"]
		if r.Source != printedSource || !ok {
			continue
		}
		h.Cells++
		if p := strings.TrimSpace(pr["percentile"]); p == "" || p == "0%" || strings.EqualFold(pr["primary"], "FAIL") {
			h.Zero++
		}
	}
	return h, len(h.Texts) > 0
}

// sentence is the printed headline in words.
func (h printedHead) sentence() string {
	parts := make([]string, len(h.Names))
	for i := range h.Names {
		parts[i] = h.Names[i] + " " + h.Texts[i]
	}
	msg := fmt.Sprintf("The paper's result, as printed (Table 3, %s, %s): the agents reach a mean percentile of the human teams of only %s", h.Setting, h.Backend, strings.Join(parts, ", "))
	if h.Cells > 0 {
		msg += fmt.Sprintf("; %d of %d submissions are at the 0th percentile or failed", h.Zero, h.Cells)
	}
	return msg + ", where each challenge's top human team stands at 100 %. "
}

// recomputedLead is the overview's "recomputed here" sentence: each paper
// configuration's rank as computed from the stored values, and, where it
// differs from the print, a link to the Reproduction page's explanation.
func (s *site) recomputedLead(h headline) template.HTML {
	parts := []any{"Recomputed here from the paper's recorded values: "}
	first := true
	for _, g := range s.table3Groups() {
		if g.Source != printedSource || math.IsNaN(g.Overall) {
			continue
		}
		if !first {
			parts = append(parts, ", ")
		}
		first = false
		txt := s.agentName(g.Agent) + " " + fmtFrac(g.Overall, 2)
		printed, ck := s.printedOverall(g)
		if ck != nil && ck.Class != classMatch {
			parts = append(parts, txt+" (", [2]string{"printed " + strings.TrimSuffix(printed, " (Table 3)") + ": " + ck.Class, "reproduction.html#" + ck.anchor()}, ")")
		} else {
			parts = append(parts, txt)
		}
	}
	parts = append(parts, fmt.Sprintf(" over %d challenges; %d of %d submissions at the 0th percentile or failed", h.Challenges, h.Zero, h.Runs))
	if ph, ok := s.printedHeadline(); ok && ph.Cells == h.Runs && ph.Zero != h.Zero {
		parts = append(parts, " (", [2]string{fmt.Sprintf("the paper counts %d", ph.Zero), "reproduction.html#disagreements"}, ")")
	}
	parts = append(parts, ". The ReX-MLE rank is the mean over challenges of the leaderboard percentile (0 % = below every human team; seeds averaged; a failed run counts 0).")
	return leadHTML(parts...)
}

// headlineGroup reports whether a configuration belongs in Figure 1: a
// comparable one, fully ranked on every challenge of the benchmark.
func (s *site) headlineGroup(g *group) bool {
	return s.comparable(g.Source) && len(g.Partial) == 0 && g.NChallenges == len(s.b.Challenges) && !math.IsNaN(g.Overall)
}

// overviewPage is index.html: what ReX-MLE is and what the paper found,
// the ReX-MLE rank of the comparable configurations (paper Figure 1), the
// Table 3 equivalent, and, apart, the synthetic runs.
func (s *site) overviewPage() ([]*page, error) {
	p := &page{Path: "index.html", Title: "ReX-MLE: autonomous ML agents against human experts in medical imaging", TOC: true, BannerLate: true}
	p.Lead = append(p.Lead, leadHTML(fmt.Sprintf("ReX-MLE is a benchmark of %d medical-imaging competitions on which autonomous machine-learning agents must preprocess the data, train models and submit predictions on their own, ranked against the human expert teams of each leaderboard.", len(s.b.Challenges))))
	ph, printedOK := s.printedHeadline()
	if printedOK {
		p.Lead = append(p.Lead, leadHTML(ph.sentence(), [2]string{"Paper (arXiv:2512.17838)", paperURL}, " · ", [2]string{"Code", codeURL}))
	}
	if h, ok := s.headline(); ok {
		p.Lead = append(p.Lead, s.recomputedLead(h))
	} else if !printedOK {
		p.Lead = append(p.Lead, leadHTML("The store holds none of the paper's recorded runs, so its headline (agents reach 4.5–12 % of the human teams' mean percentile) cannot be recomputed here. ",
			[2]string{"Paper (arXiv:2512.17838)", paperURL}, " · ", [2]string{"Code", codeURL}))
	}
	p.Sections = append(p.Sections, s.figure1Sections()...)
	p.Sections = append(p.Sections, s.table3Section())
	stab, stabDemo := s.stabilitySections()
	p.Sections = append(p.Sections, stab...)
	if demo := s.demoSection(); demo != nil {
		p.Sections = append(p.Sections, demo)
	}
	p.Sections = append(p.Sections, stabDemo...)
	links := &section{ID: "pages", Title: "Challenges"}
	for _, c := range s.b.Challenges {
		links.List = append(links.List, listItem{Text: c.ShortName, Href: "challenges/" + c.ID + ".html", Note: c.Modality + " · " + c.TaskType})
	}
	p.Sections = append(p.Sections, links)
	return []*page{p}, nil
}

// rankTip is a configuration's tooltip: its rank with units and its print.
func (s *site) rankTip(g *group) string {
	t := s.label(g.groupKey) + ": "
	if len(g.Partial) > 0 {
		t += pctRange(g.Lo, g.Hi, 2) + " (reachable range)"
	} else {
		t += fmtFrac(g.Overall, 2)
	}
	t += fmt.Sprintf(" over %d challenge(s)", g.NChallenges)
	if pr, _ := s.printedOverall(g); pr != "" {
		t += "; paper prints " + pr
	}
	return t
}

// rankWorld says which of the three worlds a configuration's rank belongs
// to; ranks are compared only within one.
type rankWorld int

const (
	worldPaper rankWorld = iota // the paper's runs, ranked on every challenge
	worldNew                    // new runs on the real data, ranked on every challenge
	worldOther                  // ablations, partial runs, synthetic runs
)

// world places a configuration in its rank world.
func (s *site) world(g *group) rankWorld {
	full := s.comparable(g.Source) && len(g.Partial) == 0 && g.NChallenges == len(s.b.Challenges)
	switch {
	case full && g.Source == printedSource:
		return worldPaper
	case full:
		return worldNew
	default:
		return worldOther
	}
}

// figure1Sections are paper Figure 1 and its neighbours, one section per
// rank world: the paper's configurations ranked on every challenge (chart
// and table), new runs on the real data ranked on every challenge (their
// own chart and table), and the comparable configurations run on fewer
// challenges or partially (the paper's ablations). Synthetic runs are in
// the marked synthetic section. Each rank has its number of challenges
// beside it.
func (s *site) figure1Sections() []*section {
	var paper, fresh, other []*group
	for _, g := range s.data.Groups {
		if !s.comparable(g.Source) {
			continue
		}
		switch s.world(g) {
		case worldPaper:
			paper = append(paper, g)
		case worldNew:
			fresh = append(fresh, g)
		default:
			other = append(other, g)
		}
	}
	n := len(s.b.Challenges)
	fig := &section{ID: "rank", Title: "ReX-MLE rank (paper Figure 1)"}
	t, bars := s.rankTable("overall", fmt.Sprintf("ReX-MLE rank of the paper's configurations, %d challenges", n), paper)
	fig.Tables = []*table{t}
	if len(bars) > 0 {
		fig.Paragraphs = append(fig.Paragraphs, fmt.Sprintf("The chart shows the paper's %d configuration(s) ranked on all %d challenges; the diamond is the paper's printed value.", len(bars), n), s.figure1CINote())
		fig.Charts = []chart{pctChart(chartID("overall"), fmt.Sprintf("ReX-MLE rank, paper's configurations, %d challenges", n), "mean percentile of the human teams (%)", bars,
			"Bar chart of the ReX-MLE rank (mean percentile, %, axis 0–100 %) of each of the paper's configurations ranked on all challenges, best first")}
	} else {
		fig.Paragraphs = append(fig.Paragraphs, "No configuration is ranked on every challenge yet (run the rank stage), so there is no Figure 1 chart.")
	}
	out := []*section{fig}
	if len(fresh) > 0 {
		ns := &section{ID: "rank-new", Title: fmt.Sprintf("ReX-MLE rank of new runs on the real data, %d challenges", n),
			Paragraphs: []string{fmt.Sprintf("New runs on the real challenge data, ranked on the same %d challenges under the same rules as the paper's; they are ranked among themselves here, not with the paper's runs above.", n)}}
		nt, nbars := s.rankTable("overall-new", fmt.Sprintf("ReX-MLE rank of new runs on real data, %d challenges", n), fresh)
		ns.Tables = []*table{nt}
		ns.Charts = []chart{pctChart(chartID("overall", "new"), fmt.Sprintf("ReX-MLE rank, new runs, %d challenges", n), "mean percentile of the human teams (%)", nbars,
			"Bar chart of the ReX-MLE rank (mean percentile, %, axis 0–100 %) of each new configuration on real data ranked on all challenges, best first")}
		out = append(out, ns)
	}
	if len(other) > 0 {
		rest := &section{ID: "rank-other", Title: "ReX-MLE rank on fewer challenges (ablations and partial runs)",
			Paragraphs: []string{fmt.Sprintf("%d configuration(s) were run on fewer challenges or recorded only by their primary metric (the paper's ablations, Tables 4 and 5), or are ranked only partially: their means are over other challenges, so they are not ranked with the configurations above. The number of challenges is beside each rank; see the Ablations page.", len(other))}}
		ot, _ := s.rankTable("overall-other", "ReX-MLE rank of configurations run on fewer challenges or partially (not comparable with the tables above)", other)
		rest.Tables = []*table{ot}
		out = append(out, rest)
	}
	return out
}

// rankTable is the rank table of one world's configurations, best first,
// with the number of challenges beside each rank, and the chart bars of
// those ranked on every challenge.
func (s *site) rankTable(id, caption string, gs []*group) (*table, []pctBar) {
	sort.SliceStable(gs, func(i, j int) bool {
		if gs[i].NChallenges != gs[j].NChallenges {
			return gs[i].NChallenges > gs[j].NChallenges
		}
		return midpoint(gs[i]) > midpoint(gs[j])
	})
	var bars []pctBar
	t := &table{ID: id, Caption: caption, Filter: true, FilterCols: "Backend,Setting,Source",
		Head:     []string{"Agent", "ReX-MLE rank", "Challenges", "Paper", "Check", "Backend", "Setting", "Source"},
		DataHead: []string{"agent", "backend", "setting", "source", "challenges", "rexmle_rank_pct", "rexmle_rank_lo_pct", "rexmle_rank_hi_pct", "paper_pct", "paper_table", "check"}}
	for _, g := range gs {
		if s.headlineGroup(g) {
			bars = append(bars, s.overallCI(pctBar{Label: s.label(g.groupKey), Value: 100 * g.Overall, Hi: math.NaN(), Printed: s.printedPct(g), Tip: s.rankTip(g), ValueLabel: true}, g))
		}
		val := fmtFrac(g.Overall, 2)
		if len(g.Partial) > 0 {
			val = pctRange(g.Lo, g.Hi, 2)
		}
		printed, ck := s.printedOverall(g)
		b, bc, bt := ck.badge()
		t.Rows = append(t.Rows, row{Cells: []cell{
			{Text: s.agentName(g.Agent), Href: "agents/" + groupSlug(g.groupKey) + ".html"},
			{Text: val, Class: "num", Sort: sortKey(midpoint(g))},
			{Text: strconv.Itoa(g.NChallenges), Class: "num"},
			{Text: printed, Class: "num"},
			{Text: "", Badge: b, BadgeClass: bc, BadgeTitle: bt},
			{Text: g.Backend}, {Text: g.Setting}, {Text: shortSource(g.Source)},
		}, Data: []any{g.Agent, g.Backend, g.Setting, g.Source, g.NChallenges, pctNum(g.Overall), pctNum(g.Lo), pctNum(g.Hi), jnum(s.printedPct(g)), s.printedTable(g), classOf(ck)}})
	}
	return t, bars
}

// printedPct is the paper's printed overall for a configuration, percent;
// NaN for none.
func (s *site) printedPct(g *group) float64 {
	if g.Source != printedSource {
		return math.NaN()
	}
	for _, o := range s.data.Overall {
		if o.Setting == g.Setting && o.Backend == g.Backend && o.Agent == g.Agent {
			if v, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(o.Text), "%"), 64); err == nil {
				return v
			}
		}
	}
	return math.NaN()
}

// printedTable names the table that printed a configuration's overall (nil for none).
func (s *site) printedTable(g *group) any {
	if g.Source != printedSource {
		return nil
	}
	for _, o := range s.data.Overall {
		if o.Setting == g.Setting && o.Backend == g.Backend && o.Agent == g.Agent {
			return o.Table
		}
	}
	return nil
}

// pctNum is a fraction as a plain percentage number for downloads (nil for NaN).
func pctNum(f float64) any {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil
	}
	return round4(100 * f)
}

// valNum is a value for downloads (nil when absent or not finite).
func valNum(v float64, ok bool) any {
	if !ok || math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return v
}

func classOf(c *check) any {
	if c == nil {
		return nil
	}
	return c.Class
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
	if g.Source != printedSource {
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
// S-table configuration (24 h, GPT-5) and every new comparable
// configuration ranked on every challenge. Synthetic runs never appear.
func (s *site) table3Groups() []*group {
	var out []*group
	for _, g := range s.data.Groups {
		if !s.comparable(g.Source) {
			continue
		}
		if g.Source != printedSource {
			if len(g.Partial) == 0 && g.NChallenges == len(s.b.Challenges) {
				out = append(out, g)
			}
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

// cellValue is a configuration's primary value and percentile on one
// challenge: means over seeds; pct NaN when unknown.
type cellValue struct {
	Value        float64
	HasValue     bool
	Pct, Lo, Hi  float64 // fractions; Lo/Hi NaN unless partial
	Fail         bool    // every run failed
	Text         string  // "0.04 · 0%", "FAIL", "—"
	Runs         []*runData
	PrintedValue string
	PrintedPct   string
}

func (s *site) cellOf(g *group, ch, primary string, tbl string) cellValue {
	cv := cellValue{Pct: math.NaN(), Lo: math.NaN(), Hi: math.NaN(), Text: "—"}
	rs := runsOf(g, ch)
	cv.Runs = rs
	if len(rs) == 0 {
		return cv
	}
	var vs float64
	var nv, nfail int
	for _, r := range rs {
		if v, ok := r.Values[primary]; ok && !math.IsNaN(v) {
			vs += v
			nv++
		}
		if r.Ranked && !r.ok() && !r.partial() {
			nfail++
		}
	}
	if nv > 0 {
		cv.Value, cv.HasValue = vs/float64(nv), true
	}
	cv.Fail = nfail == len(rs)
	pct := "FAIL"
	if pc, ok := g.PerChallenge[ch]; ok && !cv.Fail {
		cv.Pct = pc
		pct = fmtFrac(pc, 0)
		if len(rs) == 1 {
			pct = runPct(rs[0], 0)
		}
	} else if lh, ok := g.Partial[ch]; ok {
		cv.Lo, cv.Hi = lh[0], lh[1]
		pct = pctRange(lh[0], lh[1], 0)
	}
	if cv.Fail {
		cv.Text = "FAIL"
	} else {
		cv.Text = fmtValue(cv.Value, cv.HasValue, 2) + " · " + pct
	}
	if tbl != "" && g.Source == printedSource {
		if pr := rs[0].Printed[tbl]; pr != nil {
			cv.PrintedValue, cv.PrintedPct = pr["primary"], pr["percentile"]
		}
	}
	return cv
}

// printedCell is the paper's cell text: "FAIL" alone when it printed FAIL.
func printedCell(v, pct string) string {
	if v == "FAIL" {
		return "FAIL"
	}
	return v + " · " + orDash(pct)
}

// table3Section is the challenge × configuration table: the top human's
// primary value, then per configuration the computed value · percentile
// with the reproduction badge (value and percentile checked) and, where
// the paper's cell differs, its print on a second line; an overall row.
func (s *site) table3Section() *section {
	gs := s.table3Groups()
	t := &table{ID: "table3", Class: "compact", Caption: "Primary metric value · percentile per challenge (Table 3 equivalent; synthetic runs excluded)",
		Head: []string{"Challenge", "Metric", "Human (top team's value)"}, DataHead: []string{"challenge", "metric", "human_value", "human_pct"}}
	for _, g := range gs {
		t.Head = append(t.Head, s.label(g.groupKey))
		k := groupSlug(g.groupKey)
		t.DataHead = append(t.DataHead, k+":value", k+":pct", k+":pct_lo", k+":pct_hi", k+":failed")
		if g.Source == printedSource {
			t.DataHead = append(t.DataHead, k+":paper_value", k+":paper_pct", k+":check")
		}
	}
	lastCat := ""
	for _, c := range s.b.Challenges {
		if c.Category != lastCat {
			lastCat = c.Category
			t.Rows = append(t.Rows, row{Group: categoryTitle(c.Category)})
		}
		metric := c.PrimaryName()
		hv, hok := topHumanValue(c)
		rw := row{Cells: []cell{{Text: c.ShortName, Href: "challenges/" + c.ID + ".html"}, {Text: metric},
			{Text: fmtValue(hv, hok, 2), Class: "num", Sort: sortKey(hv)}},
			Data: []any{c.ID, c.PrimaryMetric, valNum(hv, hok), 100}}
		for _, g := range gs {
			cv := s.cellOf(g, c.ID, c.PrimaryMetric, "3")
			ce := cell{Text: cv.Text, Class: "num", Sort: sortKey(cv.Pct), Href: "agents/" + groupSlug(g.groupKey) + ".html#" + c.ID}
			data := []any{valNum(cv.Value, cv.HasValue), pctNum(cv.Pct), pctNum(cv.Lo), pctNum(cv.Hi), cv.Fail}
			if g.Source == printedSource && len(cv.Runs) > 0 {
				id := cv.Runs[0].ID + "/3"
				vc, pc := s.repro.Value[id], s.repro.Primary[id]
				ce.Badge, ce.BadgeClass, ce.BadgeTitle = cellBadge(vc, pc)
				ce.Badge = shortBadge(ce.Badge)
				printed := printedCell(cv.PrintedValue, cv.PrintedPct)
				if cv.PrintedValue != "" && printed != cv.Text {
					ce.Note = "paper: " + printed
				}
				var cls any
				if w := worse(vc, pc); w != nil {
					cls = w.Class
				}
				pv, _ := strconv.ParseFloat(cv.PrintedValue, 64)
				var pvAny any
				if cv.PrintedValue != "" && cv.PrintedValue != "FAIL" {
					pvAny = pv
				}
				var ppAny any
				if x, err := strconv.ParseFloat(strings.TrimSuffix(cv.PrintedPct, "%"), 64); err == nil {
					ppAny = x
				}
				data = append(data, pvAny, ppAny, cls)
			} else if g.Source == printedSource {
				data = append(data, nil, nil, nil)
			}
			rw.Cells = append(rw.Cells, ce)
			rw.Data = append(rw.Data, data...)
		}
		t.Rows = append(t.Rows, rw)
	}
	// The overall row.
	orow := row{Class: "agent", Cells: []cell{{Text: "Overall mean percentile"}, {Text: ""}, {Text: "–", Class: "num"}}, Data: []any{"overall", "", nil, 100}}
	for _, g := range gs {
		ce := cell{Text: fmtFrac(g.Overall, 2), Class: "num", Sort: sortKey(g.Overall)}
		data := []any{nil, pctNum(g.Overall), nil, nil, nil}
		if g.Source == printedSource {
			var ck *check
			var printed string
			for _, o := range s.data.Overall {
				if o.Table == "3" && o.Setting == g.Setting && o.Backend == g.Backend && o.Agent == g.Agent {
					printed, ck = o.Text, s.repro.Overall[o.Table+"/"+o.Setting+"/"+o.Backend+"/"+o.Agent]
				}
			}
			b, bc, bt := ck.badge()
			ce.Badge, ce.BadgeClass, ce.BadgeTitle = shortBadge(b), bc, bt
			if printed != "" && printed != ce.Text {
				ce.Note = "paper: " + printed
			}
			var pp any
			if x, err := strconv.ParseFloat(strings.TrimSuffix(printed, "%"), 64); err == nil {
				pp = x
			}
			data = append(data, nil, pp, classOf(ck))
		}
		orow.Cells = append(orow.Cells, ce)
		orow.Data = append(orow.Data, data...)
	}
	t.Rows = append(t.Rows, orow)
	return &section{ID: "table3", Title: "Per challenge (paper Table 3)",
		Paragraphs: []string{"Each cell is the primary metric value (2 decimals, as the paper prints it) and the whole-number percentile, half-up from the exact position sum, computed from the stored values. The mark beside a paper configuration's cell is the reproduction check of both the value and the percentile (✓ matches, ≈ rounding, ? undetermined, ✗ differs; hover for the reason); where the paper's cell differs it is shown below. The same checks are listed on the Reproduction page. Each cell links to the configuration's page."},
		Tables:     []*table{t}}
}

// categoryTitle is a challenge category as the paper's Table 3 heads it.
func categoryTitle(cat string) string {
	switch cat {
	case "segmentation":
		return "Segmentation Tasks"
	case "detection":
		return "Detection Tasks"
	case "classification":
		return "Classification Tasks"
	case "quality":
		return "Image Quality & Enhancement Tasks"
	case "":
		return "Other Tasks"
	}
	return strings.ToUpper(cat[:1]) + cat[1:] + " Tasks"
}

// shortBadge keeps the symbol of a badge, for narrow tables.
func shortBadge(b string) string {
	if i := strings.IndexByte(b, ' '); i > 0 {
		return b[:i]
	}
	return b
}

// worse is the worse of two checks (nil when both are).
func worse(a, b *check) *check {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	case classOrder[b.Class] > classOrder[a.Class]:
		return b
	}
	return a
}

// demoSection shows the synthetic runs apart, clearly marked; nil when there are none.
func (s *site) demoSection() *section {
	gs := s.demoGroups()
	if len(gs) == 0 {
		return nil
	}
	sec := &section{ID: "synthetic", Title: "Synthetic runs (not comparable with the paper or the human teams)", Class: "section-demo",
		Paragraphs: []string{"These runs are on synthetic data made by the prepare stage (the demo profile, or test fixtures). Their percentiles are against the real challenges' human leaderboards, which were built on the real test sets, so they show only that the pipeline works end to end: they are not results."}}
	t := &table{ID: "synthetic-overall", Caption: "ReX-MLE rank of the synthetic runs (pipeline check only)", Filter: true, FilterCols: "Source",
		Head:     []string{"Agent", "Backend", "Setting", "Source", "Data", "Challenges", "ReX-MLE rank (synthetic)"},
		DataHead: []string{"agent", "backend", "setting", "source", "data", "challenges", "rexmle_rank_pct", "rexmle_rank_lo_pct", "rexmle_rank_hi_pct"}}
	var bars []pctBar
	for _, g := range gs {
		val := fmtFrac(g.Overall, 2)
		if len(g.Partial) > 0 {
			val = pctRange(g.Lo, g.Hi, 2)
		}
		t.Rows = append(t.Rows, row{Cells: []cell{{Text: s.agentName(g.Agent), Href: "agents/" + groupSlug(g.groupKey) + ".html"}, {Text: g.Backend}, {Text: g.Setting}, {Text: shortSource(g.Source)},
			{Text: s.dataKind(g.Source)}, {Text: strconv.Itoa(g.NChallenges), Class: "num"}, {Text: val, Class: "num", Sort: sortKey(midpoint(g))}},
			Data: []any{g.Agent, g.Backend, g.Setting, g.Source, s.dataKind(g.Source), g.NChallenges, pctNum(g.Overall), pctNum(g.Lo), pctNum(g.Hi)}})
		if !math.IsNaN(g.Overall) {
			bars = append(bars, s.overallCI(pctBar{Label: s.label(g.groupKey) + " [synthetic]", Value: 100 * g.Overall, Hi: math.NaN(), Printed: math.NaN(),
				Tip: s.label(g.groupKey) + ": " + fmtFrac(g.Overall, 2) + " on synthetic data (not comparable)"}, g))
		}
	}
	if nonZero(bars) {
		sec.Charts = []chart{pctChart(chartID("synthetic"), "Synthetic runs (pipeline check, not results)", "percentile on synthetic data (%)", bars,
			"Bar chart of the mean percentile (%) of the synthetic runs; not comparable with the human leaderboards")}
		sec.Paragraphs = append(sec.Paragraphs, s.demoCINote())
	} else if len(bars) > 0 {
		sec.Paragraphs = append(sec.Paragraphs, "Every synthetic configuration is at 0 %: no chart is drawn.")
	}
	sec.Tables = []*table{t}
	return sec
}

// groupSlug is the file name of a configuration's page.
func groupSlug(k groupKey) string {
	parts := []string{k.Source, k.Setting, k.Backend, k.Agent}
	var out []string
	for _, p := range parts {
		if p != "" {
			out = append(out, slug(p))
		}
	}
	return strings.Join(out, "--")
}

func orDash(s string) string {
	if s == "" {
		return "–"
	}
	return s
}
