package puma

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"sync"

	"github.com/rexmle/rexmle/metrics/imageio"
	"github.com/rexmle/rexmle/pipeline/challenge"
)

const submissionFile = "submission.csv"

// row is one submission row: a case id and the file it names.
type row struct {
	id, path string
	line     int
}

// readSubmission reads submission.csv and returns its (case_id, pathCol)
// rows in file order.
func readSubmission(dir, pathCol string) ([]row, error) {
	t, err := challenge.ReadSubmissionCSV(dir, submissionFile)
	if err != nil {
		return nil, err
	}
	ic, err := t.Col("case_id")
	if err != nil {
		return nil, challenge.Invalidf(submissionFile, "case_id", "column missing: the header must name case_id and %s", pathCol)
	}
	pc, err := t.Col(pathCol)
	if err != nil {
		return nil, challenge.Invalidf(submissionFile, pathCol, "column missing: the header must name case_id and %s", pathCol)
	}
	rows := make([]row, len(t.Rows))
	for i, r := range t.Rows {
		rows[i] = row{id: r[ic], path: r[pc], line: i + 2}
	}
	return rows, nil
}

// answer is one private answer row.
type answer struct{ id, label string }

func readAnswers(privateDir string) ([]answer, error) {
	t, err := challenge.ReadCSV(filepath.Join(privateDir, answersCSV))
	if err != nil {
		return nil, fmt.Errorf("read answers: %w", err)
	}
	ids, err := t.Column("case_id")
	if err != nil {
		return nil, err
	}
	labels, err := t.Column("label_path")
	if err != nil {
		return nil, err
	}
	out := make([]answer, len(ids))
	for i := range ids {
		out[i] = answer{ids[i], labels[i]}
	}
	return out, nil
}

// answerDir is where the mode's answers live.
func answerDir(privateDir string, mode challenge.Mode) string {
	if mode == challenge.Official {
		return filepath.Join(privateDir, officialDir)
	}
	return privateDir
}

// Grade scores a submission (see the metric cards and Quirks).
func (c Challenge) Grade(ctx context.Context, submissionDir, privateDir string, mode challenge.Mode) (*challenge.Result, error) {
	if c.task == Tissue {
		return c.gradeTissue(ctx, submissionDir, privateDir, mode)
	}
	return c.gradeNuclei(ctx, submissionDir, privateDir, mode)
}

// Tissue grading -----------------------------------------------------------

const eps = 1e-5

// tissueCounts are per-class pixel counts (index 1..5).
type tissueCounts struct{ inter, truth, pred [6]int64 }

// decodeTissueMask turns a decoded prediction into 1024×1024 labels 0..5
// (anything else is background) as the mode's code reads it, and resizes
// it by nearest neighbour.
//
// Reference, track 1: channel 0 cast to uint8 as numpy does on x86
// (integers wrap modulo 256, floats truncate toward zero, NaN and ±Inf
// become 0), and a value above 5 after the cast makes the submission
// invalid. Track 2: the array as decoded, single channel only; the
// submission is invalid when np.unique(mask).max() > 5, which a NaN
// anywhere in the mask hides (the max is then NaN); labels compare for
// exact equality with 1..5, so NaN, ±Inf, fractions and negatives are
// background.
//
// Official, both tracks (evaluate_tissue.py): the array as decoded (no
// uint8 cast; track 1 takes channel 0 of a multi-channel mask, which the
// organisers cannot read: see maskFormats), no range check: every value
// that is not exactly 1..5 is background.
func (c Challenge) decodeTissueMask(im *rawImage, file string, mode challenge.Mode) ([]uint8, error) {
	official := mode == challenge.Official
	plane := make([]uint8, im.W*im.H)
	label := func(v float64) uint8 {
		if v == 1 || v == 2 || v == 3 || v == 4 || v == 5 {
			return uint8(v)
		}
		return 0
	}
	switch {
	case c.track == 1 && !official:
		for i := range plane {
			v := im.Pix[i*im.C]
			var b uint8
			if !math.IsNaN(v) && !math.IsInf(v, 0) {
				b = uint8(int64(math.Trunc(v)) & 0xff)
			}
			if b > 5 {
				return nil, challenge.Invalidf(file, "", "pixel (row %d, column %d) is %d after the uint8 cast, want a label 0–5", i/im.W, i%im.W, b)
			}
			plane[i] = b
		}
	case c.track == 1:
		for i := range plane {
			plane[i] = label(im.Pix[i*im.C])
		}
	default:
		if !official {
			mx, hasNaN := math.Inf(-1), false
			for _, v := range im.Pix {
				hasNaN = hasNaN || math.IsNaN(v)
				mx = math.Max(mx, v)
			}
			if !hasNaN && mx > 5 {
				return nil, challenge.Invalidf(file, "", "mask values go up to %v, want a label 0–5 (track 2 uses the array as decoded: no channel selection, no uint8 cast)", mx)
			}
		}
		if im.C != 1 {
			return nil, challenge.Invalidf(file, "", "mask has %d channels; track 2 compares the decoded array with the single-channel truth, so it must have one channel", im.C)
		}
		for i, v := range im.Pix {
			plane[i] = label(v)
		}
	}
	// Reference track 1 resizes the uint8 cast (mode L); the others the
	// array as decoded (a 16-bit one with Pillow's 16-bit rule).
	return resizeNearest(plane, im.W, im.H, Size, Size, (c.track == 2 || official) && im.U16), nil
}

