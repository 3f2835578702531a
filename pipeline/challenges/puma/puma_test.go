package puma

import (
	"bytes"
	"context"
	"testing"

	"github.com/rexmle/rexmle/pipeline/challenge"
	"github.com/rexmle/rexmle/pipeline/challenge/challengetest"
)

// The tissue challenges' reference truth is all background on data with the
// real class names (the quirk), so perfect and trivial tie in reference mode
// by construction; the conformance kit runs on data written with the names
// the reference table expects. TestTissueNameQuirk covers the real names.
func TestConformance(t *testing.T) {
	for _, c := range []Challenge{Track1Task1.WithReferenceNames(), Track2Task1.WithReferenceNames(), Track1Task2, Track2Task2} {
		t.Run(c.ID(), func(t *testing.T) { challengetest.Conformance(t, c) })
	}
}

func gradeAll(t *testing.T, c Challenge, seed int64) map[string]map[challenge.Mode]float64 {
	p := challengetest.Prepare(t, c, seed)
	subs := map[string]string{
		"perfect": p.Submit(t, "perfect", func(ctx context.Context, o string) error { return c.Perfect(ctx, p.Public(), p.Private(), o) }),
		"trivial": p.Submit(t, "trivial", func(ctx context.Context, o string) error { return c.Trivial(ctx, p.Public(), o) }),
		"sample":  p.Submit(t, "sample", func(ctx context.Context, o string) error { return c.SampleSubmission(ctx, p.Public(), o) }),
	}
	if testing.Verbose() {
		var log bytes.Buffer
		subs["baseline"] = p.Submit(t, "baseline", func(ctx context.Context, o string) error { return c.Baseline(ctx, p.Public(), o, &log) })
		t.Log(log.String())
	}
	out := map[string]map[challenge.Mode]float64{}
	key := "dice"
	if c.task == Nuclei {
		key = "f1"
	}
	for name, dir := range subs {
		out[name] = map[challenge.Mode]float64{}
		for _, m := range []challenge.Mode{challenge.Reference, challenge.Official} {
			res := p.Grade(t, dir, m)
			out[name][m] = res.Values[key]
			t.Logf("%s %s %s: %s = %.6g", c.ID(), name, m, key, res.Values[key])
		}
	}
	return out
}

func TestScoresReport(t *testing.T) {
	for _, c := range []Challenge{Track1Task1, Track2Task1, Track1Task2, Track2Task2} {
		gradeAll(t, c, 1)
	}
}
