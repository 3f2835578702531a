package topcowcommon

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"sync"

	"github.com/rexmle/rexmle/metrics/num"

	"github.com/rexmle/rexmle/metrics/components"
	"github.com/rexmle/rexmle/metrics/distance"
	"github.com/rexmle/rexmle/metrics/skeleton"
	"github.com/rexmle/rexmle/metrics/topology"
	"github.com/rexmle/rexmle/metrics/volume"
	"github.com/rexmle/rexmle/pipeline/challenge"
)

// box is an inclusive index box; empty when hi[0] < lo[0].
type box struct{ lo, hi [3]int }

func emptyBox() box {
	return box{lo: [3]int{math.MaxInt, math.MaxInt, math.MaxInt}, hi: [3]int{-1, -1, -1}}
}

func (b box) empty() bool { return b.hi[0] < 0 }

func (b box) union(o box) box {
	for a := 0; a < 3; a++ {
		b.lo[a] = min(b.lo[a], o.lo[a])
		b.hi[a] = max(b.hi[a], o.hi[a])
	}
	return b
}

// labelStat holds the voxel counts and boxes of one label in a GT and a
// prediction: |G|, |P|, |G∩P|.
type labelStat struct {
	g, p, inter int
	gBox, pBox  box
}

// scanLabels counts every label of both maps in one parallel pass.
func scanLabels(gt, pred []uint8, shape [3]int) *[256]labelStat {
	workers := max(1, min(runtime.GOMAXPROCS(0), shape[2]))
	parts := make([]*[256]labelStat, workers)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			st := new([256]labelStat)
			for l := range st {
				st[l].gBox, st[l].pBox = emptyBox(), emptyBox()
			}
			for z := w * shape[2] / workers; z < (w+1)*shape[2]/workers; z++ {
				for y := 0; y < shape[1]; y++ {
					base := shape[0] * (y + shape[1]*z)
					for x := 0; x < shape[0]; x++ {
						g, p := gt[base+x], pred[base+x]
						if g|p == 0 {
							continue
						}
						if g != 0 {
							s := &st[g]
							s.g++
							grow(&s.gBox, x, y, z)
						}
						if p != 0 {
							s := &st[p]
							s.p++
							grow(&s.pBox, x, y, z)
							if p == g {
								s.inter++
							}
						}
					}
				}
			}
			parts[w] = st
		}(w)
	}
	wg.Wait()
	out := parts[0]
	for _, st := range parts[1:] {
		for l := range st {
			o := &out[l]
			o.g += st[l].g
			o.p += st[l].p
			o.inter += st[l].inter
			o.gBox = o.gBox.union(st[l].gBox)
			o.pBox = o.pBox.union(st[l].pBox)
		}
	}
	return out
}

func grow(b *box, x, y, z int) {
	c := [3]int{x, y, z}
	for a := 0; a < 3; a++ {
		if c[a] < b.lo[a] {
			b.lo[a] = c[a]
		}
		if c[a] > b.hi[a] {
			b.hi[a] = c[a]
		}
	}
}

// cropPair extracts the masks of GT==lg and pred==lp (lg, lp of 0 mean
// "any non-zero label") inside the box widened by one voxel (clipped to the
// array): a margin that changes no component count, edge, distance or Lee
// skeleton, and keeps every axis longer than one voxel when the array's is.
func cropPair(gt, pred []uint8, shape [3]int, spacing [3]float64, b box, label uint8) (g, p []bool, grid volume.Grid) {
	var lo, hi [3]int
	grid.Spacing = spacing
	for a := 0; a < 3; a++ {
		lo[a] = max(0, b.lo[a]-1)
		hi[a] = min(shape[a]-1, b.hi[a]+1)
		grid.Shape[a] = hi[a] - lo[a] + 1
	}
	n := grid.Len()
	g, p = make([]bool, n), make([]bool, n)
	i := 0
	for z := lo[2]; z <= hi[2]; z++ {
		for y := lo[1]; y <= hi[1]; y++ {
			base := shape[0] * (y + shape[1]*z)
			for x := lo[0]; x <= hi[0]; x++ {
				gv, pv := gt[base+x], pred[base+x]
				if label == 0 {
					g[i], p[i] = gv != 0, pv != 0
				} else {
					g[i], p[i] = gv == label, pv == label
				}
				i++
			}
		}
	}
	return g, p, grid
}

// labelResult holds the per-label values of one case.
type labelResult struct {
	b0Err  float64
	hd95   float64
	hd     float64 // official HD100 (NaN in reference mode)
	clDice float64
}

// hausdorffs returns the TopCoW/TopBrain HD95 of one label pair (both
// non-empty) — reference: the 95th percentile of the directed
// prediction-edge → GT-edge distances (MONAI edges, float32 distances,
// numpy 1.x linear interpolation); official: the larger of the two
// directed values in float64 — and, in official mode, the symmetric HD100
// (the larger directed maximum) from the same edge distances; HD100 is NaN
// in reference mode.
func hausdorffs(p, g []bool, grid volume.Grid, mode challenge.Mode) (h95, h100 float64, err error) {
	if mode != challenge.Official {
		h95, err = distance.MONAIHausdorff(p, g, grid, 95, distance.PredToTruth, distance.MONAIOptions{Float32: true})
		return h95, math.NaN(), err
	}
	pg, err := distance.EdgeDistances(p, g, grid, distance.MONAIOptions{})
	if err != nil {
		return 0, 0, err
	}
	gp, err := distance.EdgeDistances(g, p, grid, distance.MONAIOptions{})
	if err != nil {
		return 0, 0, err
	}
	if len(pg) == 0 || len(gp) == 0 {
		return math.NaN(), math.NaN(), nil
	}
	h95 = math.Max(num.Percentile(pg, 95), num.Percentile(gp, 95))
	h100 = math.Max(distance.Max(pg), distance.Max(gp))
	return h95, h100, nil
}

