package report

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rexmle/rexmle/pipeline/gpu"
	"github.com/rexmle/rexmle/pipeline/rankstage"
	"github.com/rexmle/rexmle/pipeline/report/reporttest"
)

// Every page of a build with synthetic runs carries the banner; a build of
// the paper's recorded results alone carries none, and neither Figure 1 nor
// Table 3 nor any leaderboard holds a synthetic run.
func TestBannerAndSyntheticRunsApart(t *testing.T) {
	site := filepath.Join(paperSite(t), "site")
	pages := 0
	filepath.WalkDir(site, func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".html") {
			pages++
			b, _ := os.ReadFile(p)
			if !bytes.Contains(b, []byte(`id="data-banner"`)) {
				t.Errorf("%s: no banner on a build with synthetic runs", p)
			}
		}
		return nil
	})
	if pages < 30 {
		t.Fatalf("%d pages", pages)
	}
	overall := readTable(t, site, "overall")
	for _, r := range overall.Rows {
		if r["source"] != printedSource {
			t.Errorf("overall table holds a %v run", r["source"])
		}
	}
	// A paper-only build: no banner anywhere.
	ctx := context.Background()
	b := reporttest.Benchmark(t)
	st := reporttest.Store(t)
	if _, err := rankstage.Run(ctx, b, st); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if _, err := Build(ctx, Options{Store: st, Benchmark: b, OutDir: dir, GitCommit: "x", Profile: "paper"}); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"index.html", "challenges/isles22.html", "provenance.html"} {
		bs, err := os.ReadFile(filepath.Join(dir, p))
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(bs, []byte(`id="data-banner"`)) {
			t.Errorf("paper build %s carries the banner", p)
		}
	}
	prov, _ := os.ReadFile(filepath.Join(dir, "provenance.html"))
	if !bytes.Contains(prov, []byte("<td>Profile</td><td>paper</td>")) {
		t.Error("provenance does not name the paper profile")
	}
	// The demo profile on a store of paper runs only still says what it is.
	dir2 := t.TempDir()
	if _, err := Build(ctx, Options{Store: st, Benchmark: b, OutDir: dir2, GitCommit: "x", Profile: "demo"}); err != nil {
		t.Fatal(err)
	}
	idx, _ := os.ReadFile(filepath.Join(dir2, "index.html"))
	if !bytes.Contains(idx, []byte(`id="data-banner"`)) || !bytes.Contains(idx, []byte("&#34;demo&#34;")) {
		t.Error("a demo build does not name its profile in the banner")
	}
}

