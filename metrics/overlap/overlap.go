// Package overlap computes voxel-overlap measures of binary segmentation
// masks: confusion counts (Confusion, Counts), Dice and absolute volume
// differences (AbsVolumeDiff).
//
// Reference behaviour: the overlap terms of the ISLES'22, SEG.A. and PANTHER
// graders (numpy sums of boolean arrays, then float64 arithmetic), and
// DeepMind surface-distance's compute_dice_coefficient.
// Counts are exact integers, so no library version changes the result.
//
// Conventions: all counts are voxel counts; spacing only enters through the
// voxel volume a caller passes to AbsVolumeDiff (each product formed first,
// as ISLES'22 does). Masks are flat slices in metrics/volume storage order;
// the two operands of a comparison must have the same length, or the call
// returns an error. Two empty masks have no Dice: the caller says what they
// score (1 for ISLES'22 and SEG.A., 0 for PANTHER and TopCoW, NaN for
// DeepMind), through the bothEmpty argument.
package overlap

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"runtime"

	"github.com/rexmle/rexmle/metrics/internal/boolbytes"
	"github.com/rexmle/rexmle/metrics/internal/parallel"
)

// Counts holds the confusion counts of a binary prediction P against a binary
// truth G: TP = |P∩G|, FP = |P\G|, FN = |G\P|, TN = voxels in neither.
type Counts struct {
	TP, FP, FN, TN int
}

// Pred is |P| = TP + FP.
func (c Counts) Pred() int { return c.TP + c.FP }

// Truth is |G| = TP + FN.
func (c Counts) Truth() int { return c.TP + c.FN }

// Dice is 2TP / (2TP + FP + FN) = 2|P∩G| / (|P| + |G|). When both masks are
// empty (2TP+FP+FN = 0) it returns bothEmpty: pass 1 (ISLES'22, SEG.A.),
// 0 (PANTHER, TopCoW) or math.NaN() (DeepMind compute_dice_coefficient).
func (c Counts) Dice(bothEmpty float64) float64 {
	den := 2*c.TP + c.FP + c.FN
	if den == 0 {
		return bothEmpty
	}
	return float64(2*c.TP) / float64(den)
}

// minChunk is the smallest slice part worth a goroutine.
const minChunk = 1 << 16

// chunks splits [0, n) into at most GOMAXPROCS contiguous parts of at least
// minChunk elements, calls f on each part concurrently and returns the
// number of parts (see parallel.Blocks).
func chunks(n int, f func(part, lo, hi int)) int { return parallel.Blocks(n, minChunk, f) }

// Confusion counts TP, FP, FN and TN of pred against truth in one parallel
// pass. It fails when the slices differ in length.
func Confusion(pred, truth []bool) (Counts, error) {
	if len(pred) != len(truth) {
		return Counts{}, fmt.Errorf("confusion: prediction has %d voxels, truth has %d", len(pred), len(truth))
	}
	parts := make([]Counts, runtime.GOMAXPROCS(0)+1)
	used := chunks(len(pred), func(part, lo, hi int) {
		// Bools as bytes of 0 or 1, eight per word: a word's popcount is
		// the number of trues in it.
		p, t := boolbytes.Of(pred[lo:hi]), boolbytes.Of(truth[lo:hi])
		t = t[:len(p)]
		var tp, np, nt int
		i := 0
		for ; i+8 <= len(p); i += 8 {
			wp, wt := binary.LittleEndian.Uint64(p[i:]), binary.LittleEndian.Uint64(t[i:])
			tp += bits.OnesCount64(wp & wt)
			np += bits.OnesCount64(wp)
			nt += bits.OnesCount64(wt)
		}
		for ; i < len(p); i++ {
			tp += int(p[i] & t[i])
			np += int(p[i])
			nt += int(t[i])
		}
		fp, fn := np-tp, nt-tp
		parts[part] = Counts{TP: tp, FP: fp, FN: fn, TN: (hi - lo) - tp - fp - fn}
	})
	var c Counts
	for _, p := range parts[:used] {
		c.TP += p.TP
		c.FP += p.FP
		c.FN += p.FN
		c.TN += p.TN
	}
	return c, nil
}

// Dice is Confusion(pred, truth).Dice(bothEmpty).
func Dice(pred, truth []bool, bothEmpty float64) (float64, error) {
	c, err := Confusion(pred, truth)
	if err != nil {
		return 0, err
	}
	return c.Dice(bothEmpty), nil
}

// AbsVolumeDiff is |predVoxels·v − truthVoxels·v| with each product formed
// first (as ISLES'22 does), in whatever unit v is given (pass v in ml per
// voxel for the ISLES'22 abs_volume_diff).
func AbsVolumeDiff(predVoxels, truthVoxels int, voxelVolume float64) float64 {
	d := float64(predVoxels)*voxelVolume - float64(truthVoxels)*voxelVolume
	if d < 0 {
		return -d
	}
	return d
}
