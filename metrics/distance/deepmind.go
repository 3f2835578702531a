package distance

import (
	"cmp"
	"math"
	"slices"

	"github.com/rexmle/rexmle/metrics/internal/boolbytes"
	"github.com/rexmle/rexmle/metrics/num"
	"github.com/rexmle/rexmle/metrics/volume"
)

// Surface is one side of a DeepMind surface-distance comparison: for every
// surface element (surfel) of one mask, its distance to the other mask's
// surface and its area, sorted ascending by distance, then by area.
type Surface struct {
	Distances, Areas []float64
}

// SurfaceDistances is the result of DeepMindSurfaceDistances.
type SurfaceDistances struct {
	TruthToPred, PredToTruth Surface
}

// SurfelArea is the area of the marching-cubes surface of one 2×2×2
// neighbour code with voxel spacing given in numpy axis order (storage axes
// reversed): Σ over the code's normals n of
// sqrt((n0·s1·s2)² + (n1·s0·s2)² + (n2·s0·s1)²), as DeepMind
// create_table_neighbour_code_to_surface_area computes it. Unit spacing:
// a single-voxel code has area √3/8, code 3 has √2/2.
func SurfelArea(code uint8, spacing [3]float64) float64 {
	sum := 0.0
	for _, n := range neighbourCodeNormals[code] {
		a := n[0] * spacing[1] * spacing[2]
		b := n[1] * spacing[0] * spacing[2]
		c := n[2] * spacing[0] * spacing[1]
		sum += math.Sqrt(a*a + b*b + c*c)
	}
	return sum
}

// DeepMindSurfaceDistances reproduces DeepMind surface-distance
// compute_surface_distances(truth, pred, spacing) on the numpy view of a 3D
// grid (a single-slice grid is a 3D volume one voxel thick).
//
// Both masks are cropped to the bounding box of their union. Surfels live on
// the lattice of voxel corners: corner c touches the 8 voxels c − e,
// e ∈ {0,1}³ (outside the box = background); its neighbour code has bit
// 2^(7 − (4·e_numpy0 + 2·e_numpy1 + e_numpy2)) set for each true voxel, and c
// is a surfel of the mask iff 0 < code < 255, with area SurfelArea(code).
// Each surfel's distance is the exact Euclidean distance in spacing units
// (numpy-axis summation order) to the nearest surfel corner of the other
// mask, +Inf if the other mask has none. Both sides are sorted by
// (distance, area). Two empty masks give four empty lists; one empty mask
// gives an empty side and +Inf distances on the other.
func DeepMindSurfaceDistances(truth, pred []bool, g volume.Grid) (SurfaceDistances, error) {
	if err := checkMask("surface distances (truth)", truth, g); err != nil {
		return SurfaceDistances{}, err
	}
	if err := checkMask("surface distances (prediction)", pred, g); err != nil {
		return SurfaceDistances{}, err
	}
	box, ok := unionBox(truth, pred, g)
	if !ok {
		return SurfaceDistances{TruthToPred: Surface{Distances: []float64{}, Areas: []float64{}},
			PredToTruth: Surface{Distances: []float64{}, Areas: []float64{}}}, nil
	}
	// Corner lattice: corner (ci, cj, ck) in the crop touches voxels
	// lo + (ci−1+e0, cj−1+e1, ck−1+e2).
	var lg volume.Grid
	for ax := 0; ax < 3; ax++ {
		lg.Shape[ax] = box.hi[ax] - box.lo[ax] + 2
	}
	lg.Spacing = g.Spacing
	npSpacing := [3]float64{g.Spacing[2], g.Spacing[1], g.Spacing[0]}
	var area [256]float64
	for c := 0; c < 256; c++ {
		area[c] = SurfelArea(uint8(c), npSpacing)
	}
	codeT := cornerCodes(truth, g, box, lg)
	codeP := cornerCodes(pred, g, box, lg)
	borderT := make([]bool, len(codeT))
	borderP := make([]bool, len(codeP))
	anyT, anyP := false, false
	for i := range codeT {
		borderT[i] = codeT[i] != 0 && codeT[i] != 255
		borderP[i] = codeP[i] != 0 && codeP[i] != 255
		anyT = anyT || borderT[i]
		anyP = anyP || borderP[i]
	}
	side := func(border []bool, code []uint8, other []bool, otherAny bool) Surface {
		var dist []float64
		if otherAny {
			dist = squaredEDT(other, false, lg)
		}
		var ps []surfel
		for i, b := range border {
			if !b {
				continue
			}
			d := math.Inf(1)
			if dist != nil {
				d = math.Sqrt(dist[i])
			}
			ps = append(ps, surfel{d, area[code[i]]})
		}
		return sortedSurface(ps)
	}
	return SurfaceDistances{
		TruthToPred: side(borderT, codeT, borderP, anyP),
		PredToTruth: side(borderP, codeP, borderT, anyT),
	}, nil
}

