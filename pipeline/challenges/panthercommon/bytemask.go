package panthercommon

import (
	"fmt"

	"github.com/rexmle/rexmle/metrics/bytescan"
	"github.com/rexmle/rexmle/metrics/distance"
	"github.com/rexmle/rexmle/metrics/overlap"
	"github.com/rexmle/rexmle/metrics/volume"
)

// box is an inclusive index box; empty when hi < lo on any axis.
type box struct{ lo, hi [3]int }

// emptyBox is the box of no voxel: any union with it is the other box.
func emptyBox(g volume.Grid) box { return box{lo: g.Shape, hi: [3]int{-1, -1, -1}} }

func (b box) union(o box) box {
	for a := 0; a < 3; a++ {
		b.lo[a], b.hi[a] = min(b.lo[a], o.lo[a]), max(b.hi[a], o.hi[a])
	}
	return b
}

// grid is the box as a grid of its own, with the spacing of g.
func (b box) grid(g volume.Grid) volume.Grid {
	c := g
	for a := 0; a < 3; a++ {
		c.Shape[a] = b.hi[a] - b.lo[a] + 1
	}
	return c
}

// valueStats is what the grader needs of an 8-bit mask's samples, gathered
// in one pass: how many voxels hold each value, where each non-zero value
// lies (its bounding box) and the values in order of first appearance (the
// order in which medseg.EachRunStart first visits them), 0 included.
type valueStats struct {
	count [256]int
	box   [256]box // non-zero values only
	order []uint8
}

// scanValues gathers the valueStats of samples b on grid g. All-zero
// planes and rows (most of a mask) are skipped eight bytes a word; a row
// with non-zero samples is walked a run of one value at a time.
func scanValues(b []uint8, g volume.Grid) *valueStats {
	s := &valueStats{}
	n0, n1 := g.Shape[0], g.Shape[1]
	plane := n0 * n1
	for v := range s.box {
		s.box[v] = emptyBox(g)
	}
	zeros := func(n int) {
		if s.count[0] == 0 {
			s.order = append(s.order, 0)
		}
		s.count[0] += n
	}
	for k := 0; k < g.Shape[2]; k++ {
		p := b[k*plane : (k+1)*plane]
		if bytescan.FirstOther(p, 0) == plane {
			zeros(plane)
			continue
		}
		for j := 0; j < n1; j++ {
			row := p[j*n0 : (j+1)*n0]
			for i := 0; i < n0; {
				v := row[i]
				end := i + 1 + bytescan.FirstOther(row[i+1:], v)
				if v == 0 {
					zeros(end - i)
					i = end
					continue
				}
				if s.count[v] == 0 {
					s.order = append(s.order, v)
				}
				s.count[v] += end - i
				bx := &s.box[v]
				bx.lo[0], bx.hi[0] = min(bx.lo[0], i), max(bx.hi[0], end-1)
				bx.lo[1], bx.hi[1] = min(bx.lo[1], j), max(bx.hi[1], j)
				bx.lo[2], bx.hi[2] = min(bx.lo[2], k), max(bx.hi[2], k)
				i = end
			}
		}
	}
	return s
}

// masked is the count and bounding box of the voxels whose value lut holds
// true.
func (s *valueStats) masked(lut *[256]bool, g volume.Grid) (int, box) {
	n, bx := 0, emptyBox(g)
	for v := range lut {
		if lut[v] && s.count[v] > 0 {
			n += s.count[v]
			if v == 0 { // 0 is never tumour under any rule; kept exact anyway
				bx = box{hi: [3]int{g.Shape[0] - 1, g.Shape[1] - 1, g.Shape[2] - 1}}
				continue
			}
			bx = bx.union(s.box[v])
		}
	}
	return n, bx
}

// crop returns lut of every sample of b inside bx (on grid g), as a mask on
// bx.grid(g).
func crop(b []uint8, g volume.Grid, bx box, lut *[256]bool) []bool {
	w := bx.hi[0] - bx.lo[0] + 1
	out := make([]bool, bx.grid(g).Len())
	p := 0
	for k := bx.lo[2]; k <= bx.hi[2]; k++ {
		for j := bx.lo[1]; j <= bx.hi[1]; j++ {
			row := b[g.Index(bx.lo[0], j, k):][:w]
			for i, x := range row {
				out[p+i] = lut[x]
			}
			p += w
		}
	}
	return out
}

// lutOf is cmp of every byte value.
func lutOf(cmp func(float64) bool) *[256]bool {
	var lut [256]bool
	for v := range lut {
		lut[v] = cmp(float64(v))
	}
	return &lut
}

// invalidMask is a prediction whose values no rule accepts.
type invalidMask struct{ error }

// truthLUT is the GT's tumour rule on byte values: label 1, or (official
// mode, a mask with values beyond 2) every non-zero value, as
// officialTruthBytes has it.
func truthLUT(s *valueStats, official bool) *[256]bool {
	conventional := true
	for v := 3; official && v < 256; v++ {
		conventional = conventional && s.count[v] == 0
	}
	return lutOf(func(x float64) bool { return x == 1 || (!conventional && x != 0) })
}

// predictionLUT is the prediction's tumour rule on byte values, from its
// first three distinct values as predictionMask (officialPredictionMask)
// sees them.
func predictionLUT(s *valueStats, official bool) (*[256]bool, error) {
	var distinct []float64
	for _, v := range s.order[:min(3, len(s.order))] {
		distinct = append(distinct, float64(v))
	}
	var r valueRule
	var err error
	if official {
		r, err = officialRule(distinct)
	} else {
		r, err = predictionRule(distinct, s.count[0] > 0, s.count[1] > 0, s.count[2] > 0)
	}
	if err != nil {
		return nil, invalidMask{err}
	}
	return lutOf(r.tumour), nil
}

// scoreBytes is Score of the case's 8-bit masks (both on grid g, whose
// Spacing is the one the metrics use) under the mode's value rules,
// computed without whole-volume masks: the voxel counts come from the
// value statistics, and the overlap and surface distances from the two
// masks cropped to the box holding every tumour voxel of either (outside
// it both masks are false, which adds true negatives only and changes no
// surface). An unacceptable prediction is an invalidMask error.
func scoreBytes(c *caseFiles, g volume.Grid, official bool) (CaseValues, error) {
	predLUT, err := predictionLUT(c.predStats, official)
	if err != nil {
		return CaseValues{}, err
	}
	tLUT := truthLUT(c.gtStats, official)
	np, pbox := c.predStats.masked(predLUT, g)
	ng, tbox := c.gtStats.masked(tLUT, g)
	total := g.Len()
	switch np { // the penalty: only the counts matter
	case 0:
		return score(overlap.Counts{FN: ng, TN: total - ng}, total, g, nil)
	case total:
		return score(overlap.Counts{TP: ng, FP: total - ng}, total, g, nil)
	}
	u := pbox.union(tbox)
	cg := u.grid(g)
	pc, tc := crop(c.pred.Bytes, g, u, predLUT), crop(c.gtBytes, g, u, tLUT)
	counts, err := overlap.Confusion(pc, tc)
	if err != nil {
		return CaseValues{}, err
	}
	if counts.Pred() != np || counts.Truth() != ng {
		return CaseValues{}, fmt.Errorf("internal: the tumour box holds %d predicted and %d true voxels of %d and %d", counts.Pred(), counts.Truth(), np, ng)
	}
	counts.TN += total - len(pc)
	return score(counts, total, g, func() (distance.SurfaceDistances, error) {
		return distance.DeepMindSurfaceDistances(tc, pc, cg)
	})
}
