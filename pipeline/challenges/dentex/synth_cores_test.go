package dentex

import (
	"testing"

	"github.com/rexmle/rexmle/pipeline/challenge/challengetest"
)

// At the real image size the images are drawn on every core; the files
// (PNGs and the COCO annotation file) must not depend on how many.
func TestSynthesizeFullSameOnAnyCoreCount(t *testing.T) {
	challengetest.CheckSynthesizeOnAnyCoreCount(t, Challenge{}, "full:10", 3, 11) // 10 images and the annotations
}
