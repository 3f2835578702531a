package medseg

import (
	"math"
	"math/rand/v2"
	"sort"

	"github.com/rexmle/rexmle/metrics/volume"
)

// NewRand returns the deterministic generator synthesizers use: PCG seeded
// from seed and a per-purpose stream number.
func NewRand(seed int64, stream uint64) *rand.Rand {
	return rand.New(rand.NewPCG(uint64(seed), stream))
}

// Ellipsoid calls fn with the linear index of every voxel of g whose centre
// lies inside the axis-aligned ellipsoid with centre c and radii r (both in
// voxel units, axis order of g), in storage order.
func Ellipsoid(g volume.Grid, c, r [3]float64, fn func(idx int)) {
	EllipsoidRows(g, c, r, func(start, end int) {
		for i := start; i < end; i++ {
			fn(i)
		}
	})
}

// EllipsoidRows is Ellipsoid a row at a time: fn gets the linear indices
// [start, end) of the voxels of each row (fixed y and z) inside the
// ellipsoid, rows in storage order. A voxel (i, j, k) is inside when
// dx² + dy² + dz² ≤ 1, dx = (i − c[0]) / r[0] and so on, computed in that
// order. Along a row the sum only grows with |i − c[0]|, so the voxels
// inside are a run around the one nearest the centre, whose ends a binary
// search finds with the same test.
func EllipsoidRows(g volume.Grid, c, r [3]float64, fn func(start, end int)) {
	var lo, hi [3]int
	for a := 0; a < 3; a++ {
		lo[a] = max(0, int(math.Floor(c[a]-r[a])))
		hi[a] = min(g.Shape[a]-1, int(math.Ceil(c[a]+r[a])))
	}
	if lo[0] > hi[0] {
		return
	}
	mid := min(hi[0], max(lo[0], int(math.Round(c[0]))))
	for k := lo[2]; k <= hi[2]; k++ {
		dz := (float64(k) - c[2]) / r[2]
		for j := lo[1]; j <= hi[1]; j++ {
			dy := (float64(j) - c[1]) / r[1]
			inside := func(i int) bool {
				dx := (float64(i) - c[0]) / r[0]
				return dx*dx+dy*dy+dz*dz <= 1
			}
			if !inside(mid) {
				continue
			}
			// first: the smallest i in [lo, mid] inside; last: the
			// largest in [mid, hi].
			first := lo[0] + sort.Search(mid-lo[0], func(n int) bool { return inside(lo[0] + n) })
			last := mid + sort.Search(hi[0]-mid, func(n int) bool { return !inside(mid + 1 + n) })
			row := g.Index(0, j, k)
			fn(row+first, row+last+1)
		}
	}
}

// Tube calls fn with the linear index of every voxel of g within radius
// (voxel units, after scaling axis a by scale[a]) of the polyline through
// pts. A voxel near several segments is visited once per segment.
func Tube(g volume.Grid, pts [][3]float64, radius float64, scale [3]float64, fn func(idx int)) {
	for s := 0; s+1 < len(pts); s++ {
		a, b := pts[s], pts[s+1]
		var lo, hi [3]int
		for ax := 0; ax < 3; ax++ {
			m := radius / scale[ax]
			lo[ax] = max(0, int(math.Floor(math.Min(a[ax], b[ax])-m)))
			hi[ax] = min(g.Shape[ax]-1, int(math.Ceil(math.Max(a[ax], b[ax])+m)))
		}
		var d [3]float64
		var dd float64
		for ax := 0; ax < 3; ax++ {
			d[ax] = (b[ax] - a[ax]) * scale[ax]
			dd += d[ax] * d[ax]
		}
		for k := lo[2]; k <= hi[2]; k++ {
			for j := lo[1]; j <= hi[1]; j++ {
				for i := lo[0]; i <= hi[0]; i++ {
					p := [3]float64{float64(i), float64(j), float64(k)}
					var w [3]float64
					var t float64
					for ax := 0; ax < 3; ax++ {
						w[ax] = (p[ax] - a[ax]) * scale[ax]
						t += w[ax] * d[ax]
					}
					if dd > 0 {
						t = math.Max(0, math.Min(1, t/dd))
					} else {
						t = 0
					}
					var dist2 float64
					for ax := 0; ax < 3; ax++ {
						e := w[ax] - t*d[ax]
						dist2 += e * e
					}
					if dist2 <= radius*radius {
						fn(g.Index(i, j, k))
					}
				}
			}
		}
	}
}

