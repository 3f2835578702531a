package rankstage

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/rexmle/rexmle/pipeline/config"
	"github.com/rexmle/rexmle/pipeline/store"
)

// BenchmarkBootRun measures the case-level bootstrap (B = 1000) of one run
// with 1,000 cases: ISLES'22's four means, and LDCT-IQA's three
// correlations recomputed per resample (the costliest recomputation
// implemented: Kendall's tau-b is O(n log n) per resample).
func BenchmarkBootRun(b *testing.B) {
	bm, err := config.Load("../../benchmark.toml")
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(b.TempDir(), "b.sqlite"))
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	gen := rand.New(rand.NewPCG(1, 1))
	const n = 1000
	var p, g []float64
	err = st.Update(ctx, func(tx *store.Tx) error {
		if err := tx.SyncChallenges(ctx, bm.Challenges); err != nil {
			return err
		}
		for _, ch := range []string{"isles22", "ldct-iqa"} {
			id := "x/" + ch
			if err := tx.PutRun(ctx, store.Run{ID: id, Source: "x", Setting: "demo", Backend: "none", Challenge: ch, Agent: "a", Status: "done"}); err != nil {
				return err
			}
			sums := map[string]float64{}
			cvs := make([]store.CaseValues, n)
			for i := 0; i < n; i++ {
				vals := map[string]float64{"dice": gen.Float64(), "lesion_f1": gen.Float64(), "lesion_count_diff": float64(gen.IntN(5)), "abs_volume_diff": 10 * gen.Float64()}
				if ch == "ldct-iqa" {
					t := float64(gen.IntN(5)) * 0.75
					vals = map[string]float64{"truth": t, "prediction": t + 0.5*gen.NormFloat64()}
					g, p = append(g, t), append(p, vals["prediction"])
				}
				for k, v := range vals {
					sums[k] += v
				}
				cvs[i] = store.CaseValues{Case: fmt.Sprintf("c%04d", i), Values: vals}
			}
			if err := tx.PutCaseValues(ctx, id, cvs); err != nil {
				return err
			}
			vals := map[string]float64{}
			if ch == "isles22" {
				for k, v := range sums {
					vals[k] = v / n
				}
			} else {
				cs := make([]map[string]float64, n)
				for i := range cs {
					cs[i] = map[string]float64{"prediction": p[i], "truth": g[i]}
				}
				vals["score"] = ldctScore(cs)
			}
			if err := tx.PutMetricValues(ctx, id, vals); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	opt := DefaultOptions()
	for _, ch := range []string{"isles22", "ldct-iqa"} {
		b.Run(ch, func(b *testing.B) {
			c, _ := bm.Challenge(ch)
			err := st.Update(ctx, func(tx *store.Tx) error {
				vals, err := tx.MetricValues(ctx, "x/"+ch)
				if err != nil {
					return err
				}
				r := store.Run{ID: "x/" + ch, Source: "x", Challenge: ch, Status: "done"}
				rk := rankRun(c, r, vals)
				if rk.cases, err = tx.CaseValues(ctx, r.ID); err != nil {
					return err
				}
				u := caseUniverses(bm, opt, []*Ranked{rk})[ch]
				for b.Loop() {
					rb, err := bootRun(ctx, opt, c, rk, u)
					if err != nil {
						return err
					}
					if rb.samples == nil {
						return fmt.Errorf("%s not bootstrapped: %s", ch, rb.Note)
					}
				}
				return nil
			})
			if err != nil {
				b.Fatal(err)
			}
		})
	}
}
