package distance

import (
	"fmt"
	"math"

	"github.com/rexmle/rexmle/metrics/internal/parallel"

	"github.com/rexmle/rexmle/metrics/volume"
)

// UnitSpacing returns g with every spacing set to 1, so that distances come
// out in voxel index units.
func UnitSpacing(g volume.Grid) volume.Grid {
	g.Spacing = [3]float64{1, 1, 1}
	return g
}

func checkMask(what string, mask []bool, g volume.Grid) error {
	if err := g.Validate(); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if len(mask) != g.Len() {
		return fmt.Errorf("%s: mask has %d voxels, grid %v needs %d", what, len(mask), g.Shape, g.Len())
	}
	return nil
}

// parallelFor runs f over [0, n) in contiguous blocks, one per core.
func parallelFor(n int, f func(lo, hi int)) { parallel.For(n, 1, f) }

// blockWidth is how many neighbouring lines along axis 0 are transformed
// together in the strided passes, so memory is read in contiguous runs.
const blockWidth = 32

// squaredEDT returns, for every voxel, the squared Euclidean distance (in
// spacing units) to the nearest feature voxel, where a feature is
// mask[i] != invert: 0 on the features, +Inf everywhere when there is none.
//
// The transform is exact and separable (Felzenszwalb & Huttenlocher 2012):
// one pass per axis, in the order storage axis 2, 1, 0 (numpy axes 0, 1, 2),
// so the squared terms are summed as ((Δ2·s2)² + (Δ1·s1)²) + (Δ0·s0)², the
// order scipy.ndimage.distance_transform_edt uses on the numpy view. Lines
// are processed concurrently with GOMAXPROCS goroutines.
func squaredEDT(mask []bool, invert bool, g volume.Grid) []float64 {
	n0, n1, n2 := g.Shape[0], g.Shape[1], g.Shape[2]
	s0, s1, s2 := g.Spacing[0], g.Spacing[1], g.Spacing[2]
	stride1, stride2 := n0, n0*n1
	d := make([]float64, len(mask))
	inf := math.Inf(1)

	// Pass 1, along axis 2: distance to the nearest feature on the same
	// (i, j) line, by a forward and a backward sweep over whole planes (so
	// memory is read sequentially). Workers own contiguous parts of the plane.
	parallelFor(stride2, func(plo, phi int) {
		w := phi - plo
		last := make([]int32, w)
		for p := range last {
			last[p] = -1
		}
		for k := 0; k < n2; k++ {
			m := mask[k*stride2+plo : k*stride2+phi]
			row := d[k*stride2+plo : k*stride2+phi]
			for p := range row {
				switch {
				case m[p] != invert:
					last[p] = int32(k)
					row[p] = 0
				case last[p] >= 0:
					t := float64(k-int(last[p])) * s2
					row[p] = t * t
				default:
					row[p] = inf
				}
			}
		}
		if n2 == 1 {
			return
		}
		for p := range last {
			last[p] = -1
		}
		for k := n2 - 1; k >= 0; k-- {
			m := mask[k*stride2+plo : k*stride2+phi]
			row := d[k*stride2+plo : k*stride2+phi]
			for p := range row {
				if m[p] != invert {
					last[p] = int32(k)
				} else if last[p] >= 0 {
					t := float64(int(last[p])-k) * s2
					if t*t < row[p] {
						row[p] = t * t
					}
				}
			}
		}
	})

	// Pass 2, along axis 1 (stride n0), parallel over k, in blocks of
	// neighbouring i.
	if n1 > 1 {
		parallelFor(n2, func(klo, khi int) {
			e := newEnvelope(n1)
			buf := make([]float64, n1*blockWidth)
			for k := klo; k < khi; k++ {
				for i0 := 0; i0 < n0; i0 += blockWidth {
					w := min(blockWidth, n0-i0)
					base := i0 + k*stride2
					for j := 0; j < n1; j++ {
						copy(buf[j*blockWidth:j*blockWidth+w], d[base+j*stride1:base+j*stride1+w])
					}
					for b := 0; b < w; b++ {
						e.transform(buf[b:], blockWidth, n1, s1)
					}
					for j := 0; j < n1; j++ {
						copy(d[base+j*stride1:base+j*stride1+w], buf[j*blockWidth:j*blockWidth+w])
					}
				}
			}
		})
	}

	// Pass 3, along axis 0 (contiguous lines), parallel over (j, k).
	if n0 > 1 {
		parallelFor(n1*n2, func(lo, hi int) {
			e := newEnvelope(n0)
			for line := lo; line < hi; line++ {
				e.transform(d[line*n0:], 1, n0, s0)
			}
		})
	}
	return d
}

// envelope holds the scratch space of the 1D lower-envelope transform.
type envelope struct {
	v []int     // positions of the parabolas in the envelope
	z []float64 // boundaries between them (in spacing units)
	f []float64 // copy of the input line
}

func newEnvelope(n int) *envelope {
	return &envelope{v: make([]int, n), z: make([]float64, n+1), f: make([]float64, n)}
}

// transform replaces the n values line[0], line[step], … (squared distances
// so far, +Inf where unknown) with min over q of line[q] + ((p−q)·s)², the
// earlier value added first. Infinite entries take no part in the envelope.
func (e *envelope) transform(line []float64, step, n int, s float64) {
	f := e.f
	for q := 0; q < n; q++ {
		f[q] = line[q*step]
	}
	v, z := e.v, e.z
	kk := -1
	for q := 0; q < n; q++ {
		if math.IsInf(f[q], 1) {
			continue
		}
		xq := float64(q) * s
		if kk < 0 {
			kk = 0
			v[0] = q
			z[0] = math.Inf(-1)
			z[1] = math.Inf(1)
			continue
		}
		// Drop parabolas hidden by the new one (z[0] = −Inf stops the loop).
		var sep float64
		for {
			r := v[kk]
			xr := float64(r) * s
			sep = ((f[q] + xq*xq) - (f[r] + xr*xr)) / (2 * (xq - xr))
			if sep > z[kk] {
				break
			}
			kk--
		}
		kk++
		v[kk] = q
		z[kk] = sep
		z[kk+1] = math.Inf(1)
	}
	if kk < 0 {
		return // no finite value on this line: all stay +Inf
	}
	j := 0
	for p := 0; p < n; p++ {
		xp := float64(p) * s
		for z[j+1] < xp {
			j++
		}
		t := float64(p-v[j]) * s
		line[p*step] = f[v[j]] + t*t
	}
}
