package topcowt1t1

import (
	"context"
	"math"
	"testing"

	"github.com/rexmle/rexmle/pipeline/challenge"
	"github.com/rexmle/rexmle/pipeline/challenge/challengetest"
	"github.com/rexmle/rexmle/pipeline/challenges/topcowcommon/topcowtest"
)

func TestConformanceAndMalformed(t *testing.T) {
	p := challengetest.Conformance(t, Challenge)
	valid := p.Submit(t, "valid", func(ctx context.Context, out string) error {
		return Challenge.Perfect(ctx, p.Public(), p.Private(), out)
	})
	challengetest.CheckMalformed(t, p, valid, topcowtest.Malformed("seg"))
	// The perfect submission is perfect in both modes.
	for _, mode := range []challenge.Mode{challenge.Reference, challenge.Official} {
		r := p.Grade(t, valid, mode)
		for k, w := range map[string]float64{"dice": 1, "b0_error": 0, "hd95": 0, "anterior_topology": 1, "posterior_topology": 1, "anterior_graph_acc": 1, "posterior_graph_acc": 1} {
			if got := r.Values[k]; math.Abs(got-w) > 1e-6 {
				t.Errorf("%s: perfect %s = %v, want %v", mode, k, got, w)
			}
		}
	}
}

// BenchmarkGrade grades the perfect submission of the synthetic dataset.
func BenchmarkGrade(b *testing.B) {
	p := challengetest.Prepare(b, Challenge, 1)
	dir := p.Submit(b, "perfect", func(ctx context.Context, out string) error {
		return Challenge.Perfect(ctx, p.Public(), p.Private(), out)
	})
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, mode := range []challenge.Mode{challenge.Reference, challenge.Official} {
			if _, err := Challenge.Grade(context.Background(), dir, p.Private(), mode); err != nil {
				b.Fatal(err)
			}
		}
	}
}
