package rankstage

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rexmle/rexmle/metrics/stats"
	_ "github.com/rexmle/rexmle/pipeline/challenges/ldctiqa" // registers its CaseAggregator
	"github.com/rexmle/rexmle/pipeline/config"
	"github.com/rexmle/rexmle/pipeline/paper"
	"github.com/rexmle/rexmle/pipeline/rank"
	"github.com/rexmle/rexmle/pipeline/store"
)

// bootFixture stores new runs of source "x" with per-case values:
//   - agent a, seeds 1 and 2: isles22 (four means over 12 cases) and
//     ldct-iqa (correlations from per-case prediction/truth);
//   - agent b, seed 1: isles22 only (its ldct-iqa run is missing: 0), and a
//     second copy of isles22's dice stored as not the mean of its cases.
func bootFixture(t *testing.T, b *config.Benchmark, st *store.Store) {
	t.Helper()
	ctx := context.Background()
	gen := rand.New(rand.NewPCG(3, 4))
	err := st.Update(ctx, func(tx *store.Tx) error {
		if err := tx.SyncChallenges(ctx, b.Challenges); err != nil {
			return err
		}
		put := func(id, ch, agent string, seed int, cases []map[string]float64, vals map[string]float64) error {
			if err := tx.PutRun(ctx, store.Run{ID: id, Source: "x", Setting: "demo", Backend: "none", Challenge: ch, Agent: agent, Seed: seed, Status: "done"}); err != nil {
				return err
			}
			if err := tx.PutMetricValues(ctx, id, vals); err != nil {
				return err
			}
			cvs := make([]store.CaseValues, len(cases))
			for i, c := range cases {
				cvs[i] = store.CaseValues{Case: fmt.Sprintf("case%03d", i), Values: c}
			}
			return tx.PutCaseValues(ctx, id, cvs)
		}
		isles := func(quality float64) ([]map[string]float64, map[string]float64) {
			var cases []map[string]float64
			sums := map[string][]float64{}
			for i := 0; i < 12; i++ {
				c := map[string]float64{
					"dice":              math.Min(1, quality*gen.Float64()*1.5),
					"lesion_f1":         math.Min(1, quality+0.3*gen.Float64()),
					"lesion_count_diff": float64(gen.IntN(4)),
					"abs_volume_diff":   10 * gen.Float64(),
				}
				cases = append(cases, c)
				for k, v := range c {
					sums[k] = append(sums[k], v)
				}
			}
			vals := map[string]float64{}
			for k, v := range sums {
				s := 0.0
				for _, x := range v {
					s += x
				}
				vals[k] = s / float64(len(v))
			}
			return cases, vals
		}
		ldct := func(noise float64) ([]map[string]float64, map[string]float64) {
			var cases []map[string]float64
			for i := 0; i < 30; i++ {
				truth := float64(gen.IntN(5)) * 0.75
				cases = append(cases, map[string]float64{"truth": truth, "prediction": truth + noise*gen.NormFloat64()})
			}
			return cases, nil // values filled by the caller from the aggregator's definition
		}
		for _, seed := range []int{1, 2} {
			c, v := isles(0.6 + 0.1*float64(seed))
			if err := put(fmt.Sprintf("x/isles22/a/seed-%d", seed), "isles22", "a", seed, c, v); err != nil {
				return err
			}
			lc, _ := ldct(0.4)
			if err := put(fmt.Sprintf("x/ldct-iqa/a/seed-%d", seed), "ldct-iqa", "a", seed, lc, map[string]float64{"score": ldctScore(lc)}); err != nil {
				return err
			}
		}
		c, v := isles(0.4)
		if err := put("x/isles22/b/seed-1", "isles22", "b", 1, c, v); err != nil {
			return err
		}
		// A run of which dice is not the mean of its per-case dice.
		c, v = isles(0.5)
		v["dice"] += 0.05
		return put("x/isles22/c/seed-1", "isles22", "c", 1, c, v)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// ldctScore is the grader's score written out from its definition with
// the stats package, for the fixture's stored value.
func ldctScore(cases []map[string]float64) float64 {
	p := make([]float64, len(cases))
	g := make([]float64, len(cases))
	for i, c := range cases {
		p[i], g[i] = c["prediction"], c["truth"]
	}
	r, _ := stats.Pearson(p, g)
	rho, _ := stats.Spearman(p, g)
	tau, _ := stats.KendallTauB(p, g)
	return math.Abs(r) + math.Abs(rho) + math.Abs(tau)
}

func readCSV(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

func col(rows [][]string, name string) int {
	for i, h := range rows[0] {
		if h == name {
			return i
		}
	}
	return -1
}

func TestBootstrapStage(t *testing.T) {
	b, st := setup(t)
	bootFixture(t, b, st)
	ctx := context.Background()
	opt := Options{Boot: 400, BootSeed: 77, Confidence: 0.95}
	o, err := RunWith(ctx, b, st, opt)
	if err != nil {
		t.Fatal(err)
	}
	runs := map[string]*Ranked{}
	for _, r := range o.Runs {
		runs[r.Run.ID] = r
	}
	// Means over cases: intervals for every metric, the mean rank and the percentile.
	a1 := runs["x/isles22/a/seed-1"]
	if a1.Boot.NBoot != 400 || a1.Boot.BootSeed != 77 || a1.Boot.NCases != 12 || a1.Boot.samples == nil {
		t.Fatalf("isles22 a: %+v", a1.Boot)
	}
	for m, mb := range a1.Boot.Metrics {
		if mb.Aggregation != AggMean || !(mb.Value.Lo <= a1.Values[m]+1e-12 && a1.Values[m] <= mb.Value.Hi+1e-12) {
			t.Errorf("isles22 a %s: %s interval [%v, %v] around %v", m, mb.Aggregation, mb.Value.Lo, mb.Value.Hi, a1.Values[m])
		}
		if !(mb.Position.Lo >= 1 && mb.Position.Hi <= float64(a1.Result.N+1) && mb.Position.Lo <= mb.Position.Hi) {
			t.Errorf("isles22 a %s: position interval [%v, %v]", m, mb.Position.Lo, mb.Position.Hi)
		}
	}
	// The percentile interval is the image of the mean-rank interval (one
	// method, one treatment of undefined resamples), and holds the estimate.
	N := a1.Result.N
	if a1.Boot.Method != rank.MethodExpandedBCa || a1.Boot.Pct.Lo != rank.Percentile(a1.Boot.MeanRank.Hi, N) || a1.Boot.Pct.Hi != rank.Percentile(a1.Boot.MeanRank.Lo, N) ||
		!(a1.Boot.Pct.Lo <= a1.Result.Percentile && a1.Result.Percentile <= a1.Boot.Pct.Hi) {
		t.Errorf("%s interval: mean rank %+v, percentile %+v around %v", a1.Boot.Method, a1.Boot.MeanRank, a1.Boot.Pct, a1.Result.Percentile)
	}
	// Positions are integers.
	for m, mb := range a1.Boot.Metrics {
		if mb.Position.Lo != math.Trunc(mb.Position.Lo) || mb.Position.Hi != math.Trunc(mb.Position.Hi) {
			t.Errorf("%s: position bounds %+v are not integers", m, mb.Position)
		}
	}
	// The challenge's own aggregation: LDCT-IQA correlations.
	l1 := runs["x/ldct-iqa/a/seed-1"]
	if mb := l1.Boot.Metrics["score"]; mb == nil || mb.Aggregation != AggChallenge || !(mb.Value.Lo < mb.Value.Hi) {
		t.Errorf("ldct-iqa: %+v (note %q)", mb, l1.Boot.Note)
	}
	// Not a mean: no interval, and the reason says so.
	c := runs["x/isles22/c/seed-1"]
	if mb := c.Boot.Metrics["dice"]; mb.Aggregation != "" || !strings.Contains(mb.Note, "not a mean over cases") || !math.IsNaN(mb.Value.Lo) {
		t.Errorf("not-a-mean dice: %+v", mb)
	}
	if c.Boot.samples != nil || !math.IsNaN(c.Boot.Pct.Lo) || !strings.Contains(c.Boot.Note, "dice") {
		t.Errorf("not-a-mean run: %+v", c.Boot)
	}
	// Paper rows: no intervals, with the reason.
	for _, r := range o.Runs {
		if r.Run.Source == paper.Source && (r.Boot.NBoot != 0 || r.Boot.Note != NotePaper) {
			t.Fatalf("paper row %s: %+v", r.Run.ID, r.Boot)
		}
	}
	// Overall: each challenge's seeds averaged per resample, challenges averaged.
	var ga, gb *Group
	for _, g := range o.Groups {
		if g.Source == "x" && g.Agent == "a" {
			ga = g
		}
		if g.Source == "x" && g.Agent == "b" {
			gb = g
		}
	}
	if ga == nil || gb == nil {
		t.Fatal("groups a and b not found")
	}
	// The seeds are drawn per resample (the outer level): two uniform
	// numbers per resample from the configuration's stream pick the runs.
	rng := rank.StreamRNG(77, "seeds/"+ga.Label())
	want := make([]float64, opt.Boot)
	isl := make([]float64, opt.Boot)
	for k := range want {
		u := []int{int(rng.Float64() * 2), int(rng.Float64() * 2)}
		run := func(ch string, i int) float64 {
			return runs[fmt.Sprintf("x/%s/a/seed-%d", ch, u[i]+1)].Boot.samples[k]
		}
		isl[k] = (run("isles22", 0) + run("isles22", 1)) / 2
		ld := (run("ldct-iqa", 0) + run("ldct-iqa", 1)) / 2
		want[k] = (isl[k] + ld) / 2 // challenges in sorted order: isles22, ldct-iqa
	}
	if lo, hi := rank.PercentileInterval(want, 0.95); lo != ga.Boot.Overall.Lo || hi != ga.Boot.Overall.Hi {
		t.Errorf("overall a [%v, %v], recomputed [%v, %v]", ga.Boot.Overall.Lo, ga.Boot.Overall.Hi, lo, hi)
	}
	// Per challenge: the seeds' percentiles averaged per resample.
	if len(ga.Boot.Challenges) != 2 || ga.Boot.Challenges[0].Challenge != "isles22" || ga.Boot.Challenges[0].NSeeds != 2 {
		t.Fatalf("per-challenge bootstrap of a: %+v", ga.Boot.Challenges)
	}
	lv, _ := rank.MethodLevels(rank.MethodExpanded, 0.95, 12, rank.BCaParams{})
	if lo, hi := rank.QuantilesAt(isl, lv); ga.Boot.Challenges[0].Pct != (Interval{lo, hi}) || ga.Boot.Challenges[0].Percentile != ga.PerChallenge["isles22"] {
		t.Errorf("isles22 of a: %+v, want [%v, %v] around %v", ga.Boot.Challenges[0], lo, hi, ga.PerChallenge["isles22"])
	}
	// b ran isles22 only: the overall over one challenge is that run's percentile.
	if lo, hi := rank.PercentileInterval(runs["x/isles22/b/seed-1"].Boot.samples, 0.95); gb.Boot.Overall.Lo != lo || gb.Boot.Overall.Hi != hi {
		t.Errorf("overall b [%v, %v], run [%v, %v]", gb.Boot.Overall.Lo, gb.Boot.Overall.Hi, lo, hi)
	}
	// Seeds: the per-seed ReX-MLE ranks, their mean (= the overall) and standard error.
	if len(ga.Boot.Seeds) != 2 || ga.Boot.FailedRuns != 0 {
		t.Fatalf("seeds of a: %+v", ga.Boot)
	}
	s1 := (runs["x/isles22/a/seed-1"].Result.Percentile + runs["x/ldct-iqa/a/seed-1"].Result.Percentile) / 2
	s2 := (runs["x/isles22/a/seed-2"].Result.Percentile + runs["x/ldct-iqa/a/seed-2"].Result.Percentile) / 2
	if math.Abs(ga.Boot.SeedValues[0]-s1) > 1e-15 || math.Abs(ga.Boot.SeedValues[1]-s2) > 1e-15 {
		t.Errorf("seed values %v, want %v %v", ga.Boot.SeedValues, s1, s2)
	}
	if math.Abs(ga.Boot.SeedSummary.Mean-ga.Overall) > 1e-12 || math.Abs(ga.Boot.SeedSummary.SE-math.Abs(s1-s2)/2) > 1e-12 {
		t.Errorf("seed mean %v (overall %v), se %v (want |s1−s2|/2 = %v)", ga.Boot.SeedSummary.Mean, ga.Overall, ga.Boot.SeedSummary.SE, math.Abs(s1-s2)/2)
	}
	// Pairwise probabilities: a direct count over the overall resamples.
	var pab float64
	for _, p := range o.Stability.Pairs {
		if p.A == ga.Label() && p.B == gb.Label() {
			pab = p.PAbove
		}
	}
	wins := 0.0
	for k := range want {
		switch x, y := ga.Boot.samples[k], gb.Boot.samples[k]; {
		case x > y:
			wins++
		case x == y:
			wins += 0.5
		}
	}
	if pab != wins/float64(opt.Boot) {
		t.Errorf("P(a above b) = %v, direct %v", pab, wins/float64(opt.Boot))
	}
	if n := len(o.Stability.Configs); n != 3 || len(o.Stability.Pairs) != n*(n-1) {
		t.Errorf("stability over %v with %d pairs", o.Stability.Configs, len(o.Stability.Pairs))
	}

	// Exports: old columns first and unchanged, the new ones appended, byte-identical twice.
	dir := t.TempDir()
	if err := WriteCSVs(dir, b, o); err != nil {
		t.Fatal(err)
	}
	rk := readCSV(t, filepath.Join(dir, "ranks.csv"))
	if got := strings.Join(rk[0][:10], ","); got != "source,setting,backend,challenge,agent,status,mean_rank,percentile,seed,reason" {
		t.Errorf("ranks.csv leading columns changed: %s", got)
	}
	ov := readCSV(t, filepath.Join(dir, "overall.csv"))
	if got := strings.Join(ov[0][:9], ","); got != "source,setting,backend,agent,n_challenges,rexmle_rank,n_partial,rexmle_rank_min,rexmle_rank_max" {
		t.Errorf("overall.csv leading columns changed: %s", got)
	}
	for _, row := range ov[1:] {
		if row[0] == "x" && row[3] == "a" {
			if row[col(ov, "n_boot")] != "400" || row[col(ov, "boot_seed")] != "77" || row[col(ov, "n_seeds")] != "2" ||
				row[col(ov, "rexmle_rank_lo")] != strconv.FormatFloat(ga.Boot.Overall.Lo, 'g', -1, 64) {
				t.Errorf("overall.csv row of a: %v", row)
			}
		}
	}
	pw := readCSV(t, filepath.Join(dir, "pairwise.csv"))
	if len(pw) != 7 || strings.Join(pw[0], ",") != "config_a,config_b,p_a_above_b,n_boot,boot_seed" {
		t.Errorf("pairwise.csv: %v", pw)
	}
	mi := readCSV(t, filepath.Join(dir, "metric_intervals.csv"))
	foundNote := false
	for _, row := range mi[1:] {
		if row[0] != "x" {
			t.Errorf("metric_intervals.csv has a row for a run without per-case values: %v", row)
		}
		if row[4] == "c" && row[col(mi, "metric")] == "dice" {
			foundNote = row[col(mi, "value_lo")] == "" && strings.Contains(row[col(mi, "note")], "not a mean over cases")
		}
	}
	if !foundNote {
		t.Error("metric_intervals.csv does not say why run c's dice has no interval")
	}
	files := []string{"positions.csv", "ranks.csv", "overall.csv", "metric_intervals.csv", "challenge_intervals.csv", "pairwise.csv", "rank_counts.csv",
		"significance.csv", "task_stability.csv", "challenge_rank_counts.csv", "resampling_design.csv"}
	o2, err := RunWith(ctx, b, st, opt)
	if err != nil {
		t.Fatal(err)
	}
	dir2 := t.TempDir()
	if err := WriteCSVs(dir2, b, o2); err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		x, _ := os.ReadFile(filepath.Join(dir, f))
		y, _ := os.ReadFile(filepath.Join(dir2, f))
		if !bytes.Equal(x, y) {
			t.Errorf("%s differs between two rank runs", f)
		}
	}
	// Stored: one row per run and configuration.
	var n int
	st.RawQueryRow(context.Background(), `SELECT count(*) FROM boot_runs WHERE n_boot = 400 AND boot_seed = 77 AND percentile_lo IS NOT NULL`).Scan(&n)
	if n != 5 {
		t.Errorf("%d bootstrapped runs stored, want 5", n)
	}
	st.RawQueryRow(context.Background(), `SELECT count(*) FROM boot_pairwise`).Scan(&n)
	if n != 6 {
		t.Errorf("%d pairwise rows stored", n)
	}
	// Another seed gives other resamples; B = 0 turns the bootstrap off.
	o3, err := RunWith(ctx, b, st, Options{Boot: 400, BootSeed: 78, Confidence: 0.95})
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range o3.Groups {
		if g.Label() == ga.Label() && g.Boot.Overall == ga.Boot.Overall {
			t.Error("a different boot seed gave the same interval")
		}
	}
	o4, err := RunWith(ctx, b, st, Options{Boot: 0, BootSeed: 77, Confidence: 0.95})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range o4.Runs {
		if r.Run.Source == "x" && (r.Boot.NBoot != 0 || r.Boot.Note != NoteOff) {
			t.Errorf("B = 0: %s %+v", r.Run.ID, r.Boot)
		}
	}
}
