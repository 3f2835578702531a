package components_test

import (
	"fmt"

	"github.com/rexmle/rexmle/metrics/components"
	"github.com/rexmle/rexmle/metrics/volume"
)

// A 4×3 image whose voxels touch diagonally: 4-connectivity sees four
// components, 8-connectivity joins the diagonal chain into one and leaves the
// lone voxel in the bottom-left corner. Labels follow each component's first
// voxel in storage order (scipy.ndimage.label's numbering).
func ExampleLabel() {
	g := volume.NewGrid(4, 3) // 4 columns (axis 0), 3 rows (axis 1)
	rows := []string{
		"##..",
		"..#.",
		"#..#",
	}
	mask := make([]bool, g.Len())
	for y, row := range rows {
		for x, c := range row {
			mask[g.Index(x, y, 0)] = c == '#'
		}
	}
	for _, conn := range []int{4, 8} {
		labels, n, err := components.Label(mask, g, conn)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(conn, n, labels, components.Sizes(labels, n))
	}
	// Output:
	// 4 4 [1 1 0 0 0 0 2 0 3 0 0 4] [2 1 1 1]
	// 8 2 [1 1 0 0 0 0 1 0 2 0 0 1] [4 1]
}

// Count is Betti-0 without the label image; an empty mask has none.
func ExampleCount() {
	g := volume.NewGrid(3, 3, 2)
	mask := make([]bool, g.Len())
	mask[g.Index(0, 0, 0)] = true
	mask[g.Index(1, 1, 1)] = true // touches the first voxel only by a corner
	for _, conn := range []int{6, 18, 26} {
		n, _ := components.Count(mask, g, conn)
		fmt.Print(n, " ")
	}
	empty, _ := components.Count(make([]bool, g.Len()), g, 26)
	fmt.Println(empty)
	// Output: 2 2 1 0
}

// ISLES'22 lesion-wise counts on one row of six voxels: the truth has lesions
// {0, 1} and {4}; the prediction hits the first (TP), misses the second (FN)
// and adds a lesion at voxel 5 that holds no truth voxel (FP), so
// F1 = 1 / (1 + (1 + 1)/2) = 0.5.
func ExampleMatchLesions() {
	g := volume.NewGrid(6, 1, 1)
	truth := []bool{true, true, false, false, true, false}
	pred := []bool{false, true, false, false, false, true}
	m, err := components.MatchLesions(pred, truth, g, 26)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("TP=%d FN=%d FP=%d truth=%d pred=%d\n", m.TP, m.FN, m.FP, m.TruthCount, m.PredCount)
	fmt.Println("F1:", m.F1(), "count difference:", m.CountDiff())
	// Output:
	// TP=1 FN=1 FP=1 truth=2 pred=2
	// F1: 0.5 count difference: 0
}
