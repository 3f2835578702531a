package report

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rexmle/rexmle/pipeline/config"
	"github.com/rexmle/rexmle/pipeline/gpu"
	"github.com/rexmle/rexmle/pipeline/rankstage"
	"github.com/rexmle/rexmle/pipeline/report/reporttest"
	"github.com/rexmle/rexmle/pipeline/store"
)

var (
	paperOnce sync.Once
	paperDir  string
	paperErr  error
)

// paperSite builds, once per test binary, the site of a store holding the
// paper's recorded results (imported by rankstage.Run) plus a small set of
// synthetic runs.
func paperSite(t *testing.T) string {
	t.Helper()
	paperOnce.Do(func() {
		dir, err := os.MkdirTemp("", "rexmle-site-")
		if err != nil {
			paperErr = err
			return
		}
		paperDir = dir
		paperErr = buildPaperSite(dir)
	})
	if paperErr != nil {
		t.Fatal(paperErr)
	}
	return paperDir
}

func buildPaperSite(dir string) error {
	ctx := context.Background()
	b, err := config.Load("../../benchmark.toml")
	if err != nil {
		return err
	}
	st, err := store.Open(ctx, filepath.Join(dir, "store.sqlite"))
	if err != nil {
		return err
	}
	defer st.Close()
	if err := reporttest.Fill(ctx, st, b, reporttest.Spec{Agents: 2, Seeds: 2, Cases: 3, Strategies: 4, GPUSamples: 3, RandSeed: 1}); err != nil {
		return err
	}
	if _, err := rankstage.Run(ctx, b, st); err != nil {
		return err
	}
	_, err = Build(ctx, Options{Store: st, Benchmark: b, OutDir: filepath.Join(dir, "site"), GitCommit: "test"})
	return err
}

// TestMain removes the shared site folder.
func TestMain(m *testing.M) {
	code := m.Run()
	if paperDir != "" {
		os.RemoveAll(paperDir)
	}
	os.Exit(code)
}

type tableJSON struct {
	ID      string           `json:"id"`
	Columns []string         `json:"columns"`
	Rows    []map[string]any `json:"rows"`
}

// str is a downloaded cell as text ("" for null).
func str(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	}
	return fmt.Sprint(v)
}

func readTable(t *testing.T, site, id string) tableJSON {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(site, "data", id+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var tj tableJSON
	if err := json.Unmarshal(b, &tj); err != nil {
		t.Fatal(err)
	}
	return tj
}

func TestPagesExistAndLinksResolve(t *testing.T) {
	site := filepath.Join(paperSite(t), "site")
	b := reporttest.Benchmark(t)
	want := []string{"index.html", "challenges/index.html", "capabilities.html", "ablations.html", "compute.html", "reproduction.html",
		"known-issues.html", "provenance.html", "downloads.html", "assets/echarts.min.js", "assets/site.css", "assets/site.js"}
	for _, c := range b.Challenges {
		want = append(want, "challenges/"+c.ID+".html")
	}
	for _, p := range want {
		if _, err := os.Stat(filepath.Join(site, p)); err != nil {
			t.Errorf("missing %s", p)
		}
	}
	if err := checkLinks(site); err != nil {
		t.Error(err)
	}
	// No page loads anything from a CDN.
	filepath.WalkDir(site, func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".html") {
			bs, _ := os.ReadFile(p)
			if bytes.Contains(bs, []byte("go-echarts.github.io")) || bytes.Contains(bs, []byte("cdn.")) {
				t.Errorf("%s refers to a CDN", p)
			}
		}
		return nil
	})
}

