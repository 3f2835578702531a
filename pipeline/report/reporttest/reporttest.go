// Package reporttest fills a store with synthetic runs for the results
// site's tests and benchmarks: metric values, positions and ranks, per-case
// and other-mode values, capability scores and GPU telemetry.
package reporttest

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/rexmle/rexmle/pipeline/config"
	"github.com/rexmle/rexmle/pipeline/gpu"
	"github.com/rexmle/rexmle/pipeline/judge"
	"github.com/rexmle/rexmle/pipeline/rank"
	"github.com/rexmle/rexmle/pipeline/store"
)

// Spec says how much synthetic data Fill writes.
type Spec struct {
	Source string // runs.source; default "synthetic"
	Agents int    // agent ids "agent-00", "agent-01", …
	Seeds  int
	Cases  int // per-case values per run (0 for none)
	// MeanCases stores per-case values for every ranked metric, with the
	// run's value their mean (so the rank stage's bootstrap gives
	// intervals wherever the challenge aggregates by a mean); otherwise
	// only the first metric gets per-case values, unrelated to its value.
	MeanCases  bool
	Strategies int // capability strategies per run (0 for no judge rows)
	GPUSamples int // telemetry samples per run on the first challenge (0 for none)
	RandSeed   uint64
}

// AgentID is the synthetic agent id with index i.
func AgentID(i int) string { return fmt.Sprintf("agent-%02d", i) }

// StrategyName is the synthetic strategy name with id i.
func StrategyName(i int) string { return fmt.Sprintf("Strategy %d", i) }

// Fill writes, for every challenge of b, Agents × Seeds runs with random
// values near the human leaderboard's range, ranks them with rank.Rank, and
// adds the optional per-case values, official-mode values, capability
// scores with the judge's profiles of them, GPU samples and their summaries (one GPU over the run's
// one-minute wall time). Every fifth run (by index) fails with no values.
func Fill(ctx context.Context, st *store.Store, b *config.Benchmark, sp Spec) error {
	if sp.Source == "" {
		sp.Source = "synthetic"
	}
	err := st.Update(ctx, func(tx *store.Tx) error {
		if err := tx.SyncChallenges(ctx, b.Challenges); err != nil {
			return err
		}
		f := &filler{tx: tx, sp: sp, rng: rand.New(rand.NewPCG(sp.RandSeed, 7)), t0: time.Date(2026, 1, 2, 3, 0, 0, 0, time.UTC)}
		for ci, c := range b.Challenges {
			for a := 0; a < sp.Agents; a++ {
				for seed := 1; seed <= sp.Seeds; seed++ {
					if err := f.putRun(ctx, ci, c, a, seed); err != nil {
						return err
					}
				}
			}
		}
		return nil
	})
	if err != nil || sp.Strategies == 0 {
		return err
	}
	return storeProfiles(ctx, st, sp)
}

// filler writes Fill's runs in one transaction, drawing every random value
// from one stream in run order.
type filler struct {
	tx  *store.Tx
	sp  Spec
	rng *rand.Rand
	t0  time.Time
	n   int // runs written
}

// putRun writes one run of challenge c (index ci) by agent a: its values,
// rank, per-case and official-mode values, capability scores and, on the
// first challenge, GPU telemetry. Every fifth run fails with no values.
func (f *filler) putRun(ctx context.Context, ci int, c *config.Challenge, a, seed int) error {
	tx, sp, t0 := f.tx, f.sp, f.t0
	f.n++
	n := f.n
	id := fmt.Sprintf("%s/%s/%s/%d", sp.Source, c.ID, AgentID(a), seed)
	status := store.RunDone
	if n%5 == 0 {
		status = store.RunFailed
	}
	r := store.Run{ID: id, Source: sp.Source, Setting: "24h", Backend: "test-llm", Challenge: c.ID, Agent: AgentID(a), Seed: seed, Status: status,
		StartedAt: t0.Add(time.Duration(n) * time.Minute).Format(time.RFC3339), EndedAt: t0.Add(time.Duration(n+1) * time.Minute).Format(time.RFC3339)}
	if err := tx.PutRun(ctx, r); err != nil {
		return err
	}
	vals := map[string]float64{}
	cases := map[string][]float64{}
	if status == store.RunDone {
		vals, cases = f.values(c)
	}
	if err := tx.PutMetricValues(ctx, id, vals); err != nil {
		return err
	}
	if err := tx.PutRank(ctx, id, rank.Rank(c.Board(), vals)); err != nil {
		return err
	}
	if status != store.RunDone {
		return nil
	}
	if err := tx.PutCaseValues(ctx, id, f.caseRows(c, cases)); err != nil {
		return err
	}
	if m := c.Metrics[0]; a%2 == 0 {
		if err := tx.PutModeValues(ctx, id, "official", map[string]float64{m.Name: vals[m.Name] + 0.01}); err != nil {
			return err
		}
	}
	if err := tx.PutCapabilityScores(ctx, f.capabilityScores(id, c, a, seed)); err != nil {
		return err
	}
	if ci == 0 {
		return f.putGPU(ctx, id)
	}
	return nil
}

