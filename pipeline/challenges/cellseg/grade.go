package cellseg

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"sync/atomic"

	"github.com/rexmle/rexmle/metrics/imageio"
	"github.com/rexmle/rexmle/metrics/imageio/tiff"
	"github.com/rexmle/rexmle/metrics/matching"
	"github.com/rexmle/rexmle/metrics/num"
	"github.com/rexmle/rexmle/metrics/resample"
	"github.com/rexmle/rexmle/metrics/volume"
	"github.com/rexmle/rexmle/pipeline/challenge"
)

const (
	submissionFile = "submission.csv"
	maxImageBytes  = 2 << 30
)

type subRow struct {
	id, path string
	line     int
}

// Mask is an instance label image, row-major.
type Mask struct {
	W, H int
	Pix  []int32
}

// decodePrediction reads a submitted mask the reference's way: a name
// whose suffix is .tif/.tiff (pathlib's suffix: ".tif" alone has none) with
// every page by tifffile (the content must be TIFF; a multi-page file is 3-D
// and fails, and so is a file tifffile wrote with a length-1 axis, e.g.
// mask[None], which it reads back in that shape), other files by Pillow,
// which identifies the format by content (PNG, TIFF first page, BMP, JPEG,
// GIF first frame; palette images as indices). Samples are cast to int32 as
// numpy's astype(np.int32) does (int32Of); a multi-channel image is
// rejected (the reference fails in the resize).
func decodePrediction(path string) (*Mask, error) { return decodePredictionMax(path, maxImageBytes) }

// predictionScale is how many times its image's pixels a predicted mask
// may have (the reference resizes a mask of another size to the image's; a
// far larger one is a decompression bomb, refused from its header).
const predictionScale = 4

// predictionCap is the decoded-size cap (samples × channels × 8 bytes) of
// the prediction for a truth of w × h: predictionScale times its pixels in
// up to 4 channels, at least 1 MiB, at most maxImageBytes.
func predictionCap(w, h int) int64 {
	return min(max(int64(w)*int64(h)*predictionScale*4*8, 1<<20), maxImageBytes)
}

// decodePredictionMax is decodePrediction with the decoded-size cap maxBytes.
func decodePredictionMax(path string, maxBytes int64) (*Mask, error) {
	suffix := strings.ToLower(pathlibSuffix(filepath.Base(path)))
	opt := imageio.Options{MaxBytes: maxBytes}
	var v *volume.Volume
	var shape []int // tifffile's, when it wrote the file
	var err error
	if suffix == ".tif" || suffix == ".tiff" {
		v, shape, err = tiff.ReadTifffileFile(path, opt)
	} else {
		opt.FirstPage = true
		v, _, err = imageio.ReadPictureFile(path, opt)
	}
	if err != nil {
		return nil, err
	}
	if v.Shape[2] != 1 {
		return nil, fmt.Errorf("%d pages: a mask must be a single 2-D image", v.Shape[2])
	}
	if v.NumChannels() != 1 {
		return nil, fmt.Errorf("%d channels: a mask must have a single channel", v.NumChannels())
	}
	if shape != nil && len(shape) != 2 {
		n := 1
		for _, d := range shape {
			n *= d
		}
		if n == len(v.Data) {
			return nil, fmt.Errorf("tifffile reads this file as an array of shape %v (its ImageDescription); a mask must be 2-D (save the (H, W) array itself)", shape)
		}
	}
	m := &Mask{W: v.Shape[0], H: v.Shape[1], Pix: make([]int32, v.Len())}
	float := !v.DType.IsInteger()
	for i, x := range v.Data {
		m.Pix[i] = int32Of(x, float)
	}
	return m, nil
}

// pathlibSuffix is Python's PurePath(name).suffix for a file name: from
// the last dot, unless that dot starts the name or ends it.
func pathlibSuffix(name string) string {
	i := strings.LastIndexByte(name, '.')
	if i <= 0 || i == len(name)-1 {
		return ""
	}
	return name[i:]
}

// int32Of is numpy's astype(np.int32) of one sample on x86-64: an integer
// sample keeps its low 32 bits (wraps); a float one is truncated toward
// zero, and NaN, ±Inf and values outside the int32 range become
// −2147483648 (the processor's "integer indefinite"). (Integer samples
// beyond 2^53 reach here already rounded by the float64 decoding.)
func int32Of(x float64, float bool) int32 {
	if float {
		t := math.Trunc(x)
		if math.IsNaN(t) || t < math.MinInt32 || t > math.MaxInt32 {
			return math.MinInt32
		}
		return int32(t)
	}
	if x >= 1<<63 {
		return int32(uint64(x))
	}
	return int32(int64(x))
}

