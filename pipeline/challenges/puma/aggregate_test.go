package puma

import (
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/rexmle/rexmle/pipeline/challenge"
	"github.com/rexmle/rexmle/pipeline/challenge/challengetest"
)

// Track 2 leaves an image out of a class's mean when the class is absent
// from it; the macro F1 averages the per-class means over all scored
// classes (a class absent from every resampled image counts 0).
func TestCaseStatisticMacroF1(t *testing.T) {
	cases := []challenge.Case{
		{ID: "a", Values: map[string]float64{"f1_tumor": 0.8, "f1_lymphocytes": 0.4}},
		{ID: "b", Values: map[string]float64{"f1_tumor": 0.6}},
	}
	f, err := Track2Task2.CaseStatistic("f1", cases)
	if err != nil || f == nil {
		t.Fatal(err)
	}
	n := float64(len(track2Classes))
	// tumor: mean(0.8, 0.6) = 0.7; lymphocytes: 0.4 (only image a); the rest 0.
	if got, want := f([]int{0, 1}), (0.7+0.4)/n; abs(got-want) > 1e-15 {
		t.Errorf("macro F1 %v, want %v", got, want)
	}
	// Resample {b, b}: tumor 0.6, lymphocytes absent → 0.
	if got, want := f([]int{1, 1}), 0.6/n; abs(got-want) > 1e-15 {
		t.Errorf("macro F1 of a resample %v, want %v", got, want)
	}
	tum, _ := Track2Task2.CaseStatistic("f1_tumor", cases)
	if got := tum([]int{0, 0, 1}); abs(got-(0.8+0.8+0.6)/3) > 1e-15 {
		t.Errorf("f1_tumor %v", got)
	}
	if g, err := Track1Task1.CaseStatistic("dice", cases); g != nil || !errors.Is(err, challenge.ErrNotAMean) {
		t.Errorf("tissue dice without the per-image counts: %v, want unavailable", err)
	}
}

// TestTissueDiceIsRegrading checks the tissue Dice's recomputation against
// its definition on the synthetic data, both tracks and modes, for the
// baseline's submission and the baseline's with its first image predicted
// perfectly: the full sample reproduces the graded micro Dice exactly, and
// a resample equals grading a submission made of the resampled rows
// (physically repeated in the reference mode, which grades repeated rows;
// a subset of distinct images in the official mode, which refuses them),
// the answers cut down to the images drawn.
func TestTissueDiceIsRegrading(t *testing.T) {
	if testing.Short() {
		t.Skip("grades the synthetic data many times")
	}
	gen := rand.New(rand.NewPCG(11, 12))
	for _, c := range []Challenge{Track1Task1, Track2Task1} {
		t.Run(c.ID(), func(t *testing.T) {
			p := challengetest.Prepare(t, c, 1)
			base := p.Submit(t, "baseline", func(ctx context.Context, o string) error { return c.Baseline(ctx, p.Public(), o, io.Discard) })
			perfect := p.Submit(t, "perfect", func(ctx context.Context, o string) error { return c.Perfect(ctx, p.Public(), p.Private(), o) })
			mixed := filepath.Join(t.TempDir(), "mixed")
			challengetest.CopyDir(t, base, mixed)
			rows, err := readSubmission(perfect, "predicted_mask_path")
			if err != nil {
				t.Fatal(err)
			}
			mrows, err := readSubmission(mixed, "predicted_mask_path")
			if err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(filepath.Join(perfect, rows[0].path))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(mixed, mrows[0].path), b, 0o644); err != nil {
				t.Fatal(err)
			}
			for _, sub := range []string{base, mixed} {
				for _, mode := range []challenge.Mode{challenge.Reference, challenge.Official} {
					res := p.Grade(t, sub, mode)
					n := len(res.Cases)
					f, err := c.CaseStatistic("dice", res.Cases)
					if err != nil || f == nil {
						t.Fatalf("%s: %v", mode, err)
					}
					all := make([]int, n)
					for i := range all {
						all[i] = i
					}
					if got := f(all); got != res.Values["dice"] {
						t.Errorf("%s %s: full sample %v, graded %v", filepath.Base(sub), mode, got, res.Values["dice"])
					}
					for k := 0; k < 3; k++ {
						var idx []int
						if mode == challenge.Reference {
							for range n {
								idx = append(idx, gen.IntN(n))
							}
						} else {
							perm := gen.Perm(n)
							idx = perm[:1+gen.IntN(n-1)]
						}
						rs, rp := resampledTissue(t, sub, p.Private(), idx)
						got, err := challenge.SafeGrade(context.Background(), c, rs, rp, mode)
						if err != nil {
							t.Fatalf("%s: grade resample %v: %v", mode, idx, err)
						}
						t.Logf("%s %s resample %v of %d: dice %v", filepath.Base(sub), mode, idx, n, got.Values["dice"])
						if want := f(idx); got.Values["dice"] != want {
							t.Errorf("%s %s resample %v: graded %v, recomputed %v", filepath.Base(sub), mode, idx, got.Values["dice"], want)
						}
					}
				}
			}
		})
	}
}

// resampledTissue copies the submission with the rows idx (in that order,
// repeats kept) and the private answers cut down to the images drawn.
func resampledTissue(t *testing.T, subDir, privDir string, idx []int) (string, string) {
	t.Helper()
	root := t.TempDir()
	sub, priv := filepath.Join(root, "sub"), filepath.Join(root, "private")
	challengetest.CopyDir(t, subDir, sub)
	challengetest.CopyDir(t, privDir, priv)
	drawn := map[string]bool{}
	challengetest.EditCSV(t, filepath.Join(sub, submissionFile), func(h []string, rows [][]string) ([]string, [][]string) {
		ic := slices.Index(h, "case_id")
		var out [][]string
		for _, i := range idx {
			out = append(out, rows[i])
			drawn[rows[i][ic]] = true
		}
		return h, out
	})
	challengetest.EditCSV(t, filepath.Join(priv, answersCSV), func(h []string, rows [][]string) ([]string, [][]string) {
		ic := slices.Index(h, "case_id")
		var out [][]string
		for _, r := range rows {
			if drawn[r[ic]] {
				out = append(out, r)
			}
		}
		return h, out
	})
	return sub, priv
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