// decodeTissueMask8 is decodeTissueMask for 8-bit unsigned samples (the
// same labels and errors; no NaN, no fractions, no wrap-around possible).
// The labels may share im.Pix.
func (c Challenge) decodeTissueMask8(im *imageio.Picture8, file string, mode challenge.Mode) ([]uint8, error) {
	plane := im.Pix
	if c.track == 1 && im.C != 1 {
		plane = make([]uint8, im.W*im.H)
		for i := range plane {
			plane[i] = im.Pix[i*im.C]
		}
	}
	if c.track == 2 && im.C != 1 {
		if i := indexAbove5(im.Pix); i >= 0 && mode == challenge.Reference {
			return nil, c.above5(im.Pix, i, im.W*im.C, file)
		}
		return nil, challenge.Invalidf(file, "", "mask has %d channels; track 2 compares the decoded array with the single-channel truth, so it must have one channel", im.C)
	}
	if i := indexAbove5(plane); i >= 0 {
		if mode == challenge.Reference {
			return nil, c.above5(plane, i, im.W, file)
		}
		// Official: a value above 5 is background.
		for k := i; k < len(plane); k++ {
			if plane[k] > 5 {
				plane[k] = 0
			}
		}
	}
	return resizeNearest(plane, im.W, im.H, Size, Size, false), nil
}

// above5 is the reference's error for a label above 5 at plane[i] (rows
// of w samples).
func (c Challenge) above5(plane []uint8, i, w int, file string) error {
	if c.track == 1 {
		return challenge.Invalidf(file, "", "pixel (row %d, column %d) is %d after the uint8 cast, want a label 0–5", i/w, i%w, plane[i])
	}
	mx := uint8(0)
	for _, v := range plane[i:] {
		mx = max(mx, v)
	}
	return challenge.Invalidf(file, "", "mask values go up to %v, want a label 0–5 (track 2 uses the array as decoded: no channel selection, no uint8 cast)", float64(mx))
}

const (
	bytes01 = 0x0101010101010101
	bytes80 = 0x8080808080808080
)

// indexAbove5 returns the index of the first byte of b above 5, or -1.
// Eight bytes at a time: a byte x is above 5 exactly when its high bit is
// set or (x & 0x7f) + 0x7a reaches 0x80, which never carries into the next
// byte.
func indexAbove5(b []byte) int {
	i := 0
	for ; i+8 <= len(b); i += 8 {
		x := binary.LittleEndian.Uint64(b[i:])
		if ((x&^bytes80)+0x7a*bytes01|x)&bytes80 != 0 {
			break
		}
	}
	for ; i < len(b); i++ {
		if b[i] > 5 {
			return i
		}
	}
	return -1
}

// readPrediction reads and decodes a submitted mask (file is its name in
// the submission, for messages); buf may hold the decoded samples.
func (c Challenge) readPrediction(path, file string, buf []byte, mode challenge.Mode) ([]uint8, error) {
	p8, im, err := readMaskFileMax(path, buf, predictionMaxBytes)
	if err != nil {
		return nil, challenge.Invalidf(file, "", "cannot read the mask: %s", strings.ReplaceAll(err.Error(), path+": ", ""))
	}
	if p8 != nil {
		return c.decodeTissueMask8(p8, file, mode)
	}
	return c.decodeTissueMask(im, file, mode)
}