// readTruth reads a private label image.
func readTruth(path string) (*Mask, error) {
	v, err := imageio.Read(path, imageio.Options{MaxBytes: maxImageBytes})
	if err != nil {
		return nil, err
	}
	if v.Shape[2] != 1 || v.NumChannels() != 1 {
		return nil, fmt.Errorf("%s: truth is not a single-channel 2-D image", path)
	}
	m := &Mask{W: v.Shape[0], H: v.Shape[1], Pix: make([]int32, v.Len())}
	for i, x := range v.Data {
		m.Pix[i] = int32(x)
	}
	return m, nil
}

// fitTo resizes a prediction to the truth's size as the reference does:
// cast to uint16 (wrapping), Pillow NEAREST in its 16-bit mode I;16
// (resample.PillowNearestIndex16), back to int32.
func fitTo(p *Mask, w, h int) *Mask {
	if p.W == w && p.H == h {
		return p
	}
	pix := make([]uint16, len(p.Pix))
	for i, v := range p.Pix {
		pix[i] = uint16(v)
	}
	pix = resample.Resize2D(pix, p.W, p.H, w, h, resample.PillowNearestIndex16(p.W, w), resample.PillowNearestIndex16(p.H, h))
	out := &Mask{W: w, H: h, Pix: make([]int32, w*h)}
	for i, v := range pix {
		out.Pix[i] = int32(v)
	}
	return out
}

// round4 is numpy's np.round(x, 4), as the organisers' compute_metric.py
// applies to each image's F1: x·10⁴ rounded half to even, divided by 10⁴.
func round4(x float64) float64 {
	return math.RoundToEven(x*1e4) / 1e4
}

// GraderVersion versions what the grader stores beyond the metric cards:
// 2 stores the k-th row of a repeated id as case "<id>#k"
// (challenge.DistinctCaseIDs), so every scored row is a stored case and the
// mean of the stored per-case values reproduces the graded value.
func (Challenge) GraderVersion() string { return "2" }

// Grade scores submission.csv (see the metric cards).
func (Challenge) Grade(ctx context.Context, subDir, privateDir string, mode challenge.Mode) (*challenge.Result, error) {
	t, err := challenge.ReadSubmissionCSV(subDir, submissionFile)
	if err != nil {
		return nil, err
	}
	ic, err := t.Col("image_id")
	if err != nil {
		return nil, challenge.Invalidf(submissionFile, "image_id", "column missing: the header must name image_id and predicted_mask_path")
	}
	pc, err := t.Col("predicted_mask_path")
	if err != nil {
		return nil, challenge.Invalidf(submissionFile, "predicted_mask_path", "column missing: the header must name image_id and predicted_mask_path")
	}
	aids, labelOf, err := readLabels(privateDir)
	if err != nil {
		return nil, err
	}
	rows, nDistinct, err := submissionRows(t, ic, pc, aids, labelOf, mode)
	if err != nil {
		return nil, err
	}
	counts := make([]matching.InstanceCounts, len(rows))
	var resized atomic.Int64
	err = challenge.ForEach(ctx, len(rows), func(i int) error {
		var err error
		counts[i], err = matchRow(ctx, subDir, filepath.Join(privateDir, filepath.FromSlash(labelOf[rows[i].id])), rows[i], mode, &resized)
		return err
	})
	if err != nil {
		return nil, err
	}
	res := &challenge.Result{Mode: mode}
	setScores(res, rows, counts, mode)
	if len(rows) != nDistinct {
		res.Notes = append(res.Notes, fmt.Sprintf("%d rows for %d distinct image ids: every row is scored, so repeated ids weigh more (the reference's test list repeats ids whose training and tuning images share a name); the k-th row of an id is stored as case <id>#k", len(rows), nDistinct))
	}
	if mode == challenge.Official {
		res.Notes = append(res.Notes, "OFFICIAL MODE: per-image F1 rounded to 4 decimals before averaging, as the organisers' script does")
	}
	if n := resized.Load(); n > 0 {
		res.Notes = append(res.Notes, fmt.Sprintf("%d masks had another size than their image and were resized to it (uint16 cast, Pillow nearest neighbour), as the reference does", n))
	}
	return res, nil
}

// readLabels reads the answer list: the test image ids in order and each
// id's label path (a repeated id: the reference takes its first row).
func readLabels(privateDir string) (aids []string, labelOf map[string]string, err error) {
	ans, err := challenge.ReadCSV(filepath.Join(privateDir, "test_labels.csv"))
	if err != nil {
		return nil, nil, fmt.Errorf("read answers: %w", err)
	}
	aids, err = ans.Column("image_id")
	if err != nil {
		return nil, nil, err
	}
	alabs, err := ans.Column("label_path")
	if err != nil {
		return nil, nil, err
	}
	labelOf = map[string]string{}
	for i, id := range aids {
		if _, ok := labelOf[id]; !ok {
			labelOf[id] = alabs[i]
		}
	}
	return aids, labelOf, nil
}

