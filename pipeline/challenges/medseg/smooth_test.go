package medseg

import (
	"math"
	"testing"

	"github.com/rexmle/rexmle/metrics/volume"
)

// The separable smoothing agrees with the 27-neighbour one to float
// rounding on every voxel, edges and flat axes included.
func TestSmoothSeparableMatchesSmooth(t *testing.T) {
	for _, shape := range [][3]int{{7, 5, 4}, {1, 6, 3}, {9, 1, 1}, {2, 2, 2}, {13, 11, 9}} {
		g := volume.NewGrid(shape[0], shape[1], shape[2])
		r := NewRand(3, uint64(shape[0]))
		data := make([]float64, g.Len())
		for i := range data {
			data[i] = r.NormFloat64() * 100
		}
		want, got := Smooth(g, data), SmoothSeparable(g, data)
		for i := range want {
			if math.Abs(want[i]-got[i]) > 1e-9*math.Max(1, math.Abs(want[i])) {
				t.Fatalf("shape %v voxel %d: separable %v, direct %v", shape, i, got[i], want[i])
			}
		}
	}
}
