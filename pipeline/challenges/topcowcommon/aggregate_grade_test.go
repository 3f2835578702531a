package topcowcommon

import (
	"context"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/rexmle/rexmle/pipeline/challenge"
	"github.com/rexmle/rexmle/pipeline/challenge/challengetest"
)

// TestCaseStatisticIsRegrading checks the recomputation of the pooled
// metrics against its definition on the synthetic data, in both modes: for
// the baseline's and the sample's submissions and the baseline's with its
// first case predicted perfectly,
//   - the full sample of the stored cases reproduces every graded value
//     exactly;
//   - a resample equals grading a submission made of the resampled rows:
//     in the reference mode, which grades repeated rows, the rows are
//     physically repeated; the official mode refuses repeats, so there the
//     resample is a subset of distinct cases. Either way the answers are cut
//     down to the cases drawn (a missing case is invalid in both modes).
func TestCaseStatisticIsRegrading(t *testing.T) {
	if testing.Short() {
		t.Skip("grades the synthetic data many times")
	}
	for _, cfg := range []Config{TopCoWT1T1, TopCoWT2T3, TopBrain2} {
		c := New(cfg)
		t.Run(cfg.ID, func(t *testing.T) {
			p := challengetest.Prepare(t, c, 1)
			subs := map[string]string{
				"baseline": p.Submit(t, "baseline", func(ctx context.Context, out string) error {
					return c.Baseline(ctx, p.Public(), out, io.Discard)
				}),
				"sample": p.Submit(t, "sample", func(ctx context.Context, out string) error {
					return c.SampleSubmission(ctx, p.Public(), out)
				}),
			}
			perfect := p.Submit(t, "perfect", func(ctx context.Context, out string) error {
				return c.Perfect(ctx, p.Public(), p.Private(), out)
			})
			subs["mixed"] = mixSubmissions(t, c, subs["baseline"], perfect)
			metrics := c.accMetrics()
			if f1, _ := c.f1Metric(); f1 != "" {
				metrics = append(metrics, f1)
			}
			gen := rand.New(rand.NewPCG(7, uint64(len(cfg.ID))))
			for _, name := range []string{"baseline", "sample", "mixed"} {
				for _, mode := range []challenge.Mode{challenge.Reference, challenge.Official} {
					res := p.Grade(t, subs[name], mode)
					n := len(res.Cases)
					if n < 3 {
						t.Fatalf("%d cases: too few to resample", n)
					}
					stat := map[string]func([]int) float64{}
					all := make([]int, n)
					for i := range all {
						all[i] = i
					}
					for _, m := range metrics {
						f, err := c.CaseStatistic(m, res.Cases)
						if err != nil || f == nil {
							t.Fatalf("%s %s %s: %v", name, mode, m, err)
						}
						if got := f(all); got != res.Values[m] {
							t.Errorf("%s %s %s: full sample %v, graded %v", name, mode, m, got, res.Values[m])
						}
						stat[m] = f
					}
					for k := 0; k < 3; k++ {
						idx := drawResample(gen, n, mode == challenge.Reference)
						sub, priv := resampledTask(t, p, subs[name], idx)
						got, err := challenge.SafeGrade(context.Background(), c, sub, priv, mode)
						if err != nil {
							t.Fatalf("%s %s: grade resample %v: %v", name, mode, idx, err)
						}
						t.Logf("%s %s resample %v of %d: %v", name, mode, idx, n, got.Values)
						for _, m := range metrics {
							if want := stat[m](idx); got.Values[m] != want {
								t.Errorf("%s %s %s resample %v: graded %v, recomputed %v", name, mode, m, idx, got.Values[m], want)
							}
						}
					}
				}
			}
		})
	}
}

// drawResample draws n case indices with replacement (with at least one
// repeat and one case left out), or, without repeats, a random proper
// subset of at least one case.
func drawResample(gen *rand.Rand, n int, repeats bool) []int {
	if !repeats {
		perm := gen.Perm(n)
		return perm[:1+gen.IntN(n-1)]
	}
	for {
		idx := make([]int, n)
		for j := range idx {
			idx[j] = gen.IntN(n)
		}
		s := slices.Clone(idx)
		slices.Sort(s)
		if len(slices.Compact(s)) < n {
			return idx
		}
	}
}

// resampledTask copies the submission with the rows idx (in that order,
// repeats kept) and the private answers cut down to the cases drawn.
func resampledTask(t *testing.T, p *challengetest.Prepared, subDir string, idx []int) (string, string) {
	t.Helper()
	root := t.TempDir()
	sub, priv := filepath.Join(root, "sub"), filepath.Join(root, "private")
	challengetest.CopyDir(t, subDir, sub)
	challengetest.CopyDir(t, p.Private(), priv)
	drawn := map[string]bool{}
	challengetest.EditCSV(t, filepath.Join(sub, "submission.csv"), func(h []string, rows [][]string) ([]string, [][]string) {
		ic := slices.Index(h, "image_id")
		if ic < 0 {
			t.Fatalf("submission header %v", h)
		}
		var out [][]string
		for _, i := range idx {
			out = append(out, rows[i])
			drawn[rows[i][ic]] = true
		}
		return h, out
	})
	challengetest.EditCSV(t, filepath.Join(priv, "test_labels.csv"), func(h []string, rows [][]string) ([]string, [][]string) {
		ic := slices.Index(h, "image_id")
		var out [][]string
		for _, r := range rows {
			if drawn[r[ic]] {
				out = append(out, r)
			}
		}
		if len(out) != len(drawn) {
			t.Fatalf("answers: %d of %d drawn ids", len(out), len(drawn))
		}
		return h, out
	})
	return sub, priv
}

// mixSubmissions copies the submission base with the first row's
// prediction file replaced by that of the submission other.
func mixSubmissions(t *testing.T, c Challenge, base, other string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "mixed")
	challengetest.CopyDir(t, base, dir)
	first := func(d string) string {
		tab, err := challenge.ReadCSV(filepath.Join(d, "submission.csv"))
		if err != nil {
			t.Fatal(err)
		}
		pc := slices.Index(tab.Header, c.pathColumn())
		if pc < 0 || len(tab.Rows) == 0 {
			t.Fatalf("%s: no %s column or no rows", d, c.pathColumn())
		}
		return filepath.FromSlash(tab.Rows[0][pc])
	}
	b, err := os.ReadFile(filepath.Join(other, first(other)))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, first(dir)), b, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}
