package topology

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"slices"
	"strconv"
	"testing"

	"github.com/rexmle/rexmle/metrics/skeleton"
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-12 }

// Box vectors of topcow-track1-task2 §7 (reference grown boxes) and the
// official shell IoU.
func TestGrownBoxIoU(t *testing.T) {
	b := func(s0, s1, s2, l0, l1, l2 int) Box { return Box{[3]int{s0, s1, s2}, [3]int{l0, l1, l2}} }
	cases := []struct {
		name      string
		gt, pred  Box
		bIoU, iou float64
		tolerance float64
	}{
		{"identical", b(10, 10, 10, 0, 0, 0), b(10, 10, 10, 0, 0, 0), 1, 1, 0},
		{"offset5", b(10, 10, 10, 0, 0, 0), b(10, 10, 10, 5, 0, 0), 1764.0 / 3724.0, 0.6, 0},
		{"small", b(3, 3, 4, 0, 0, 0), b(1, 1, 1, 0, 0, 0), 27.0 / 150.0, 27.0 / 392.0, 0},
		{"row4", b(6, 3, 3, 0, 0, 0), b(4, 3, 3, 1, 0, 0), 0.6, 2.0 / 3.0, 1e-15},
		{"empty", b(0, 5, 5, 0, 0, 0), b(0, 5, 5, 0, 0, 0), 0, 0, 0},
		{"real", b(96, 68, 36, 103, 93, 77), b(90, 70, 40, 100, 95, 75), 0.8045825651830393, 0.815108010197236, 1e-15},
		{"truncated", b(10, 10, 10, 0, 0, 0), b(10, 10, 10, -3, 0, 0), 0.6470588235294118, 0.7391304347826086, 1e-15},
	}
	for _, c := range cases {
		if got := GrownBoxIoU(c.gt, c.pred, 0.2); math.Abs(got-c.bIoU) > c.tolerance {
			t.Errorf("%s: boundary (0.2) = %v, want %v", c.name, got, c.bIoU)
		}
		if got := GrownBoxIoU(c.gt, c.pred, 0.5); math.Abs(got-c.iou) > c.tolerance {
			t.Errorf("%s: iou (0.5) = %v, want %v", c.name, got, c.iou)
		}
	}
}

// bruteShell enumerates the official shell voxels.
func bruteShell(b Box, ratio float64) map[[3]int]bool {
	m := b.Margins(ratio)
	set := map[[3]int]bool{}
	for x := b.Location[0]; x < b.Location[0]+b.Size[0]; x++ {
		for y := b.Location[1]; y < b.Location[1]+b.Size[1]; y++ {
			for z := b.Location[2]; z < b.Location[2]+b.Size[2]; z++ {
				c := [3]int{x, y, z}
				for d := 0; d < 3; d++ {
					if c[d] < b.Location[d]+m[d] || c[d] > b.Location[d]+b.Size[d]-1-m[d] {
						set[c] = true
					}
				}
			}
		}
	}
	return set
}

func TestBoundaryBoxIoU(t *testing.T) {
	a := Box{[3]int{10, 10, 10}, [3]int{0, 0, 0}}
	c := Box{[3]int{10, 10, 10}, [3]int{5, 0, 0}}
	// Official plain IoU of two 10³ boxes offset by 5: 500/1500.
	if got := BoundaryBoxIoU(a, c, 0.5); !near(got, 1.0/3.0) {
		t.Errorf("official iou = %v, want 1/3", got)
	}
	// Against brute-force enumeration on a few boxes.
	boxes := []Box{a, c, {[3]int{7, 4, 9}, [3]int{2, 1, 0}}, {[3]int{3, 3, 4}, [3]int{1, 1, 1}}, {[3]int{12, 5, 6}, [3]int{-2, 0, 3}}}
	for i, x := range boxes {
		for j, y := range boxes {
			for _, r := range []float64{0.2, 0.5} {
				sx, sy := bruteShell(x, r), bruteShell(y, r)
				inter := 0
				for k := range sx {
					if sy[k] {
						inter++
					}
				}
				want := float64(inter) / float64(len(sx)+len(sy)-inter)
				if got := BoundaryBoxIoU(x, y, r); !near(got, want) {
					t.Errorf("boxes %d,%d r=%v: %v, brute force %v", i, j, r, got, want)
				}
			}
		}
	}
}

func TestBoundingBox(t *testing.T) {
	shape := [3]int{4, 3, 2}
	m := make([]bool, 24)
	if _, ok := BoundingBox(m, shape); ok {
		t.Error("empty mask has a box")
	}
	m[1+4*(2+3*0)] = true // (1,2,0)
	m[3+4*(0+3*1)] = true // (3,0,1)
	b, ok := BoundingBox(m, shape)
	want := Box{[3]int{3, 3, 2}, [3]int{1, 0, 0}}
	if !ok || b != want {
		t.Errorf("box %+v, want %+v", b, want)
	}
}

