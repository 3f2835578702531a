package report

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/rexmle/rexmle/pipeline/config"
)

// variant is one column of an ablation table: a time budget and a backend.
type variant struct{ Setting, Backend string }

func (v variant) String() string { return v.Setting + ", " + v.Backend }

// ablationsPage is the ablations panel (each ablation configuration's mean
// percentile range beside the paper's print) and Tables 4 (24 h vs 72 h)
// and 5 (LLM backends), one row per challenge × agent.
func (s *site) ablationsPage() ([]*page, error) {
	p := &page{Path: "ablations.html", Title: "Ablations", TOC: true, Intro: []string{
		"The paper's Tables 4 and 5 print only the primary metric for runs outside the S-tables, so their percentiles are known only as the range that the unknown positions of the other metrics allow (shown as lo–hi). Values are shown with the paper's 2 decimals and percentiles as whole numbers, as printed.",
	}}
	settings := map[string]bool{}
	backends := map[string]bool{}
	for _, g := range s.data.Groups {
		if g.Source != printedSource {
			continue
		}
		settings[g.Setting] = true
		if g.Setting == "24h" {
			backends[g.Backend] = true
		}
	}
	var vs4 []variant
	for _, st := range sortedKeys(settings) {
		vs4 = append(vs4, variant{st, "gpt-5"})
	}
	// Table 5's backends in the paper's order (GPT-5, Gemini 3, Claude
	// Sonnet 4.5), any other after them by name.
	vs5 := []variant{{"24h", "gpt-5"}}
	bs := sortedKeys(backends)
	sort.SliceStable(bs, func(i, j int) bool { return table5Order(bs[i]) < table5Order(bs[j]) })
	for _, b := range bs {
		if b != "gpt-5" {
			vs5 = append(vs5, variant{"24h", b})
		}
	}
	t4, ov4 := s.ablation("table4", "Time limit: 24 h vs 72 h (paper Table 4)", "4", vs4)
	t5, ov5 := s.ablation("table5", "LLM backend (paper Table 5)", "5", vs5)
	p.Sections = append(p.Sections, s.ablationPanel(append(ov4, ov5...)), t4, t5, s.table5Printed(vs5))
	return []*page{p}, nil
}

// table5Order is a backend's place among the paper's Table 5 models.
func table5Order(backend string) int {
	for i, p := range []string{"gpt", "gemini", "claude"} {
		if strings.HasPrefix(backend, p) {
			return i
		}
	}
	return 3
}

