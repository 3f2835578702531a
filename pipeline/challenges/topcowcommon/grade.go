package topcowcommon

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/rexmle/rexmle/metrics/stats"
	"github.com/rexmle/rexmle/metrics/topology"
	"github.com/rexmle/rexmle/pipeline/challenge"
	"github.com/rexmle/rexmle/pipeline/challenges/medseg"
)

// gradeRow is one submission row paired with its answer file.
type gradeRow struct {
	medseg.Row
	answer string // absolute path of the answer file
	caseID string // the stored case's id: the row's id, "<id>#2", … for a repeated id
}

// readRows reads submission.csv and pairs every row with its answer (the
// first answer row with the same pandas-normalised id). Ids are compared as
// pandas reads them: an all-integer column is numeric on both sides ("001"
// equals "1"); any other column keeps its text, so "1.0" or "topcow_001"
// never match. Duplicated rows are kept and graded twice, as the reference
// does (reference mode; official mode refuses them: quirk "id-rule"); they
// are stored as distinct cases (challenge.DistinctCaseIDs).
func (c Challenge) readRows(submissionDir, privateDir string, mode challenge.Mode) ([]gradeRow, error) {
	ids, paths, err := medseg.Answers(privateDir, "image_id", "label_path")
	if err != nil {
		return nil, err
	}
	rows, err := medseg.ReadSubmission(submissionDir, "image_id", c.pathColumn(), ids, challenge.PandasIDs)
	if err != nil {
		return nil, err
	}
	if err := medseg.CheckOfficialIDs(rows, "image_id", ids, challenge.PandasIDs, mode); err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, challenge.Invalidf(medseg.SubmissionFile, "", "no rows to evaluate")
	}
	keys := challenge.PandasIDs(ids)
	answer := map[string]string{}
	for i, k := range keys {
		if _, ok := answer[k]; !ok {
			answer[k] = filepath.Join(privateDir, filepath.FromSlash(paths[i]))
		}
	}
	rowIDs := make([]string, len(rows))
	for i, r := range rows {
		rowIDs[i] = r.ID
	}
	caseIDs := challenge.DistinctCaseIDs(rowIDs)
	out := make([]gradeRow, len(rows))
	for i, r := range rows {
		out[i] = gradeRow{Row: r, answer: answer[r.Key], caseID: caseIDs[i]}
	}
	return out, nil
}

// predictionPath resolves a row's prediction path inside the submission
// folder. The task-3 graders first strip a leading "./" and then a leading
// "working/".
func (c Challenge) predictionPath(submissionDir string, r medseg.Row) (string, string, error) {
	rel := r.Path
	if c.Task == Edges {
		rel = strings.TrimPrefix(rel, "./")
		rel = strings.TrimPrefix(rel, "working/")
	}
	field := fmt.Sprintf("%s (row %d)", c.pathColumn(), r.Line)
	p, err := challenge.ResolveInside(submissionDir, rel, field)
	if err != nil {
		return "", "", err
	}
	return p, rel, nil
}

// Grade scores a submission folder (see the metric cards and quirks).
func (c Challenge) Grade(ctx context.Context, submissionDir, privateDir string, mode challenge.Mode) (*challenge.Result, error) {
	if mode != challenge.Reference && mode != challenge.Official {
		return nil, fmt.Errorf("%s: unknown grading mode %q", c.Config.ID, mode)
	}
	rows, err := c.readRows(submissionDir, privateDir, mode)
	if err != nil {
		return nil, err
	}
	var res *challenge.Result
	switch {
	case c.Task == Box:
		res, err = c.gradeBoxes(ctx, submissionDir, rows, mode)
	case c.Task == Edges:
		res, err = c.gradeEdges(ctx, submissionDir, rows, mode)
	case c.Family == TopBrain:
		res, err = c.gradeBrain(ctx, submissionDir, rows, mode)
	default:
		res, err = c.gradeCoW(ctx, submissionDir, rows, mode)
	}
	if err != nil {
		return nil, err
	}
	if n := repeatedRows(rows); n > 0 {
		res.Notes = append(res.Notes, fmt.Sprintf("%d rows repeat an earlier row's id: every row is graded, so a repeated id weighs more; the k-th row of an id is stored as case <id>#k", n))
	}
	return res, nil
}

// repeatedRows counts the rows stored under a renamed case id.
func repeatedRows(rows []gradeRow) int {
	n := 0
	for _, r := range rows {
		if r.caseID != r.ID {
			n++
		}
	}
	return n
}

