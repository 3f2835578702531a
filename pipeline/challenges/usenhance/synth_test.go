package usenhance

import (
	"testing"

	"github.com/rexmle/rexmle/pipeline/challenge/challengetest"
)

// At the real image size the pairs are drawn on every core; what is drawn
// must not depend on how many, nor on the order they finish in.
func TestSynthesizeFullSameOnAnyCoreCount(t *testing.T) {
	challengetest.CheckSynthesizeOnAnyCoreCount(t, Challenge{}, "full:12", 7, 24) // 12 pairs
}