// submissionRows are the submission's rows (columns ic and pc), refused
// where one names no test image or a test image is missing (and, in
// official mode, where the ids break the common id rule); nDistinct counts
// the distinct ids.
func submissionRows(t *challenge.Table, ic, pc int, aids []string, labelOf map[string]string, mode challenge.Mode) (rows []subRow, nDistinct int, err error) {
	rows = make([]subRow, len(t.Rows))
	seen := map[string]bool{}
	for i, r := range t.Rows {
		rows[i] = subRow{r[ic], r[pc], i + 2}
		if _, ok := labelOf[r[ic]]; !ok {
			return nil, 0, challenge.Invalidf(submissionFile, fmt.Sprintf("row %d image_id", i+2), "%q is not a test image", r[ic])
		}
		seen[r[ic]] = true
	}
	for _, id := range aids {
		if !seen[id] {
			return nil, 0, challenge.Invalidf(submissionFile, "image_id", "test image %q is missing", id)
		}
	}
	if mode == challenge.Official {
		// The common id rule: every test case exactly once, nothing else.
		got := make([]string, len(rows))
		for i, r := range rows {
			got[i] = r.id
		}
		if err := challenge.CheckIDs(submissionFile, "image_id", got, nil, aids, challenge.StrictIDs); err != nil {
			return nil, 0, err
		}
	}
	return rows, len(seen), nil
}

// matchRow reads one row's predicted mask and its image's truth (at
// truthPath) and matches their instances at every threshold; a mask of
// another size is resized to the truth's in reference mode (counted in
// resized) and refused in official mode.
func matchRow(ctx context.Context, subDir, truthPath string, r subRow, mode challenge.Mode, resized *atomic.Int64) (matching.InstanceCounts, error) {
	field := fmt.Sprintf("row %d (%s) predicted_mask_path", r.line, r.id)
	path, err := challenge.ResolveInside(subDir, r.path, field)
	if err != nil {
		return matching.InstanceCounts{}, err
	}
	if st, err := challenge.StatInside(subDir, r.path, field); err != nil {
		return matching.InstanceCounts{}, err
	} else if !st.Mode().IsRegular() {
		return matching.InstanceCounts{}, challenge.Invalidf(r.path, field, "not a regular file")
	}
	truth, err := readTruth(truthPath)
	if err != nil {
		return matching.InstanceCounts{}, fmt.Errorf("truth of %s: %w", r.id, err)
	}
	// The prediction's size is checked from its header against the
	// truth's before it is decoded.
	pred, err := decodePredictionMax(path, predictionCap(truth.W, truth.H))
	if err != nil {
		return matching.InstanceCounts{}, challenge.Invalidf(r.path, "", "cannot read the mask: %s", strings.ReplaceAll(err.Error(), path+": ", ""))
	}
	if pred.W != truth.W || pred.H != truth.H {
		if mode == challenge.Official {
			return matching.InstanceCounts{}, challenge.Invalidf(r.path, "", "mask is %d×%d, the image is %d×%d (official mode compares masks of the image's size only)", pred.W, pred.H, truth.W, truth.H)
		}
		resized.Add(1)
	}
	pred = fitTo(pred, truth.W, truth.H)
	c, err := matching.MatchInstances(ctx, truth.Pix, pred.Pix, truth.H, truth.W, Thresholds)
	if err != nil {
		if ctx.Err() != nil {
			return matching.InstanceCounts{}, ctx.Err()
		}
		return matching.InstanceCounts{}, challenge.Invalidf(r.path, "", "%v", err)
	}
	return c, nil
}

// setScores sets each row's F1 per threshold as a case (rounded to 4
// decimals in official mode) and their means.
func setScores(res *challenge.Result, rows []subRow, counts []matching.InstanceCounts, mode challenge.Mode) {
	perImage := make([][]float64, len(Thresholds))
	rowIDs := make([]string, len(rows))
	for i, r := range rows {
		rowIDs[i] = r.id
	}
	caseIDs := challenge.DistinctCaseIDs(rowIDs)
	for i, c := range counts {
		vals := map[string]float64{}
		for k := range Thresholds {
			f := matching.InstanceF1(c.TP[k], c.Truth, c.Pred)
			if mode == challenge.Official {
				f = round4(f)
			}
			perImage[k] = append(perImage[k], f)
			vals[MetricNames[k]] = f
		}
		res.Cases = append(res.Cases, challenge.Case{ID: caseIDs[i], Values: vals})
	}
	for k, n := range MetricNames {
		// pandas Series.mean: numpy's pairwise sum divided by the count.
		res.Set(n, num.Sum(perImage[k])/float64(len(rows)))
	}
}
