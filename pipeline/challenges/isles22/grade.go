package isles22

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/rexmle/rexmle/metrics/components"
	"github.com/rexmle/rexmle/metrics/imageio"
	"github.com/rexmle/rexmle/metrics/num"
	"github.com/rexmle/rexmle/metrics/overlap"
	"github.com/rexmle/rexmle/metrics/resample"
	"github.com/rexmle/rexmle/metrics/volume"
	"github.com/rexmle/rexmle/pipeline/challenge"
	"github.com/rexmle/rexmle/pipeline/challenges/medseg"
)

// Submission column names.
const (
	colID   = "case_id"
	colPath = "predicted_mask_path"
)

// CaseScores are the four per-case values.
type CaseScores struct {
	Dice, LesionF1, CountDiff, VolDiff float64
}

// VoxelML is the reference's voxel volume in millilitres from the GT's
// header: np.prod(nib.load(gt).header.get_zooms()[:3]) / 1000. nibabel
// fixes pixdim[1..3] when it reads a header (0 → 1, negative → absolute
// value); get_zooms is pixdim[1..dim[0]] ((1.0,) when dim[0] is 0), float32
// values for NIfTI-1 and float64 for NIfTI-2, so the product (z0·z1)·z2 is
// taken in that type; it is divided by 1000 in float64.
func VoxelML(h *imageio.NIfTIHeader) float64 {
	n := int(min(max(h.Dim[0], 0), 3))
	if n == 0 {
		return 1.0 / 1000
	}
	var z [3]float64
	for i := range n {
		z[i] = h.Pixdim[i+1]
		if z[i] == 0 {
			z[i] = 1
		} else if z[i] < 0 {
			z[i] = -z[i]
		}
	}
	if h.Version == 2 {
		p := z[0]
		for _, v := range z[1:n] {
			p *= v
		}
		return p / 1000
	}
	p := float32(z[0])
	for _, v := range z[1:n] {
		p = float32(p * float32(v))
	}
	return float64(p) / 1000
}

// Score computes the four ISLES'22 case metrics of the boolean masks pred
// and truth on grid g (same shape), with voxel volume vML millilitres:
// Dice (1 when both are empty), lesion-wise F1 with 26-connectivity (1 when
// both are empty), |#components(G) − #components(P)| and
// |(|G|·vML) − (|P|·vML)|.
func Score(pred, truth []bool, g volume.Grid, vML float64) (CaseScores, error) {
	m, err := components.MatchLesions(pred, truth, g, 26)
	if err != nil {
		return CaseScores{}, err
	}
	counts := overlap.Counts{
		TP: m.OverlapVoxels,
		FP: m.PredVoxels - m.OverlapVoxels,
		FN: m.TruthVoxels - m.OverlapVoxels,
		TN: len(truth) - m.PredVoxels - m.TruthVoxels + m.OverlapVoxels,
	}
	return CaseScores{
		Dice:      counts.Dice(1),
		LesionF1:  m.F1(),
		CountDiff: float64(m.CountDiff()),
		VolDiff:   overlap.AbsVolumeDiff(counts.Pred(), counts.Truth(), vML),
	}, nil
}

// Grade implements challenge.Challenge.
func (Challenge) Grade(ctx context.Context, submissionDir, privateDir string, mode challenge.Mode) (*challenge.Result, error) {
	ids, maskPaths, err := medseg.Answers(privateDir, colID, "mask_path")
	if err != nil {
		return nil, err
	}
	// The reference compares the id sets after astype(str): verbatim strings.
	rows, err := medseg.ReadSubmission(submissionDir, colID, colPath, ids, medseg.Verbatim)
	if err != nil {
		return nil, err
	}
	if err := medseg.CheckOfficialIDs(rows, colID, ids, medseg.Verbatim, mode); err != nil {
		return nil, err
	}
	gtPath := map[string]string{}
	for i, id := range ids {
		gtPath[id] = maskPaths[i]
	}
	scores := make([]CaseScores, len(rows))
	notes := make([]string, len(rows))
	err = challenge.ForEach(ctx, len(rows), func(i int) error {
		s, note, err := gradeRow(privateDir, submissionDir, gtPath[rows[i].Key], rows[i], mode)
		scores[i], notes[i] = s, note
		return err
	})
	if err != nil {
		return nil, err
	}
	res := &challenge.Result{Mode: mode}
	// pandas' Series.mean of each metric's case values (numpy's pairwise
	// sum, NaN cases left out: a GT pixdim of NaN makes a volume NaN).
	var dice, f1, count, vol []float64
	caseIDs := medseg.CaseIDs(rows)
	for i, s := range scores {
		dice, f1, count, vol = append(dice, s.Dice), append(f1, s.LesionF1), append(count, s.CountDiff), append(vol, s.VolDiff)
		res.Cases = append(res.Cases, challenge.Case{ID: caseIDs[i], Values: map[string]float64{
			MetricDice: s.Dice, MetricLesionF1: s.LesionF1, MetricCountDiff: s.CountDiff, MetricVolDiff: s.VolDiff,
		}})
		if notes[i] != "" {
			res.Notes = append(res.Notes, notes[i])
		}
	}
	res.Set(MetricDice, num.NaNMean(dice))
	res.Set(MetricLesionF1, num.NaNMean(f1))
	res.Set(MetricCountDiff, num.NaNMean(count))
	res.Set(MetricVolDiff, num.NaNMean(vol))
	return res, nil
}