// readTruthLabels reads a truth mask: channel 0 cast to uint8, resized to
// Size × Size; buf may hold the decoded samples.
func readTruthLabels(path string, buf []byte) ([]uint8, error) {
	p8, tim, err := readMaskFile(path, buf)
	if err != nil {
		return nil, err
	}
	var truth []uint8
	var w, h int
	if p8 != nil {
		w, h, truth = p8.W, p8.H, p8.Pix
		if p8.C != 1 {
			truth = make([]uint8, w*h)
			for k := range truth {
				truth[k] = p8.Pix[k*p8.C]
			}
		}
	} else {
		w, h, truth = tim.W, tim.H, make([]uint8, tim.W*tim.H)
		for k := range truth {
			truth[k] = uint8(tim.Pix[k*tim.C])
		}
	}
	return resizeNearest(truth, w, h, Size, Size, false), nil
}

// maskBufs recycles the buffers masks are decoded into.
var maskBufs sync.Pool

func getMaskBuf() *[]byte {
	if b, ok := maskBufs.Get().(*[]byte); ok {
		return b
	}
	b := make([]byte, Size*Size)
	return &b
}

// countTissue counts, for classes 1..5, truth pixels, predicted pixels and
// pixels where both agree. pred holds labels 0..5; truth any byte (a
// value outside 1..5 is background). One pass fills a 6 × 6 table of
// (truth, prediction) pairs, eight pixels at a time where both masks hold
// a run of one value (masks are mostly long runs).
func countTissue(truth, pred []uint8) tissueCounts {
	var table [6 * 6]int64
	pred = pred[:len(truth)]
	cell := func(t, p uint8) int {
		if t > 5 {
			t = 0
		}
		return int(t)*6 + int(p%6)
	}
	k := 0
	for ; k+8 <= len(truth); k += 8 {
		t8 := binary.LittleEndian.Uint64(truth[k:])
		p8 := binary.LittleEndian.Uint64(pred[k:])
		t, p := truth[k], pred[k]
		if t8 == uint64(t)*bytes01 && p8 == uint64(p)*bytes01 {
			table[cell(t, p)] += 8
			continue
		}
		for j := k; j < k+8; j++ {
			table[cell(truth[j], pred[j])]++
		}
	}
	for ; k < len(truth); k++ {
		table[cell(truth[k], pred[k])]++
	}
	var tc tissueCounts
	for t := 1; t <= 5; t++ {
		tc.inter[t] = table[t*6+t]
		for p := 0; p <= 5; p++ {
			tc.truth[t] += table[t*6+p]
			tc.pred[t] += table[p*6+t]
		}
	}
	return tc
}

func (c Challenge) gradeTissue(ctx context.Context, subDir, privateDir string, mode challenge.Mode) (*challenge.Result, error) {
	rows, err := readSubmission(subDir, "predicted_mask_path")
	if err != nil {
		return nil, err
	}
	answers, err := readAnswers(privateDir)
	if err != nil {
		return nil, err
	}
	if err := checkSameSet(rows, answers); err != nil {
		return nil, err
	}
	if err := checkOfficialIDs(rows, answers, mode); err != nil {
		return nil, err
	}
	labelOf := map[string]string{}
	for _, a := range answers {
		labelOf[a.id] = a.label
	}
	counts := make([]tissueCounts, len(rows))
	adir := answerDir(privateDir, mode)
	err = challenge.ForEach(ctx, len(rows), func(i int) error {
		r := rows[i]
		field := fmt.Sprintf("row %d (%s) predicted_mask_path", r.line, r.id)
		path, err := challenge.ResolveInside(subDir, r.path, field)
		if err != nil {
			return err
		}
		if st, err := challenge.StatInside(subDir, r.path, field); err != nil {
			return err
		} else if !st.Mode().IsRegular() {
			return challenge.Invalidf(r.path, field, "not a regular file")
		}
		pbuf, tbuf := getMaskBuf(), getMaskBuf()
		defer maskBufs.Put(pbuf)
		defer maskBufs.Put(tbuf)
		pred, err := c.readPrediction(path, r.path, *pbuf, mode)
		if err != nil {
			return err
		}
		truth, err := readTruthLabels(filepath.Join(adir, labelOf[r.id]), *tbuf)
		if err != nil {
			return fmt.Errorf("read truth of %s: %w", r.id, err)
		}
		tc := countTissue(truth, pred)
		counts[i] = tc
		return nil
	})
	if err != nil {
		return nil, err
	}
	res := &challenge.Result{Mode: mode}
	var pooled tissueCounts
	caseIDs := distinctCaseIDs(rows)
	for i, tc := range counts {
		for k := 1; k <= 5; k++ {
			pooled.inter[k] += tc.inter[k]
			pooled.truth[k] += tc.truth[k]
			pooled.pred[k] += tc.pred[k]
		}
		res.Cases = append(res.Cases, challenge.Case{ID: caseIDs[i], Values: map[string]float64{"dice": c.caseDice(tc, mode)}, Detail: encodeTissueDetail(tc, mode)})
	}
	res.Set("dice", c.microDice(pooled, mode))
	if mode == challenge.Reference {
		empty := true
		for k := 1; k <= 5; k++ {
			if pooled.truth[k] > 0 {
				empty = false
			}
		}
		if empty {
			res.Notes = append(res.Notes, "REFERENCE QUIRK: the reference ground truth is entirely background because "+namesNote+"; every submission scores 0 (track 1: at most ≈1e-5), as in the paper. Grade in official mode for a meaningful score.")
		}
	} else {
		res.Notes = append(res.Notes, "OFFICIAL MODE: ground truth rasterised with the real tissue_* class names; the reference (paper) ground truth is all background and scores every submission 0.")
	}
	res.Notes = append(res.Notes, "per-case values are the per-image mean Dice over classes 1–5 (not ranked)")
	return res, nil
}

