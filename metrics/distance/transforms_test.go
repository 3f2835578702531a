package distance

import (
	"fmt"
	"math"

	"github.com/rexmle/rexmle/metrics/volume"
)

// The whole-array forms of the transforms and morphology the surface
// distances use internally, which the tests check against scipy and hand
// cases.

// SquaredDistanceToForeground returns, for every voxel, the squared Euclidean
// distance (in spacing units) to the nearest true voxel of mask: 0 on the
// foreground, +Inf everywhere when mask has no true voxel (see squaredEDT).
func SquaredDistanceToForeground(mask []bool, g volume.Grid) ([]float64, error) {
	if err := checkMask("distance transform", mask, g); err != nil {
		return nil, err
	}
	return squaredEDT(mask, false, g), nil
}

// DistanceToForeground is the square root of SquaredDistanceToForeground:
// scipy.ndimage.distance_transform_edt(~mask, sampling) on the numpy view,
// except that a mask without any true voxel gives +Inf everywhere.
func DistanceToForeground(mask []bool, g volume.Grid) ([]float64, error) {
	if err := checkMask("distance transform", mask, g); err != nil {
		return nil, err
	}
	d := squaredEDT(mask, false, g)
	sqrtAll(d)
	return d, nil
}

// DistanceToBackground returns, for every voxel, the Euclidean distance to
// the nearest false voxel of mask (0 on the background): scipy
// distance_transform_edt(mask, sampling). A mask without any false voxel
// gives +Inf everywhere.
func DistanceToBackground(mask []bool, g volume.Grid) ([]float64, error) {
	if err := checkMask("distance transform", mask, g); err != nil {
		return nil, err
	}
	d := squaredEDT(mask, true, g)
	sqrtAll(d)
	return d, nil
}

func sqrtAll(d []float64) {
	parallelFor(len(d), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			d[i] = math.Sqrt(d[i])
		}
	})
}

// Erode is the binary erosion of mask by the structuring element of the
// given connectivity (see Border), with everything outside the array counted
// as background (scipy binary_erosion with border_value 0): a voxel stays
// true iff it and all its structure neighbours are true and inside the array.
func Erode(mask []bool, g volume.Grid, connectivity int) ([]bool, error) {
	if err := checkMask("erosion", mask, g); err != nil {
		return nil, err
	}
	nb, err := structure(connectivity, g)
	if err != nil {
		return nil, fmt.Errorf("erosion: %w", err)
	}
	out := make([]bool, len(mask))
	erode(mask, out, g, nb, false)
	return out, nil
}

// Border returns the edge voxels of mask: mask AND NOT Erode(mask), i.e. the
// true voxels with at least one structure neighbour that is false or outside
// the array. connectivity 0 means 6, the scipy default cross of a 3D array,
// which is what MONAI get_mask_edges uses on volumes. 4/8 need a 2D grid
// (Shape[2] == 1) and treat it as a 2D image; 6/18/26 treat any grid as 3D,
// so on a single-slice grid the out-of-array axis-2 neighbours make every
// voxel an edge voxel — exactly what MONAI does on a numpy volume with one
// slice. Pass 4 (or 8) for true 2D images.
func Border(mask []bool, g volume.Grid, connectivity int) ([]bool, error) {
	if err := checkMask("border", mask, g); err != nil {
		return nil, err
	}
	nb, err := structure(connectivity, g)
	if err != nil {
		return nil, fmt.Errorf("border: %w", err)
	}
	out := make([]bool, len(mask))
	erode(mask, out, g, nb, true)
	return out, nil
}
