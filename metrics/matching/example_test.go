package matching_test

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/rexmle/rexmle/metrics/matching"
)

// PUMA nuclei detection within 5 px. The first tumour truth point has two
// candidates (1 px and 3 px away) and takes the higher-scored one; the second
// has none in range; the lymphocyte has no lymphocyte prediction; the stroma
// prediction matches nothing. Tumour: P = 1/3, R = 1/2, F1 = 0.4.
func ExampleMatchPoints() {
	truth := []matching.Point{
		{X: 0, Y: 0, Class: "tumor", Score: 1},
		{X: 10, Y: 0, Class: "tumor", Score: 1},
		{X: 0, Y: 10, Class: "lymphocyte", Score: 1},
	}
	pred := []matching.Point{
		{X: 1, Y: 0, Class: "tumor", Score: 0.6},
		{X: 3, Y: 0, Class: "tumor", Score: 0.9},
		{X: 30, Y: 30, Class: "tumor", Score: 0.5},
		{X: 0, Y: 11, Class: "stroma", Score: 0.8},
	}
	counts := matching.MatchPoints(truth, pred, matching.PointOptions{Radius: 5})
	for _, class := range slices.Sorted(maps.Keys(counts)) {
		c := counts[class]
		fmt.Printf("%-10s TP=%d FP=%d FN=%d F1=%.2f\n", class, c.TP, c.FP(), c.FN(), matching.F1(c))
	}
	// Output:
	// lymphocyte TP=0 FP=0 FN=1 F1=0.00
	// stroma     TP=0 FP=1 FN=0 F1=0.00
	// tumor      TP=1 FP=2 FN=1 F1=0.40
}

// NeurIPS CellSeg on an 8×8 label image. Truth instance 3 touches the 2-px
// border band and is removed; instances 5 and 9 remain. Prediction 1 covers
// 6 px around truth 5 (IoU 4/6), prediction 2 half of truth 9 (IoU 2/4). At
// IoU 0.5 both match (F1 = 1); at 0.7 neither does.
func ExampleMatchInstances() {
	truth := []int32{
		3, 3, 0, 0, 0, 0, 0, 0,
		3, 3, 0, 0, 0, 0, 0, 0,
		0, 0, 5, 5, 0, 0, 0, 0,
		0, 0, 5, 5, 0, 0, 0, 0,
		0, 0, 0, 0, 9, 9, 0, 0,
		0, 0, 0, 0, 9, 9, 0, 0,
		0, 0, 0, 0, 0, 0, 0, 0,
		0, 0, 0, 0, 0, 0, 0, 0,
	}
	pred := []int32{
		0, 0, 0, 0, 0, 0, 0, 0,
		0, 0, 0, 0, 0, 0, 0, 0,
		0, 0, 1, 1, 1, 0, 0, 0,
		0, 0, 1, 1, 1, 0, 0, 0,
		0, 0, 0, 0, 0, 0, 0, 0,
		0, 0, 0, 0, 2, 2, 0, 0,
		0, 0, 0, 0, 0, 0, 0, 0,
		0, 0, 0, 0, 0, 0, 0, 0,
	}
	c, err := matching.MatchInstances(context.Background(), truth, pred, 8, 8, []float64{0.5, 0.7})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("truth:", c.Truth, "pred:", c.Pred, "TP:", c.TP)
	fmt.Println("F1@0.5:", matching.InstanceF1(c.TP[0], c.Truth, c.Pred), "F1@0.7:", matching.InstanceF1(c.TP[1], c.Truth, c.Pred))
	fmt.Println("input untouched:", truth[0] == 3)
	// Output:
	// truth: 2 pred: 2 TP: [2 0]
	// F1@0.5: 1 F1@0.7: 0
	// input untouched: true
}