// perLabel evaluates the labels in parallel: B0 error (26-connectivity),
// HD95 with the given upper bound for an empty side, and per-label clDice
// when order is non-nil (0 when either side is empty).
func perLabel(ctx context.Context, gt, pred *labelMap, st *[256]labelStat, labels []uint8, bound float64, mode challenge.Mode, clOrder *skeleton.Order) ([]labelResult, error) {
	out := make([]labelResult, len(labels))
	errs := make([]error, len(labels))
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for i, l := range labels {
		wg.Add(1)
		sem <- struct{}{}
		go func(i int, l uint8) {
			defer func() { <-sem; wg.Done() }()
			if ctx.Err() != nil {
				errs[i] = ctx.Err()
				return
			}
			s := st[l]
			b := s.gBox.union(s.pBox)
			g, p, grid := cropPair(gt.labels, pred.labels, gt.shape, gt.spacing, b, l)
			nb0g, err := components.Count(g, grid, 26)
			if err != nil {
				errs[i] = err
				return
			}
			nb0p, err := components.Count(p, grid, 26)
			if err != nil {
				errs[i] = err
				return
			}
			r := labelResult{b0Err: math.Abs(float64(nb0p - nb0g)), hd95: bound, hd: bound}
			if mode != challenge.Official {
				r.hd = math.NaN()
			}
			if s.g > 0 && s.p > 0 {
				if r.hd95, r.hd, err = hausdorffs(p, g, grid, mode); err != nil {
					errs[i] = err
					return
				}
				if clOrder != nil {
					if r.clDice, err = topology.ClDice(ctx, p, g, grid.Shape, *clOrder); err != nil {
						errs[i] = err
						return
					}
				}
			}
			out[i] = r
		}(i, l)
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// mergedClDice is clDice of the binary masks GT>0 and pred>0.
func mergedClDice(ctx context.Context, gt, pred *labelMap, st *[256]labelStat, order skeleton.Order) (float64, error) {
	b := emptyBox()
	for l := 1; l < 256; l++ {
		b = b.union(st[l].gBox).union(st[l].pBox)
	}
	if b.empty() {
		return 0, nil
	}
	g, p, grid := cropPair(gt.labels, pred.labels, gt.shape, gt.spacing, b, 0)
	return topology.ClDice(ctx, p, g, grid.Shape, order)
}

// mergedValues is the official evaluation's merged-binary class (every
// foreground label as one): Dice (0 when either side is empty), |ΔB0|
// (26-connectivity), symmetric HD95 and HD100 (bound when either side is
// empty).
func mergedValues(gt, pred *labelMap, st *[256]labelStat, bound float64) (dice, b0, h95, h100 float64, err error) {
	b := emptyBox()
	var ng, np, inter int
	for l := 1; l < 256; l++ {
		b = b.union(st[l].gBox).union(st[l].pBox)
		ng += st[l].g
		np += st[l].p
	}
	if b.empty() {
		return 0, 0, bound, bound, nil
	}
	g, p, grid := cropPair(gt.labels, pred.labels, gt.shape, gt.spacing, b, 0)
	for i := range g {
		if g[i] && p[i] {
			inter++
		}
	}
	if ng > 0 && np > 0 {
		dice = 2 * float64(inter) / float64(ng+np)
	}
	nb0g, err := components.Count(g, grid, 26)
	if err != nil {
		return 0, 0, 0, 0, err
	}
	nb0p, err := components.Count(p, grid, 26)
	if err != nil {
		return 0, 0, 0, 0, err
	}
	b0 = math.Abs(float64(nb0p - nb0g))
	h95, h100 = bound, bound
	if ng > 0 && np > 0 {
		if h95, h100, err = hausdorffs(p, g, grid, challenge.Official); err != nil {
			return 0, 0, 0, 0, err
		}
	}
	return dice, b0, h95, h100, nil
}

// iou is |G∩P| / |G∪P| from the counts (0 when P is empty).
func (s labelStat) iou() float64 {
	if s.p == 0 || s.g == 0 {
		return 0
	}
	return float64(s.inter) / float64(s.g+s.p-s.inter)
}

// mean is np.mean of v as the reference computes every TopCoW/TopBrain
// average (over classes, then over cases): numpy's pairwise summation
// (num.Mean), which differs from a running sum in the last bits from 8
// values on; 0 for no values (the callers' convention; meanOrNaN gives NaN).
func mean(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	return num.Mean(v)
}

func checkSameGrid(gt, pred *labelMap) error {
	if gt.shape != pred.shape || len(gt.labels) != len(pred.labels) {
		return fmt.Errorf("label maps differ in shape: %v vs %v", gt.shape, pred.shape)
	}
	return nil
}