// gradeRow loads one GT mask and its prediction and scores them.
func gradeRow(privateDir, submissionDir, gtRel string, row medseg.Row, mode challenge.Mode) (CaseScores, string, error) {
	gtFile := filepath.Join(privateDir, filepath.FromSlash(gtRel))
	// The answer and the prediction are decoded at the same time (a case
	// graded alone uses two cores); the answer's header comes first, for
	// the prediction's checks.
	h0, err := imageio.ReadNIfTIHeaderFile(gtFile)
	if err != nil {
		return CaseScores{}, "", fmt.Errorf("read answer %s: %w", gtRel, err)
	}
	type answer struct {
		m   *imageio.NIfTIMask
		err error
	}
	answers := make(chan answer, 1)
	go func() {
		m, err := imageio.ReadNIfTIMaskFile(gtFile)
		answers <- answer{m, err}
	}()
	pm, perr := loadPrediction(submissionDir, row, headerLen(h0), int(h0.Dim[0]))
	a := <-answers
	if a.err != nil {
		if perr == nil {
			pm.Release()
		}
		return CaseScores{}, "", fmt.Errorf("read answer %s: %w", gtRel, a.err)
	}
	gt := a.m
	defer gt.Release()
	if perr != nil {
		return CaseScores{}, "", perr
	}
	defer pm.Release()
	gh := gt.Header
	truth := gt.NonZero // astype(bool), as the reference
	pred, pg := pm.NonZero, pm.Grid
	note := ""
	if !pg.SameShape(gt.Grid) {
		if mode == challenge.Official {
			return CaseScores{}, "", challenge.Invalidf(row.Path, colPath, "mask shape %v does not match the DWI/GT shape %v (row %d, case %s)", pg.Shape, gt.Shape, row.Line, row.ID)
		}
		pred, err = resample.Zoom(pred, pg.Shape, gt.Shape)
		if err != nil {
			return CaseScores{}, "", challenge.Invalidf(row.Path, colPath, "cannot resize mask of shape %v to %v: %v", pg.Shape, gt.Shape, err)
		}
		note = fmt.Sprintf("%s: prediction shape %v resized to the GT shape %v by nearest-neighbour zoom (order 0)", row.ID, pg.Shape, gt.Shape)
	}
	s, err := Score(pred, truth, gt.Grid, VoxelML(gh))
	if err != nil {
		return CaseScores{}, "", fmt.Errorf("score %s: %w", row.ID, err)
	}
	return s, note, nil
}

// headerLen is the number of voxels of the first volume a NIfTI header
// describes (axes 1–3; sizes below 1 count as 1), capped at 2^40.
func headerLen(h *imageio.NIfTIHeader) int64 {
	const limit = 1 << 40
	n := int64(1)
	for i := 1; i <= 3 && int64(i) <= h.Dim[0]; i++ {
		if d := max(h.Dim[i], 1); d > limit/n {
			return limit
		} else {
			n *= d
		}
	}
	return n
}

// nibabelName is the file nib.load reads for a .nii or .nii.gz name: the
// ".nii" part in lower or upper case is kept, in mixed case (".Nii") it is
// lower-cased, so "p.Nii" reads p.nii (and fails when there is none).
func nibabelName(name string) string {
	base := name
	if strings.HasSuffix(strings.ToLower(base), ".gz") {
		base = base[:len(base)-3]
	}
	ext := base[len(base)-4:]
	if ext == strings.ToLower(ext) || ext == strings.ToUpper(ext) {
		return name
	}
	return base[:len(base)-4] + strings.ToLower(ext) + name[len(base):]
}

// loadPrediction reads a prediction NIfTI named by a submission row, with
// its allocation bounded relative to the GT (gtLen voxels), as a mask of
// its non-zero voxels.
func loadPrediction(submissionDir string, row medseg.Row, gtLen int64, gtRank int) (*imageio.NIfTIMask, error) {
	if _, err := challenge.ResolveInside(submissionDir, row.Path, colPath); err != nil {
		return nil, err
	}
	lower := strings.ToLower(row.Path)
	if !strings.HasSuffix(lower, ".nii.gz") && !strings.HasSuffix(lower, ".nii") {
		return nil, challenge.Invalidf(row.Path, colPath, "row %d (%s): want a NIfTI file (.nii.gz or .nii)", row.Line, row.ID)
	}
	f, err := challenge.OpenInside(submissionDir, nibabelName(row.Path), colPath)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	gz := strings.HasSuffix(lower, ".gz")
	h, err := imageio.ReadNIfTIHeader(f, gz)
	if err != nil {
		return nil, challenge.Invalidf(row.Path, "header", "row %d (%s): not a readable NIfTI file: %v", row.Line, row.ID, err)
	}
	if int(h.Dim[0]) != gtRank {
		return nil, challenge.Invalidf(row.Path, "dim", "row %d (%s): image has %d dimensions, want %d like the reference mask", row.Line, row.ID, h.Dim[0], gtRank)
	}
	if _, err := f.Seek(0, 0); err != nil {
		return nil, fmt.Errorf("rewind %s: %w", row.Path, err)
	}
	// Allow generous resizing room but never more than 64× the GT's decoded size (min 256 MiB).
	limit := max(min(gtLen, 1<<40)*8*64, 256<<20)
	m, err := imageio.ReadNIfTIMask(f, gz, imageio.Options{MaxBytes: limit})
	if err != nil {
		return nil, challenge.Invalidf(row.Path, "data", "row %d (%s): cannot read the mask: %v", row.Line, row.ID, err)
	}
	if m.NumChannels() != 1 {
		return nil, challenge.Invalidf(row.Path, "data", "row %d (%s): %d channels, want a single-channel mask", row.Line, row.ID, m.NumChannels())
	}
	// NaN and ±Inf voxels are lesion: the reference and the organisers'
	// metric functions binarise with astype(bool), where they are true.
	return m, nil
}