// loadPair reads the answer and the prediction of a row.
func (c Challenge) loadPair(submissionDir string, r gradeRow, mode challenge.Mode) (*labelMap, *labelMap, error) {
	gtVol, gt, err := readGT(r.answer)
	if err != nil {
		return nil, nil, err
	}
	p, rel, err := c.predictionPath(submissionDir, r.Row)
	if err != nil {
		return nil, nil, err
	}
	field := fmt.Sprintf("%s (row %d)", c.pathColumn(), r.Line)
	f, err := challenge.OpenInside(submissionDir, rel, field)
	if err != nil {
		return nil, nil, err
	}
	f.Close()
	pred, err := readPrediction(p, rel, field, gtVol, mode)
	if err != nil {
		return nil, nil, err
	}
	return gt, pred, nil
}

func (c Challenge) gradeCoW(ctx context.Context, submissionDir string, rows []gradeRow, mode challenge.Mode) (*challenge.Result, error) {
	res := &challenge.Result{Mode: mode}
	var dice, cl, b0, hd []float64
	var xHD, xDice, xB0, xHD95, xHDm []float64 // official extras
	det := make([]topology.DetectionCounts, len(group2Labels))
	var antTrue, antPred, posTrue, posPred []string
	var antTopo, posTopo []string
	for _, r := range rows {
		gt, pred, err := c.loadPair(submissionDir, r, mode)
		if err != nil {
			return nil, err
		}
		if mode == challenge.Official {
			if gt, pred, err = cropToROI(r.answer, gt, pred); err != nil {
				return nil, err
			}
		}
		cc, err := gradeCoWCase(ctx, gt, pred, mode)
		if err != nil {
			return nil, fmt.Errorf("%s: case %s: %w", c.Config.ID, r.ID, err)
		}
		dice, cl, b0, hd = append(dice, cc.dice), append(cl, cc.cldice), append(b0, cc.b0), append(hd, cc.hd95)
		xHD, xDice, xB0, xHD95, xHDm = append(xHD, cc.hd), append(xDice, cc.mDice), append(xB0, cc.mB0), append(xHD95, cc.mHD95), append(xHDm, cc.mHD)
		detail := caseDetail{Det: make([]string, len(det))}
		for i := range det {
			det[i].Add(cc.inGT[i], cc.inPred[i], cc.iou[i], detectionIoU)
			detail.Det[i] = detectionOutcome(cc.inGT[i], cc.inPred[i], cc.iou[i])
		}
		match := func(ok bool, gtClass string) string {
			if ok {
				return gtClass
			}
			return "incorrect"
		}
		if mode == challenge.Official {
			antTrue, antPred = append(antTrue, cc.gtAnt), append(antPred, cc.predAnt)
			posTrue, posPred = append(posTrue, cc.gtPos), append(posPred, cc.predPos)
			antTopo, posTopo = append(antTopo, match(cc.antMatch, cc.gtAnt)), append(posTopo, match(cc.posMatch, cc.gtPos))
			detail.Acc = map[string]classOutcome{
				"anterior_graph_acc": {cc.gtAnt, cc.predAnt == cc.gtAnt}, "posterior_graph_acc": {cc.gtPos, cc.predPos == cc.gtPos},
				"anterior_topology": {cc.gtAnt, cc.antMatch}, "posterior_topology": {cc.gtPos, cc.posMatch},
			}
		} else {
			antTrue, posTrue = append(antTrue, "correct"), append(posTrue, "correct")
			antTopo, posTopo = append(antTopo, match(cc.antMatch, "correct")), append(posTopo, match(cc.posMatch, "correct"))
			// The graph accuracies are the topology's (antPred = antTopo below).
			detail.Acc = map[string]classOutcome{
				"anterior_graph_acc": {"correct", cc.antMatch}, "posterior_graph_acc": {"correct", cc.posMatch},
				"anterior_topology": {"correct", cc.antMatch}, "posterior_topology": {"correct", cc.posMatch},
			}
		}
		cv := map[string]float64{
			"dice": cc.dice, "cldice": cc.cldice, "b0_error": cc.b0, "hd95": cc.hd95,
			"anterior_topology": b2f(cc.antMatch), "posterior_topology": b2f(cc.posMatch),
		}
		if mode == challenge.Official {
			cv["hd"], cv["dice_merged"], cv["b0_error_merged"], cv["hd95_merged"], cv["hd_merged"] = cc.hd, cc.mDice, cc.mB0, cc.mHD95, cc.mHD
		}
		res.Cases = append(res.Cases, challenge.Case{ID: r.caseID, Values: cv, Detail: encodeDetail(detail)})
	}
	if mode != challenge.Official {
		antPred, posPred = antTopo, posTopo
	}
	antAcc, err := stats.BalancedAccuracy(antTrue, antPred)
	if err != nil {
		return nil, err
	}
	posAcc, err := stats.BalancedAccuracy(posTrue, posPred)
	if err != nil {
		return nil, err
	}
	antT, _ := stats.BalancedAccuracy(antTrue, antTopo)
	posT, _ := stats.BalancedAccuracy(posTrue, posTopo)
	res.Set("dice", mean(dice))
	res.Set("cldice", mean(cl))
	res.Set("b0_error", mean(b0))
	res.Set("hd95", mean(hd))
	res.Set("f1_grp2", topology.MeanF1(det))
	res.Set("anterior_graph_acc", antAcc)
	res.Set("posterior_graph_acc", posAcc)
	res.Set("anterior_topology", antT)
	res.Set("posterior_topology", posT)
	// Unranked outputs of the organisers' evaluation (NaN in reference mode,
	// which does not compute them).
	res.Set("hd", mean(xHD))
	res.Set("dice_merged", mean(xDice))
	res.Set("b0_error_merged", mean(xB0))
	res.Set("hd95_merged", mean(xHD95))
	res.Set("hd_merged", mean(xHDm))
	return res, nil
}

