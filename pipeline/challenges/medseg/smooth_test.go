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

// The noise smoother's slices are SmoothSeparable over the same draws, bit
// for bit, and a call past the last slice panics.
func TestNoiseSmootherIsSmoothSeparable(t *testing.T) {
	for _, shape := range [][3]int{{7, 5, 4}, {1, 6, 3}, {9, 1, 1}, {4, 3, 1}, {2, 2, 2}, {13, 11, 9}} {
		g := volume.NewGrid(shape[0], shape[1], shape[2])
		r := NewRand(5, uint64(shape[2]))
		data := make([]float64, g.Len())
		for i := range data {
			data[i] = r.NormFloat64()
		}
		want := SmoothSeparable(g, data)
		s := NewNoiseSmoother(g, NewRand(5, uint64(shape[2])))
		plane := shape[0] * shape[1]
		for k := 0; k < shape[2]; k++ {
			got := s.Next()
			if len(got) != plane {
				t.Fatalf("shape %v slice %d: %d values, want %d", shape, k, len(got), plane)
			}
			for i, v := range got {
				if v != want[k*plane+i] {
					t.Fatalf("shape %v slice %d voxel %d: %v, SmoothSeparable %v", shape, k, i, v, want[k*plane+i])
				}
			}
		}
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("shape %v: Next past the last slice did not panic", shape)
				}
			}()
			s.Next()
		}()
	}
}
