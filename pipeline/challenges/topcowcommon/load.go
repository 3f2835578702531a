package topcowcommon

import (
	"fmt"
	"math"

	"github.com/rexmle/rexmle/metrics/imageio"
	"github.com/rexmle/rexmle/metrics/volume"
	"github.com/rexmle/rexmle/pipeline/challenge"
)

// labelMap is a GT or prediction label volume after the reference's
// pre-processing: uint8 labels on the GT grid (axis 0 fastest).
type labelMap struct {
	shape   [3]int
	spacing [3]float64
	labels  []uint8
}

// castUint8 is ITK's static cast of a pixel value to unsigned 8-bit:
// truncation toward zero, then wrap-around modulo 256 (256 → 0, −1 → 255).
// NaN, ±Inf and values beyond ±2^63 have no defined result and are refused.
func castUint8(x float64) (uint8, bool) {
	if math.IsNaN(x) || math.IsInf(x, 0) || math.Abs(x) >= 1<<63 {
		return 0, false
	}
	return uint8(int64(math.Trunc(x))), true
}

// readGT reads a private answer label map.
func readGT(path string) (*volume.Volume, *labelMap, error) {
	r, err := imageio.ReadBytes(path) // 8-bit labels stay bytes
	if err != nil {
		return nil, nil, fmt.Errorf("read answer %s: %w", path, err)
	}
	v := r.Volume
	if r.Bytes != nil {
		return v, &labelMap{shape: v.Shape, spacing: v.Spacing, labels: r.Bytes}, nil
	}
	lm := &labelMap{shape: v.Shape, spacing: v.Spacing, labels: make([]uint8, v.Len())}
	nc := v.NumChannels()
	for i := range lm.labels {
		l, ok := castUint8(v.Data[i*nc])
		if !ok {
			return nil, nil, fmt.Errorf("answer %s: sample %d is %v", path, i, v.Data[i*nc])
		}
		lm.labels[i] = l
	}
	return v, lm, nil
}