// cornerCodes computes the 2×2×2 neighbour code of every corner of the
// lattice lg for the part of mask inside box.
func cornerCodes(mask []bool, g volume.Grid, box bbox, lg volume.Grid) []uint8 {
	m0, m1, m2 := lg.Shape[0], lg.Shape[1], lg.Shape[2]
	// padded[x] = mask[lo + x − 1] inside the box, false elsewhere; shape m+1.
	p0, p1, p2 := m0+1, m1+1, m2+1
	padded := make([]bool, p0*p1*p2)
	w := box.hi[0] - box.lo[0] + 1
	for k := box.lo[2]; k <= box.hi[2]; k++ {
		for j := box.lo[1]; j <= box.hi[1]; j++ {
			src := mask[g.Index(box.lo[0], j, k):][:w]
			dst := padded[1+p0*((j-box.lo[1]+1)+p1*(k-box.lo[2]+1)):][:w]
			copy(dst, src)
		}
	}
	// Corner c reads the voxels c − 1 + e, e ∈ {0,1}³ (storage axes), i.e.
	// padded[c + e]; in numpy axes that offset is (e2, e1, e0), so the
	// voxel's bit is 2^(7 − (4·e2 + 2·e1 + e0)): a corner row reads four
	// padded rows (e1, e2), two neighbouring voxels (e0) of each.
	pb := boolbytes.Of(padded)
	codes := make([]uint8, lg.Len())
	parallelFor(m2, func(klo, khi int) {
		for ck := klo; ck < khi; ck++ {
			for cj := 0; cj < m1; cj++ {
				r00 := pb[p0*(cj+p1*ck):][:p0]       // e1 = 0, e2 = 0: bits 7, 6
				r10 := pb[p0*(cj+1+p1*ck):][:p0]     // e1 = 1, e2 = 0: bits 5, 4
				r01 := pb[p0*(cj+p1*(ck+1)):][:p0]   // e1 = 0, e2 = 1: bits 3, 2
				r11 := pb[p0*(cj+1+p1*(ck+1)):][:p0] // e1 = 1, e2 = 1: bits 1, 0
				out := codes[m0*(cj+m1*ck):][:m0]
				for ci := range out {
					out[ci] = r00[ci]<<7 | r00[ci+1]<<6 | r10[ci]<<5 | r10[ci+1]<<4 |
						r01[ci]<<3 | r01[ci+1]<<2 | r11[ci]<<1 | r11[ci+1]
				}
			}
		}
	})
	return codes
}

// surfel is one surface element of a side: its distance and its area.
type surfel struct{ d, a float64 }

// sortedSurface sorts the surfels by distance, then area, and returns them
// as a Surface. Surfels equal in both are interchangeable, so the result
// does not depend on the sort algorithm.
func sortedSurface(ps []surfel) Surface {
	slices.SortFunc(ps, func(x, y surfel) int {
		if c := cmp.Compare(x.d, y.d); c != 0 {
			return c
		}
		return cmp.Compare(x.a, y.a)
	})
	s := Surface{Distances: make([]float64, len(ps)), Areas: make([]float64, len(ps))}
	for i, p := range ps {
		s.Distances[i], s.Areas[i] = p.d, p.a
	}
	return s
}

// Percentile is DeepMind's area-weighted percentile of one side:
// C_i = (a_0 + … + a_i) / Σa (running sum, total by numpy pairwise
// summation); the result is d[min(idx, n−1)] with idx the first i where
// C_i ≥ percent/100. +Inf for an empty side.
func (s Surface) Percentile(percent float64) float64 {
	n := len(s.Distances)
	if n == 0 {
		return math.Inf(1)
	}
	total := num.Sum(s.Areas)
	target := percent / 100.0
	cum := 0.0
	idx := n
	for i, a := range s.Areas {
		cum += a
		if cum/total >= target {
			idx = i
			break
		}
	}
	return s.Distances[min(idx, n-1)]
}

// Mean is the area-weighted mean distance Σ d·a / Σ a (numpy pairwise
// sums); NaN (0/0) for an empty side, +Inf if a distance is infinite.
func (s Surface) Mean() float64 {
	prod := make([]float64, len(s.Distances))
	for i := range prod {
		prod[i] = s.Distances[i] * s.Areas[i]
	}
	return num.Sum(prod) / num.Sum(s.Areas)
}

// Within returns the total area of the surfels with distance ≤ tolerance
// (inclusive) and the total area of the side.
func (s Surface) Within(tolerance float64) (within, total float64) {
	var sel []float64
	for i, d := range s.Distances {
		if d <= tolerance {
			sel = append(sel, s.Areas[i])
		}
	}
	return num.Sum(sel), num.Sum(s.Areas)
}

// RobustHausdorff is DeepMind compute_robust_hausdorff: the larger of the two
// sides' Percentile(percent) (+Inf when a side is empty).
func (d SurfaceDistances) RobustHausdorff(percent float64) float64 {
	a, b := d.TruthToPred.Percentile(percent), d.PredToTruth.Percentile(percent)
	if b > a {
		return b
	}
	return a
}

// AverageSurfaceDistance is DeepMind compute_average_surface_distance: the
// area-weighted mean distance truth→prediction and prediction→truth.
func (d SurfaceDistances) AverageSurfaceDistance() (truthToPred, predToTruth float64) {
	return d.TruthToPred.Mean(), d.PredToTruth.Mean()
}

// MeanAverageSurfaceDistance is the mean of the two AverageSurfaceDistance
// values (MASD as PANTHER reports it); NaN if a side is empty.
func (d SurfaceDistances) MeanAverageSurfaceDistance() float64 {
	a, b := d.AverageSurfaceDistance()
	return (a + b) / 2
}

// SurfaceDice is DeepMind compute_surface_dice_at_tolerance: (area of truth
// surfels within tolerance + area of prediction surfels within tolerance) /
// (total truth area + total prediction area); NaN when both are empty.
func (d SurfaceDistances) SurfaceDice(tolerance float64) float64 {
	wt, tt := d.TruthToPred.Within(tolerance)
	wp, tp := d.PredToTruth.Within(tolerance)
	return (wt + wp) / (tt + tp)
}
