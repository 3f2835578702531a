package topcowt1t2

import (
	"context"
	"testing"

	"github.com/rexmle/rexmle/pipeline/challenge/challengetest"
	"github.com/rexmle/rexmle/pipeline/challenges/topcowcommon/topcowtest"
)

func TestConformanceAndMalformed(t *testing.T) {
	p := challengetest.Conformance(t, Challenge)
	valid := p.Submit(t, "valid", func(ctx context.Context, out string) error {
		return Challenge.Perfect(ctx, p.Public(), p.Private(), out)
	})
	challengetest.CheckMalformed(t, p, valid, topcowtest.Malformed("box"))
}