// values draws each metric's value near the human leaderboard's range and,
// with MeanCases, per-case values whose mean the value becomes.
func (f *filler) values(c *config.Challenge) (map[string]float64, map[string][]float64) {
	vals := map[string]float64{}
	cases := map[string][]float64{}
	for _, m := range c.Metrics {
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, e := range c.Leaderboard {
			lo, hi = math.Min(lo, e.Values[m.Name]), math.Max(hi, e.Values[m.Name])
		}
		if math.IsInf(lo, 0) {
			lo, hi = 0, 1
		}
		span := hi - lo
		vals[m.Name] = lo - span/2 + 2*span*f.rng.Float64()
		if f.sp.MeanCases && f.sp.Cases > 0 {
			cs := make([]float64, f.sp.Cases)
			sum := 0.0
			for k := range cs {
				cs[k] = vals[m.Name] + span*(f.rng.Float64()-0.5)
				sum += cs[k]
			}
			vals[m.Name] = sum / float64(f.sp.Cases)
			cases[m.Name] = cs
		}
	}
	return vals, cases
}

// caseRows are the run's per-case values: with MeanCases every metric's
// (cases), else random values of the first metric.
func (f *filler) caseRows(c *config.Challenge, cases map[string][]float64) []store.CaseValues {
	var caseRows []store.CaseValues
	if f.sp.MeanCases {
		// Every metric's per-case values, whose mean is the run's value.
		for k := 0; k < f.sp.Cases; k++ {
			vs := map[string]float64{}
			for _, m := range c.Metrics {
				if k < len(cases[m.Name]) {
					vs[m.Name] = cases[m.Name][k]
				}
			}
			caseRows = append(caseRows, store.CaseValues{Case: fmt.Sprintf("case%03d", k), Values: vs})
		}
	}
	for k := 0; k < f.sp.Cases && !f.sp.MeanCases; k++ {
		for _, m := range c.Metrics[:1] {
			caseRows = append(caseRows, store.CaseValues{Case: fmt.Sprintf("case%03d", k), Values: map[string]float64{m.Name: f.rng.Float64()}})
		}
	}
	return caseRows
}

// capabilityScores are the judge's random scores (0, 1 or none) of every
// strategy for the run.
func (f *filler) capabilityScores(id string, c *config.Challenge, a, seed int) []store.CapabilityScore {
	var scores []store.CapabilityScore
	for s := 1; s <= f.sp.Strategies; s++ {
		var score *int
		switch v := f.rng.IntN(3); v {
		case 0, 1:
			score = &v
		}
		scores = append(scores, store.CapabilityScore{RunKey: id, RunID: id, Challenge: c.ID, Agent: AgentID(a), Backend: "test-llm",
			Seed: seed, Section: "code", JudgeName: "test-judge", JudgeKind: "heuristic", RubricHash: "sha256:abc",
			StrategyID: s, Strategy: StrategyName(s), Score: score, Evidence: fmt.Sprintf("line %d uses strategy %d", s, s)})
	}
	return scores
}

// putGPU writes the run's GPU samples and the summary the run stage stores
// at a run's end.
func (f *filler) putGPU(ctx context.Context, id string) error {
	var samples []gpu.Sample
	for k := 0; k < f.sp.GPUSamples; k++ {
		samples = append(samples, gpu.Sample{At: f.t0.Add(time.Duration(k) * time.Minute), GPU: 0, SMUtil: 100 * f.rng.Float64(),
			MemUsedBytes: int64(8e9 * f.rng.Float64()), MemTotalBytes: int64(80e9), PowerW: 300, EnergyMJ: int64(k) * 18_000_000,
			TempC: 60, ProcMemBytes: int64(4e9), ElapsedS: math.NaN()})
	}
	if err := f.tx.InsertGPUSamples(ctx, id, samples); err != nil {
		return err
	}
	return f.tx.PutGPUSummary(ctx, store.GPUSummary{RunID: id, Telemetry: "nvml", WallSeconds: 60,
		WorkingSeconds: math.NaN(), Summary: gpu.Summarize(samples, 1, time.Minute)})
}

// storeProfiles stores the judge stage's profiles of the capability scores,
// as it stores them.
func storeProfiles(ctx context.Context, st *store.Store, sp Spec) error {
	rub := &judge.Rubric{Hash: "sha256:abc"}
	for i := 1; i <= sp.Strategies; i++ {
		rub.Strategies = append(rub.Strategies, judge.Strategy{ID: i, Name: StrategyName(i)})
	}
	rows, err := st.CapabilityScores(ctx, "test-judge", rub.Hash)
	if err != nil {
		return err
	}
	rep := &judge.Report{Judge: "test-judge", JudgeKind: "heuristic", RubricHash: rub.Hash, Profiles: judge.Aggregate(rows, rub)}
	return judge.StoreProfiles(ctx, st, sp.Source, rep)
}
