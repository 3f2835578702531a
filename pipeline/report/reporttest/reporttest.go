// Package reporttest fills a store with synthetic runs for the results
// site's tests and benchmarks: metric values, positions and ranks, per-case
// and other-mode values, capability scores and GPU telemetry.
package reporttest

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/rexmle/rexmle/pipeline/config"
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
// scores and GPU samples. Every fifth run (by index) fails with no values.
func Fill(ctx context.Context, st *store.Store, b *config.Benchmark, sp Spec) error {
	if sp.Source == "" {
		sp.Source = "synthetic"
	}
	if err := judge.Migrate(ctx, st.DB); err != nil {
		return err
	}
	rng := rand.New(rand.NewPCG(sp.RandSeed, 7))
	t0 := time.Date(2026, 1, 2, 3, 0, 0, 0, time.UTC)
	return st.Tx(ctx, func(tx *sql.Tx) error {
		if err := store.SyncChallenges(ctx, tx, b.Challenges); err != nil {
			return err
		}
		n := 0
		for ci, c := range b.Challenges {
			lb := c.Board()
			for a := 0; a < sp.Agents; a++ {
				for seed := 1; seed <= sp.Seeds; seed++ {
					n++
					id := fmt.Sprintf("%s/%s/%s/%d", sp.Source, c.ID, AgentID(a), seed)
					status := "done"
					if n%5 == 0 {
						status = "failed"
					}
					r := store.Run{ID: id, Source: sp.Source, Setting: "24h", Backend: "test-llm", Challenge: c.ID, Agent: AgentID(a), Seed: seed, Status: status,
						StartedAt: t0.Add(time.Duration(n) * time.Minute).Format(time.RFC3339), EndedAt: t0.Add(time.Duration(n+1) * time.Minute).Format(time.RFC3339)}
					if err := store.PutRun(ctx, tx, r); err != nil {
						return err
					}
					vals := map[string]float64{}
					cases := map[string][]float64{}
					if status == "done" {
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
					if err := store.PutMetricValues(ctx, tx, id, vals); err != nil {
						return err
					}
					if err := store.PutRank(ctx, tx, id, rank.Rank(lb, vals)); err != nil {
						return err
					}
					if status != "done" {
						continue
					}
					for _, m := range c.Metrics {
						for k, v := range cases[m.Name] {
							if _, err := tx.ExecContext(ctx, `INSERT INTO case_values(run_id, case_id, metric, value) VALUES (?,?,?,?)`,
								id, fmt.Sprintf("case%03d", k), m.Name, v); err != nil {
								return err
							}
						}
					}
					for k := 0; k < sp.Cases && !sp.MeanCases; k++ {
						for _, m := range c.Metrics[:1] {
							if _, err := tx.ExecContext(ctx, `INSERT INTO case_values(run_id, case_id, metric, value) VALUES (?,?,?,?)`,
								id, fmt.Sprintf("case%03d", k), m.Name, rng.Float64()); err != nil {
								return err
							}
						}
					}
					if m := c.Metrics[0]; a%2 == 0 {
						if _, err := tx.ExecContext(ctx, `INSERT INTO mode_values(run_id, mode, metric, value) VALUES (?,?,?,?)`,
							id, "official", m.Name, vals[m.Name]+0.01); err != nil {
							return err
						}
					}
					for s := 1; s <= sp.Strategies; s++ {
						var score any
						switch rng.IntN(3) {
						case 0:
							score = 0
						case 1:
							score = 1
						}
						if _, err := tx.ExecContext(ctx, `INSERT INTO capability_scores(run_key, run_id, challenge, agent, backend, seed, section, judge_name, judge_kind, rubric_hash, strategy_id, strategy, score, evidence)
							VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)`, id, id, c.ID, AgentID(a), "test-llm", seed, "code", "test-judge", "heuristic", "sha256:abc",
							s, StrategyName(s), score, fmt.Sprintf("line %d uses strategy %d", s, s)); err != nil {
							return err
						}
					}
					if ci == 0 {
						for k := 0; k < sp.GPUSamples; k++ {
							at := t0.Add(time.Duration(k) * time.Minute).Format(time.RFC3339)
							if _, err := tx.ExecContext(ctx, `INSERT INTO gpu_samples(run_id, at, gpu, sm_util, mem_used_bytes, mem_total_bytes, power_w, energy_mj, temp_c, proc_mem_bytes)
								VALUES (?,?,?,?,?,?,?,?,?,?)`, id, at, 0, 100*rng.Float64(), int64(8e9*rng.Float64()), int64(80e9), 300.0, int64(k)*18_000_000, 60.0, int64(4e9)); err != nil {
								return err
							}
						}
					}
				}
			}
		}
		return nil
	})
}
