package topcowt1t1

import (
	"testing"

	"github.com/rexmle/rexmle/pipeline/challenge/challengetest"
)

func TestConformance(t *testing.T) {
	p := challengetest.Conformance(t, Challenge)
	_ = p
}
