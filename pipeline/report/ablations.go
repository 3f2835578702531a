package report

import (
	"fmt"
	"math"
	"sort"
)

// variant is one column family of an ablation table.
type variant struct{ Setting, Backend string }

// ablationsPage is Tables 4 (24 h vs 72 h) and 5 (LLM backends).
func (s *site) ablationsPage() ([]*page, error) {
	p := &page{Path: "ablations.html", Title: "Ablations", TOC: true, Intro: []string{
		"The paper's Tables 4 and 5 print only the primary metric for runs outside the S-tables, so their percentiles are known only as the range the unknown positions of the other metrics allow (shown as lo–hi). The paper's print is beside each computed cell with the reproduction check.",
	}}
	settings := map[string]bool{}
	backends := map[string]bool{}
	for _, g := range s.data.Groups {
		if g.Source != "paper" {
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
	vs5 := []variant{{"24h", "gpt-5"}}
	for _, b := range sortedKeys(backends) {
		if b != "gpt-5" {
			vs5 = append(vs5, variant{"24h", b})
		}
	}
	p.Sections = append(p.Sections,
		s.ablation("table4", "Time limit: 24 h vs 72 h (paper Table 4)", "4", vs4),
		s.ablation("table5", "LLM backend (paper Table 5)", "5", vs5))
	return []*page{p}, nil
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// ablation builds one table: rows are the challenges the table's runs
// cover, columns every paper agent × variant, with the table's print.
func (s *site) ablation(id, title, tbl string, vs []variant) *section {
	sec := &section{ID: id, Title: title}
	if len(vs) < 2 {
		sec.Paragraphs = []string{"The store holds no paper runs for this comparison."}
		return sec
	}
	// Agents and challenges that appear in the table's print.
	agents := map[string]bool{}
	chs := map[string]bool{}
	for _, r := range s.data.Runs {
		if _, ok := r.Printed[tbl]; ok {
			agents[r.Agent] = true
			chs[r.Challenge] = true
		}
	}
	if len(chs) == 0 {
		sec.Paragraphs = []string{"The paper's Table " + tbl + " is not in the store."}
		return sec
	}
	as := sortedKeys(agents)
	t := &table{ID: id, Caption: title + ": primary value · percentile; computed, then the paper's print", Head: []string{"Challenge"}}
	type col struct {
		g       *group
		v       variant
		printed bool // the table printed this configuration
	}
	var cols []col
	for _, a := range as {
		for _, v := range vs {
			g := s.group(groupKey{"paper", v.Setting, v.Backend, a})
			if g == nil {
				continue
			}
			pr := false
			for _, r := range g.Runs {
				if _, ok := r.Printed[tbl]; ok {
					pr = true
				}
			}
			cols = append(cols, col{g, v, pr})
			t.Head = append(t.Head, fmt.Sprintf("%s %s %s", s.agentName(a), v.Backend, v.Setting))
			if pr {
				t.Head = append(t.Head, "paper")
			}
		}
	}
	for _, c := range s.b.Challenges {
		if !chs[c.ID] {
			continue
		}
		rw := row{Cells: []cell{{Text: c.ShortName, Href: "challenges/" + c.ID + ".html"}}}
		for _, cl := range cols {
			rs := runsOf(cl.g, c.ID)
			if len(rs) == 0 {
				rw.Cells = append(rw.Cells, cell{Text: "—"})
				if cl.printed {
					rw.Cells = append(rw.Cells, cell{Text: "—"})
				}
				continue
			}
			r := rs[0]
			v, ok := r.Values[c.PrimaryMetric]
			sk := r.Pct
			if r.partial() {
				sk = (r.PctLo + r.PctHi) / 2
			}
			rw.Cells = append(rw.Cells, cell{Text: fmtValue(v, ok, 2) + " · " + runPct(r, 0), Class: "num", Sort: sortKey(sk)})
			if !cl.printed {
				continue
			}
			pr := r.Printed[tbl]
			if pr == nil {
				rw.Cells = append(rw.Cells, cell{Text: "—"})
				continue
			}
			b, bc, bt := s.repro.Primary[r.ID+"/"+tbl].badge()
			rw.Cells = append(rw.Cells, cell{Text: pr["primary"] + " · " + orDash(pr["percentile"]), Class: "num", Badge: b, BadgeClass: bc, BadgeTitle: bt})
		}
		t.Rows = append(t.Rows, rw)
	}
	// Overall row.
	rw := row{Class: "agent", Cells: []cell{{Text: "Mean percentile"}}}
	for _, cl := range cols {
		g := cl.g
		// over this table's challenges only
		var lo, hi float64
		n := 0
		for ch := range chs {
			if pc, ok := g.PerChallenge[ch]; ok {
				lo += pc
				hi += pc
				n++
			} else if lh, ok := g.Partial[ch]; ok {
				lo += lh[0]
				hi += lh[1]
				n++
			}
		}
		txt := "—"
		if n > 0 {
			lo, hi = lo/float64(n), hi/float64(n)
			if math.Abs(hi-lo) < 1e-12 {
				txt = fmtFrac(lo, 2)
			} else {
				txt = pctRange(lo, hi, 2)
			}
		}
		rw.Cells = append(rw.Cells, cell{Text: txt, Class: "num"})
		if !cl.printed {
			continue
		}
		pt, ck := "", (*check)(nil)
		for _, o := range s.data.Overall {
			if o.Table == tbl && o.Setting == cl.v.Setting && o.Backend == cl.v.Backend && o.Agent == g.Agent {
				pt, ck = o.Text, s.repro.Overall[o.Table+"/"+o.Setting+"/"+o.Backend+"/"+o.Agent]
			}
		}
		b, bc, bt := ck.badge()
		rw.Cells = append(rw.Cells, cell{Text: pt, Class: "num", Badge: b, BadgeClass: bc, BadgeTitle: bt})
	}
	t.Rows = append(t.Rows, rw)
	sec.Tables = []*table{t}
	return sec
}
