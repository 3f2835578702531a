package topcowt1t2

import (
	"testing"

	"github.com/rexmle/rexmle/pipeline/challenges/topcowcommon/topcowtest"
)

func TestConformanceAndMalformed(t *testing.T) {
	topcowtest.Run(t, Challenge, "box", map[string]float64{"boundary_iou": 1, "iou": 1})
}

// BenchmarkGrade grades the perfect submission of the synthetic dataset.
func BenchmarkGrade(b *testing.B) { topcowtest.BenchmarkGrade(b, Challenge) }
