package topcowcommon

import (
	"context"
	"math"

	"github.com/rexmle/rexmle/metrics/skeleton"
	"github.com/rexmle/rexmle/metrics/topology"
	"github.com/rexmle/rexmle/pipeline/challenge"
)

// TopCoW constants (C-3.1).
var (
	group2Labels    = []uint8{8, 9, 10, 15}
	anteriorLabels  = []uint8{10, 11, 12, 15}
	posteriorLabels = []uint8{2, 3, 8, 9}
)

const (
	detectionIoU    = 0.25
	topCoWHD95Bound = 90.0
	topBrainHD95Cap = 290.0
)

// cowCase is one graded TopCoW segmentation case.
type cowCase struct {
	dice, cldice, b0, hd95 float64
	// official extras (NaN in reference mode): class-averaged HD100 and the
	// merged-binary class's Dice, |ΔB0|, HD95 and HD100
	hd, mDice, mB0, mHD95, mHD float64
	// detection inputs for the group-2 labels, in group2Labels order
	inGT, inPred [4]bool
	iou          [4]float64
	// reference: simplified per-side topology match
	antMatch, posMatch bool
	// official: CoW variant strings of GT and prediction
	gtAnt, gtPos, predAnt, predPos string
}

// gradeCoWCase computes the per-case TopCoW task-1 values.
//
// Reference (C-6, topcow-track1-task1 §5): labels L_G of the GT only; dice
// 2|G∩P|/(|G|+|P|+1e−7); merged clDice with Lee skeletons of the (z,y,x)
// array; |ΔB0| (26-conn.); HD95 directed prediction→GT, 90 when the
// prediction lacks the label; empty L_G → dice 1, the rest 0 (official:
// dice 0 too, as the organisers score a case with no label). Topology:
// side matches iff every side label present in the GT has IoU ≥ 0.25 and
// every absent one is absent from the prediction.
//
// Official: labels of GT ∪ prediction; dice without epsilon (0 when either
// side is empty); symmetric HD95 (90 when either side is empty); clDice on
// the (x,y,z) array; graph from the segmentation's edge lists; topology per
// the official criteria (detection TP/TN, same neighbours, same B0, no
// left-right flip).
func gradeCoWCase(ctx context.Context, gt, pred *labelMap, mode challenge.Mode) (*cowCase, error) {
	if err := checkSameGrid(gt, pred); err != nil {
		return nil, err
	}
	st := scanLabels(gt.labels, pred.labels, gt.shape)
	var labels []uint8
	for l := 1; l < 256; l++ {
		if st[l].g > 0 || (mode == challenge.Official && st[l].p > 0) {
			labels = append(labels, uint8(l))
		}
	}
	order := skeleton.ZYX
	if mode == challenge.Official {
		order = skeleton.XYZ
	}
	type clRes struct {
		v   float64
		err error
	}
	clc := make(chan clRes, 1)
	go func() {
		v, err := mergedClDice(ctx, gt, pred, st, order)
		clc <- clRes{v, err}
	}()
	res, err := perLabel(ctx, gt, pred, st, labels, topCoWHD95Bound, mode, nil)
	cl := <-clc
	if err != nil {
		return nil, err
	}
	if cl.err != nil {
		return nil, cl.err
	}
	nan := math.NaN()
	c := &cowCase{cldice: cl.v, hd: nan, mDice: nan, mB0: nan, mHD95: nan, mHD: nan}
	if mode == challenge.Official {
		if c.mDice, c.mB0, c.mHD95, c.mHD, err = mergedValues(gt, pred, st, topCoWHD95Bound); err != nil {
			return nil, err
		}
		c.hd = topCoWHD95Bound // no label at all: as an empty side
	}
	if len(labels) == 0 {
		// No label on either side (official) or in the GT (reference): the
		// reference scores Dice 1, the organisers' evaluation 0.
		if mode == challenge.Reference {
			c.dice = 1
		}
	} else {
		var d, b, h, h100 []float64
		for i, l := range labels {
			s := st[l]
			h100 = append(h100, res[i].hd)
			if mode == challenge.Official {
				if s.g == 0 || s.p == 0 {
					d = append(d, 0)
				} else {
					d = append(d, 2*float64(s.inter)/float64(s.g+s.p))
				}
			} else {
				d = append(d, 2*float64(s.inter)/(float64(s.g+s.p)+1e-7))
			}
			b = append(b, res[i].b0Err)
			h = append(h, res[i].hd95)
		}
		c.dice, c.b0, c.hd95 = mean(d), mean(b), mean(h)
		if mode == challenge.Official {
			c.hd = mean(h100)
		}
	}
	for i, l := range group2Labels {
		c.inGT[i], c.inPred[i], c.iou[i] = st[l].g > 0, st[l].p > 0, st[l].iou()
	}
	side := func(ls []uint8) bool {
		for _, l := range ls {
			s := st[l]
			if s.g > 0 && s.iou() < detectionIoU {
				return false
			}
			if s.g == 0 && s.p > 0 {
				return false
			}
		}
		return true
	}
	c.antMatch, c.posMatch = side(anteriorLabels), side(posteriorLabels)
	if mode == challenge.Official {
		if err := officialCoWTopology(ctx, gt, pred, st, res, labels, c); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// officialCoWTopology fills the variant strings and replaces the side
// matches with the official criteria.
func officialCoWTopology(ctx context.Context, gt, pred *labelMap, st *[256]labelStat, res []labelResult, labels []uint8, c *cowCase) error {
	adjG, err := topology.LabelAdjacency(ctx, gt.labels, gt.shape)
	if err != nil {
		return err
	}
	adjP, err := topology.LabelAdjacency(ctx, pred.labels, pred.shape)
	if err != nil {
		return err
	}
	presG, presP := map[int32]bool{}, map[int32]bool{}
	for l := 1; l < 256; l++ {
		presG[int32(l)] = st[l].g > 0
		presP[int32(l)] = st[l].p > 0
	}
	ga, gp := topology.CoWEdges(adjG, presG)
	pa, pp := topology.CoWEdges(adjP, presP)
	c.gtAnt, c.gtPos = topology.VariantClass("Var_Ant", topology.IntStrings(ga)), topology.VariantClass("Var_Pos", topology.IntStrings(gp))
	c.predAnt, c.predPos = topology.VariantClass("Var_Ant", topology.IntStrings(pa)), topology.VariantClass("Var_Pos", topology.IntStrings(pp))
	b0 := map[uint8]float64{}
	for i, l := range labels {
		b0[l] = res[i].b0Err
	}
	side := func(ls []uint8) bool {
		for _, l := range ls {
			s := st[l]
			// 1) detection TP or TN
			if s.g > 0 && s.iou() < detectionIoU {
				return false
			}
			if s.g == 0 && s.p > 0 {
				return false
			}
			// 2) same neighbour labels, 3) same B0
			ng, np := adjG.Neighbours(int32(l)), adjP.Neighbours(int32(l))
			if len(ng) != len(np) {
				return false
			}
			for k := range ng {
				if ng[k] != np[k] {
					return false
				}
			}
			if b0[l] != 0 {
				return false
			}
		}
		return true
	}
	c.antMatch = side(anteriorLabels) && !lrFlipped(pred, st, [][2]uint8{{6, 4}, {12, 11}})
	c.posMatch = side(posteriorLabels) && !lrFlipped(pred, st, [][2]uint8{{3, 2}})
	return nil
}

// lrFlipped is the official left-right flip check: for the first (left,
// right) label pair present in the prediction, the arrays are LPS+ so the
// left label's median x index must not be smaller than the right one's.
// No pair present → not flipped.
func lrFlipped(pred *labelMap, st *[256]labelStat, pairs [][2]uint8) bool {
	for _, p := range pairs {
		if st[p[0]].p > 0 && st[p[1]].p > 0 {
			return medianX(pred, st[p[0]].pBox, p[0]) < medianX(pred, st[p[1]].pBox, p[1])
		}
	}
	return false
}

// medianX is numpy's median of the x indices of the voxels of label l
// (mean of the two middle values for an even count).
func medianX(m *labelMap, b box, l uint8) float64 {
	hist := make([]int, b.hi[0]-b.lo[0]+1)
	n := 0
	for z := b.lo[2]; z <= b.hi[2]; z++ {
		for y := b.lo[1]; y <= b.hi[1]; y++ {
			base := m.shape[0] * (y + m.shape[1]*z)
			for x := b.lo[0]; x <= b.hi[0]; x++ {
				if m.labels[base+x] == l {
					hist[x-b.lo[0]]++
					n++
				}
			}
		}
	}
	kth := func(k int) float64 { // k-th smallest, 0-based
		for i, c := range hist {
			if k < c {
				return float64(b.lo[0] + i)
			}
			k -= c
		}
		return math.NaN()
	}
	if n%2 == 1 {
		return kth(n / 2)
	}
	return (kth(n/2-1) + kth(n/2)) / 2
}

// brainCase is one graded TopBrain case.
type brainCase struct {
	empty                                  bool
	dice, cldice, b0, hd95, neighbourError float64
	inGT, inPred                           []bool
	iou                                    []float64
}

// sideRoadLabels returns the TopBrain detection labels of a modality.
func sideRoadLabels(modality string) []uint8 {
	l := []uint8{8, 9, 10, 15, 16, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34}
	if modality == "ct" {
		return append(l, 37, 38, 39)
	}
	return append(l, 41, 42)
}

// gradeBrainCase computes the per-case TopBrain values over the union U of
// GT and prediction labels: dice (no epsilon, 0 if either side empty),
// per-label clDice on the (x,y,z) array, |ΔB0|, HD95 (290 if either side
// empty; reference directed prediction→GT, official symmetric) and the
// invalid-neighbour count |N(l) \ V(l)| in the prediction. The neighbour
// error is averaged over U (reference) or over the prediction's labels
// (official). An empty U gives zeros and no detection entries.
func gradeBrainCase(ctx context.Context, gt, pred *labelMap, mode challenge.Mode, modality string) (*brainCase, error) {
	if err := checkSameGrid(gt, pred); err != nil {
		return nil, err
	}
	st := scanLabels(gt.labels, pred.labels, gt.shape)
	var labels []uint8
	for l := 1; l < 256; l++ {
		if st[l].g > 0 || st[l].p > 0 {
			labels = append(labels, uint8(l))
		}
	}
	c := &brainCase{}
	if len(labels) == 0 {
		c.empty = true
		return c, nil
	}
	order := skeleton.XYZ
	res, err := perLabel(ctx, gt, pred, st, labels, topBrainHD95Cap, mode, &order)
	if err != nil {
		return nil, err
	}
	adj, err := topology.LabelAdjacency(ctx, pred.labels, pred.shape)
	if err != nil {
		return nil, err
	}
	table := topology.ValidNeighboursCT
	if modality == "mr" {
		table = topology.ValidNeighboursMR
	}
	var d, cl, b, h, nb, nbPred []float64
	for i, l := range labels {
		s := st[l]
		if s.g == 0 || s.p == 0 {
			d = append(d, 0)
		} else {
			d = append(d, 2*float64(s.inter)/float64(s.g+s.p))
		}
		cl = append(cl, res[i].clDice)
		b = append(b, res[i].b0Err)
		h = append(h, res[i].hd95)
		n := float64(topology.InvalidNeighbours(adj, int32(l), table))
		nb = append(nb, n)
		if s.p > 0 {
			nbPred = append(nbPred, n)
		}
	}
	c.dice, c.cldice, c.b0, c.hd95 = mean(d), mean(cl), mean(b), mean(h)
	c.neighbourError = mean(nb)
	if mode == challenge.Official {
		c.neighbourError = mean(nbPred)
	}
	for _, l := range sideRoadLabels(modality) {
		c.inGT = append(c.inGT, st[l].g > 0)
		c.inPred = append(c.inPred, st[l].p > 0)
		c.iou = append(c.iou, st[l].iou())
	}
	return c, nil
}