func TestTable3RowsAndPaperCells(t *testing.T) {
	site := filepath.Join(paperSite(t), "site")
	b := reporttest.Benchmark(t)
	tj := readTable(t, site, "table3")
	if len(tj.Rows) != len(b.Challenges)+1 {
		t.Fatalf("table3 has %d rows, want %d challenges and the overall row", len(tj.Rows), len(b.Challenges))
	}
	// Synthetic runs never get a column.
	for _, c := range tj.Columns {
		if strings.HasPrefix(c, "synthetic") {
			t.Errorf("table3 has a synthetic column %q", c)
		}
	}
	aide := groupSlug(groupKey{printedSource, "24h", "gpt-5", "aide"})
	rd := groupSlug(groupKey{printedSource, "24h", "gpt-5", "rd-agent"})
	// The paper's Table 3 prints ISLES'22, AIDE: Dice 0.04 at percentile 0 %.
	row := tj.Rows[0]
	if row["challenge"] != "isles22" {
		t.Fatalf("first row is %v", row["challenge"])
	}
	if v, ok := row[aide+":value"].(float64); !ok || math.Abs(v-0.0418) > 1e-9 {
		t.Errorf("ISLES'22 AIDE value = %v, want the number 0.0418", row[aide+":value"])
	}
	if row[aide+":pct"] != 0.0 || row[aide+":paper_value"] != 0.04 || row[aide+":paper_pct"] != 0.0 || row[aide+":check"] != "match" {
		t.Errorf("ISLES'22 AIDE = %v %v %v %v", row[aide+":pct"], row[aide+":paper_value"], row[aide+":paper_pct"], row[aide+":check"])
	}
	// DENTEX, R&D-Agent: the S-table prints AP 0.0000, Table 3 prints 0.09,
	// both at 0 %. The percentile agrees, the value does not: the cell's
	// check is the worse of the two, as on the reproduction page.
	for _, r := range tj.Rows {
		if r["challenge"] == "dentex" {
			if r[rd+":check"] != "inconsistency" {
				t.Errorf("DENTEX R&D-Agent check = %v, want inconsistency (value 0.00 vs 0.09)", r[rd+":check"])
			}
		}
	}
	last := tj.Rows[len(tj.Rows)-1]
	if last["challenge"] != "overall" || last[aide+":paper_pct"] != 9.05 {
		t.Errorf("overall row = %v", last)
	}
	html, _ := os.ReadFile(filepath.Join(site, "index.html"))
	for _, s := range []string{"arxiv.org/abs/2512.17838", "medical-imaging", "human", "data-banner"} {
		if !bytes.Contains(html, []byte(s)) {
			t.Errorf("overview lacks %q", s)
		}
	}
	// Figure 1's bars carry their values, as the paper's do: each of the
	// three configurations' recomputed rank, from the table above.
	for _, a := range []string{aide, groupSlug(groupKey{printedSource, "24h", "gpt-5", "ml-master"}), rd} {
		v, ok := last[a+":pct"].(float64)
		if !ok {
			t.Fatalf("overall %s: no pct", a)
		}
		label := fmt.Sprintf(`"formatter":"%.2f %%"`, v)
		if !bytes.Contains(html, []byte(label)) {
			t.Errorf("Figure 1 has no value label %s for %s", label, a)
		}
	}
}

func TestReproductionFindsKnownPaperInconsistency(t *testing.T) {
	site := filepath.Join(paperSite(t), "site")
	tj := readTable(t, site, "reproduction")
	found := false
	for _, r := range tj.Rows {
		// The paper prints 3 % for ML-Master on TopCoW-CTA-Seg though its
		// S-table positions give mean rank 11 of 10 rows: 0 %.
		if r["Where"] == "Table 3 (24h, gpt-5), TopCoW-CTA-Seg, ML-Master, percentile" {
			found = true
			if str(r["Computed"]) != "0" || str(r["Printed"]) != "3" || r["Class"] != "inconsistency" {
				t.Errorf("row = %v", r)
			}
		}
		if r["Class"] == "match" {
			t.Errorf("a match listed as a disagreement: %v", r)
		}
		// Every Table 4/5 row recorded by its primary value only is consistent
		// with some positions of the unrecorded metrics.
		w := str(r["Where"])
		if (strings.HasPrefix(w, "Table 4 (") || strings.HasPrefix(w, "Table 5 (")) && strings.HasSuffix(w, ", percentile") && r["Class"] != "undetermined" {
			t.Errorf("Table 4/5 percentile row %v", r)
		}
	}
	if !found {
		t.Error("known Table 3 inconsistency not listed")
	}
	tally := readTable(t, site, "reproduction-tally")
	for _, r := range tally.Rows {
		// Every S-table position, mean rank and percentile reproduces.
		if r["Tables"] == "S1–S20" && r["Match"] != r["Compared"] {
			t.Errorf("S-tables: %s %s of %s", r["Number"], r["Match"], r["Compared"])
		}
	}
}

