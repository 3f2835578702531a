package report

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/rexmle/rexmle/pipeline/report/reporttest"
	"github.com/rexmle/rexmle/pipeline/store"
)

// Issue 30: the paper's printed results are never mixed with anything else.

// Figure 4's chart and download hold only the paper's agents; the synthetic
// runs' scores on the same strategies have their own marked chart and
// download.
func TestFigure4HoldsOnlyThePaper(t *testing.T) {
	site := filepath.Join(paperSite(t), "site")
	paper := readTable(t, site, "capabilities-paper")
	if len(paper.Rows) == 0 {
		t.Fatal("empty capabilities-paper table")
	}
	for _, c := range paper.Columns {
		if c != "strategy_id" && c != "strategy" && !strings.HasSuffix(c, ":paper") {
			t.Errorf("capabilities-paper has the non-paper column %q", c)
		}
	}
	csv, err := os.ReadFile(filepath.Join(site, "data", "capabilities-paper.csv"))
	if err != nil {
		t.Fatal(err)
	}
	head, _, _ := strings.Cut(string(csv), "\n")
	for _, c := range strings.Split(head, ",")[2:] {
		if !strings.HasSuffix(c, ":paper") {
			t.Errorf("capabilities-paper.csv has the non-paper column %q", c)
		}
	}
	syn := readTable(t, site, "capabilities-synthetic")
	if len(syn.Columns) <= 2 {
		t.Fatalf("capabilities-synthetic columns %v", syn.Columns)
	}
	for _, c := range syn.Columns[2:] {
		if strings.HasSuffix(c, ":paper") {
			t.Errorf("capabilities-synthetic holds the paper's column %q", c)
		}
	}
	page, _ := os.ReadFile(filepath.Join(site, "capabilities.html"))
	fig4 := sectionHTML(t, page, "paper")
	if bytes.Contains(fig4, []byte("synthetic demo")) || bytes.Contains(fig4, []byte("section-demo")) {
		t.Error("Figure 4's section shows a synthetic run")
	}
	if s := sectionHTML(t, page, "paper-synthetic"); !bytes.Contains(s, []byte(`class="section-demo"`)) || !bytes.Contains(s, []byte(`class="demo-mark"`)) {
		t.Error("the synthetic runs' Figure 4 section is not marked")
	}
}

// sectionHTML is the <section id="id"> of a page, up to its end.
func sectionHTML(t *testing.T, page []byte, id string) []byte {
	t.Helper()
	at := bytes.Index(page, []byte(`<section id="`+id+`"`))
	if at < 0 {
		t.Fatalf("no section %q", id)
	}
	end := bytes.Index(page[at:], []byte("</section>"))
	return page[at : at+end]
}

// Ranks are compared only within one world, each in its own table, with
// the number of challenges beside every rank.
func TestRankTablesOneWorldEach(t *testing.T) {
	site := filepath.Join(paperSite(t), "site")
	n := float64(len(reporttest.Benchmark(t).Challenges))
	for _, id := range []string{"overall", "agents"} {
		tj := readTable(t, site, id)
		if len(tj.Rows) < 3 {
			t.Fatalf("%s: %d rows", id, len(tj.Rows))
		}
		for _, r := range tj.Rows {
			if r["source"] != printedSource || r["challenges"] != n {
				t.Errorf("%s (the paper's world) holds %v over %v challenges", id, r["source"], r["challenges"])
			}
		}
	}
	for _, id := range []string{"overall-other", "agents-other"} {
		tj := readTable(t, site, id)
		if len(tj.Rows) == 0 {
			t.Fatalf("%s: no rows (the paper's ablations belong here)", id)
		}
		for _, r := range tj.Rows {
			if r["challenges"] == n && r["rexmle_rank_lo_pct"] == r["rexmle_rank_hi_pct"] {
				t.Errorf("%s holds a configuration ranked fully on every challenge: %v", id, r)
			}
		}
	}
	for _, r := range readTable(t, site, "agents-synthetic").Rows {
		if r["source"] == printedSource {
			t.Errorf("agents-synthetic holds a paper run: %v", r)
		}
	}
	// The challenges column sits right beside the rank in every rank table.
	for _, p := range []string{"index.html", "agents/index.html"} {
		b, _ := os.ReadFile(filepath.Join(site, p))
		heads := regexp.MustCompile(`<thead><tr>(.*?)</tr></thead>`).FindAllSubmatch(b, -1)
		ranked := 0
		for _, h := range heads {
			cols := regexp.MustCompile(`<th scope="col">([^<]*)</th>`).FindAllSubmatch(h[1], -1)
			for i, c := range cols {
				if strings.HasPrefix(string(c[1]), "ReX-MLE rank") {
					ranked++
					prev, next := "", ""
					if i > 0 {
						prev = string(cols[i-1][1])
					}
					if i+1 < len(cols) {
						next = string(cols[i+1][1])
					}
					if prev != "Challenges" && next != "Challenges" {
						t.Errorf("%s: a rank column without the number of challenges beside it (%q | %q)", p, prev, next)
					}
				}
			}
		}
		if ranked < 2 {
			t.Errorf("%s: %d rank columns", p, ranked)
		}
	}
}

