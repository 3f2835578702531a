package topology_test

import (
	"context"
	"fmt"

	"github.com/rexmle/rexmle/metrics/skeleton"
	"github.com/rexmle/rexmle/metrics/topology"
)

// clDice compares skeletons with masks. The truth is a 3×3×3 block whose
// Lee skeleton (ZYX order) is its 3-voxel centre line along z; the
// prediction is the 5-voxel line through it, its own skeleton. Topology
// precision = 3/5 of the prediction's skeleton lies in the truth, topology
// sensitivity = 3/3 of the truth's skeleton lies in the prediction, so
// clDice = 2·0.6·1/1.6 = 0.75 although the voxel Dice is only 2·3/32.
func ExampleClDice() {
	shape := [3]int{5, 5, 5}
	idx := func(x, y, z int) int { return x + shape[0]*(y+shape[1]*z) }
	n := shape[0] * shape[1] * shape[2]
	truth := make([]bool, n)
	pred := make([]bool, n)
	for z := 0; z < 5; z++ {
		pred[idx(2, 2, z)] = true
		for y := 1; y <= 3; y++ {
			for x := 1; x <= 3; x++ {
				truth[idx(x, y, z)] = z >= 1 && z <= 3
			}
		}
	}
	cl, err := topology.ClDice(context.Background(), pred, truth, shape, skeleton.ZYX)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%.4f\n", cl)
	// Output: 0.7500
}

// The box metrics of TopCoW on two 4×4×4 boxes offset by 2 voxels along x.
// Plain IoU (BoundaryBoxIoU with ratio 0.5) = 32/96. Boundary IoU with ratio
// 0.2: each box becomes its 1-voxel shell (64 − 8 = 56 voxels), the shells
// share 24, IoU = 24/88. The ReX-MLE reference's grown-box form widens each
// box by ceil(0.2·4) = 1 voxel a side: 6³ boxes sharing 4·6·6, IoU =
// 144/288.
func ExampleBoundaryBoxIoU() {
	a := topology.Box{Size: [3]int{4, 4, 4}, Location: [3]int{0, 0, 0}}
	b := topology.Box{Size: [3]int{4, 4, 4}, Location: [3]int{2, 0, 0}}
	fmt.Printf("IoU %.4f\n", topology.BoundaryBoxIoU(a, b, 0.5))
	fmt.Printf("boundary IoU %.4f\n", topology.BoundaryBoxIoU(a, b, 0.2))
	fmt.Printf("grown-box IoU %.4f\n", topology.GrownBoxIoU(a, b, 0.2))
	// Output:
	// IoU 0.3333
	// boundary IoU 0.2727
	// grown-box IoU 0.5000
}

// BoundingBox gives the tight box of a mask (false when it is empty).
func ExampleBoundingBox() {
	shape := [3]int{4, 3, 2}
	mask := make([]bool, 24)
	mask[1+4*(2+3*0)] = true // (1, 2, 0)
	mask[3+4*(1+3*1)] = true // (3, 1, 1)
	box, ok := topology.BoundingBox(mask, shape)
	fmt.Printf("%+v %v\n", box, ok)
	_, ok = topology.BoundingBox(make([]bool, 24), shape)
	fmt.Println(ok)
	// Output:
	// {Size:[3 2 2] Location:[1 1 0]} true
	// false
}

// TopBrain's invalid-neighbour count: labels 1, 2 and 3 in a row, so 2
// touches 1 and 3 (26-adjacency), but the table allows only 1 next to 2.
func ExampleInvalidNeighbours() {
	labels := []uint8{1, 2, 3, 0, 4}
	adj, err := topology.LabelAdjacency(context.Background(), labels, [3]int{5, 1, 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	table := topology.NeighbourTable{1: {2}, 2: {1}, 3: {2}}
	fmt.Println(adj.Neighbours(2), adj.Touch(3, 4))
	fmt.Println(topology.InvalidNeighbours(adj, 2, table), topology.InvalidNeighbours(adj, 3, table))
	// Output:
	// [1 3] false
	// 1 0
}

// Per-label detection F1 over cases: a label present in the truth is a TP
// when its IoU reaches the threshold; a label absent from both is a TN and
// does not enter F1; a label never present anywhere scores 0.
func ExampleDetectionCounts() {
	var c topology.DetectionCounts
	c.Add(true, true, 0.4, 0.25) // TP
	c.Add(true, true, 0.1, 0.25) // FN: present but IoU too low
	c.Add(false, true, 0, 0.25)  // FP
	c.Add(false, false, 0, 0.25) // TN
	var never topology.DetectionCounts
	never.Add(false, false, 0, 0.25)
	fmt.Printf("%+v F1=%.4f\n", c, c.F1())
	fmt.Println(never.F1(), topology.MeanF1([]topology.DetectionCounts{c, never}))
	// Output:
	// {TP:1 FP:1 FN:1 TN:1} F1=0.5000
	// 0 0.25
}

// The TopCoW Circle-of-Willis edge vectors and variant class from a
// segmentation's adjacency: both A1 segments exist (each ACA touches its
// ICA), the Acom is present, the 3rd-A2 is not; behind, only the right P1
// (R-PCA touches the BA) and the right Pcom exist. Vectors are ordered
// [L-A1, Acom, 3rd-A2, R-A1] and [L-Pcom, L-P1, R-P1, R-Pcom].
func ExampleCoWEdges() {
	adj := topology.Adjacency{
		{topology.RICA, topology.RACA}: true,
		{topology.LICA, topology.LACA}: true,
		{topology.BA, topology.RPCA}:   true,
	}
	present := map[int32]bool{topology.Acom: true, topology.RPcom: true}
	ant, pos := topology.CoWEdges(adj, present)
	fmt.Println(topology.VariantClass("Var_Ant", topology.IntStrings(ant)))
	fmt.Println(topology.VariantClass("Var_Pos", topology.IntStrings(pos)))
	// Output:
	// Var_Ant_1_1_0_1
	// Var_Pos_0_0_1_1
}
