package isles22

import (
	"bytes"
	"context"
	"testing"

	"github.com/rexmle/rexmle/pipeline/challenge"
	"github.com/rexmle/rexmle/pipeline/challenge/challengetest"
)

// TestSubmissionScores grades the four built-in submissions on synthetic
// data and checks their ordering: perfect is exact, the baseline beats the
// sample and trivial submissions on Dice.
func TestSubmissionScores(t *testing.T) {
	c := Challenge{}
	p := challengetest.Prepare(t, c, 11)
	var log bytes.Buffer
	subs := map[string]string{
		"perfect": p.Submit(t, "perfect", func(ctx context.Context, out string) error { return c.Perfect(ctx, p.Public(), p.Private(), out) }),
		"sample":  p.Submit(t, "sample", func(ctx context.Context, out string) error { return c.SampleSubmission(ctx, p.Public(), out) }),
		"trivial": p.Submit(t, "trivial", func(ctx context.Context, out string) error { return c.Trivial(ctx, p.Public(), out) }),
		"baseline": p.Submit(t, "baseline", func(ctx context.Context, out string) error {
			return c.Baseline(ctx, p.Public(), out, &log)
		}),
	}
	t.Log(log.String())
	got := map[string]*challenge.Result{}
	for _, mode := range []challenge.Mode{challenge.Reference, challenge.Official} {
		for _, name := range []string{"perfect", "sample", "trivial", "baseline"} {
			r := p.Grade(t, subs[name], mode)
			got[name] = r
			t.Logf("%-8s %-9s dice=%.5f lesion_f1=%.5f count=%.5f vol=%.5f", name, mode, r.Values[MetricDice], r.Values[MetricLesionF1], r.Values[MetricCountDiff], r.Values[MetricVolDiff])
		}
		pf := got["perfect"].Values
		if pf[MetricDice] != 1 || pf[MetricLesionF1] != 1 || pf[MetricCountDiff] != 0 || pf[MetricVolDiff] != 0 {
			t.Errorf("%s: perfect scores %v", mode, pf)
		}
		if got["trivial"].Values[MetricDice] != 0 {
			t.Errorf("%s: trivial dice %v, want 0 (every synthetic case has a lesion)", mode, got["trivial"].Values[MetricDice])
		}
		if b, s := got["baseline"].Values[MetricDice], got["sample"].Values[MetricDice]; b <= s || b < 0.5 {
			t.Errorf("%s: baseline dice %v should beat the sample's %v and exceed 0.5", mode, b, s)
		}
	}
}

func BenchmarkGrade(b *testing.B) {
	c := Challenge{}
	p := challengetest.Prepare(b, c, 1)
	sub := p.Submit(b, "perfect", func(ctx context.Context, out string) error { return c.Perfect(ctx, p.Public(), p.Private(), out) })
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := c.Grade(context.Background(), sub, p.Private(), challenge.Reference); err != nil {
			b.Fatal(err)
		}
	}
}