// microDice is the pooled Dice averaged over classes 1..5 (see the cards).
func (c Challenge) microDice(p tissueCounts, mode challenge.Mode) float64 {
	sum := 0.0
	for k := 1; k <= 5; k++ {
		u := p.truth[k] + p.pred[k]
		if u == 0 {
			continue
		}
		if p.inter[k] == 0 && (c.track == 2 || mode == challenge.Official) {
			continue
		}
		sum += (2*float64(p.inter[k]) + eps) / (float64(u) + eps)
	}
	return sum / 5
}

// caseDice is the per-image mean Dice: a class absent from both scores 0
// (reference) or 1 (official).
func (c Challenge) caseDice(p tissueCounts, mode challenge.Mode) float64 {
	sum := 0.0
	for k := 1; k <= 5; k++ {
		u := p.truth[k] + p.pred[k]
		if u == 0 {
			if mode == challenge.Official {
				sum++
			}
			continue
		}
		sum += (2*float64(p.inter[k]) + eps) / (float64(u) + eps)
	}
	return sum / 5
}

// distinctCaseIDs names the rows' stored cases: a repeated id's k-th row
// is stored as "<id>#k" (the reference grades every row).
func distinctCaseIDs(rows []row) []string {
	ids := make([]string, len(rows))
	for i, r := range rows {
		ids[i] = r.id
	}
	return challenge.DistinctCaseIDs(ids)
}

// referenceIDRule says what the reference does with the submission's ids.
func (c Challenge) referenceIDRule() string {
	if c.task == Tissue {
		return "a repeated id is graded again; ids that are not test cases and missing test cases make the submission invalid"
	}
	return "only the submitted rows are graded: a missing test case is left out and a repeated id counts twice; ids that are not test cases make the submission invalid"
}

// checkOfficialIDs applies the common id rule in official mode: every test
// case exactly once, nothing else (the reference accepts repeated ids and,
// for nuclei, missing ones).
func checkOfficialIDs(rows []row, answers []answer, mode challenge.Mode) error {
	if mode != challenge.Official {
		return nil
	}
	got, want := make([]string, len(rows)), make([]string, len(answers))
	for i, r := range rows {
		got[i] = r.id
	}
	for i, a := range answers {
		want[i] = a.id
	}
	return challenge.CheckIDs(submissionFile, "case_id", got, nil, want, challenge.StrictIDs)
}

// checkSameSet requires the set of submitted ids to equal the answer ids
// (duplicates allowed).
func checkSameSet(rows []row, answers []answer) error {
	want := map[string]bool{}
	for _, a := range answers {
		want[a.id] = true
	}
	got := map[string]bool{}
	for _, r := range rows {
		if !want[r.id] {
			return challenge.Invalidf(submissionFile, fmt.Sprintf("row %d case_id", r.line), "%q is not a test case", r.id)
		}
		got[r.id] = true
	}
	for _, a := range answers {
		if !got[a.id] {
			return challenge.Invalidf(submissionFile, "case_id", "test case %q is missing", a.id)
		}
	}
	return nil
}
