package overlap_test

import (
	"fmt"
	"math"

	"github.com/rexmle/rexmle/metrics/overlap"
)

// Dice of two 2×2 masks that share one voxel: TP = 1, FP = 1, FN = 1, so
// Dice = 2·1 / (2·1 + 1 + 1) = 0.5.
func ExampleDice() {
	pred := []bool{true, true, false, false}
	truth := []bool{true, false, true, false}
	d, err := overlap.Dice(pred, truth, 1)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(d)
	// Output: 0.5
}

// Confusion counts a pair once; Dice on the counts then decides the case of
// two empty masks, which each challenge scores differently.
func ExampleConfusion() {
	pred := []bool{true, true, false, false}
	truth := []bool{true, false, true, false}
	c, err := overlap.Confusion(pred, truth)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%+v |P|=%d |G|=%d\n", c, c.Pred(), c.Truth())

	empty, _ := overlap.Confusion(make([]bool, 4), make([]bool, 4))
	fmt.Println(empty.Dice(1), empty.Dice(0), empty.Dice(math.NaN()))

	_, err = overlap.Confusion(pred, truth[:3])
	fmt.Println(err)
	// Output:
	// {TP:1 FP:1 FN:1 TN:1} |P|=2 |G|=2
	// 1 0 NaN
	// confusion: prediction has 4 voxels, truth has 3
}

// The ISLES'22 absolute volume difference in millilitres: 1200 predicted and
// 1000 true voxels of 1×1×1 mm = 0.001 ml each differ by 0.2 ml.
func ExampleAbsVolumeDiff() {
	fmt.Printf("%.4f ml\n", overlap.AbsVolumeDiff(1200, 1000, 0.001))
	// Output: 0.2000 ml
}
