package topcowtest

import (
	"context"
	"math"
	"testing"

	"github.com/rexmle/rexmle/pipeline/challenge"
	"github.com/rexmle/rexmle/pipeline/challenge/challengetest"
)

// Run is the test every TopCoW/TopBrain id runs: the conformance kit, the
// malformed corpus of its submission kind ("seg", "box" or "edges"), and the
// perfect submission's values in both modes (perfect: metric → expected value).
func Run(t *testing.T, c challenge.Challenge, kind string, perfect map[string]float64) {
	t.Helper()
	p := challengetest.Conformance(t, c)
	valid := p.Submit(t, "valid", func(ctx context.Context, out string) error {
		return challengetest.MustOracle(t, c).Perfect(ctx, p.Public(), p.Private(), out)
	})
	challengetest.CheckMalformed(t, p, valid, Malformed(kind))
	for _, mode := range []challenge.Mode{challenge.Reference, challenge.Official} {
		r := p.Grade(t, valid, mode)
		for k, w := range perfect {
			if got := r.Values[k]; math.Abs(got-w) > 1e-6 {
				t.Errorf("%s: perfect %s = %v, want %v", mode, k, got, w)
			}
		}
	}
}

// BenchmarkGrade grades the perfect submission of c's synthetic dataset in both modes.
func BenchmarkGrade(b *testing.B, c challenge.Challenge) {
	p := challengetest.Prepare(b, c, 1)
	dir := p.Submit(b, "perfect", func(ctx context.Context, out string) error {
		return challengetest.MustOracle(b, c).Perfect(ctx, p.Public(), p.Private(), out)
	})
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, mode := range []challenge.Mode{challenge.Reference, challenge.Official} {
			if _, err := c.Grade(context.Background(), dir, p.Private(), mode); err != nil {
				b.Fatal(err)
			}
		}
	}
}