// The percentile chart's option: a 0–100 % axis, failed runs in their own
// labelled series, 0 % said in words, the paper's print as a marker, and
// tooltips with units.
func TestPctChartOption(t *testing.T) {
	c := pctChart("c_x", "T", "", []pctBar{
		{Label: "a", Value: 40, Hi: math.NaN(), Printed: 41, Tip: "a: 40.00%"},
		{Label: "b", Value: 0, Hi: math.NaN(), Printed: math.NaN(), Tip: "b: 0.00%"},
		{Label: "c", Fail: true, Hi: math.NaN(), Printed: math.NaN(), Tip: "c: FAIL"},
		{Label: "d", Value: 10, Hi: 60, Printed: math.NaN(), Tip: "d: 10–60%"},
	}, "alt")
	var o struct {
		XAxis []struct {
			Min, Max float64
		} `json:"xAxis"`
		Series []struct {
			Name  string            `json:"name"`
			Type  string            `json:"type"`
			Data  []json.RawMessage `json:"data"`
			Label *struct {
				Formatter string `json:"formatter"`
			} `json:"label"`
		} `json:"series"`
	}
	if err := json.Unmarshal([]byte(c.Option), &o); err != nil {
		t.Fatal(err)
	}
	if len(o.XAxis) != 1 || o.XAxis[0].Min != 0 || o.XAxis[0].Max != 100 {
		t.Errorf("axis %+v, want one axis, 0–100", o.XAxis)
	}
	names := map[string]int{}
	for i, s := range o.Series {
		names[s.Name] = i
	}
	fi, ok := names["FAIL (no valid submission)"]
	if !ok || o.Series[fi].Label == nil || o.Series[fi].Label.Formatter != "FAIL" {
		t.Fatalf("no labelled FAIL series: %s", c.Option)
	}
	if string(o.Series[fi].Data[2]) != `{"value":0}` || string(o.Series[fi].Data[0]) != `{"value":"-"}` {
		t.Errorf("FAIL series data %s", o.Series[fi].Data)
	}
	pv := o.Series[names["percentile"]]
	if string(pv.Data[2]) != `{"value":"-"}` || !strings.Contains(string(pv.Data[1]), `"0 %"`) || string(pv.Data[0]) != `{"value":40}` {
		t.Errorf("percentile data %s", pv.Data)
	}
	if r := o.Series[names["reachable range"]]; string(r.Data[3]) != `{"value":50}` {
		t.Errorf("range data %s, want the width 50 for 10–60", r.Data)
	}
	if sc := o.Series[names["paper's printed value"]]; sc.Type != "scatter" || string(sc.Data[0]) != `{"value":[41,0]}` {
		t.Errorf("printed marker %s", sc.Data)
	}
	if !strings.Contains(string(c.Tips), "a: 40.00%") || !strings.Contains(string(c.Tips), "c: FAIL") {
		t.Errorf("tips %s", c.Tips)
	}
	if nonZero([]pctBar{{Value: 0, Hi: math.NaN(), Printed: math.NaN()}}) {
		t.Error("an all-zero chart counts as having something to show")
	}
}

// GPU times are minutes since the run started, or the stored elapsed_s.
func TestComputeElapsed(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(min int) time.Time { return t0.Add(time.Duration(min) * time.Minute) }
	r := &runData{ID: "r", StartedAt: at(0).Format(time.RFC3339)}
	nan := math.NaN()
	rc := computeRun(r, []gpu.Sample{{At: at(10), GPU: 0, ElapsedS: nan}, {At: at(12), GPU: 0, ElapsedS: nan}}, nil)
	if got := rc.Times[0]; len(got) != 2 || got[0] != 10 || got[1] != 12 {
		t.Errorf("times %v, want [10 12] minutes since the start", got)
	}
	s := []gpu.Sample{{At: at(10), GPU: 0, ElapsedS: 30}, {At: at(12), GPU: 0, ElapsedS: 150}}
	rc = computeRun(r, s, nil)
	if got := rc.Times[0]; got[0] != 0.5 || got[1] != 2.5 {
		t.Errorf("times %v, want the stored elapsed_s in minutes [0.5 2.5]", got)
	}
}

// The paper prints 100.0% for the top human team in all 20 S-tables; in 11
// of them that team's own values rank it lower among the leaderboard rows.
// The reproduction page counts them, and the challenge page flags them.
func TestTopHumanFlagged(t *testing.T) {
	site := filepath.Join(paperSite(t), "site")
	tj := readTable(t, site, "reproduction-top-human")
	if len(tj.Rows) != 20 {
		t.Fatalf("%d top-human rows, want 20", len(tj.Rows))
	}
	n := 0
	for _, r := range tj.Rows {
		if r["paper_pct"] != 100.0 {
			t.Errorf("%v: paper %v, want 100", r["challenge"], r["paper_pct"])
		}
		if r["differs"] == true {
			n++
			if r["computed_pct"] == 100.0 {
				t.Errorf("%v flagged though it computes 100", r["challenge"])
			}
		}
	}
	if n != 11 {
		t.Errorf("%d flagged, want 11", n)
	}
	page, _ := os.ReadFile(filepath.Join(site, "challenges", "isles22.html"))
	if !bytes.Contains(page, []byte("computed 75.0%")) || !bytes.Contains(page, []byte("100.0% (paper)")) {
		t.Error("ISLES'22 top human row does not show the paper's 100.0% and the computed 75.0%")
	}
}
