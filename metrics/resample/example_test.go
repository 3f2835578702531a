package resample_test

import (
	"fmt"

	"github.com/rexmle/rexmle/metrics/resample"
)

// scipy.ndimage.zoom(order=0) maps output k to input floor(k·(n−1)/(m−1) +
// 0.5): corners aligned, so 3 samples stretched to 5 read 0 1 1 2 2.
func ExampleZoomIndex() {
	fmt.Println(resample.ZoomIndex(3, 5))
	fmt.Println(resample.ZoomIndex(10, 4))
	// Output:
	// [0 1 1 2 2]
	// [0 3 6 9]
}

// Zoom a 3×2 label map (axis 0 fastest) to 5×1: each axis is resampled
// independently with ZoomIndex, and a single output row reads input row 0.
func ExampleZoom() {
	labels := []uint8{
		1, 2, 3, // row 0
		4, 5, 6, // row 1
	}
	out, err := resample.Zoom(labels, [3]int{3, 2, 1}, [3]int{5, 1, 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(out)
	_, err = resample.Zoom(labels, [3]int{4, 2, 1}, [3]int{5, 1, 1})
	fmt.Println(err)
	// Output:
	// [1 2 2 3 3]
	// resize: source has 6 samples, shape [4 2 1] needs 8
}

// Pillow's NEAREST resize samples pixel centres: halving 4 columns reads
// columns 1 and 3 (positions 0.5·2 = 1 and 1 + 2 = 3). Resize2D applies the
// index lists to a row-major plane.
func ExampleResize2D() {
	pix := []uint8{
		10, 11, 12, 13,
		20, 21, 22, 23,
	}
	xs := resample.PillowNearestIndex(4, 2)
	ys := resample.PillowNearestIndex(2, 1)
	fmt.Println(xs, ys, resample.Resize2D(pix, 4, 2, 2, 1, xs, ys))
	// Output: [1 3] [1] [21 23]
}
