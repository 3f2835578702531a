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
	rng := rand.New(rand.NewPCG(sp.RandSeed, 7))
	t0 := time.Date(2026, 1, 2, 3, 0, 0, 0, time.UTC)
	err := st.Update(ctx, func(tx *store.Tx) error {
		if err := tx.SyncChallenges(ctx, b.Challenges); err != nil {
			return err
		}
		n := 0
		for ci, c := range b.Challenges {
			lb := c.Board()
			for a := 0; a < sp.Agents; a++ {
				for seed := 1; seed <= sp.Seeds; seed++ {
					n++
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
						for _, m := range c.Metrics {
							lo, hi := math.Inf(1), math.Inf(-1)
							for _, e := range c.Leaderboard {
								lo, hi = math.Min(lo, e.Values[m.Name]), math.Max(hi, e.Values[m.Name])
							}
							if math.IsInf(lo, 0) {
								lo, hi = 0, 1
							}
							span := hi - lo
							vals[m.Name] = lo - span/2 + 2*span*rng.Float64()
							if sp.MeanCases && sp.Cases > 0 {
								cs := make([]float64, sp.Cases)
								sum := 0.0
								for k := range cs {
									cs[k] = vals[m.Name] + span*(rng.Float64()-0.5)
									sum += cs[k]
								}
								vals[m.Name] = sum / float64(sp.Cases)
								cases[m.Name] = cs
							}
						}
					}
					if err := tx.PutMetricValues(ctx, id, vals); err != nil {
						return err
					}
					if err := tx.PutRank(ctx, id, rank.Rank(lb, vals)); err != nil {
						return err
					}
					if status != store.RunDone {
						continue
					}
					var caseRows []store.CaseValues
					if sp.MeanCases {
						// Every metric's per-case values, whose mean is the run's value.
						for k := 0; k < sp.Cases; k++ {
							vs := map[string]float64{}
							for _, m := range c.Metrics {
								if k < len(cases[m.Name]) {
									vs[m.Name] = cases[m.Name][k]
								}
							}
							caseRows = append(caseRows, store.CaseValues{Case: fmt.Sprintf("case%03d", k), Values: vs})
						}
					}
					for k := 0; k < sp.Cases && !sp.MeanCases; k++ {
						for _, m := range c.Metrics[:1] {
							caseRows = append(caseRows, store.CaseValues{Case: fmt.Sprintf("case%03d", k), Values: map[string]float64{m.Name: rng.Float64()}})
						}
					}
					if err := tx.PutCaseValues(ctx, id, caseRows); err != nil {
						return err
					}
					if m := c.Metrics[0]; a%2 == 0 {
						if err := tx.PutModeValues(ctx, id, "official", map[string]float64{m.Name: vals[m.Name] + 0.01}); err != nil {
							return err
						}
					}
					var scores []store.CapabilityScore
					for s := 1; s <= sp.Strategies; s++ {
						var score *int
						switch v := rng.IntN(3); v {
						case 0, 1:
							score = &v
						}
						scores = append(scores, store.CapabilityScore{RunKey: id, RunID: id, Challenge: c.ID, Agent: AgentID(a), Backend: "test-llm",
							Seed: seed, Section: "code", JudgeName: "test-judge", JudgeKind: "heuristic", RubricHash: "sha256:abc",
							StrategyID: s, Strategy: StrategyName(s), Score: score, Evidence: fmt.Sprintf("line %d uses strategy %d", s, s)})
					}
					if err := tx.PutCapabilityScores(ctx, scores); err != nil {
						return err
					}
					if ci == 0 {
						var samples []gpu.Sample
						for k := 0; k < sp.GPUSamples; k++ {
							samples = append(samples, gpu.Sample{At: t0.Add(time.Duration(k) * time.Minute), GPU: 0, SMUtil: 100 * rng.Float64(),
								MemUsedBytes: int64(8e9 * rng.Float64()), MemTotalBytes: int64(80e9), PowerW: 300, EnergyMJ: int64(k) * 18_000_000,
								TempC: 60, ProcMemBytes: int64(4e9), ElapsedS: math.NaN()})
						}
						if err := tx.InsertGPUSamples(ctx, id, samples); err != nil {
							return err
						}
						// The summary the run stage stores at a run's end.
						if err := tx.PutGPUSummary(ctx, store.GPUSummary{RunID: id, Telemetry: "nvml", WallSeconds: 60,
							WorkingSeconds: math.NaN(), Summary: gpu.Summarize(samples, 1, time.Minute)}); err != nil {
							return err
						}
					}
				}
			}
		}
		return nil
	})
	if err != nil || sp.Strategies == 0 {
		return err
	}
	// The judge stage's profiles of these scores, as it stores them.
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
