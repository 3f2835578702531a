package topcowt2t1

import (
	"testing"

	"github.com/rexmle/rexmle/pipeline/challenges/topcowcommon/topcowtest"
)

func TestConformanceAndMalformed(t *testing.T) {
	topcowtest.Run(t, Challenge, "seg", map[string]float64{"dice": 1, "b0_error": 0, "hd95": 0, "anterior_topology": 1, "posterior_topology": 1, "anterior_graph_acc": 1, "posterior_graph_acc": 1})
}

// BenchmarkGrade grades the perfect submission of the synthetic dataset.
func BenchmarkGrade(b *testing.B) { topcowtest.BenchmarkGrade(b, Challenge) }
