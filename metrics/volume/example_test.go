package volume_test

import (
	"fmt"

	"github.com/rexmle/rexmle/metrics/volume"
)

// A 3×2×2 grid stores axis 0 fastest: sample (i, j, k) sits at
// i + 3·(j + 2·k), which is numpy's C order of the array with the axes
// reversed ([k, j, i]).
func ExampleGrid() {
	g := volume.NewGrid(3, 2, 2)
	g.Spacing = [3]float64{0.8, 0.8, 3}
	fmt.Println(g.Len(), g.Dims(), g.Index(2, 1, 0), g.Index(0, 0, 1))
	i, j, k := g.Coords(11)
	fmt.Println(i, j, k, g.Validate())

	bad := volume.NewGrid(3, 2)
	bad.Spacing[1] = 0
	fmt.Println(bad.Dims(), bad.Validate())
	// Output:
	// 12 3 5 6
	// 2 1 1 <nil>
	// 2 axis 1 has spacing 0, want a finite positive number
}

// A decoded image holds float64 samples and the element type from disk;
// masks and integer labels come from it.
func ExampleVolume_Labels() {
	v := volume.New(volume.NewGrid(4), volume.Uint8)
	copy(v.Data, []float64{0, 3, 0, 1})
	labels, err := v.Labels()
	fmt.Println(labels, err, v.Mask(), v.LabelMask(3))

	v.Data[2] = 1.5 // not a label
	_, err = v.Labels()
	fmt.Println(err)
	// Output:
	// [0 3 0 1] <nil> [false true false true] [false true false false]
	// sample 2 is 1.5, want a whole-number label
}
