package report

import (
	"context"
	"encoding/json"
	"html"
	"io"
	"io/fs"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rexmle/rexmle/pipeline/gpu"

	"github.com/rexmle/rexmle/pipeline/config"
	"github.com/rexmle/rexmle/pipeline/rankstage"
	"github.com/rexmle/rexmle/pipeline/report/reporttest"
	"github.com/rexmle/rexmle/pipeline/store"
)

// bootSite builds a site from a store holding the paper's rows, runs of a
// profile on (pretend) fetched data — every ranked metric the mean of its
// per-case values, so the bootstrap gives intervals — and synthetic demo
// runs, bootstrapped with B = 200. agent-01's fetched runs all carry a GPU
// summary (0.5 GPU-hours, 0.2 kWh).
func bootSite(t *testing.T) (*store.Store, string) {
	t.Helper()
	ctx := context.Background()
	b := reporttest.Benchmark(t)
	b.Profiles["realtest"] = config.Profile{Data: "fetched"}
	st := reporttest.Store(t)
	if err := reporttest.Fill(ctx, st, b, reporttest.Spec{Source: "realtest", Agents: 2, Seeds: 2, Cases: 6, MeanCases: true, RandSeed: 5}); err != nil {
		t.Fatal(err)
	}
	if err := reporttest.Fill(ctx, st, b, reporttest.Spec{Source: "demo", Agents: 2, Seeds: 1, Cases: 6, MeanCases: true, RandSeed: 6}); err != nil {
		t.Fatal(err)
	}
	rows, err := st.RawQuery(ctx, `SELECT id FROM runs WHERE source='realtest' AND agent='agent-01' ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	rows.Close()
	err = st.Update(ctx, func(tx *store.Tx) error {
		for _, id := range ids {
			if err := tx.PutGPUSummary(ctx, store.GPUSummary{RunID: id, Telemetry: "nvml", WallSeconds: 1800, WorkingSeconds: math.NaN(),
				Summary: gpu.Summary{GPUs: 1, Samples: 10, GPUHours: 0.5, EnergyKWh: 0.2, SMUtilMedian: math.NaN(), SMUtilP95: math.NaN(),
					PeakMemFraction: math.NaN(), PeakProcMemFrac: math.NaN()}}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rankstage.RunWith(ctx, b, st, rankstage.Options{Boot: 200, BootSeed: 11, Confidence: 0.95}); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "site")
	if _, err := Build(ctx, Options{Store: st, Benchmark: b, OutDir: dir, GitCommit: "x", Profile: "realtest"}); err != nil {
		t.Fatal(err)
	}
	return st, dir
}

type chartOpt struct {
	YAxis  axisOpt `json:"-"`
	XAxis  axisOpt `json:"-"`
	Series []struct {
		Name string            `json:"name"`
		Type string            `json:"type"`
		Data []json.RawMessage `json:"data"`
	} `json:"series"`
}

// chartOf reads chart id's ECharts option from a page.
func chartOf(t *testing.T, page, id string) (chartOpt, bool) {
	t.Helper()
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(`class="chart-opt" data-for="` + regexp.QuoteMeta(id) + `">([^<]*)</script>`)
	m := re.FindSubmatch(b)
	if m == nil {
		return chartOpt{}, false
	}
	var o chartOpt
	if err := json.Unmarshal([]byte(html.UnescapeString(string(m[1]))), &o); err != nil {
		t.Fatalf("%s %s: %v", page, id, err)
	}
	var axes struct {
		X []axisOpt `json:"xAxis"` // go-echarts writes the axes as lists
		Y []axisOpt `json:"yAxis"`
	}
	if err := json.Unmarshal([]byte(html.UnescapeString(string(m[1]))), &axes); err != nil || len(axes.X) != 1 || len(axes.Y) != 1 {
		t.Fatalf("%s %s: axes %+v (%v), want one x and one y axis", page, id, axes, err)
	}
	o.XAxis, o.YAxis = axes.X[0], axes.Y[0]
	return o, true
}

// axisOpt is the part of an ECharts axis the tests read.
type axisOpt struct {
	Data []string `json:"data"`
}

// errorBars maps each category of a percentile chart to its error bar
// [lo, hi] (percent); categories without one are absent.
func errorBars(t *testing.T, o chartOpt) map[string][2]float64 {
	t.Helper()
	out := map[string][2]float64{}
	for _, s := range o.Series {
		if s.Name != ciName {
			continue
		}
		if s.Type != "boxplot" {
			t.Fatalf("error bars drawn as %s", s.Type)
		}
		for i, d := range s.Data {
			var item struct {
				Value []float64 `json:"value"`
			}
			if err := json.Unmarshal(d, &item); err != nil {
				t.Fatalf("error bar %d: %s", i, d)
			}
			v := item.Value
			if len(v) == 5 {
				if !(v[0] <= v[1] && v[1] == v[2] && v[2] == v[3] && v[3] <= v[4]) {
					t.Errorf("error bar %s: %v is not [lo, mid, mid, mid, hi]", o.YAxis.Data[i], v)
				}
				out[o.YAxis.Data[i]] = [2]float64{v[0], v[4]}
			} else if len(v) != 0 {
				t.Errorf("error bar %d: %v", i, v)
			}
		}
	}
	return out
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-3 }

func TestUncertaintyOnSite(t *testing.T) {
	st, site := bootSite(t)
	ctx := context.Background()
	ov, err := st.BootOverall(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// Figure 1 holds only the paper's configurations, whose bars carry no
	// interval; the fetched (new) configurations are in their own chart,
	// each bar with the stored interval.
	paperFig, ok := chartOf(t, filepath.Join(site, "index.html"), "c_overall")
	if !ok {
		t.Fatal("no Figure 1 chart")
	}
	if pb := errorBars(t, paperFig); len(pb) != 0 {
		t.Errorf("Figure 1 (paper's configurations) carries error bars %v", pb)
	}
	for _, cat := range append(paperFig.YAxis.Data, paperFig.XAxis.Data...) {
		if strings.Contains(cat, "realtest") {
			t.Errorf("Figure 1 holds the new run %q beside the paper's configurations", cat)
		}
	}
	fig, ok := chartOf(t, filepath.Join(site, "index.html"), "c_overall_new")
	if !ok {
		t.Fatal("no chart of the new runs on real data")
	}
	bars := errorBars(t, fig)
	nReal := 0
	for _, o := range ov {
		if o.Source != "realtest" {
			continue
		}
		if math.IsNaN(o.Lo) || !(o.Lo <= o.Rank && o.Rank <= o.Hi) {
			t.Fatalf("%s: stored interval [%v, %v] around %v", o.Label(), o.Lo, o.Hi, o.Rank)
		}
		nReal++
		found := false
		for cat, iv := range bars {
			if strings.Contains(cat, o.Agent) && strings.Contains(cat, "realtest") {
				found = true
				if !near(iv[0], 100*o.Lo) || !near(iv[1], 100*o.Hi) {
					t.Errorf("%s: error bar %v, stored [%v, %v] %%", cat, iv, 100*o.Lo, 100*o.Hi)
				}
			}
		}
		if !found {
			t.Errorf("%s: no error bar in Figure 1 (bars %v)", o.Label(), bars)
		}
	}
	if nReal != 2 || len(bars) != 2 {
		t.Errorf("%d fetched configurations, %d error bars; want 2 and 2", nReal, len(bars))
	}
	idx, _ := os.ReadFile(filepath.Join(site, "index.html"))
	if !strings.Contains(string(idx), "the paper records no per-case values for its runs") {
		t.Error("Figure 1 does not say why the paper's bars have no interval")
	}
	// Challenge pages: the stored per-challenge intervals.
	cs, err := st.BootChallenges(ctx)
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, c := range cs {
		if c.Source != "realtest" || math.IsNaN(c.PctLo) {
			continue
		}
		if po, ok := chartOf(t, filepath.Join(site, "challenges", c.Challenge+".html"), chartID("pct", c.Challenge)); ok {
			for _, l := range po.YAxis.Data {
				if !strings.HasSuffix(l, ", paper)") {
					t.Errorf("%s: %q on the chart of the paper's configurations", c.Challenge, l)
				}
			}
		}
		o, ok := chartOf(t, filepath.Join(site, "challenges", c.Challenge+".html"), chartID("pct", "new", c.Challenge)) // new runs on real data: their own chart
		if !ok {
			continue // an all-zero chart is replaced by a sentence
		}
		iv, ok := errorBars(t, o)[findCat(o.YAxis.Data, c.Agent, "realtest")]
		if !ok || !near(iv[0], 100*c.PctLo) || !near(iv[1], 100*c.PctHi) {
			t.Errorf("%s %s: error bar %v (present %v), stored [%v, %v]", c.Challenge, c.Agent, iv, ok, 100*c.PctLo, 100*c.PctHi)
		}
		checked++
	}
	if checked < 5 {
		t.Errorf("only %d challenge error bars checked", checked)
	}
	// Per-metric value and position intervals, as stored.
	ms, err := st.BootMetrics(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]store.BootMetric{}
	for _, m := range ms {
		want[m.RunID+"|"+m.Metric] = m
	}
	it := readTable(t, site, "int-isles22-metrics")
	withCI := 0
	for _, r := range it.Rows {
		m, ok := want[str(r["run"])+"|"+str(r["metric"])]
		if !ok {
			if r["value_lo"] != nil {
				t.Errorf("%v: an interval the store does not hold", r)
			}
			continue
		}
		if math.IsNaN(m.ValueLo) != (r["value_lo"] == nil) {
			t.Errorf("%v vs stored %+v", r, m)
			continue
		}
		if !math.IsNaN(m.ValueLo) {
			withCI++
			if r["value_lo"].(float64) != m.ValueLo || r["value_hi"].(float64) != m.ValueHi || r["position_lo"].(float64) != m.PositionLo || r["position_hi"].(float64) != m.PositionHi {
				t.Errorf("%v vs stored %+v", r, m)
			}
		}
	}
	if withCI == 0 {
		t.Error("no metric interval on the ISLES'22 page")
	}
	// Significance map: every cell is the stored probability.
	pairs, err := st.BootPairwise(ctx)
	if err != nil {
		t.Fatal(err)
	}
	sm, ok := chartOf(t, filepath.Join(site, "index.html"), "c_sigmap")
	if !ok {
		t.Fatal("no significance map of the fetched configurations")
	}
	cells := 0
	for _, d := range sm.Series[0].Data {
		var cell struct {
			Value []float64 `json:"value"`
			Name  string    `json:"name"`
		}
		if err := json.Unmarshal(d, &cell); err != nil {
			t.Fatal(err)
		}
		row, col := sm.YAxis.Data[int(cell.Value[1])], sm.XAxis.Data[int(cell.Value[0])]
		for _, p := range pairs {
			if strings.Contains(row, agentOf(p.A)) && strings.Contains(col, agentOf(p.B)) && strings.HasPrefix(p.A, "realtest/") && strings.HasPrefix(p.B, "realtest/") {
				cells++
				if !near(cell.Value[2], 100*p.PAbove) {
					t.Errorf("%s above %s: cell %v, stored %v", row, col, cell.Value[2], p.PAbove)
				}
			}
		}
	}
	if cells != 2 {
		t.Errorf("%d significance cells checked, want 2", cells)
	}
	if _, ok := chartOf(t, filepath.Join(site, "index.html"), "c_sigmap_synthetic"); !ok {
		t.Error("no separate significance map of the synthetic configurations")
	}
	if _, ok := chartOf(t, filepath.Join(site, "index.html"), "c_blobs_synthetic"); !ok {
		t.Error("no blob plot (the counts mix synthetic and fetched configurations, so it sits in the synthetic section)")
	}
	if !strings.Contains(string(idx), "n_boot = 200") || !strings.Contains(string(idx), "boot_seed = 11") {
		t.Error("the overview does not state n_boot and boot_seed")
	}
	if strings.Contains(string(idx), "%%") {
		t.Error("the overview shows a literal %%")
	}
	// The resampling design, stated once (issue 33): paragraph, levels
	// table, what the intervals leave out; the probability map is not a test.
	for _, want := range []string{`id="resampling-design"`, "hierarchical, paired bootstrap", "hidden test sets", "not a test", "Wilcoxon signed-rank"} {
		if !strings.Contains(string(idx), want) {
			t.Errorf("the overview does not say %q", want)
		}
	}
	if lv := readTable(t, site, "resampling-levels"); len(lv.Rows) != 5 {
		t.Errorf("resampling levels table: %d rows", len(lv.Rows))
	}
	// Agent pages: the per-seed values as stored.
	for _, o := range ov {
		if o.Source != "realtest" {
			continue
		}
		slug := groupSlug(groupKey{o.Source, o.Setting, o.Backend, o.Agent})
		sd := readTable(t, site, "seeds-"+slug)
		if len(sd.Rows) != 2 || len(o.Seeds) != 2 {
			t.Fatalf("%s: %d seed rows, %d stored seeds", slug, len(sd.Rows), len(o.Seeds))
		}
		for i, r := range sd.Rows {
			if !near(r["rexmle_rank_pct"].(float64), 100*o.Seeds[i].Value) {
				t.Errorf("%s seed %v: %v, stored %v", slug, r["seed"], r["rexmle_rank_pct"], o.Seeds[i].Value)
			}
		}
		pg, _ := os.ReadFile(filepath.Join(site, "agents", slug+".html"))
		if !strings.Contains(string(pg), "standard error over seeds") {
			t.Errorf("%s: no mean ± SE", slug)
		}
	}
	// Compute-normalised: agent-01 has telemetry on every run, agent-00 none.
	// New runs on the real data have their own table, apart from the paper's.
	for _, r := range readTable(t, site, "compute-normalised").Rows {
		if r["source"] != printedSource {
			t.Errorf("the paper's compute-normalised table holds a %v configuration", r["source"])
		}
	}
	cn := readTable(t, site, "compute-normalised-new")
	seen := 0
	for _, r := range cn.Rows {
		if r["source"] != "realtest" {
			continue
		}
		seen++
		switch r["agent"] {
		case "agent-01":
			rk := r["rexmle_rank_pct"].(float64)
			if !near(r["pct_per_gpu_hour"].(float64), rk/0.5) || !near(r["pct_per_kwh"].(float64), rk/0.2) {
				t.Errorf("agent-01: %v per GPU-hour, %v per kWh for rank %v %%", r["pct_per_gpu_hour"], r["pct_per_kwh"], rk)
			}
		case "agent-00":
			if r["pct_per_gpu_hour"] != nil || !strings.Contains(str(r["note"]), "unavailable") {
				t.Errorf("agent-00 without telemetry: %v", r)
			}
		}
	}
	if seen != 2 {
		t.Errorf("%d fetched configurations in the compute-normalised table", seen)
	}
}

func findCat(cats []string, parts ...string) string {
	for _, c := range cats {
		ok := true
		for _, p := range parts {
			ok = ok && strings.Contains(c, p)
		}
		if ok {
			return c
		}
	}
	return ""
}

// agentOf is the agent of a configuration label source/setting/backend/agent.
func agentOf(label string) string { return label[strings.LastIndexByte(label, '/')+1:] }

// An error bar series has one entry per bar: the interval around the
// value for bars with one, empty for the others (failed runs included).
func TestCISeries(t *testing.T) {
	if ciSeries([]pctBar{{Value: 10, Hi: math.NaN()}}) != nil {
		t.Error("a series without any interval")
	}
	bp := ciSeries([]pctBar{{Value: 40, CI: true, CILo: 30, CIHi: 55}, {Value: 5}, {Fail: true, CI: true, CILo: 0, CIHi: 1}, {Value: 70, CI: true, CILo: 72, CIHi: 80}})
	if bp == nil || len(bp.MultiSeries) != 1 || bp.MultiSeries[0].Type != "boxplot" {
		t.Fatalf("error bars %+v, want one boxplot series", bp)
	}
	b, _ := json.Marshal(bp.MultiSeries[0].Data)
	var data []struct {
		Value []float64 `json:"value"`
	}
	if err := json.Unmarshal(b, &data); err != nil {
		t.Fatal(err)
	}
	want := [][]float64{{30, 40, 40, 40, 55}, {}, {}, {72, 72, 72, 72, 80}}
	if len(data) != len(want) {
		t.Fatalf("%d error bars, want %d", len(data), len(want))
	}
	for i := range want {
		if len(data[i].Value) != len(want[i]) {
			t.Fatalf("bar %d: %v, want %v", i, data[i].Value, want[i])
		}
		for k := range want[i] {
			if data[i].Value[k] != want[i][k] {
				t.Errorf("bar %d: %v, want %v", i, data[i].Value, want[i])
			}
		}
	}
}

// BenchmarkBuildBoot is BenchmarkBuild's store (20 challenges × 10 agents ×
// 3 seeds) with every metric the mean of its 10 per-case values, ranked by
// the rank stage (the paper's rows imported too) with its bootstrap
// (REXMLE_BOOT resamples, default 1000) stored: the site with every
// uncertainty view filled (10 configurations in the significance map).
func BenchmarkBuildBoot(b *testing.B) {
	ctx := context.Background()
	bm := reporttest.Benchmark(b)
	st := reporttest.Store(b)
	if err := reporttest.Fill(ctx, st, bm, reporttest.Spec{Agents: 10, Seeds: 3, Cases: 10, MeanCases: true, Strategies: 12, GPUSamples: 30, RandSeed: 1}); err != nil {
		b.Fatal(err)
	}
	if _, err := rankstage.RunWith(ctx, bm, st, rankstage.DefaultOptions()); err != nil {
		b.Fatal(err)
	}
	out := b.TempDir()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	b.ResetTimer()
	for b.Loop() {
		if _, err := Build(ctx, Options{Store: st, Benchmark: bm, OutDir: out, GitCommit: "bench", Logger: log}); err != nil {
			b.Fatal(err)
		}
	}
}

// Without synthetic runs, the blob plot and the rank table sit in the main
// section, and P(rank 1) is the stored count over n_boot.
func TestRankBlobsComparableOnly(t *testing.T) {
	ctx := context.Background()
	b := reporttest.Benchmark(t)
	b.Profiles["realtest"] = config.Profile{Data: "fetched"}
	st := reporttest.Store(t)
	if err := reporttest.Fill(ctx, st, b, reporttest.Spec{Source: "realtest", Agents: 3, Seeds: 1, Cases: 5, MeanCases: true, RandSeed: 8}); err != nil {
		t.Fatal(err)
	}
	if _, err := rankstage.RunWith(ctx, b, st, rankstage.Options{Boot: 100, BootSeed: 3, Confidence: 0.95}); err != nil {
		t.Fatal(err)
	}
	site := filepath.Join(t.TempDir(), "site")
	if _, err := Build(ctx, Options{Store: st, Benchmark: b, OutDir: site, GitCommit: "x", Profile: "realtest"}); err != nil {
		t.Fatal(err)
	}
	blobs, ok := chartOf(t, filepath.Join(site, "index.html"), "c_blobs")
	if !ok || len(blobs.YAxis.Data) != 3 {
		t.Fatalf("blob plot %v (present %v), want 3 configurations", blobs.YAxis.Data, ok)
	}
	if _, ok := chartOf(t, filepath.Join(site, "index.html"), "c_blobs_synthetic"); ok {
		t.Error("a synthetic blob plot on a build without synthetic runs")
	}
	counts, err := st.BootRankCounts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	first := map[string]float64{}
	for _, c := range counts {
		if c.Rank == 1 {
			first[c.Config] = float64(c.Count) / float64(c.NBoot)
		}
	}
	tb := readTable(t, site, "rank-stability")
	if len(tb.Rows) != 3 {
		t.Fatalf("%d rows in the rank table", len(tb.Rows))
	}
	sum := 0.0
	for _, r := range tb.Rows {
		p := r["p_rank_1"].(float64)
		if !near(p, first[str(r["config"])]) {
			t.Errorf("%v: P(rank 1) %v, stored %v", r["config"], p, first[str(r["config"])])
		}
		if r["n_boot"].(float64) != 100 || r["boot_seed"].(float64) != 3 {
			t.Errorf("%v: n_boot %v, boot_seed %v", r["config"], r["n_boot"], r["boot_seed"])
		}
		sum += p
	}
	if !near(sum, 1) {
		t.Errorf("P(rank 1) sums to %v over the configurations", sum)
	}
}

// TestUnboundedIntervalEnd: a bootstrap-t interval at small n can end at
// ±Inf (resamples of identical cases have no spread); the site still builds,
// the table says so and the download has no end there (null).
func TestUnboundedIntervalEnd(t *testing.T) {
	st, _ := bootSite(t)
	ctx := context.Background()
	runs, err := st.BootRuns(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ms, err := st.BootMetrics(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var target string
	for _, m := range ms {
		if strings.HasPrefix(m.RunID, "realtest/isles22/") && m.Metric == "dice" && !math.IsNaN(m.ValueLo) {
			target = m.RunID
			break
		}
	}
	if target == "" {
		t.Fatal("no ISLES'22 run with a dice interval")
	}
	var rec store.RunBootRecord
	for _, r := range runs {
		if r.RunID == target {
			rec = store.RunBootRecord{NBoot: r.NBoot, NCases: r.NCases, Undefined: r.NUndefined, BootSeed: r.BootSeed,
				MeanRankLo: r.MeanRankLo, MeanRankHi: r.MeanRankHi, PctLo: r.PctLo, PctHi: r.PctHi, Note: r.Note}
		}
	}
	var recs []store.MetricBootRecord
	for _, m := range ms {
		if m.RunID != target {
			continue
		}
		hi := m.ValueHi
		if m.Metric == "dice" {
			hi = math.Inf(1)
		}
		recs = append(recs, store.MetricBootRecord{Metric: m.Metric, Aggregation: m.Aggregation, Method: m.Method,
			ValueLo: m.ValueLo, ValueHi: hi, PositionLo: m.PositionLo, PositionHi: m.PositionHi, Note: m.Note})
	}
	if err := st.Update(ctx, func(tx *store.Tx) error { return tx.PutRunBoot(ctx, target, rec, recs) }); err != nil {
		t.Fatal(err)
	}
	b := reporttest.Benchmark(t)
	b.Profiles["realtest"] = config.Profile{Data: "fetched"}
	dir := filepath.Join(t.TempDir(), "site")
	if _, err := Build(ctx, Options{Store: st, Benchmark: b, OutDir: dir, GitCommit: "x", Profile: "realtest"}); err != nil {
		t.Fatalf("a +Inf interval end: %v", err)
	}
	found := false
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".html") {
			if b, _ := os.ReadFile(p); strings.Contains(html.UnescapeString(string(b)), ", +Inf]") {
				found = true
			}
		}
		return nil
	})
	if !found {
		t.Errorf("no page shows the dice interval of %s ending at +Inf", target)
	}
}
