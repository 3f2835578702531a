package distance

import (
	"fmt"
	"math"

	"github.com/rexmle/rexmle/metrics/bytescan"
	"github.com/rexmle/rexmle/metrics/internal/boolbytes"
	"github.com/rexmle/rexmle/metrics/internal/parallel"
	"github.com/rexmle/rexmle/metrics/num"
	"github.com/rexmle/rexmle/metrics/volume"
)

// Direction selects which surface distances a Hausdorff-type measure uses.
type Direction int

const (
	// Symmetric uses both directions (MONAI directed=False).
	Symmetric Direction = iota
	// PredToTruth uses the distances from prediction edges to truth edges
	// only (MONAI directed=True; the ReX-MLE SEG.A./TopCoW/TopBrain graders).
	PredToTruth
	// TruthToPred uses the distances from truth edges to prediction edges only.
	TruthToPred
)

// MONAIOptions configures the MONAI-style edge distances.
type MONAIOptions struct {
	// Connectivity of the erosion that defines edges: 0 means 6, the scipy
	// default cross of a 3D array, which is what MONAI get_mask_edges uses
	// on volumes. 4/8 need a 2D grid (Shape[2] == 1) and treat it as a 2D
	// image; 6/18/26 treat any grid as 3D, so on a single-slice grid the
	// out-of-array axis-2 neighbours make every voxel an edge voxel —
	// exactly what MONAI does on a numpy volume with one slice. Pass 4 (or
	// 8) for true 2D images.
	Connectivity int
	// VoxelUnits ignores the grid spacing (MONAI spacing=None).
	VoxelUnits bool
	// Float32 rounds every distance to float32 as MONAI ≥ 1.3 does.
	Float32 bool
}

// bbox is an inclusive index box.
type bbox struct{ lo, hi [3]int }

// unionBox returns the bounding box of a ∪ b (b may be nil), and false
// when both are empty. Planes along axis 2 are scanned concurrently, rows
// eight voxels a word (bytescan).
func unionBox(a, b []bool, g volume.Grid) (bbox, bool) {
	n0, n1, n2 := g.Shape[0], g.Shape[1], g.Shape[2]
	ab, bb := boolbytes.Of(a), boolbytes.Of(b)
	workers := parallel.Workers(n2, 1)
	boxes := make([]bbox, workers)
	found := make([]bool, workers)
	parallel.Blocks(n2, 1, func(w, klo, khi int) {
		box := bbox{lo: g.Shape, hi: [3]int{-1, -1, -1}}
		for k := klo; k < khi; k++ {
			for j := 0; j < n1; j++ {
				row := (j + n1*k) * n0
				ra := ab[row : row+n0]
				first, last := bytescan.FirstOther(ra, 0), bytescan.LastOther(ra, 0)
				if bb != nil {
					rb := bb[row : row+n0]
					first, last = min(first, bytescan.FirstOther(rb, 0)), max(last, bytescan.LastOther(rb, 0))
				}
				if last < 0 {
					continue
				}
				box.lo[0], box.hi[0] = min(box.lo[0], first), max(box.hi[0], last)
				box.lo[1], box.hi[1] = min(box.lo[1], j), max(box.hi[1], j)
				box.lo[2], box.hi[2] = min(box.lo[2], k), max(box.hi[2], k)
				found[w] = true
			}
		}
		boxes[w] = box
	})
	box := bbox{lo: g.Shape, hi: [3]int{-1, -1, -1}}
	any := false
	for w := range boxes {
		if !found[w] {
			continue
		}
		any = true
		for ax := 0; ax < 3; ax++ {
			box.lo[ax] = min(box.lo[ax], boxes[w].lo[ax])
			box.hi[ax] = max(box.hi[ax], boxes[w].hi[ax])
		}
	}
	return box, any
}

// crop copies the box of mask, widened by margin voxels (clamped to the
// array), into a new mask; it returns the new grid and the origin of the
// crop in the old grid.
func crop(mask []bool, g volume.Grid, box bbox, margin int) ([]bool, volume.Grid) {
	var lo, hi [3]int
	cg := g
	for ax := 0; ax < 3; ax++ {
		lo[ax] = max(box.lo[ax]-margin, 0)
		hi[ax] = min(box.hi[ax]+margin, g.Shape[ax]-1)
		cg.Shape[ax] = hi[ax] - lo[ax] + 1
	}
	out := make([]bool, cg.Len())
	p := 0
	for k := lo[2]; k <= hi[2]; k++ {
		for j := lo[1]; j <= hi[1]; j++ {
			base := g.Index(0, j, k)
			p += copy(out[p:p+cg.Shape[0]], mask[base+lo[0]:base+hi[0]+1])
		}
	}
	return out, cg
}

