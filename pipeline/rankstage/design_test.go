package rankstage

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/rexmle/rexmle/pipeline/challenge"
	"github.com/rexmle/rexmle/pipeline/config"
	"github.com/rexmle/rexmle/pipeline/rank"
	"github.com/rexmle/rexmle/pipeline/store"
)

// putIsles stores one isles22 run of source "x" whose per-case values are
// given by dice(i) (the other metrics fixed per case), with the means as
// its metric values.
func putIsles(t *testing.T, st *store.Store, b *config.Benchmark, agent string, seed, n int, dice func(i int) float64) {
	t.Helper()
	ctx := context.Background()
	err := st.Update(ctx, func(tx *store.Tx) error {
		if err := tx.SyncChallenges(ctx, b.Challenges); err != nil {
			return err
		}
		id := fmt.Sprintf("x/isles22/%s/seed-%d", agent, seed)
		if err := tx.PutRun(ctx, store.Run{ID: id, Source: "x", Setting: "demo", Backend: "none", Challenge: "isles22", Agent: agent, Seed: seed, Status: "done"}); err != nil {
			return err
		}
		cvs := make([]store.CaseValues, n)
		sums := map[string][]float64{}
		for i := range cvs {
			v := map[string]float64{"dice": dice(i), "lesion_f1": 0.5 + 0.01*float64(i%7), "lesion_count_diff": float64(i % 3), "abs_volume_diff": float64(i % 5)}
			cvs[i] = store.CaseValues{Case: fmt.Sprintf("case%03d", i), Values: v}
			for k, x := range v {
				sums[k] = append(sums[k], x)
			}
		}
		vals := map[string]float64{}
		for k, xs := range sums {
			s := 0.0
			for _, x := range xs {
				s += x
			}
			vals[k] = s / float64(len(xs))
		}
		if err := tx.PutMetricValues(ctx, id, vals); err != nil {
			return err
		}
		return tx.PutCaseValues(ctx, id, cvs)
	})
	if err != nil {
		t.Fatal(err)
	}
}

func groupOf(o *Outcome, agent string) *Group {
	for _, g := range o.Groups {
		if g.Source == "x" && g.Agent == agent {
			return g
		}
	}
	return nil
}

// A beats B on every one of 30 shared cases: the paired bootstrap puts A
// above B in (nearly) every resample, and the Wilcoxon test is significant
// after Holm's adjustment.
func TestABeatsBEverywhere(t *testing.T) {
	b, st := setup(t)
	gen := rand.New(rand.NewPCG(5, 6))
	base := make([]float64, 30)
	for i := range base {
		base[i] = 0.55 + 0.3*gen.Float64() // cases differ from each other as much as A from B…
	}
	putIsles(t, st, b, "a", 1, 30, func(i int) float64 { return base[i] + 0.15 }) // …and A is better on each
	putIsles(t, st, b, "b", 1, 30, func(i int) float64 { return base[i] })
	o, err := RunWith(context.Background(), b, st, Options{Boot: 500, BootSeed: 3, Confidence: 0.95})
	if err != nil {
		t.Fatal(err)
	}
	ga, gb := groupOf(o, "a"), groupOf(o, "b")
	p, q := -1.0, -1.0
	for _, pr := range o.Stability.Pairs {
		if pr.A == ga.Label() && pr.B == gb.Label() {
			p = pr.PAbove
		}
		if pr.A == gb.Label() && pr.B == ga.Label() {
			q = pr.PAbove
		}
	}
	if p < 0.99 || q > 0.01 || p+q != 1 {
		t.Errorf("P(A above B) = %v, P(B above A) = %v with A better on every paired case", p, q)
	}
	var tested bool
	for _, ct := range o.Significance {
		if ct.Challenge != "isles22" {
			continue
		}
		for _, tt := range ct.Tests {
			tested = true
			switch {
			case tt.A == ga.Label() && (!tt.Significant || tt.N != 30 || tt.Method != rank.WilcoxonExact || tt.P != math.Pow(2, -30)):
				t.Errorf("A > B: %+v", tt)
			case tt.A == gb.Label() && tt.Significant:
				t.Errorf("B > A significant: %+v", tt)
			}
		}
	}
	if !tested {
		t.Fatalf("no Wilcoxon test on isles22: %+v", o.Significance)
	}
}