// clDice vectors of topcow-track1-task1 §7 (arrays given in (z,y,x)).
func TestClDice(t *testing.T) {
	ctx := context.Background()
	// C1: shape (1,1,20): GT x=0..9, pred x=0..19 → Tprec 1/2, Tsens 1 → 2/3.
	gt := make([]bool, 20)
	pr := make([]bool, 20)
	for x := 0; x < 20; x++ {
		pr[x] = true
		gt[x] = x < 10
	}
	got, err := ClDice(ctx, pr, gt, [3]int{20, 1, 1}, skeleton.ZYX)
	if err != nil || !near(got, 2.0/3.0) {
		t.Errorf("C1 cldice = %v (%v), want 2/3", got, err)
	}
	// F: 3×3×3 block padded to 5³; a line along z gives 1 in ZYX order and
	// 0.5 in XYZ; a line along x the opposite.
	block := make([]bool, 125)
	lineZ := make([]bool, 125)
	lineX := make([]bool, 125)
	idx := func(x, y, z int) int { return x + 5*(y+5*z) }
	for z := 1; z <= 3; z++ {
		for y := 1; y <= 3; y++ {
			for x := 1; x <= 3; x++ {
				block[idx(x, y, z)] = true
			}
		}
		lineZ[idx(2, 2, z)] = true
		lineX[idx(z, 2, 2)] = true
	}
	for _, c := range []struct {
		name  string
		pred  []bool
		order skeleton.Order
		want  float64
	}{
		{"F1z-zyx", lineZ, skeleton.ZYX, 1}, {"F2x-zyx", lineX, skeleton.ZYX, 0.5},
		{"TB4z-xyz", lineZ, skeleton.XYZ, 0.5}, {"TB4x-xyz", lineX, skeleton.XYZ, 1},
	} {
		got, err := ClDice(ctx, c.pred, block, [3]int{5, 5, 5}, c.order)
		if err != nil || !near(got, c.want) {
			t.Errorf("%s: cldice %v (%v), want %v", c.name, got, err, c.want)
		}
	}
	// G: a perfect prediction of a fat block scores 0 (empty skeletons).
	fat := make([]bool, 6*6*12)
	for z := 1; z <= 4; z++ {
		for y := 1; y <= 4; y++ {
			for x := 1; x <= 10; x++ {
				fat[x+12*(y+6*z)] = true
			}
		}
	}
	if got, _ := ClDice(ctx, fat, fat, [3]int{12, 6, 6}, skeleton.ZYX); got != 0 {
		t.Errorf("fat block cldice = %v, want 0", got)
	}
	if _, err := ClDice(ctx, fat, gt, [3]int{12, 6, 6}, skeleton.ZYX); err == nil {
		t.Error("length mismatch accepted")
	}
}

// Vector E of topcow-track1-task1: label 10 TP, FN, FP over 3 cases → 0.5;
// labels 8, 9, 15 all TN → 0; mean 0.125.
func TestDetectionF1(t *testing.T) {
	counts := make([]DetectionCounts, 4) // 8, 9, 10, 15
	counts[2].Add(true, true, 0.25, 0.25)
	counts[2].Add(true, false, 0, 0.25)
	counts[2].Add(false, true, 0, 0.25)
	for _, i := range []int{0, 1, 3} {
		for k := 0; k < 3; k++ {
			counts[i].Add(false, false, 0, 0.25)
		}
	}
	if got := counts[2].F1(); got != 0.5 {
		t.Errorf("label 10 F1 = %v", got)
	}
	if got := MeanF1(counts); got != 0.125 {
		t.Errorf("mean F1 = %v, want 0.125", got)
	}
	var d DetectionCounts
	d.Add(true, true, 0.2499, 0.25)
	if d.FN != 1 {
		t.Error("IoU below the threshold counted as a hit")
	}
	if MeanF1(nil) != 0 {
		t.Error("empty mean")
	}
}

