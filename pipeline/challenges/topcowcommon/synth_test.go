package topcowcommon

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/rexmle/rexmle/metrics/topology"
)

// The synthetic TopBrain anatomy respects the valid-neighbour tables, so a
// perfect submission has neighbour error 0.
func TestSynthNeighboursValid(t *testing.T) {
	for _, cfg := range []Config{TopBrain1, TopBrain2} {
		table := topology.ValidNeighboursCT
		if cfg.Modality == "mr" {
			table = topology.ValidNeighboursMR
		}
		for i := 0; i < 6; i++ {
			sc, err := cfg.makeCase(3, i, false)
			if err != nil {
				t.Fatal(err)
			}
			adj, _ := topology.LabelAdjacency(context.Background(), sc.r.labels, sc.g.Shape)
			for p := range adj {
				if !table.Allows(int(p[0]), int(p[1])) {
					t.Errorf("%s case %d: labels %d and %d touch, table forbids it", cfg.ID, i, p[0], p[1])
				}
			}
		}
	}
}

// The edge list derived from the synthetic segmentation matches the drawn
// variant: a missing communicating artery or A1/P1 changes the class.
func TestSynthEdgesFollowVariant(t *testing.T) {
	for _, cfg := range []Config{TopCoWT1T1, TopCoWT2T1} {
		for i := 0; i < synthCases; i++ {
			sc, err := cfg.makeCase(5, i, false)
			if err != nil {
				t.Fatal(err)
			}
			stream := uint64(i) + 1
			if cfg.Modality == "mr" {
				stream += 1000
			}
			v := caseVariant(rand.New(rand.NewPCG(5, stream)), i)
			b := func(x bool) int {
				if x {
					return 1
				}
				return 0
			}
			wantAnt := [4]int{b(v.lA1), b(v.acom), b(v.thirdA2), b(v.rA1)}
			wantPos := [4]int{b(v.lPcom), b(v.lP1), b(v.rP1), b(v.rPcom)}
			if sc.ant != wantAnt || sc.pos != wantPos {
				t.Errorf("%s case %d: edges %v %v, variant says %v %v", cfg.ID, i, sc.ant, sc.pos, wantAnt, wantPos)
			}
		}
	}
}