// Three identical seeds carry no more information than one: the interval
// is that of one seed, not 1/√3 as wide. Seeds that differ widen it.
func TestIdenticalSeedsDoNotNarrow(t *testing.T) {
	b, st := setup(t)
	gen := rand.New(rand.NewPCG(8, 9))
	base := make([]float64, 20)
	for i := range base {
		base[i] = gen.Float64()
	}
	putIsles(t, st, b, "one", 1, 20, func(i int) float64 { return base[i] })
	for s := 1; s <= 3; s++ {
		putIsles(t, st, b, "three", s, 20, func(i int) float64 { return base[i] })
		shift := 0.3 * float64(s-2)
		putIsles(t, st, b, "spread", s, 20, func(i int) float64 { return math.Min(1, math.Max(0, base[i]+shift)) })
	}
	o, err := RunWith(context.Background(), b, st, Options{Boot: 400, BootSeed: 11, Confidence: 0.95})
	if err != nil {
		t.Fatal(err)
	}
	one, three, spread := groupOf(o, "one").Boot, groupOf(o, "three").Boot, groupOf(o, "spread").Boot
	if one.Overall != three.Overall || one.Challenges[0].Pct != three.Challenges[0].Pct {
		t.Errorf("identical seeds changed the interval: one %+v, three %+v", one.Overall, three.Overall)
	}
	w := func(iv Interval) float64 { return iv.Hi - iv.Lo }
	if !(w(spread.Overall) > w(one.Overall)) {
		t.Errorf("seeds 0.3 apart do not widen the interval: %v vs %v", w(spread.Overall), w(one.Overall))
	}
	if spread.FailedSeeds != 0 || len(spread.Seeds) != 3 || math.IsNaN(spread.SeedSummary.SE) {
		t.Errorf("seed summary beside the interval: %+v", spread)
	}
}

// Tasks that grade the same cases are resampled with one draw: the PUMA
// tasks (one raw folder, the same ROI ids) share a universe and every
// resample draws the same ROIs for each; tasks of another folder, or of the
// same folder without a shared id, do not.
func TestSharedCasesResampledTogether(t *testing.T) {
	b, err := config.Load("../../benchmark.toml")
	if err != nil {
		t.Fatal(err)
	}
	mk := func(ch string, ids ...string) *Ranked {
		r := &Ranked{Run: store.Run{ID: "x/" + ch, Challenge: ch}}
		for _, id := range ids {
			r.cases = append(r.cases, challenge.Case{ID: id})
		}
		return r
	}
	roi := []string{"roi_a", "roi_b", "roi_c", "roi_d", "roi_e"}
	runs := []*Ranked{
		mk("puma-track1-task1", roi...),
		mk("puma-track2-task2", roi[1:]...), // one ROI fewer: still the same universe
		mk("isles22", "roi_a", "roi_b"),     // the same ids, another raw folder
		mk("panther-task1", "p1", "p2"),     // panther-shared, no id in common with task 2
		mk("panther-task2", "q1", "q2"),
	}
	us := caseUniverses(b, Options{Boot: 50, BootSeed: 1}, runs)
	p1, p2 := us["puma-track1-task1"], us["puma-track2-task2"]
	if p1 != p2 || p1.Key != "puma-track1-task1+puma-track2-task2" || len(p1.IDs) != 5 {
		t.Fatalf("PUMA universes: %+v / %+v", p1, p2)
	}
	if us["isles22"] == p1 || us["panther-task1"] == us["panther-task2"] {
		t.Error("challenges without shared cases were joined")
	}
	d1, d2 := p1.runDraws(runs[0].cases), p2.runDraws(runs[1].cases)
	for k := range d1 {
		var got1, got2 []string
		for _, i := range d1[k] {
			if id := runs[0].cases[i].ID; id != "roi_a" {
				got1 = append(got1, id)
			}
		}
		for _, i := range d2[k] {
			got2 = append(got2, runs[1].cases[i].ID)
		}
		if !slices.Equal(got1, got2) {
			t.Fatalf("resample %d: task 1 drew %v, task 2 %v", k, got1, got2)
		}
	}
	// Reproducible: the same seed gives the same draws.
	again := caseUniverses(b, Options{Boot: 50, BootSeed: 1}, runs)["puma-track1-task1"]
	if !slices.EqualFunc(again.draws, p1.draws, slices.Equal[[]int]) {
		t.Error("draws differ between two calls")
	}
}