// readPrediction reads a submitted label image and brings it onto the GT
// grid the way the reference does (C-6.1): resampled with nearest
// neighbour in physical space when the voxel counts differ (voxels falling
// outside the prediction become 0), then cast to uint8; its own spacing and
// placement are otherwise ignored. Official mode refuses a prediction whose
// voxel grid differs from the GT's instead, as the organisers' evaluation
// does ("gt pred not matching shapes"). rel names the file in messages.
func readPrediction(path, rel, field string, gt *volume.Volume, mode challenge.Mode) (*labelMap, error) {
	if _, err := imageio.FormatOf(path); err != nil {
		return nil, challenge.Invalidf(rel, field, "not a readable label image: %v", err)
	}
	// Bound the decoded size: a prediction may be resampled, but it cannot
	// be larger than 8× the GT (in float64 samples) or 1 GiB, whichever is more.
	limit := max(int64(gt.Len())*8*8, 1<<30)
	r, err := imageio.ReadBytes(path, imageio.Options{MaxBytes: limit}) // 8-bit labels stay bytes
	if err != nil {
		return nil, challenge.Invalidf(rel, field, "cannot read the label image: %v", err)
	}
	v, raw := r.Volume, r.Bytes
	if v.NumChannels() != 1 {
		return nil, challenge.Invalidf(rel, field, "image has %d channels, want a single-channel label map", v.NumChannels())
	}
	if v.Dims() != gt.Dims() && v.Shape != gt.Shape {
		return nil, challenge.Invalidf(rel, field, "image is %d-D (shape %v), the case is %d-D (shape %v)", v.Dims(), v.Shape, gt.Dims(), gt.Shape)
	}
	if mode == challenge.Official && v.Shape != gt.Shape {
		return nil, challenge.Invalidf(rel, field, "image shape %v differs from the case's %v; the organisers' evaluation refuses mismatched shapes (reference mode resamples)", v.Shape, gt.Shape)
	}
	lm := &labelMap{shape: gt.Shape, spacing: gt.Spacing, labels: make([]uint8, gt.Len())}
	bad := func(i int, x float64) error {
		return challenge.Invalidf(rel, field, "voxel %d holds %v; labels must be finite whole numbers", i, x)
	}
	if v.Shape == gt.Shape && raw != nil {
		lm.labels = raw
		return lm, nil
	}
	if v.Shape == gt.Shape {
		for i, x := range v.Data {
			l, ok := castUint8(x)
			if !ok {
				return nil, bad(i, x)
			}
			lm.labels[i] = l
		}
		return lm, nil
	}
	// Resample: GT index → world → prediction continuous index, rounded
	// half up; inside iff every coordinate lies in [−0.5, size − 0.5).
	m, ok := indexMap(volume.Affine(gt), volume.Affine(v))
	if !ok {
		return nil, challenge.Invalidf(rel, field, "image geometry is singular; cannot resample it onto the case grid")
	}
	for i, x := range v.Data { // (bytes are always whole numbers)
		if _, ok := castUint8(x); !ok {
			return nil, bad(i, x)
		}
	}
	idx := 0
	for k := 0; k < gt.Shape[2]; k++ {
		for j := 0; j < gt.Shape[1]; j++ {
			for i := 0; i < gt.Shape[0]; i++ {
				var c [3]int
				inside := true
				for a := 0; a < 3 && inside; a++ {
					f := m[a][0]*float64(i) + m[a][1]*float64(j) + m[a][2]*float64(k) + m[a][3]
					if !(f >= -0.5 && f < float64(v.Shape[a])-0.5) {
						inside = false
						break
					}
					c[a] = int(math.Floor(f + 0.5))
				}
				if inside && raw != nil {
					lm.labels[idx] = raw[v.Index(c[0], c[1], c[2])]
				} else if inside {
					lm.labels[idx], _ = castUint8(v.Data[v.Index(c[0], c[1], c[2])])
				}
				idx++
			}
		}
	}
	return lm, nil
}

// indexMap returns inv(to) · from as a 3×4 matrix mapping an index of the
// "from" grid to a continuous index of the "to" grid.
func indexMap(from, to [4][4]float64) ([3][4]float64, bool) {
	// Invert the 3×3 block of to.
	a := to
	det := a[0][0]*(a[1][1]*a[2][2]-a[1][2]*a[2][1]) - a[0][1]*(a[1][0]*a[2][2]-a[1][2]*a[2][0]) + a[0][2]*(a[1][0]*a[2][1]-a[1][1]*a[2][0])
	if det == 0 || math.IsNaN(det) {
		return [3][4]float64{}, false
	}
	var inv [3][3]float64
	inv[0][0] = (a[1][1]*a[2][2] - a[1][2]*a[2][1]) / det
	inv[0][1] = (a[0][2]*a[2][1] - a[0][1]*a[2][2]) / det
	inv[0][2] = (a[0][1]*a[1][2] - a[0][2]*a[1][1]) / det
	inv[1][0] = (a[1][2]*a[2][0] - a[1][0]*a[2][2]) / det
	inv[1][1] = (a[0][0]*a[2][2] - a[0][2]*a[2][0]) / det
	inv[1][2] = (a[0][2]*a[1][0] - a[0][0]*a[1][2]) / det
	inv[2][0] = (a[1][0]*a[2][1] - a[1][1]*a[2][0]) / det
	inv[2][1] = (a[0][1]*a[2][0] - a[0][0]*a[2][1]) / det
	inv[2][2] = (a[0][0]*a[1][1] - a[0][1]*a[1][0]) / det
	var m [3][4]float64
	for r := 0; r < 3; r++ {
		for c := 0; c < 4; c++ {
			s := 0.0
			for k := 0; k < 3; k++ {
				v := from[k][c]
				if c == 3 {
					v -= to[k][3]
				}
				s += inv[r][k] * v
			}
			m[r][c] = s
		}
	}
	return m, true
}