func TestChallengePageTables(t *testing.T) {
	site := filepath.Join(paperSite(t), "site")
	b := reporttest.Benchmark(t)
	c, _ := b.Challenge("isles22")
	st := readTable(t, site, "s-isles22")
	// The top human row, 3 paper S-table runs and the Table 4/5 runs on
	// ISLES'22 (2 backends × 2 agents + 3 at 72 h); the synthetic runs
	// (2 agents × 2 seeds) are in their own table.
	if len(st.Rows) != 1+3+4+3 {
		t.Fatalf("S-table has %d rows, want 11", len(st.Rows))
	}
	if !strings.HasPrefix(str(st.Rows[0]["run"]), "top human") {
		t.Errorf("first row %v", st.Rows[0]["run"])
	}
	for _, r := range st.Rows[1:] {
		if r["source"] != printedSource {
			t.Errorf("non-paper run %v in the comparable S-table", r["run"])
		}
	}
	if syn := readTable(t, site, "synthetic-isles22"); len(syn.Rows) != 4 {
		t.Errorf("synthetic table has %d rows, want 4", len(syn.Rows))
	}
	lb := readTable(t, site, "leaderboard-isles22")
	humans := 0
	for _, r := range lb.Rows {
		if strings.Contains(str(r["Entry"]), "synthetic") {
			t.Errorf("synthetic run inserted into the leaderboard: %v", r)
		}
		if !strings.HasPrefix(str(r["Rank"]), "(") {
			humans++
		}
	}
	if humans != len(c.Leaderboard) {
		t.Errorf("leaderboard has %d human rows, want %d", humans, len(c.Leaderboard))
	}
	// Mean positions are sorted ascending.
	prev := math.Inf(-1)
	for _, r := range lb.Rows {
		var v float64
		if _, err := fmtSscan(str(r["Mean position"]), &v); err != nil {
			t.Fatalf("mean position %v", r["Mean position"])
		}
		if v < prev {
			t.Errorf("leaderboard not sorted at %v", r)
		}
		prev = v
	}
	cases := readTable(t, site, "cases-synthetic-isles22-"+slug(c.Metrics[0].Name)) // the filled runs are synthetic: their own marked section
	if len(cases.Rows) != 3 {
		t.Errorf("per-case table has %d rows, want 3", len(cases.Rows))
	}
	html, _ := os.ReadFile(filepath.Join(site, "challenges", "isles22.html"))
	for _, s := range []string{"resize-mismatched-prediction", "higher is better", "lower is better", "The paper&#39;s Table S2 as printed"} {
		if !bytes.Contains(html, []byte(s)) {
			t.Errorf("isles22 page lacks %q", s)
		}
	}
}

// TestDeterministic: two builds of one store are byte-identical. A site
// rebuilt from a results bundle in a fresh clone is compared the same way
// (pipeline/stages, TestPublishedBundleRebuildsTheSite).
func TestDeterministic(t *testing.T) {
	ctx := context.Background()
	b := reporttest.Benchmark(t)
	st := reporttest.Store(t)
	if err := reporttest.Fill(ctx, st, b, reporttest.Spec{Agents: 2, Seeds: 2, Cases: 2, Strategies: 3, GPUSamples: 2, RandSeed: 3}); err != nil {
		t.Fatal(err)
	}
	if _, err := rankstage.Run(ctx, b, st); err != nil {
		t.Fatal(err)
	}
	var dirs []string
	for i := 0; i < 2; i++ {
		dir := t.TempDir()
		if _, err := Build(ctx, Options{Store: st, Benchmark: b, OutDir: dir, GitCommit: "x"}); err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, dir)
	}
	reporttest.SameTree(t, dirs[0], dirs[1])
}