// Smooth returns a box-filtered copy of data on g (3×3×3 mean, edges
// clamped): the synthesizers use it to give noise some spatial texture.
func Smooth(g volume.Grid, data []float64) []float64 {
	out := make([]float64, len(data))
	nx, ny, nz := g.Shape[0], g.Shape[1], g.Shape[2]
	for k := 0; k < nz; k++ {
		for j := 0; j < ny; j++ {
			for i := 0; i < nx; i++ {
				var s float64
				var n int
				for dk := -1; dk <= 1; dk++ {
					kk := k + dk
					if kk < 0 || kk >= nz {
						continue
					}
					for dj := -1; dj <= 1; dj++ {
						jj := j + dj
						if jj < 0 || jj >= ny {
							continue
						}
						for di := -1; di <= 1; di++ {
							ii := i + di
							if ii < 0 || ii >= nx {
								continue
							}
							s += data[g.Index(ii, jj, kk)]
							n++
						}
					}
				}
				out[g.Index(i, j, k)] = s / float64(n)
			}
		}
	}
	return out
}

// SmoothSeparable is Smooth computed as three 1-D passes (the clamped 3×3×3
// mean is the product of clamped 3-tap means): the same values up to float
// rounding, in a fraction of the time, for real-size volumes. The demo's
// data keep Smooth, whose rounding their recorded digests pin. It is
// SliceSmoother's arithmetic, over the whole volume.
func SmoothSeparable(g volume.Grid, data []float64) []float64 {
	plane := g.Shape[0] * g.Shape[1]
	s := NewSliceSmoother(g, func(k int, p []float64) { copy(p, data[k*plane:(k+1)*plane]) })
	out := make([]float64, len(data))
	for k := 0; k < g.Shape[2]; k++ {
		copy(out[k*plane:], s.Next())
	}
	return out
}

// SliceSmoother is SmoothSeparable one z-slice at a time: fill writes
// slice k of the input into a plane (called once per slice, in order, one
// slice ahead of Next), and Next returns the smoothed slices in order. It
// holds five planes, not the volume. The neighbours are summed along x,
// then y, then z, and the sum is scaled once by the reciprocal of the
// number of neighbours inside the grid.
type SliceSmoother struct {
	nx, ny, nz int
	fill       func(k int, plane []float64)
	xy         [3][]float64 // x-then-y neighbour sums of input slices, slice k at k mod 3
	raw, out   []float64
	scale      [3][3][]float64 // [y count−1][z count−1][x]: 1 / (x·y·z counts)
	next       int             // the slice Next returns
	filled     int             // slices filled so far
}

// NewSliceSmoother returns a smoother of the volume on g whose slices fill
// writes.
func NewSliceSmoother(g volume.Grid, fill func(k int, plane []float64)) *SliceSmoother {
	nx, ny := g.Shape[0], g.Shape[1]
	s := &SliceSmoother{nx: nx, ny: ny, nz: g.Shape[2], fill: fill, raw: make([]float64, nx*ny), out: make([]float64, nx*ny)}
	for i := range s.xy {
		s.xy[i] = make([]float64, nx*ny)
	}
	for cy := 1; cy <= 3; cy++ {
		for cz := 1; cz <= 3; cz++ {
			row := make([]float64, nx)
			for i := range row {
				row[i] = 1 / float64(taps(i, nx)*cy*cz)
			}
			s.scale[cy-1][cz-1] = row
		}
	}
	return s
}

// taps is how many of i−1, i, i+1 lie in [0, n).
func taps(i, n int) int {
	c := 1
	if i > 0 {
		c++
	}
	if i+1 < n {
		c++
	}
	return c
}

