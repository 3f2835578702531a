package topology

import (
	"strconv"
	"strings"
)

// TopCoW label ids (TopCoW 2024 label map).
const (
	BA     = 1
	RPCA   = 2
	LPCA   = 3
	RICA   = 4
	RMCA   = 5
	LICA   = 6
	LMCA   = 7
	RPcom  = 8
	LPcom  = 9
	Acom   = 10
	RACA   = 11
	LACA   = 12
	ThirdA = 15
)

// CoWLabelNames names the TopCoW labels.
var CoWLabelNames = map[int]string{
	BA: "BA", RPCA: "R-PCA", LPCA: "L-PCA", RICA: "R-ICA", RMCA: "R-MCA",
	LICA: "L-ICA", LMCA: "L-MCA", RPcom: "R-Pcom", LPcom: "L-Pcom",
	Acom: "Acom", RACA: "R-ACA", LACA: "L-ACA", ThirdA: "3rd-A2",
}

// AnteriorEdgeNames and PosteriorEdgeNames are the fixed orders of the CoW
// edge vectors.
var (
	AnteriorEdgeNames  = [4]string{"L-A1", "Acom", "3rd-A2", "R-A1"}
	PosteriorEdgeNames = [4]string{"L-Pcom", "L-P1", "R-P1", "R-Pcom"}
)

// CoWEdges derives the official TopCoW edge vectors from a segmentation's
// label adjacency and label presence: A1 on a side exists iff that side's
// ACA touches that side's ICA; P1 iff that side's PCA touches the BA; Acom,
// 3rd-A2 and the Pcoms exist iff the label is present. Orders:
// anterior [L-A1, Acom, 3rd-A2, R-A1], posterior [L-Pcom, L-P1, R-P1, R-Pcom].
func CoWEdges(adj Adjacency, present map[int32]bool) (anterior, posterior [4]int) {
	b := func(v bool) int {
		if v {
			return 1
		}
		return 0
	}
	anterior = [4]int{
		b(adj.Touch(LACA, LICA)),
		b(present[Acom]),
		b(present[ThirdA]),
		b(adj.Touch(RACA, RICA)),
	}
	posterior = [4]int{
		b(present[LPcom]),
		b(adj.Touch(LPCA, BA)),
		b(adj.Touch(RPCA, BA)),
		b(present[RPcom]),
	}
	return anterior, posterior
}

// VariantClass renders an edge vector as the TopCoW variant class string:
// prefix ("Var_Ant" or "Var_Pos") followed by each value, joined by "_",
// e.g. Var_Ant_0_1_0_1.
func VariantClass(prefix string, values []string) string {
	return prefix + "_" + strings.Join(values, "_")
}

// IntStrings renders integer edge values as strings for VariantClass.
func IntStrings(v [4]int) []string {
	out := make([]string, 4)
	for i, x := range v {
		out[i] = strconv.Itoa(x)
	}
	return out
}