// EdgeDistances follows MONAI get_mask_edges + get_surface_distance(from
// edges, to edges): the edges of a mask are its true voxels with at least
// one neighbour (opt.Connectivity) that is false or outside the array, i.e.
// mask AND NOT its scipy binary_erosion with border_value 0; for
// every edge voxel of from, in storage order (= numpy C order), the result
// holds the Euclidean distance in spacing units from its centre to the
// nearest edge voxel centre of to (scipy EDT of the complement of the to
// edges, squared terms summed in numpy axis order), rounded to float32 when
// opt.Float32.
//
// Empty cases follow current MONAI: no edges anywhere → empty slice; to has
// no edge → +Inf for every from edge voxel; from has no edge but to has →
// one +Inf per to edge voxel (a MONAI quirk: it indexes with the wrong mask).
// Graders normally decide empty cases themselves before calling this.
// Both masks are cropped to the bounding box of their union plus one voxel,
// which changes neither the edges nor any distance.
func EdgeDistances(from, to []bool, g volume.Grid, opt MONAIOptions) ([]float64, error) {
	if err := checkMask("edge distances (from)", from, g); err != nil {
		return nil, err
	}
	if err := checkMask("edge distances (to)", to, g); err != nil {
		return nil, err
	}
	nb, err := structure(opt.Connectivity, g)
	if err != nil {
		return nil, fmt.Errorf("edge distances: %w", err)
	}
	box, ok := unionBox(from, to, g)
	if !ok {
		return []float64{}, nil
	}
	cf, cg := crop(from, g, box, 1)
	ct, _ := crop(to, g, box, 1)
	if opt.VoxelUnits {
		cg = UnitSpacing(cg)
	}
	fromEdges := make([]bool, len(cf))
	toEdges := make([]bool, len(ct))
	erode(cf, fromEdges, cg, nb, true)
	erode(ct, toEdges, cg, nb, true)
	nFrom, nTo := countTrue(fromEdges), countTrue(toEdges)
	if nTo == 0 || nFrom == 0 {
		n := nFrom // to has no edge: +Inf per from edge voxel
		if nTo > 0 {
			n = nTo // from has no edge: MONAI's quirk
		}
		out := make([]float64, n)
		for i := range out {
			out[i] = math.Inf(1)
		}
		return out, nil
	}
	dist := squaredEDT(toEdges, false, cg)
	out := make([]float64, 0, nFrom)
	for i, e := range fromEdges {
		if e {
			d := math.Sqrt(dist[i])
			if opt.Float32 {
				d = float64(float32(d))
			}
			out = append(out, d)
		}
	}
	return out, nil
}

func countTrue(m []bool) int {
	n := 0
	for _, v := range m {
		if v {
			n++
		}
	}
	return n
}

// directedDistances returns the distance lists a Direction asks for.
func directedDistances(pred, truth []bool, g volume.Grid, dir Direction, opt MONAIOptions) ([][]float64, error) {
	var out [][]float64
	if dir == Symmetric || dir == PredToTruth {
		d, err := EdgeDistances(pred, truth, g, opt)
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	if dir == Symmetric || dir == TruthToPred {
		d, err := EdgeDistances(truth, pred, g, opt)
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("unknown direction %d", dir)
	}
	return out, nil
}

// MONAIHausdorff is the (percentile) Hausdorff distance of MONAI-style edge
// distances. For each direction used (see Direction) it takes the distance
// list from EdgeDistances and reduces it: percentile ≥ 100 → the maximum
// (MONAI percentile=None); otherwise numpy.percentile linear
// (num.Percentile, or num.PercentileFloat32 when opt.Float32 — numpy 1.x
// on MONAI's float32 distances, as the ReX-MLE graders call it). An empty
// list gives NaN. Symmetric returns the larger of the two values, NaN if
// either is NaN. Examples: SEG.A. HD = MONAIHausdorff(pred, truth,
// UnitSpacing(g), 100, PredToTruth, {Float32: true}); TopCoW/TopBrain HD95 =
// MONAIHausdorff(pred, truth, g, 95, PredToTruth, {Float32: true}).
func MONAIHausdorff(pred, truth []bool, g volume.Grid, percentile float64, dir Direction, opt MONAIOptions) (float64, error) {
	lists, err := directedDistances(pred, truth, g, dir, opt)
	if err != nil {
		return 0, fmt.Errorf("hausdorff: %w", err)
	}
	best := math.Inf(-1)
	for _, d := range lists {
		var v float64
		switch {
		case len(d) == 0:
			v = math.NaN()
		case percentile >= 100:
			v = Max(d)
		case opt.Float32:
			v = num.PercentileFloat32(d, percentile)
		default:
			v = num.Percentile(d, percentile)
		}
		if math.IsNaN(v) {
			return math.NaN(), nil
		}
		best = math.Max(best, v)
	}
	return best, nil
}