// TB1 / TB5 / label>40 neighbour vectors of the TopBrain specs (arrays (z,y,x)).
func TestNeighbours(t *testing.T) {
	ctx := context.Background()
	// TB1: shape (1,3,8): label 1 at (0,0,0..2), label 5 at (0,1,3),(0,2,5..7), label 7 absent.
	lab := make([]int32, 24)
	for x := 0; x < 3; x++ {
		lab[x] = 1
	}
	lab[3+8*1] = 5
	for x := 5; x < 8; x++ {
		lab[x+8*2] = 5
	}
	adj, err := LabelAdjacency(ctx, lab, [3]int{8, 3, 1})
	if err != nil {
		t.Fatal(err)
	}
	if !adj.Touch(1, 5) || !adj.Touch(5, 1) || len(adj) != 1 {
		t.Errorf("adjacency %v, want {1,5}", adj)
	}
	if n := InvalidNeighbours(adj, 1, ValidNeighboursCT); n != 1 {
		t.Errorf("nb(1) = %d, want 1", n)
	}
	if n := InvalidNeighbours(adj, 5, ValidNeighboursCT); n != 1 {
		t.Errorf("nb(5) = %d, want 1", n)
	}
	if n := InvalidNeighbours(adj, 7, ValidNeighboursCT); n != 0 {
		t.Errorf("nb(7) = %d, want 0", n)
	}
	// TB5: labels 36 and 21 touch: allowed in CTA, not in MRA.
	lab = make([]int32, 24)
	for x := 0; x < 3; x++ {
		lab[x] = 36
		lab[x+16] = 21
	}
	lab[1+8] = 36
	adj, _ = LabelAdjacency(ctx, lab, [3]int{8, 3, 1})
	if InvalidNeighbours(adj, 36, ValidNeighboursCT) != 0 || InvalidNeighbours(adj, 21, ValidNeighboursCT) != 0 {
		t.Error("CTA table should allow 21–36")
	}
	if InvalidNeighbours(adj, 36, ValidNeighboursMR) != 1 || InvalidNeighbours(adj, 21, ValidNeighboursMR) != 1 {
		t.Error("MRA table should forbid 21–36")
	}
	// A label missing from the table: every neighbour is invalid.
	if !adj.Touch(21, 36) || InvalidNeighbours(Adjacency{{1, 41}: true}, 41, ValidNeighboursCT) != 1 {
		t.Error("label 41 has no table entry; its neighbour must be invalid")
	}
	// Border voxels have no wrap-around neighbours.
	lab = []int32{1, 0, 0, 2}
	adj, _ = LabelAdjacency(ctx, lab, [3]int{4, 1, 1})
	if len(adj) != 0 {
		t.Errorf("labels 3 voxels apart touch: %v", adj)
	}
	if _, err := LabelAdjacency(ctx, lab, [3]int{3, 1, 1}); err == nil {
		t.Error("shape mismatch accepted")
	}
}

// The Go tables carry the JSON tables' content exactly.
func TestNeighbourTablesMatchJSON(t *testing.T) {
	for file, table := range map[string]NeighbourTable{
		"testdata/valid_neighbors_ct_all.json": ValidNeighboursCT,
		"testdata/valid_neighbors_mr_all.json": ValidNeighboursMR,
	} {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var raw map[string][]int
		if err := json.Unmarshal(b, &raw); err != nil {
			t.Fatal(err)
		}
		if len(raw) != len(table) {
			t.Errorf("%s: %d keys, Go table %d", file, len(raw), len(table))
		}
		for k, v := range raw {
			l, _ := strconv.Atoi(k)
			if !slices.Equal(v, table[l]) && !(len(v) == 0 && len(table[l]) == 0) {
				t.Errorf("%s: label %s: %v vs %v", file, k, v, table[l])
			}
		}
	}
	if len(ValidNeighboursCT) != 40 || len(ValidNeighboursMR) != 42 {
		t.Errorf("table sizes %d, %d", len(ValidNeighboursCT), len(ValidNeighboursMR))
	}
}

// A hand-built CoW: the edges follow adjacency, and a missing Acom changes
// the anterior variant class.
func TestCoWEdges(t *testing.T) {
	ctx := context.Background()
	// 1-D strip (x axis) of labels: L-ICA touching L-ACA; R-ACA not touching R-ICA;
	// BA touching both PCAs; Acom present; no Pcoms.
	lab := []int32{LICA, LACA, 0, RACA, 0, RICA, 0, LPCA, BA, RPCA, 0, Acom}
	adj, _ := LabelAdjacency(ctx, lab, [3]int{len(lab), 1, 1})
	present := map[int32]bool{}
	for _, l := range lab {
		present[l] = true
	}
	ant, pos := CoWEdges(adj, present)
	if ant != [4]int{1, 1, 0, 0} || pos != [4]int{0, 1, 1, 0} {
		t.Errorf("edges %v %v", ant, pos)
	}
	if got := VariantClass("Var_Ant", IntStrings(ant)); got != "Var_Ant_1_1_0_0" {
		t.Errorf("class %q", got)
	}
	lab[11] = 0
	delete(present, Acom)
	ant2, _ := CoWEdges(adj, present)
	if VariantClass("Var_Ant", IntStrings(ant2)) == VariantClass("Var_Ant", IntStrings(ant)) {
		t.Error("removing the Acom did not change the variant class")
	}
}