// The first screen states the paper's headline as printed, before any
// banner and before the values recomputed here.
func TestHeadlineAsPrinted(t *testing.T) {
	ph, err := reporttest.ReadPrintedHeadline("../../results/paper/summary.toml")
	if err != nil {
		t.Fatal(err)
	}
	overall, zero, cells := ph.Overall, ph.Zero, ph.Cells
	if strings.Join(overall, " ") != "9.05% 4.53% 12.15%" || zero != 35 || cells != 60 {
		t.Fatalf("results/paper/summary.toml: Table 3 overall %v, %d of %d at 0 %% or failed; the paper prints 9.05/4.53/12.15 and 35 of 60", overall, zero, cells)
	}
	site := filepath.Join(paperSite(t), "site")
	idx, _ := os.ReadFile(filepath.Join(site, "index.html"))
	page := string(idx)
	printed := strings.Index(page, "as printed")
	recomputed := strings.Index(page, "Recomputed here")
	banner := strings.Index(page, `id="data-banner"`)
	if printed < 0 || recomputed < printed || banner < 0 || banner < printed {
		t.Fatalf("order: printed headline at %d, recomputed at %d, banner at %d", printed, recomputed, banner)
	}
	head := page[printed:recomputed]
	for _, want := range []string{"AIDE " + overall[0], "ML-Master " + overall[1], "R&amp;D-Agent " + overall[2], strconv.Itoa(zero) + " of " + strconv.Itoa(cells)} {
		if !strings.Contains(head, want) {
			t.Errorf("printed headline lacks %q: %s", want, head)
		}
	}
	if first := strings.Index(page, "<strong>"); first >= 0 && first < printed {
		t.Errorf("bold text before the paper's headline: %s", page[first:min(first+80, len(page))])
	}
}

// A paper build whose store also holds synthetic runs carries no banner on
// any page; only the sections that show synthetic runs are marked.
func TestPaperBuildMarksOnlySyntheticSections(t *testing.T) {
	dir := paperSite(t)
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(dir, "store.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	out := t.TempDir()
	if _, err := Build(ctx, Options{Store: st, Benchmark: reporttest.Benchmark(t), OutDir: out, GitCommit: "x", Profile: "paper"}); err != nil {
		t.Fatal(err)
	}
	pages, marked := 0, 0
	err = filepath.WalkDir(out, func(p string, d os.DirEntry, err error) error {
		if err != nil || !strings.HasSuffix(p, ".html") {
			return err
		}
		pages++
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if bytes.Contains(b, []byte(`id="data-banner"`)) {
			t.Errorf("%s: a paper build carries the page banner", p)
		}
		// Every mark sits inside a synthetic section, and every synthetic
		// section carries one.
		secs := bytes.Count(b, []byte(`class="section-demo"`))
		marks := bytes.Count(b, []byte(`class="demo-mark"`))
		if secs != marks {
			t.Errorf("%s: %d synthetic sections, %d marks", p, secs, marks)
		}
		marked += marks
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if pages < 30 || marked == 0 {
		t.Errorf("%d pages, %d marked sections", pages, marked)
	}
	idx, _ := os.ReadFile(filepath.Join(out, "index.html"))
	if s := sectionHTML(t, idx, "synthetic"); !bytes.Contains(s, []byte(`class="demo-mark"`)) {
		t.Error("the overview's synthetic section is not marked")
	}
	if s := sectionHTML(t, idx, "rank"); bytes.Contains(s, []byte("demo-mark")) {
		t.Error("Figure 1's section is marked synthetic")
	}
}
