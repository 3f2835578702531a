package skeleton_test

import (
	"context"
	"fmt"

	"github.com/rexmle/rexmle/metrics/skeleton"
)

// The Lee unit checks of the TopCoW spec: a 3×3×3 block (padded with
// background) thins to the 3-voxel line through its centre parallel to
// skimage's first array axis p, and a 2×2×2 block thins to nothing. With
// ZYX, p is storage axis 2 (z); the nibabel order XYZ makes it axis 0 (x).
func ExampleLee3D() {
	shape := [3]int{5, 5, 5} // storage order: x fastest, then y, then z
	idx := func(x, y, z int) int { return x + shape[0]*(y+shape[1]*z) }
	cube := func(lo, hi int) []bool {
		m := make([]bool, shape[0]*shape[1]*shape[2])
		for z := lo; z <= hi; z++ {
			for y := lo; y <= hi; y++ {
				for x := lo; x <= hi; x++ {
					m[idx(x, y, z)] = true
				}
			}
		}
		return m
	}
	ctx := context.Background()
	for _, order := range []skeleton.Order{skeleton.ZYX, skeleton.XYZ} {
		s, err := skeleton.Lee3D(ctx, cube(1, 3), shape, order)
		if err != nil {
			fmt.Println(err)
			return
		}
		var kept [][3]int
		for z := 0; z < shape[2]; z++ {
			for y := 0; y < shape[1]; y++ {
				for x := 0; x < shape[0]; x++ {
					if s[idx(x, y, z)] {
						kept = append(kept, [3]int{x, y, z})
					}
				}
			}
		}
		fmt.Println(kept)
	}
	s, _ := skeleton.Lee3D(ctx, cube(1, 2), shape, skeleton.ZYX)
	n := 0
	for _, v := range s {
		if v {
			n++
		}
	}
	fmt.Println("2×2×2 block keeps", n, "voxels")
	// Output:
	// [[2 2 1] [2 2 2] [2 2 3]]
	// [[1 2 2] [2 2 2] [3 2 2]]
	// 2×2×2 block keeps 0 voxels
}

// A 2-D image is a volume with one plane ([3]int{width, height, 1}) in ZYX
// order, as skimage's skeletonize(image, method="lee"): a bar of 3 rows
// thins to its whole middle row (scikit-image 0.19.3 gives the same).
func ExampleLee3D_image() {
	const w, h = 9, 5
	rows := []string{
		".........",
		".#######.",
		".#######.",
		".#######.",
		".........",
	}
	m := make([]bool, w*h)
	for y, r := range rows {
		for x, c := range r {
			m[x+w*y] = c == '#'
		}
	}
	s, err := skeleton.Lee3D(context.Background(), m, [3]int{w, h, 1}, skeleton.ZYX)
	if err != nil {
		fmt.Println(err)
		return
	}
	for y := 0; y < h; y++ {
		line := make([]byte, w)
		for x := range line {
			line[x] = '.'
			if s[x+w*y] {
				line[x] = '#'
			}
		}
		fmt.Println(string(line))
	}
	// Output:
	// .........
	// .........
	// .#######.
	// .........
	// .........
}
