package report

import (
	"encoding/json"
	"html"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/rexmle/rexmle/pipeline/paper"
	"github.com/rexmle/rexmle/pipeline/report/reporttest"
)

// Issue 30 item 3: a challenge's percentile chart draws the paper's printed
// percentile (Table 3) as a diamond at its configuration, and carries no
// reachable-range bars: the ablations and partial runs have their own chart.
func TestChallengeChartPrintedAndApart(t *testing.T) {
	site := filepath.Join(paperSite(t), "site")
	b := reporttest.Benchmark(t)
	rec, err := paper.Load("../../results/paper", b)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]string{"aide": "AIDE", "ml-master": "ML-Master", "rd-agent": "R&D-Agent"}
	checked, positive, ablationCharts := 0, 0, 0
	for _, c := range rec.Summary.Cells {
		page := filepath.Join(site, "challenges", c.Challenge+".html")
		if c.Table != "3" {
			if _, ok := chartOf(t, page, chartID("pct", "other", c.Challenge)); !ok {
				t.Errorf("%s: no chart of the ablations (Table %s has %s %s %s)", c.Challenge, c.Table, c.Agent, c.Backend, c.Setting)
			} else {
				ablationCharts++
			}
			continue
		}
		printed, err := strconv.ParseFloat(strings.TrimSuffix(c.PrintedPercentile, "%"), 64)
		if err != nil {
			continue // FAIL: nothing to mark
		}
		if printed > 0 {
			positive++
		}
		o, ok := chartOf(t, page, chartID("pct", c.Challenge))
		if !ok {
			if printed > 0 {
				t.Errorf("%s: no percentile chart, though the paper prints %v %%", c.Challenge, printed)
			}
			continue
		}
		cat := -1
		for i, l := range o.YAxis.Data {
			if l == names[c.Agent]+" ("+c.Backend+", "+c.Setting+", paper)" {
				cat = i
			}
		}
		if cat < 0 {
			t.Errorf("%s: %s not in the chart's categories %v", c.Challenge, c.Agent, o.YAxis.Data)
			continue
		}
		found := false
		for _, s := range o.Series {
			if s.Name == "reachable range" {
				t.Errorf("%s: reachable-range bars on the paper's chart", c.Challenge)
			}
			if s.Name != "paper's printed value" {
				continue
			}
			for _, d := range s.Data {
				var item struct {
					Value []float64 `json:"value"`
				}
				if err := json.Unmarshal(d, &item); err == nil && len(item.Value) == 2 && int(item.Value[1]) == cat {
					found = true
					if math.Abs(item.Value[0]-printed) > 1e-9 {
						t.Errorf("%s %s: diamond at %v %%, the paper prints %v %%", c.Challenge, c.Agent, item.Value[0], printed)
					}
				}
			}
		}
		if !found {
			t.Errorf("%s %s: no diamond for the paper's printed %v %%", c.Challenge, c.Agent, printed)
		}
		checked++
	}
	if positive == 0 || checked < positive || ablationCharts == 0 {
		t.Errorf("%d printed percentiles checked (%d of them above 0), %d ablation charts found", checked, positive, ablationCharts)
	}
	t.Logf("%d printed percentiles found as diamonds (%d above 0), %d ablation charts", checked, positive, ablationCharts)
}

var (
	optRe      = regexp.MustCompile(`<script type="application/json" class="chart-opt" data-for="([^"]+)">([^<]*)</script>`)
	noscriptRe = regexp.MustCompile(`(?s)^\s*<script type="application/json" class="chart-tips"[^>]*>[^<]*</script>\s*<noscript>(.*?)</noscript>`)
	numRe      = regexp.MustCompile(`-?\d+(?:\.\d+)?`)
)

// Issue 30 item 10: every chart on every page has a <noscript> table with
// its numbers: each value the chart draws is a number of its table.
func TestChartFallbackTables(t *testing.T) {
	site := filepath.Join(paperSite(t), "site")
	nCharts, nValues := 0, 0
	err := filepath.WalkDir(site, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".html") {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		page := string(b)
		for _, m := range optRe.FindAllStringSubmatchIndex(page, -1) {
			id := page[m[2]:m[3]]
			nCharts++
			ns := noscriptRe.FindStringSubmatch(page[m[1]:])
			if ns == nil || !strings.Contains(ns[1], "<table") {
				t.Errorf("%s: chart %s has no <noscript> table", path, id)
				continue
			}
			inTable := map[float64]bool{}
			for _, x := range numRe.FindAllString(html.UnescapeString(ns[1]), -1) {
				v, _ := strconv.ParseFloat(x, 64)
				inTable[v] = true
			}
			var o struct {
				Series []struct {
					Name  string `json:"name"`
					Type  string `json:"type"`
					Label *struct {
						Formatter string `json:"formatter"`
					} `json:"label"`
					Data []json.RawMessage `json:"data"`
				} `json:"series"`
			}
			if err := json.Unmarshal([]byte(html.UnescapeString(page[m[4]:m[5]])), &o); err != nil {
				t.Fatalf("%s %s: %v", path, id, err)
			}
			for _, s := range o.Series {
				if s.Name == "reachable range" || s.Label != nil && s.Label.Formatter == "FAIL" {
					continue // the range's width and FAIL's 0 are drawn, the table says them in words
				}
				for _, raw := range s.Data {
					var item struct {
						Value any `json:"value"`
					}
					if json.Unmarshal(raw, &item) != nil {
						continue
					}
					var want []float64
					switch v := item.Value.(type) {
					case float64:
						want = []float64{v}
					case []any:
						fs := make([]float64, len(v))
						for i, x := range v {
							fs[i], _ = x.(float64)
						}
						switch {
						case s.Type == "scatter" && len(fs) == 2:
							want = fs[:1]
						case s.Type == "heatmap" && len(fs) == 3:
							want = fs[2:]
						case s.Type == "line" && len(fs) == 2:
							want = fs
						case s.Type == "boxplot" && len(fs) == 5:
							want = []float64{fs[0], fs[4]}
						case s.Type == "radar":
							want = fs
						}
					}
					for _, w := range want {
						if s.Type == "radar" && w == 0 {
							continue // a strategy never decided is drawn at 0 and listed as "—"
						}
						nValues++
						if !inTable[w] {
							t.Errorf("%s: chart %s draws %v (%s), not in its table", path, id, w, s.Name)
						}
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if nCharts < 20 || nValues < 100 {
		t.Errorf("%d charts, %d values checked: too few to say anything", nCharts, nValues)
	}
	t.Logf("%d charts, %d drawn values found in their tables", nCharts, nValues)
}
