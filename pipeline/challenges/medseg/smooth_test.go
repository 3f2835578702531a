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
		plane := shape[0] * shape[1]
		for k := 0; k < shape[2]; k++ {
			UnitNoise(r, data[k*plane:(k+1)*plane]) // a plane at a time, as the smoother draws
		}
		want := SmoothSeparable(g, data)
		s := NewNoiseSmoother(g, NewRand(5, uint64(shape[2])))
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

// UnitNoise has mean 0 and variance 1, is uniform on ±√3 (a quarter of the
// draws in each quarter of the range), and smoothed by the 3×3×3 mean its
// interior variance is 1/27 and its tails a Gaussian's: 4.55 % beyond two
// standard deviations.
func TestUnitNoise(t *testing.T) {
	sqrt3 := math.Sqrt(3)
	const n = 1 << 20
	p := make([]float64, n+1) // odd: the last value comes from a draw of its own
	UnitNoise(NewRand(9, 1), p)
	var s, s2 float64
	var quarter [4]int
	for _, v := range p {
		if v < -sqrt3 || v >= sqrt3 {
			t.Fatalf("draw %v outside ±√3", v)
		}
		s += v
		s2 += v * v
		quarter[int((v+sqrt3)/(sqrt3/2))]++
	}
	mean, variance := s/float64(len(p)), s2/float64(len(p))-s*s/float64(len(p))/float64(len(p))
	if math.Abs(mean) > 0.005 || math.Abs(variance-1) > 0.005 {
		t.Errorf("mean %.4f, variance %.4f; want 0 and 1", mean, variance)
	}
	for q, c := range quarter {
		if f := float64(c) / float64(len(p)); math.Abs(f-0.25) > 0.003 {
			t.Errorf("quarter %d holds %.4f of the draws, want 0.25", q, f)
		}
	}
	g := volume.NewGrid(64, 64, 64)
	sm := NewNoiseSmoother(g, NewRand(9, 2))
	var m, v2 float64
	tail := 0
	sd := math.Sqrt(1.0 / 27)
	for k := 0; k < 64; k++ {
		sl := sm.Next()
		if k == 0 || k == 63 {
			continue
		}
		for j := 1; j < 63; j++ {
			for i := 1; i < 63; i++ {
				x := sl[i+64*j]
				v2 += x * x
				m++
				if math.Abs(x) > 2*sd {
					tail++
				}
			}
		}
	}
	if got := v2 / m; math.Abs(got-1.0/27) > 0.002 {
		t.Errorf("smoothed interior variance %.4f, want 1/27 = %.4f", got, 1.0/27)
	}
	if f := float64(tail) / m; math.Abs(f-0.0455) > 0.004 {
		t.Errorf("%.4f of smoothed values beyond 2 SD, a Gaussian has 0.0455", f)
	}
}

// Ellipsoid visits exactly the voxels the per-voxel test accepts, in
// storage order, for centres on and off the grid, radii below a voxel and
// ellipsoids cut by the grid's faces.
func TestEllipsoidMatchesVoxelTest(t *testing.T) {
	r := NewRand(11, 1)
	g := volume.NewGrid(23, 17, 9)
	for trial := 0; trial < 500; trial++ {
		var c, rad [3]float64
		for a := 0; a < 3; a++ {
			n := float64(g.Shape[a])
			c[a] = -0.3*n + 1.6*n*r.Float64()
			rad[a] = 0.2 + n*r.Float64()
		}
		if trial%7 == 0 {
			c = [3]float64{11, 8, 4} // exactly on voxel centres: ties at the surface
			rad = [3]float64{float64(1 + trial%5), 2, 1}
		}
		var want []int
		for k := 0; k < g.Shape[2]; k++ {
			for j := 0; j < g.Shape[1]; j++ {
				for i := 0; i < g.Shape[0]; i++ {
					dx, dy, dz := (float64(i)-c[0])/rad[0], (float64(j)-c[1])/rad[1], (float64(k)-c[2])/rad[2]
					if dx*dx+dy*dy+dz*dz <= 1 {
						want = append(want, g.Index(i, j, k))
					}
				}
			}
		}
		var got []int
		Ellipsoid(g, c, rad, func(i int) { got = append(got, i) })
		if len(got) != len(want) {
			t.Fatalf("centre %v radii %v: %d voxels, the voxel test gives %d", c, rad, len(got), len(want))
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("centre %v radii %v: voxel %d is %d, want %d", c, rad, i, got[i], want[i])
			}
		}
	}
}
