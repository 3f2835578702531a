package components

import (
	"fmt"

	"github.com/rexmle/rexmle/metrics/volume"
)

// LesionMatch is the lesion-wise comparison of a prediction with a truth
// mask as the ISLES'22 evaluation defines it.
//
//   - TP: truth components containing at least one voxel of truth ∩ prediction;
//   - FN: truth components with no such voxel;
//   - FP: prediction components containing no truth voxel at all.
//
// TruthCount and PredCount are the numbers of components of each mask.
// Several prediction components on one truth lesion give one TP and no FP;
// one prediction component bridging two truth lesions makes both TP.
//
// TruthVoxels, PredVoxels and OverlapVoxels count the voxels of the truth,
// of the prediction and of both (for Dice and volumes without another pass).
type LesionMatch struct {
	TP, FN, FP            int
	TruthCount, PredCount int

	TruthVoxels, PredVoxels, OverlapVoxels int
}

// F1 is TP / (TP + (FP + FN)/2); 1 when TP + FP + FN = 0 (both masks empty).
func (m LesionMatch) F1() float64 {
	if m.TP+m.FP+m.FN == 0 {
		return 1
	}
	return float64(m.TP) / (float64(m.TP) + float64(m.FP+m.FN)/2)
}

// CountDiff is |TruthCount − PredCount|.
func (m LesionMatch) CountDiff() int { return abs(m.TruthCount - m.PredCount) }

// MatchLesions labels both masks with the given connectivity (ISLES'22 uses
// 26) and counts TP, FN and FP lesions as LesionMatch describes. It works on
// the masks' runs (see runs): the same components as Label's.
func MatchLesions(pred, truth []bool, g volume.Grid, connectivity int) (LesionMatch, error) {
	if len(pred) != len(truth) {
		return LesionMatch{}, fmt.Errorf("lesion matching: prediction has %d voxels, truth has %d", len(pred), len(truth))
	}
	return matchLesionRuns(pred, truth, g, connectivity)
}

// Lesions are the connected components of one mask (FindLesions), kept for
// matching against another mask's (MatchFound): a case's truth and
// prediction can be labelled apart, each as soon as it is read, and the
// mask released.
type Lesions struct {
	shape        [3]int
	connectivity int
	l            labelled
}

// FindLesions labels the true voxels of mask on grid g with the given
// connectivity (see Label).
func FindLesions(mask []bool, g volume.Grid, connectivity int) (*Lesions, error) {
	nbrs, err := checkInput(len(mask), g, connectivity)
	if err != nil {
		return nil, err
	}
	return &Lesions{g.Shape, connectivity, labelRuns(findRuns(mask, g), g, rowNeighbours(nbrs))}, nil
}

// FindLesionsNonZero is FindLesions of the mask whose voxel i is b[i] != 0
// (an 8-bit mask or label map as stored, with no bool copy made).
func FindLesionsNonZero(b []byte, g volume.Grid, connectivity int) (*Lesions, error) {
	nbrs, err := checkInput(len(b), g, connectivity)
	if err != nil {
		return nil, err
	}
	return &Lesions{g.Shape, connectivity, labelRuns(findRunsNonZero(b, g), g, rowNeighbours(nbrs))}, nil
}

// Count is the number of components.
func (l *Lesions) Count() int { return l.l.n }

// Voxels is the number of true voxels.
func (l *Lesions) Voxels() int { return l.l.rs.voxels() }

// MatchFound compares the lesions of a prediction with those of a truth as
// MatchLesions does; both must come from grids of one shape and be labelled
// with one connectivity.
func MatchFound(pred, truth *Lesions) (LesionMatch, error) {
	if pred.shape != truth.shape {
		return LesionMatch{}, fmt.Errorf("lesion matching: prediction has shape %v, truth has %v", pred.shape, truth.shape)
	}
	if pred.connectivity != truth.connectivity {
		return LesionMatch{}, fmt.Errorf("lesion matching: prediction labelled with connectivity %d, truth with %d", pred.connectivity, truth.connectivity)
	}
	return matchLabelled(pred.l, truth.l), nil
}
