package topcowcommon_test

import (
	"testing"

	"github.com/rexmle/rexmle/pipeline/challenges/topcowcommon"
	"github.com/rexmle/rexmle/pipeline/challenges/topcowcommon/topcowtest"
)

// variantCases is what every variant's perfect submission scores in both
// modes, and the kind of its malformed corpus.
var variantCases = []struct {
	config  topcowcommon.Config
	kind    string
	perfect map[string]float64
}{
	{topcowcommon.TopCoWT1T1, "seg", map[string]float64{"dice": 1, "b0_error": 0, "hd95": 0, "anterior_topology": 1, "posterior_topology": 1, "anterior_graph_acc": 1, "posterior_graph_acc": 1}},
	{topcowcommon.TopCoWT1T2, "box", map[string]float64{"boundary_iou": 1, "iou": 1}},
	{topcowcommon.TopCoWT1T3, "edges", map[string]float64{"anterior_acc": 1, "posterior_acc": 1}},
	{topcowcommon.TopCoWT2T1, "seg", map[string]float64{"dice": 1, "b0_error": 0, "hd95": 0, "anterior_topology": 1, "posterior_topology": 1, "anterior_graph_acc": 1, "posterior_graph_acc": 1}},
	{topcowcommon.TopCoWT2T2, "box", map[string]float64{"boundary_iou": 1, "iou": 1}},
	{topcowcommon.TopCoWT2T3, "edges", map[string]float64{"anterior_acc": 1, "posterior_acc": 1}},
	{topcowcommon.TopBrain1, "seg", map[string]float64{"dice": 1, "b0_error": 0, "hd95": 0, "neighbor_error": 0}},
	{topcowcommon.TopBrain2, "seg", map[string]float64{"dice": 1, "b0_error": 0, "hd95": 0, "neighbor_error": 0}},
}

// TestConformanceAndMalformed runs the conformance kit, the malformed corpus
// and the perfect submission of every registered variant.
func TestConformanceAndMalformed(t *testing.T) {
	if len(variantCases) != len(topcowcommon.Variants) {
		t.Fatalf("%d cases for %d variants", len(variantCases), len(topcowcommon.Variants))
	}
	for i, tc := range variantCases {
		if tc.config != topcowcommon.Variants[i] {
			t.Fatalf("case %d is %s, the table's variant %d is %s", i, tc.config.ID, i, topcowcommon.Variants[i].ID)
		}
		t.Run(tc.config.ID, func(t *testing.T) {
			topcowtest.Run(t, topcowcommon.New(tc.config), tc.kind, tc.perfect)
		})
	}
}

// BenchmarkGrade grades the perfect submission of each variant's synthetic dataset.
func BenchmarkGrade(b *testing.B) {
	for _, c := range topcowcommon.Variants {
		b.Run(c.ID, func(b *testing.B) { topcowtest.BenchmarkGrade(b, topcowcommon.New(c)) })
	}
}
