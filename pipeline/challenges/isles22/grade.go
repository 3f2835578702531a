package isles22

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/rexmle/rexmle/metrics/components"
	"github.com/rexmle/rexmle/metrics/imageio/nifti"
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
func VoxelML(h *nifti.Header) float64 {
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
	return scoresOf(m, len(truth), vML), nil
}

// scoresOf is Score from the lesion match of masks of n voxels.
func scoresOf(m components.LesionMatch, n int, vML float64) CaseScores {
	counts := overlap.Counts{
		TP: m.OverlapVoxels,
		FP: m.PredVoxels - m.OverlapVoxels,
		FN: m.TruthVoxels - m.OverlapVoxels,
		TN: n - m.PredVoxels - m.TruthVoxels + m.OverlapVoxels,
	}
	return CaseScores{
		Dice:      counts.Dice(1),
		LesionF1:  m.F1(),
		CountDiff: float64(m.CountDiff()),
		VolDiff:   overlap.AbsVolumeDiff(counts.Pred(), counts.Truth(), vML),
	}
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
	// A case's answer is read beside its prediction when the cases alone
	// would leave cores idle (one case on two cores); otherwise each worker
	// reads both in turn, with no goroutine more than the pool's.
	overlapRead := len(rows) < runtime.GOMAXPROCS(0)
	grade := func(i int) error {
		s, note, err := gradeRow(privateDir, submissionDir, gtPath[rows[i].Key], rows[i], mode, overlapRead)
		scores[i], notes[i] = s, note
		return err
	}
	if err := challenge.ForEach(ctx, len(rows), grade); err != nil {
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

// truthLesions are a case's answer read and labelled, or why they were not.
type truthLesions struct {
	header  *nifti.Header
	lesions *components.Lesions
	grid    volume.Grid
	err     error
}

// gradeRow loads one GT mask and its prediction and scores them. With
// overlap the answer is read and labelled on another goroutine while the
// prediction is (challenge.Beside: a panic there is raised again here).
// The prediction is read and labelled before the answer's checks apply to
// it (predictionRead): errors keep the order of the checks, the answer's
// first.
func gradeRow(privateDir, submissionDir, gtRel string, row medseg.Row, mode challenge.Mode, overlap bool) (CaseScores, string, error) {
	gtFile := filepath.Join(privateDir, filepath.FromSlash(gtRel))
	var truth func() truthLesions
	if overlap {
		truth = challenge.Beside("reading answer "+gtRel, func() truthLesions { return readTruthOf(gtFile) })
	} else {
		t := readTruthOf(gtFile)
		truth = func() truthLesions { return t }
	}
	p := readPredictionAhead(submissionDir, row)
	defer p.close()
	t := truth()
	if t.err != nil {
		return CaseScores{}, "", fmt.Errorf("read answer %s: %w", gtRel, t.err)
	}
	pred, note, err := p.finish(row, t, mode)
	if err != nil {
		return CaseScores{}, "", err
	}
	m, err := components.MatchFound(pred, t.lesions)
	if err != nil {
		return CaseScores{}, "", fmt.Errorf("score %s: %w", row.ID, err)
	}
	return scoresOf(m, t.grid.Len(), VoxelML(t.header)), note, nil
}

// readTruthOf is readTruth (a variable so tests can make it fail).
var readTruthOf = readTruth

// readTruth reads the answer gtFile and labels its lesions (astype(bool),
// as the reference: every non-zero voxel).
func readTruth(gtFile string) truthLesions {
	m, err := nifti.ReadMaskBytesFile(gtFile)
	if err != nil {
		return truthLesions{err: err}
	}
	defer m.Release()
	l, err := findLesions(m, m.Grid)
	if err != nil {
		return truthLesions{err: fmt.Errorf("lesion matching, truth: %w", err)}
	}
	return truthLesions{header: m.Header, lesions: l, grid: m.Grid}
}

// findLesions labels the non-zero voxels of m (Bytes or NonZero, as
// nifti.ReadMaskBytes read it) on grid g with 26-connectivity.
func findLesions(m *nifti.Mask, g volume.Grid) (*components.Lesions, error) {
	if m.Bytes != nil {
		return components.FindLesionsNonZero(m.Bytes, g, 26)
	}
	return components.FindLesions(m.NonZero, g, 26)
}

// nonZero is m's mask as booleans (NonZero, or made from Bytes).
func nonZero(m *nifti.Mask) []bool {
	if m.Bytes == nil {
		return m.NonZero
	}
	mask := make([]bool, len(m.Bytes))
	for i, b := range m.Bytes {
		mask[i] = b != 0
	}
	return mask
}

// leastPredictionLimit is the least bound on a prediction's decoded size
// (predictionLimit).
const leastPredictionLimit = 256 << 20

// predictionLimit bounds a prediction's decoded size by its answer's
// (gtLen voxels): generous resizing room but never more than 64× the GT's
// decoded size (min 256 MiB).
func predictionLimit(gtLen int64) int64 {
	return max(min(gtLen, 1<<40)*8*64, leastPredictionLimit)
}

// minPredictionBytes bounds the prediction's first read, before its
// answer's bound is known: leastPredictionLimit, since a prediction that
// reads within it reads the same within any larger bound (a variable so
// tests can exercise the second read, within the answer's bound).
var minPredictionBytes int64 = leastPredictionLimit

// predictionRead is a prediction opened, read within minPredictionBytes
// and labelled on its own grid before its answer is known (finish applies
// the answer's checks), or why it could not be opened or read.
type predictionRead struct {
	f       *os.File
	gz      bool
	m       *nifti.Mask
	lesions *components.Lesions
	openErr error // openPrediction's error
	readErr error // the read within minPredictionBytes failed
}

// readPredictionAhead opens, reads and labels the prediction a row names.
func readPredictionAhead(submissionDir string, row medseg.Row) *predictionRead {
	p := &predictionRead{gz: strings.HasSuffix(strings.ToLower(row.Path), ".gz")}
	if p.f, p.openErr = openPrediction(submissionDir, row); p.openErr != nil {
		return p
	}
	if p.m, p.readErr = nifti.ReadMaskBytes(p.f, p.gz, nifti.Options{MaxBytes: minPredictionBytes}); p.readErr != nil {
		return p
	}
	if l, err := findLesions(p.m, p.m.Grid); err == nil {
		p.lesions = l // else labelled again in finish, whose checks come first
	}
	return p
}

// close releases the prediction's file and mask.
func (p *predictionRead) close() {
	if p.f != nil {
		p.f.Close()
		p.f = nil
	}
	if p.m != nil {
		p.m.Release()
		p.m = nil
	}
}

// finish checks the prediction against its answer t in the order the
// reference meets them (it is read within the answer's bound, has the
// answer's number of dimensions, one channel and, in official mode, the
// answer's shape; in reference mode another shape is resized, as the note
// says) and returns its lesions on the answer's grid.
func (p *predictionRead) finish(row medseg.Row, t truthLesions, mode challenge.Mode) (*components.Lesions, string, error) {
	if p.openErr != nil {
		return nil, "", p.openErr
	}
	gh := t.header
	if p.readErr != nil {
		m, err := p.reread(row, predictionLimit(headerLen(gh)), int(gh.Dim[0]))
		if err != nil {
			return nil, "", err
		}
		p.m, p.lesions = m, nil
	}
	if err := checkRank(p.m.Header, row, int(gh.Dim[0])); err != nil {
		return nil, "", err
	}
	if p.m.NumChannels() != 1 {
		return nil, "", challenge.Invalidf(row.Path, "data", "row %d (%s): %d channels, want a single-channel mask", row.Line, row.ID, p.m.NumChannels())
	}
	// NaN and ±Inf voxels are lesion: the reference and the organisers'
	// metric functions binarise with astype(bool), where they are true.
	pg, gtShape := p.m.Grid, t.grid.Shape
	if pg.Shape == gtShape && p.lesions != nil {
		return p.lesions, "", nil
	}
	if pg.Shape == gtShape {
		l, err := findLesions(p.m, pg)
		if err != nil {
			return nil, "", fmt.Errorf("score %s: lesion matching, prediction: %w", row.ID, err)
		}
		return l, "", nil
	}
	if mode == challenge.Official {
		return nil, "", challenge.Invalidf(row.Path, colPath, "mask shape %v does not match the DWI/GT shape %v (row %d, case %s)", pg.Shape, gtShape, row.Line, row.ID)
	}
	pred, err := resample.Zoom(nonZero(p.m), pg.Shape, gtShape)
	if err != nil {
		return nil, "", challenge.Invalidf(row.Path, colPath, "cannot resize mask of shape %v to %v: %v", pg.Shape, gtShape, err)
	}
	note := fmt.Sprintf("%s: prediction shape %v resized to the GT shape %v by nearest-neighbour zoom (order 0)", row.ID, pg.Shape, gtShape)
	pg.Shape = gtShape
	l, err := components.FindLesions(pred, pg, 26)
	if err != nil {
		return nil, "", fmt.Errorf("score %s: lesion matching, prediction: %w", row.ID, err)
	}
	return l, note, nil
}

// reread reads the prediction again, within the answer's bound limit,
// after a read within minPredictionBytes failed. When that fails too, its
// header is read apart, for the error the checks give in their order
// (header, dimensions, data).
func (p *predictionRead) reread(row medseg.Row, limit int64, gtRank int) (*nifti.Mask, error) {
	err := p.readErr
	if limit > minPredictionBytes {
		if _, serr := p.f.Seek(0, 0); serr != nil {
			return nil, fmt.Errorf("rewind %s: %w", row.Path, serr)
		}
		var m *nifti.Mask
		if m, err = nifti.ReadMaskBytes(p.f, p.gz, nifti.Options{MaxBytes: limit}); err == nil {
			return m, nil
		}
	}
	if _, serr := p.f.Seek(0, 0); serr != nil {
		return nil, fmt.Errorf("rewind %s: %w", row.Path, serr)
	}
	h, herr := nifti.ReadHeader(p.f, p.gz)
	if herr != nil {
		return nil, challenge.Invalidf(row.Path, "header", "row %d (%s): not a readable NIfTI file: %v", row.Line, row.ID, herr)
	}
	if err := checkRank(h, row, gtRank); err != nil {
		return nil, err
	}
	return nil, challenge.Invalidf(row.Path, "data", "row %d (%s): cannot read the mask: %v", row.Line, row.ID, err)
}

// headerLen is the number of voxels of the first volume a NIfTI header
// describes (axes 1–3; sizes below 1 count as 1), capped at 2^40.
func headerLen(h *nifti.Header) int64 {
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

// openPrediction opens the prediction NIfTI a submission row names, inside
// the submission folder, as nib.load would name it (nibabelName). Its
// errors come in the order of their checks: a path that is not inside the
// folder, a name that is not NIfTI's, a file that cannot be opened.
func openPrediction(submissionDir string, row medseg.Row) (*os.File, error) {
	lower := strings.ToLower(row.Path)
	nifti := strings.HasSuffix(lower, ".nii.gz") || strings.HasSuffix(lower, ".nii")
	name := row.Path
	if nifti {
		name = nibabelName(row.Path)
	}
	// A path that opens resolves inside the folder: the resolution is
	// needed first only when the open may not tell (another name is
	// opened, or none is).
	resolved := false
	if name != row.Path || !nifti {
		if _, err := challenge.ResolveInside(submissionDir, row.Path, colPath); err != nil {
			return nil, err
		}
		resolved = true
	}
	if !nifti {
		return nil, challenge.Invalidf(row.Path, colPath, "row %d (%s): want a NIfTI file (.nii.gz or .nii)", row.Line, row.ID)
	}
	f, err := challenge.OpenInside(submissionDir, name, colPath)
	if err != nil {
		if !resolved {
			if _, rerr := challenge.ResolveInside(submissionDir, row.Path, colPath); rerr != nil {
				return nil, rerr
			}
		}
		return nil, err
	}
	return f, nil
}

// checkRank refuses a prediction whose header gives another number of
// dimensions than the answer's.
func checkRank(h *nifti.Header, row medseg.Row, gtRank int) error {
	if int(h.Dim[0]) != gtRank {
		return challenge.Invalidf(row.Path, "dim", "row %d (%s): image has %d dimensions, want %d like the reference mask", row.Line, row.ID, h.Dim[0], gtRank)
	}
	return nil
}