func TestEmptyStore(t *testing.T) {
	ctx := context.Background()
	st := reporttest.Store(t)
	dir := t.TempDir()
	res, err := Build(ctx, Options{Store: st, Benchmark: reporttest.Benchmark(t), OutDir: dir, GitCommit: "x"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Pages) < 9 {
		t.Errorf("%d pages", len(res.Pages))
	}
	idx, _ := os.ReadFile(filepath.Join(dir, "index.html"))
	if !bytes.Contains(idx, []byte("No configuration is ranked on every challenge")) {
		t.Error("empty overview does not say there are no ranked runs")
	}
	cp, _ := os.ReadFile(filepath.Join(dir, "capabilities.html"))
	if !bytes.Contains(cp, []byte("No capability scores")) {
		t.Error("capabilities page does not say the judge has not run")
	}
	if err := checkLinks(dir); err != nil {
		t.Error(err)
	}
}

func TestBuildRejectsMissingInputs(t *testing.T) {
	if _, err := Build(context.Background(), Options{}); err == nil {
		t.Error("no error without a store")
	}
	if _, err := Build(context.Background(), Options{Store: &store.Store{}}); err == nil {
		t.Error("no error without a benchmark")
	}
}

func TestComputeRun(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(min int) time.Time { return t0.Add(time.Duration(min) * time.Minute) }
	nan := math.NaN()
	samples := []gpu.Sample{
		{At: at(0), GPU: 0, SMUtil: 20, MemUsedBytes: 10, MemTotalBytes: 100, EnergyMJ: 0, PowerW: nan, ProcMemBytes: -1, ElapsedS: nan},
		{At: at(30), GPU: 0, SMUtil: 60, MemUsedBytes: 15, MemTotalBytes: 100, EnergyMJ: 7_200_000, PowerW: nan, ProcMemBytes: -1, ElapsedS: nan},
		// GPU 1 has power only: 100 W then 300 W over 30 min → 100 Wh.
		{At: at(0), GPU: 1, SMUtil: 40, MemUsedBytes: 50, MemTotalBytes: 200, EnergyMJ: -1, PowerW: 100, ProcMemBytes: -1, ElapsedS: nan},
		{At: at(30), GPU: 1, SMUtil: nan, MemUsedBytes: -1, MemTotalBytes: -1, EnergyMJ: -1, PowerW: 300, ProcMemBytes: -1, ElapsedS: nan},
	}
	// Without a stored summary the run is summarised as gpu.Summarize does,
	// over its wall time.
	r := &runData{ID: "r", StartedAt: at(0).Format(time.RFC3339), EndedAt: at(30).Format(time.RFC3339)}
	rc := computeRun(r, samples, nil)
	if rc.GPUs != 2 {
		t.Errorf("GPUs = %d", rc.GPUs)
	}
	if math.Abs(rc.Hours-1) > 1e-12 { // two GPUs × 0.5 h
		t.Errorf("hours = %g, want 1", rc.Hours)
	}
	if math.Abs(rc.EnergyWh-(2+100)) > 1e-9 { // 7.2e6 mJ = 2 Wh, plus 100 Wh
		t.Errorf("energy = %g Wh, want 102", rc.EnergyWh)
	}
	if math.Abs(rc.PeakFrac-0.25) > 1e-12 { // 50 / 200
		t.Errorf("peak = %g, want 0.25", rc.PeakFrac)
	}
	if math.Abs(rc.MedianUtil-40) > 1e-12 { // median of 20, 60, 40
		t.Errorf("median util = %g, want 40", rc.MedianUtil)
	}
	if got := rc.Mem[1]; len(got) != 2 || got[0] != 25 || !math.IsNaN(got[1]) {
		t.Errorf("GPU 1 memory series %v, want [25 NaN]", got)
	}
	// A stored summary is read, never recomputed.
	stored := &store.GPUSummary{RunID: "r", Summary: gpu.Summary{GPUs: 4, GPUHours: 7.5, EnergyKWh: 0.25, SMUtilMedian: 33, PeakMemFraction: 0.5}}
	rc = computeRun(r, samples, stored)
	if rc.GPUs != 4 || rc.Hours != 7.5 || rc.EnergyWh != 250 || rc.MedianUtil != 33 || rc.PeakFrac != 0.5 {
		t.Errorf("with a stored summary: %+v, want its numbers", rc)
	}
	empty := computeRun(&runData{ID: "e"}, nil, nil)
	if empty.GPUs != 0 || !math.IsNaN(empty.EnergyWh) || !math.IsNaN(empty.PeakFrac) {
		t.Errorf("empty = %+v", empty)
	}
}

func TestComputePageClaim(t *testing.T) {
	site := filepath.Join(paperSite(t), "site")
	html, _ := os.ReadFile(filepath.Join(site, "compute.html"))
	for _, s := range []string{"Peak GPU memory fraction", "GPU-hours", "plots/gpu-"} {
		if !bytes.Contains(html, []byte(s)) {
			t.Errorf("compute page lacks %q", s)
		}
	}
	tj := readTable(t, site, "compute")
	if len(tj.Rows) == 0 {
		t.Fatal("no compute rows")
	}
	for _, r := range tj.Rows {
		// Synthetic telemetry: 3 samples a minute apart on one GPU, read
		// from the stored summary: 1 GPU × the run's 1-minute wall time.
		if r["GPU-hours"] != 0.017 {
			t.Errorf("GPU-hours = %v, want 0.017", r["GPU-hours"])
		}
		// Energy counter rises 18e6 mJ a minute: 36e6 mJ = 10 Wh.
		if r["Energy (Wh)"] != 10.0 {
			t.Errorf("energy = %v, want 10.0", r["Energy (Wh)"])
		}
	}
}

func TestCapabilitiesTable(t *testing.T) {
	site := filepath.Join(paperSite(t), "site")
	tj := readTable(t, site, "capabilities-demo") // the filled runs are synthetic: their own marked section
	if len(tj.Rows) != 2 {
		t.Fatalf("%d capability rows, want 2 agents", len(tj.Rows))
	}
	for _, r := range tj.Rows {
		for s := 1; s <= 4; s++ {
			v := r[reporttest.StrategyName(s)]
			if v == nil {
				t.Errorf("no score for strategy %d in %v", s, r)
			}
		}
	}
}

func TestFormatting(t *testing.T) {
	for _, c := range []struct {
		in   float64
		want string
	}{{3, "3.0"}, {2.25, "2.25"}, {4.5, "4.5"}, {11, "11.0"}, {2.3333333, "2.33"}, {math.NaN(), "—"}} {
		if got := fmtMeanRank(c.in); got != c.want {
			t.Errorf("fmtMeanRank(%g) = %q, want %q", c.in, got, c.want)
		}
	}
	// K = 4 metrics, N = 10 rows: percentile = 100·(NK − S + K)/(NK).
	for _, c := range []struct {
		sum, digits int
		want        string
	}{{44, 1, "0.0%"}, {9, 1, "87.5%"}, {9, 0, "88%"}, {4, 0, "100%"}, {25, 1, "47.5%"}} {
		r := &runData{Ranked: true, RankStatus: "ok", PosSum: c.sum, K: 4, N: 10}
		if got := runPct(r, c.digits); got != c.want {
			t.Errorf("runPct(sum %d, %d) = %q, want %q", c.sum, c.digits, got, c.want)
		}
	}
	for _, c := range []struct {
		v    float64
		want string
	}{{0.87, "0.87"}, {4, "4"}, {0.78524, "0.7852"}, {2.12, "2.12"}} {
		if got := fmtStored(c.v, true, 4); got != c.want {
			t.Errorf("fmtStored(%g) = %q, want %q", c.v, got, c.want)
		}
	}
	if got := runPct(&runData{Ranked: true, RankStatus: "fail"}, 1); got != "FAIL" {
		t.Errorf("failed run prints %q", got)
	}
	if got := runPct(&runData{Ranked: true, RankStatus: "partial", PctLo: 0.25, PctHi: 0.75}, 0); got != "25–75%" {
		t.Errorf("partial run prints %q", got)
	}
}

func TestTableFiles(t *testing.T) {
	tb := &table{ID: "x", Caption: "X", Head: []string{"a", "b"}, Rows: []row{
		{Cells: []cell{{Text: `say "hi", ok`}, {Text: "1", Badge: "✗ differs", BadgeClass: "bad", BadgeTitle: "why"}}},
		{Cells: []cell{{Text: "z"}}},
	}}
	c, j, err := tableFiles(tb)
	if err != nil {
		t.Fatal(err)
	}
	wantCSV := "a,b,b (check)\n\"say \"\"hi\"\", ok\",1,inconsistency\nz,,\n"
	if string(c) != wantCSV {
		t.Errorf("csv = %q, want %q", c, wantCSV)
	}
	var tj tableJSON
	if err := json.Unmarshal(j, &tj); err != nil {
		t.Fatal(err)
	}
	// Numbers are JSON numbers, empty cells null, badges their class.
	if len(tj.Rows) != 2 || tj.Rows[0]["b"] != 1.0 || tj.Rows[0]["b (check)"] != "inconsistency" || tj.Rows[1]["b"] != nil || len(tj.Columns) != 3 {
		t.Errorf("json = %s", j)
	}
	// A table with DataHead exports its rows' data, not the display text.
	tb = &table{ID: "y", Head: []string{"cell"}, DataHead: []string{"value", "pct"}, Rows: []row{{Cells: []cell{{Text: "0.04 · 0%"}}, Data: []any{0.0418, nil}}}}
	c, j, err = tableFiles(tb)
	if err != nil {
		t.Fatal(err)
	}
	if string(c) != "value,pct\n0.0418,\n" {
		t.Errorf("csv = %q", c)
	}
	if !bytes.Contains(j, []byte(`"value": 0.0418`)) || !bytes.Contains(j, []byte(`"pct": null`)) {
		t.Errorf("json = %s", j)
	}
	// A row whose data does not match the columns is an error, not a shifted file.
	tb.Rows[0].Data = []any{1.0}
	if _, _, err := tableFiles(tb); err == nil {
		t.Error("no error for a row with too few data values")
	}
}

func TestStaleFilesRemoved(t *testing.T) {
	ctx := context.Background()
	b := reporttest.Benchmark(t)
	dir := t.TempDir()
	mine := filepath.Join(dir, "notes.txt") // not the site's: kept
	if err := os.WriteFile(mine, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	st := reporttest.Store(t)
	if err := reporttest.Fill(ctx, st, b, reporttest.Spec{Agents: 1, Seeds: 1, Cases: 2, RandSeed: 1}); err != nil {
		t.Fatal(err)
	}
	if _, err := rankstage.Run(ctx, b, st); err != nil {
		t.Fatal(err)
	}
	if _, err := Build(ctx, Options{Store: st, Benchmark: b, OutDir: dir, GitCommit: "x"}); err != nil {
		t.Fatal(err)
	}
	caseTable := filepath.Join(dir, "data", "cases-synthetic-isles22-"+slug(b.Challenges[0].Metrics[0].Name)+".csv")
	if _, err := os.Stat(caseTable); err != nil {
		t.Fatalf("per-case table not written: %v", err)
	}
	if err := st.Update(ctx, func(tx *store.Tx) error {
		runs, err := tx.Runs(ctx)
		if err != nil {
			return err
		}
		for _, r := range runs {
			if err := tx.PutCaseValues(ctx, r.ID, nil); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := Build(ctx, Options{Store: st, Benchmark: b, OutDir: dir, GitCommit: "x"}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(caseTable); !os.IsNotExist(err) {
		t.Errorf("stale per-case table left behind (%v)", err)
	}
	if _, err := os.Stat(mine); err != nil {
		t.Errorf("a file the site did not write was removed: %v", err)
	}
}

// The capabilities page shows the judge stage's stored profiles of the
// site's profile only, not every run group's scores pooled.
func TestCapabilitiesShowOnlyTheProfilesRuns(t *testing.T) {
	ctx := context.Background()
	b := reporttest.Benchmark(t)
	st := reporttest.Store(t)
	if err := reporttest.Fill(ctx, st, b, reporttest.Spec{Source: "demo", Agents: 1, Seeds: 1, Strategies: 3, RandSeed: 1}); err != nil {
		t.Fatal(err)
	}
	if err := reporttest.Fill(ctx, st, b, reporttest.Spec{Source: "other", Agents: 3, Seeds: 1, Strategies: 3, RandSeed: 2}); err != nil {
		t.Fatal(err)
	}
	if _, err := rankstage.Run(ctx, b, st); err != nil {
		t.Fatal(err)
	}
	profiles, err := st.CapabilityProfiles(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := map[int]float64{} // the demo group's stored mean per strategy
	for _, p := range profiles {
		if p.Source == "demo" {
			want[p.StrategyID] = p.Mean
		}
	}
	if len(want) != 3 {
		t.Fatalf("stored demo profile %v, want 3 strategies", want)
	}
	dir := t.TempDir()
	if _, err := Build(ctx, Options{Store: st, Benchmark: b, OutDir: dir, GitCommit: "x", Profile: "demo"}); err != nil {
		t.Fatal(err)
	}
	tj := readTable(t, dir, "capabilities-demo") // synthetic runs: their own marked section
	if len(tj.Rows) != 1 {
		t.Fatalf("%d capability rows, want 1 (the demo group's one agent; the other group's 3 agents left out): %v", len(tj.Rows), tj.Rows)
	}
	for id, m := range want {
		got, err := strconv.ParseFloat(str(tj.Rows[0][reporttest.StrategyName(id)]), 64)
		if math.IsNaN(m) {
			if err == nil {
				t.Errorf("%s = %v, want none (undecided)", reporttest.StrategyName(id), got)
			}
			continue
		}
		if err != nil || math.Abs(got-m) > 0.005 {
			t.Errorf("%s = %v (%v), want the stored %.2f", reporttest.StrategyName(id), got, err, m)
		}
	}
}