// newSources lists the comparable sources other than the paper (profiles
// run on fetched data) that hold a run of agent a in one of the variants.
func (s *site) newSources(vs []variant, a string) []string {
	seen := map[string]bool{}
	for _, g := range s.data.Groups {
		if g.Source == printedSource || g.Agent != a || !s.comparable(g.Source) {
			continue
		}
		for _, v := range vs {
			if g.Setting == v.Setting && g.Backend == v.Backend {
				seen[g.Source] = true
			}
		}
	}
	return sortedKeys(seen)
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// ablationOverall is one agent × variant mean over an ablation table's challenges.
type ablationOverall struct {
	Table   string
	Agent   string
	V       variant
	Lo, Hi  float64 // fractions
	N       int
	Printed string // the paper's print, "" for none
	Check   *check
}

// ablationPanel charts every ablation configuration's mean percentile over
// its table's challenges (a range where only primary metrics are known)
// with the paper's printed value beside it.
func (s *site) ablationPanel(ovs []ablationOverall) *section {
	sec := &section{ID: "panel", Title: "Ablation configurations at a glance"}
	var bars []pctBar
	for _, o := range ovs {
		if o.N == 0 {
			continue
		}
		lbl := fmt.Sprintf("%s %s %s (T%s)", s.agentName(o.Agent), o.V.Setting, o.V.Backend, o.Table)
		b := pctBar{Label: lbl, Value: 100 * o.Lo, Hi: 100 * o.Hi, Printed: math.NaN()}
		tip := lbl + ": "
		if math.Abs(o.Hi-o.Lo) < 1e-12 {
			b.Hi = math.NaN()
			tip += fmtFrac(o.Lo, 2)
		} else {
			tip += pctRange(o.Lo, o.Hi, 2) + " reachable"
		}
		tip += fmt.Sprintf(" over %d challenge(s)", o.N)
		if o.Printed != "" {
			if v, err := strconv.ParseFloat(strings.TrimSuffix(o.Printed, "%"), 64); err == nil {
				b.Printed = v
			}
			tip += "; paper prints " + o.Printed
		}
		b.Tip = tip
		bars = append(bars, b)
	}
	switch {
	case len(bars) == 0:
		sec.Paragraphs = []string{"The store holds no ablation runs."}
	case !nonZero(bars):
		sec.Paragraphs = []string{"Every ablation configuration is at 0 %: no chart is drawn."}
	default:
		sec.Paragraphs = []string{"Each bar is the mean percentile over the table's challenges: the darker part is the lowest reachable value and the lighter part the rest of the reachable range; the diamond is the paper's printed value. These means are over the ablation's 4 challenges, so they are not comparable with the 20-challenge ReX-MLE rank of Figure 1."}
		sec.Charts = []chart{pctChart(chartID("ablations"), "Ablations: mean percentile", "over each table's challenges; diamond = the paper's print", bars,
			"Bar chart of each ablation configuration's mean percentile range (%, axis 0–100 %) with the paper's printed value as a diamond")}
	}
	return sec
}

// ablation builds one table: a row per challenge × agent the table's
// print covers, a column per variant with the computed value · percentile,
// the stored checks of the paper's cell as a badge and the paper's cell
// below where it differs; then a mean row per agent.
func (s *site) ablation(id, title, tbl string, vs []variant) (*section, []ablationOverall) {
	sec := &section{ID: id, Title: title}
	if len(vs) < 2 {
		sec.Paragraphs = []string{"The store holds no paper runs for this comparison."}
		return sec, nil
	}
	agents, chs := s.printedIn(tbl)
	if len(chs) == 0 {
		sec.Paragraphs = []string{"The paper's Table " + tbl + " is not in the store."}
		return sec, nil
	}
	as := sortedKeys(agents)
	t := ablationTable(id, title, vs)
	for _, c := range s.b.Challenges {
		if !chs[c.ID] {
			continue
		}
		for _, a := range as {
			if rw, present := s.ablationPaperRow(c, a, tbl, vs); present {
				t.Rows = append(t.Rows, rw)
			}
			t.Rows = append(t.Rows, s.ablationNewRows(c, a, tbl, vs)...)
		}
	}
	// Mean rows, one per agent.
	var ovs []ablationOverall
	for _, a := range as {
		rw, aovs := s.ablationMeanRow(a, tbl, vs, chs)
		t.Rows = append(t.Rows, rw)
		ovs = append(ovs, aovs...)
	}
	sec.Tables = []*table{t}
	return sec, ovs
}

// printedIn are the agents and challenges of the paper's runs that the
// paper prints in Table tbl.
func (s *site) printedIn(tbl string) (agents, chs map[string]bool) {
	agents, chs = map[string]bool{}, map[string]bool{}
	for _, r := range s.data.Runs {
		if _, ok := r.Printed[tbl]; ok && r.Source == printedSource {
			agents[r.Agent] = true
			chs[r.Challenge] = true
		}
	}
	return agents, chs
}

// ablationTable is an ablation table's head: one column per variant.
func ablationTable(id, title string, vs []variant) *table {
	t := &table{ID: id, Class: "compact", Caption: title + ": primary value · percentile, computed; the paper's cell below where it differs", Head: []string{"Challenge", "Agent"},
		DataHead: []string{"challenge", "agent"}}
	for _, v := range vs {
		t.Head = append(t.Head, v.String())
		k := v.Setting + ":" + v.Backend
		t.DataHead = append(t.DataHead, k+":value", k+":pct", k+":pct_lo", k+":pct_hi", k+":paper_value", k+":paper_pct", k+":check")
	}
	return t
}

// ablationDataCols is the number of data columns per variant.
const ablationDataCols = 7

// appendEmptyCell appends a variant's empty cell and its empty data columns.
func appendEmptyCell(rw *row) {
	rw.Cells = append(rw.Cells, cell{Text: "—"})
	rw.Data = append(rw.Data, make([]any, ablationDataCols)...)
}

// ablationPaperRow is one challenge's row of one agent's paper runs, the
// paper's cell under each computed one where they differ; present is false
// when no variant has a run.
func (s *site) ablationPaperRow(c *config.Challenge, a, tbl string, vs []variant) (rw row, present bool) {
	rw = row{Cells: []cell{{Text: c.ShortName, Href: "challenges/" + c.ID + ".html"}, {Text: s.agentName(a)}}, Data: []any{c.ID, a}}
	for _, v := range vs {
		g := s.group(groupKey{printedSource, v.Setting, v.Backend, a})
		if g == nil {
			appendEmptyCell(&rw)
			continue
		}
		// The printed cell: this table's, or Table 3's for the 24 h GPT-5 runs.
		cv := s.cellOf(g, c.ID, c.PrimaryMetric, tbl)
		ptable := tbl
		if cv.PrintedValue == "" {
			cv2 := s.cellOf(g, c.ID, c.PrimaryMetric, "3")
			cv.PrintedValue, cv.PrintedPct, ptable = cv2.PrintedValue, cv2.PrintedPct, "3"
		}
		if len(cv.Runs) == 0 {
			appendEmptyCell(&rw)
			continue
		}
		present = true
		sk := cv.Pct
		if !math.IsNaN(cv.Lo) {
			sk = (cv.Lo + cv.Hi) / 2
		}
		ce := cell{Text: cv.Text, Class: "num", Sort: sortKey(sk), Href: "agents/" + groupSlug(g.groupKey) + ".html#" + c.ID}
		vc, pc := s.repro.Value[cv.Runs[0].ID+"/"+ptable], s.repro.Primary[cv.Runs[0].ID+"/"+ptable]
		ce.Badge, ce.BadgeClass, ce.BadgeTitle = cellBadge(vc, pc)
		ce.Badge = shortBadge(ce.Badge)
		if ce.BadgeTitle != "" {
			ce.BadgeTitle = "Table " + ptable + ": " + ce.BadgeTitle
		}
		printed := ""
		if cv.PrintedValue != "" {
			printed = printedCell(cv.PrintedValue, cv.PrintedPct)
			if printed != cv.Text {
				ce.Note = "paper: " + printed
			}
		}
		var cls any
		if w := worse(vc, pc); w != nil {
			cls = w.Class
		}
		rw.Cells = append(rw.Cells, ce)
		rw.Data = append(rw.Data, valNum(cv.Value, cv.HasValue), pctNum(cv.Pct), pctNum(cv.Lo), pctNum(cv.Hi), plainValue(cv.PrintedValue), plainValue(cv.PrintedPct), cls)
	}
	return rw, present
}

// ablationNewRows are the new runs of this configuration (a paper-72h,
// paper-claude, paper-gemini profile on fetched data) beside the paper's
// row: one row per source with a run.
func (s *site) ablationNewRows(c *config.Challenge, a, tbl string, vs []variant) []row {
	var rows []row
	for _, src := range s.newSources(vs, a) {
		nr := row{Class: "new-run", Cells: []cell{{Text: c.ShortName}, {Text: s.agentName(a) + " (" + src + ")"}}, Data: []any{c.ID, a + "@" + src}}
		found := false
		for _, v := range vs {
			g := s.group(groupKey{src, v.Setting, v.Backend, a})
			if g == nil {
				appendEmptyCell(&nr)
				continue
			}
			cv := s.cellOf(g, c.ID, c.PrimaryMetric, tbl)
			if len(cv.Runs) == 0 {
				appendEmptyCell(&nr)
				continue
			}
			found = true
			nr.Cells = append(nr.Cells, cell{Text: cv.Text, Class: "num", Href: "agents/" + groupSlug(g.groupKey) + ".html#" + c.ID})
			nr.Data = append(nr.Data, valNum(cv.Value, cv.HasValue), pctNum(cv.Pct), pctNum(cv.Lo), pctNum(cv.Hi), nil, nil, nil)
		}
		if found {
			rows = append(rows, nr)
		}
	}
	return rows
}

// ablationMeanRow is an agent's mean percentile per variant over the
// table's challenges, with the overall values the ablation panel charts.
func (s *site) ablationMeanRow(a, tbl string, vs []variant, chs map[string]bool) (row, []ablationOverall) {
	var ovs []ablationOverall
	rw := row{Class: "agent", Cells: []cell{{Text: "Mean percentile"}, {Text: s.agentName(a)}}, Data: []any{"mean", a}}
	for _, v := range vs {
		o := s.ablationMean(a, tbl, v, chs)
		txt := "—"
		if o.N > 0 {
			if math.Abs(o.Hi-o.Lo) < 1e-12 {
				txt = fmtFrac(o.Lo, 2)
			} else {
				txt = pctRange(o.Lo, o.Hi, 2)
			}
		}
		ce := cell{Text: txt, Class: "num"}
		b, bc, bt := o.Check.badge()
		ce.Badge, ce.BadgeClass, ce.BadgeTitle = shortBadge(b), bc, bt
		if o.Printed != "" {
			ce.Note = "paper: " + o.Printed
		}
		rw.Cells = append(rw.Cells, ce)
		var lo, hi any
		if o.N > 0 {
			lo, hi = pctNum(o.Lo), pctNum(o.Hi)
		}
		rw.Data = append(rw.Data, nil, nil, lo, hi, nil, plainValue(o.Printed), classOf(o.Check))
		if v.Setting != "24h" || v.Backend != "gpt-5" || tbl == "5" {
			ovs = append(ovs, o)
		}
	}
	return rw, ovs
}

// ablationMean is an agent's mean percentile (a range where a run is
// partial) over the table's challenges in one variant, with the paper's
// printed mean and its check.
func (s *site) ablationMean(a, tbl string, v variant, chs map[string]bool) ablationOverall {
	g := s.group(groupKey{printedSource, v.Setting, v.Backend, a})
	o := ablationOverall{Table: tbl, Agent: a, V: v}
	if g != nil {
		for ch := range chs {
			if pc, ok := g.PerChallenge[ch]; ok {
				o.Lo += pc
				o.Hi += pc
				o.N++
			} else if lh, ok := g.Partial[ch]; ok {
				o.Lo += lh[0]
				o.Hi += lh[1]
				o.N++
			}
		}
	}
	if o.N > 0 {
		o.Lo, o.Hi = o.Lo/float64(o.N), o.Hi/float64(o.N)
	}
	for _, x := range s.data.Overall {
		if x.Table == tbl && x.Setting == v.Setting && x.Backend == v.Backend && x.Agent == a {
			o.Printed, o.Check = x.Text, s.repro.Overall[x.Table+"/"+x.Setting+"/"+x.Backend+"/"+x.Agent]
		}
	}
	return o
}

// table5Printed is the paper's Table 5 laid out as the paper prints it: a
// row per challenge and backend under its category heading, the agents'
// printed value and percentile side by side, then the top human's value.
// Every number is the paper's own print (for the GPT-5 rows, Table 3's,
// which Table 5 repeats); the computed comparison is the table above.
func (s *site) table5Printed(vs []variant) *section {
	sec := &section{ID: "table5-printed", Title: "The paper's Table 5 as printed"}
	agents := map[string]bool{}
	chs := map[string]bool{}
	for _, r := range s.data.Runs {
		if _, ok := r.Printed["5"]; ok && r.Source == printedSource {
			agents[r.Agent] = true
			chs[r.Challenge] = true
		}
	}
	if len(chs) == 0 || len(vs) < 2 {
		sec.Paragraphs = []string{"The paper's Table 5 is not in the store."}
		return sec
	}
	as := sortedKeys(agents)
	t := &table{ID: "table5-printed", Class: "compact", Caption: "Table 5 as printed: primary metric value and percentile per backend (the paper's numbers)",
		Head: []string{"Challenge", "Model", "Metric"}, DataHead: []string{"challenge", "backend", "metric"}}
	for _, a := range as {
		t.Head = append(t.Head, s.agentName(a)+" value", s.agentName(a)+" rank")
		t.DataHead = append(t.DataHead, a+":value", a+":rank")
	}
	t.Head = append(t.Head, "Human value")
	t.DataHead = append(t.DataHead, "human_value")
	lastCat := ""
	for _, c := range s.b.Challenges {
		if !chs[c.ID] {
			continue
		}
		if c.Category != lastCat {
			lastCat = c.Category
			t.Rows = append(t.Rows, row{Group: categoryTitle(c.Category)})
		}
		metric := c.PrimaryName()
		hv, hok := topHumanValue(c)
		for _, v := range vs {
			rw := row{Cells: []cell{{Text: c.ShortName, Href: "challenges/" + c.ID + ".html"}, {Text: modelName(v.Backend)}, {Text: metric}},
				Data: []any{c.ID, v.Backend, c.PrimaryMetric}}
			for _, a := range as {
				value, rank := "—", "—"
				if g := s.group(groupKey{printedSource, v.Setting, v.Backend, a}); g != nil {
					cv := s.cellOf(g, c.ID, c.PrimaryMetric, "5")
					if cv.PrintedValue == "" {
						cv = s.cellOf(g, c.ID, c.PrimaryMetric, "3")
					}
					if cv.PrintedValue != "" {
						value, rank = cv.PrintedValue, orDash(cv.PrintedPct)
						if value == "FAIL" {
							rank = "–"
						}
					}
				}
				rw.Cells = append(rw.Cells, cell{Text: value, Class: "num"}, cell{Text: rank, Class: "num"})
				rw.Data = append(rw.Data, value, rank)
			}
			rw.Cells = append(rw.Cells, cell{Text: fmtValue(hv, hok, 2), Class: "num"})
			rw.Data = append(rw.Data, valNum(hv, hok))
			t.Rows = append(t.Rows, rw)
		}
	}
	sec.Tables = []*table{t}
	return sec
}

// modelName is a backend as the paper's Table 5 names it.
func modelName(backend string) string {
	switch table5Order(backend) {
	case 0:
		return "GPT"
	case 1:
		return "Gemini"
	case 2:
		return "Claude"
	}
	return backend
}

// topHumanValue is the primary value of a challenge's best-ranked human
// team (Table 3's and Table 5's Human column).
func topHumanValue(c *config.Challenge) (float64, bool) {
	if len(c.Leaderboard) == 0 {
		return math.NaN(), false
	}
	top := c.Leaderboard[0]
	for _, h := range c.Leaderboard {
		if h.Rank < top.Rank {
			top = h
		}
	}
	v, ok := top.Values[c.PrimaryMetric]
	return v, ok
}