// Next returns the next smoothed slice; it is overwritten by the following
// call. Calling it more than Shape[2] times panics.
func (s *SliceSmoother) Next() []float64 {
	k := s.next
	if k >= s.nz {
		panic("medseg: SliceSmoother.Next past the last slice")
	}
	for s.filled <= min(k+1, s.nz-1) {
		s.sumXY(s.filled)
		s.filled++
	}
	out := s.out
	sum3(out, s.xy[k%3], k > 0, s.xy[(k+2)%3], k+1 < s.nz, s.xy[(k+1)%3])
	scales := s.scale[:]
	cz := taps(k, s.nz)
	for j := 0; j < s.ny; j++ {
		row := out[j*s.nx : (j+1)*s.nx]
		scale := scales[taps(j, s.ny)-1][cz-1][:len(row)]
		for i := range row {
			row[i] *= scale[i]
		}
	}
	s.next++
	return out
}

// sum3 sets out to mid plus prev (when hasPrev) plus next (when hasNext).
func sum3(out, mid []float64, hasPrev bool, prev []float64, hasNext bool, next []float64) {
	switch {
	case hasPrev && hasNext:
		prev, next = prev[:len(mid)], next[:len(mid)]
		out = out[:len(mid)]
		for i, v := range mid {
			out[i] = prev[i] + v + next[i]
		}
	case hasPrev:
		prev = prev[:len(mid)]
		out = out[:len(mid)]
		for i, v := range mid {
			out[i] = prev[i] + v
		}
	case hasNext:
		next = next[:len(mid)]
		out = out[:len(mid)]
		for i, v := range mid {
			out[i] = v + next[i]
		}
	default:
		copy(out, mid)
	}
}

// sumXY fills slice k and sums each voxel's neighbours along x (each row),
// then along y, into its xy plane.
func (s *SliceSmoother) sumXY(k int) {
	nx, ny := s.nx, s.ny
	s.fill(k, s.raw)
	tmp, dst := s.out, s.xy[k%3]
	for r := 0; r+nx <= len(s.raw); r += nx {
		row, out := s.raw[r:r+nx], tmp[r:r+nx]
		if nx == 1 {
			out[0] = row[0]
			continue
		}
		out[0] = row[0] + row[1]
		for i := 1; i+1 < nx; i++ {
			out[i] = row[i-1] + row[i] + row[i+1]
		}
		out[nx-1] = row[nx-2] + row[nx-1]
	}
	for j := 0; j < ny; j++ {
		base := j * nx
		sum3(dst[base:base+nx], tmp[base:base+nx], j > 0, tmp[max(0, base-nx):base], j+1 < ny, tmp[min(len(tmp), base+nx):min(len(tmp), base+2*nx)])
	}
}

// NewNoiseSmoother is a SliceSmoother of unit-variance noise drawn from
// rng in storage order (UnitNoise): SmoothSeparable over a volume of such
// draws, without the volume.
func NewNoiseSmoother(g volume.Grid, rng *rand.Rand) *SliceSmoother {
	return NewSliceSmoother(g, func(_ int, p []float64) { UnitNoise(rng, p) })
}

// UnitNoise fills p with independent uniform draws of mean 0 and variance 1
// (on ±√3), two from each 64-bit draw of rng. Smoothed by the 3×3×3 mean,
// 27 of them sum to a field as Gaussian as unit normals would give (the
// excess kurtosis of the sum is −1.2/27 ≈ −0.04) at a third of the cost.
func UnitNoise(rng *rand.Rand, p []float64) {
	const sqrt3 = 1.7320508075688772
	const scale = 2 * sqrt3 / (1 << 32)
	i := 0
	for ; i+1 < len(p); i += 2 {
		u := rng.Uint64()
		p[i] = float64(u>>32)*scale - sqrt3
		p[i+1] = float64(u&(1<<32-1))*scale - sqrt3
	}
	if i < len(p) {
		p[i] = float64(rng.Uint64()>>32)*scale - sqrt3
	}
}