func (c Challenge) gradeBrain(ctx context.Context, submissionDir string, rows []gradeRow, mode challenge.Mode) (*challenge.Result, error) {
	res := &challenge.Result{Mode: mode}
	var dice, cl, b0, hd, nb []float64
	det := make([]topology.DetectionCounts, len(sideRoadLabels(c.Modality)))
	for _, r := range rows {
		gt, pred, err := c.loadPair(submissionDir, r, mode)
		if err != nil {
			return nil, err
		}
		bc, err := gradeBrainCase(ctx, gt, pred, mode, c.Modality)
		if err != nil {
			return nil, fmt.Errorf("%s: case %s: %w", c.Config.ID, r.ID, err)
		}
		dice, cl, b0 = append(dice, bc.dice), append(cl, bc.cldice), append(b0, bc.b0)
		hd, nb = append(hd, bc.hd95), append(nb, bc.neighbourError)
		var detail caseDetail // an empty case stays out of the detection counts
		if !bc.empty {
			detail.Det = make([]string, len(det))
			for i := range det {
				det[i].Add(bc.inGT[i], bc.inPred[i], bc.iou[i], detectionIoU)
				detail.Det[i] = detectionOutcome(bc.inGT[i], bc.inPred[i], bc.iou[i])
			}
		}
		res.Cases = append(res.Cases, challenge.Case{ID: r.caseID, Values: map[string]float64{
			"dice": bc.dice, "cldice": bc.cldice, "b0_error": bc.b0, "hd95": bc.hd95, "neighbor_error": bc.neighbourError,
		}, Detail: encodeDetail(detail)})
	}
	res.Set("dice", mean(dice))
	res.Set("cldice", mean(cl))
	res.Set("b0_error", mean(b0))
	res.Set("hd95", mean(hd))
	res.Set("neighbor_error", mean(nb))
	res.Set("f1_side_road", topology.MeanF1(det))
	return res, nil
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// roiPath is where Prepare keeps the ROI box of a TopCoW segmentation
// answer: private/test/roi/<stem>.txt beside private/test/labels/<stem>.nii.gz.
func roiPath(answer string) string {
	dir := filepath.Dir(filepath.Dir(answer))
	return filepath.Join(dir, "roi", strings.TrimSuffix(filepath.Base(answer), ".nii.gz")+".txt")
}

// cropToROI restricts both label maps to the case's CoW ROI box (clipped to
// the volume), as the official TopCoW task-1 evaluation scores inside the
// ROI. Without a stored ROI the maps are returned unchanged.
func cropToROI(answer string, gt, pred *labelMap) (*labelMap, *labelMap, error) {
	b, err := os.ReadFile(roiPath(answer))
	if errors.Is(err, fs.ErrNotExist) {
		return gt, pred, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("read ROI: %w", err)
	}
	box, err := parseBoxText(string(b))
	if err != nil {
		return nil, nil, fmt.Errorf("ROI %s: %w", roiPath(answer), err)
	}
	var lo, hi, shape [3]int
	for a := 0; a < 3; a++ {
		lo[a] = max(0, box.Location[a])
		hi[a] = min(gt.shape[a]-1, box.Location[a]+box.Size[a]-1)
		if hi[a] < lo[a] {
			return nil, nil, fmt.Errorf("ROI %s lies outside the volume", roiPath(answer))
		}
		shape[a] = hi[a] - lo[a] + 1
	}
	crop := func(m *labelMap) *labelMap {
		out := &labelMap{shape: shape, spacing: m.spacing, labels: make([]uint8, 0, shape[0]*shape[1]*shape[2])}
		for z := lo[2]; z <= hi[2]; z++ {
			for y := lo[1]; y <= hi[1]; y++ {
				base := m.shape[0] * (y + m.shape[1]*z)
				out.labels = append(out.labels, m.labels[base+lo[0]:base+hi[0]+1]...)
			}
		}
		return out
	}
	return crop(gt), crop(pred), nil
}
