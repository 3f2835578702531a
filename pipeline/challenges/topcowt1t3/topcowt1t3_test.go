package topcowt1t3

import (
	"testing"

	"github.com/rexmle/rexmle/pipeline/challenges/topcowcommon/topcowtest"
)

func TestConformanceAndMalformed(t *testing.T) {
	topcowtest.Run(t, Challenge, "edges", map[string]float64{"anterior_acc": 1, "posterior_acc": 1})
}

// BenchmarkGrade grades the perfect submission of the synthetic dataset.
func BenchmarkGrade(b *testing.B) { topcowtest.BenchmarkGrade(b, Challenge) }
