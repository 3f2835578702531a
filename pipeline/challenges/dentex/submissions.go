package dentex

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"sort"

	"github.com/rexmle/rexmle/metrics/detection"
	"github.com/rexmle/rexmle/metrics/imageio"
	"github.com/rexmle/rexmle/pipeline/challenge"
)

// predJSON is one prediction as written by our submissions (0-based labels).
type predJSON struct {
	ImageID string     `json:"image_id"`
	BBox    [4]float64 `json:"bbox"`
	Score   float64    `json:"score"`
	Q       int        `json:"category_id_1"`
	T       int        `json:"category_id_2"`
	D       int        `json:"category_id_3"`
}

func sampleIDs(publicDir string) ([]string, error) {
	t, err := challenge.ReadCSV(filepath.Join(publicDir, "sample_submission.csv"))
	if err != nil {
		return nil, fmt.Errorf("read sample submission: %w", err)
	}
	return t.Column(colID)
}

// writeSubmission writes submission.csv and predictions/<id>.json per image.
func writeSubmission(outDir string, ids []string, preds map[string][]predJSON) error {
	rows := make([][]string, len(ids))
	for i, id := range ids {
		rel := "predictions/" + id + ".json"
		p := preds[id]
		if p == nil {
			p = []predJSON{}
		}
		b, err := json.MarshalIndent(p, "", " ")
		if err != nil {
			return err
		}
		if err := challenge.WriteFileAtomic(filepath.Join(outDir, filepath.FromSlash(rel)), b); err != nil {
			return err
		}
		rows[i] = []string{id, rel}
	}
	return challenge.WriteCSV(filepath.Join(outDir, submissionFile), []string{colID, colPred}, rows)
}

// SampleSubmission writes public/sample_submission.csv with, for every
// image, the file it names holding one placeholder box (a fixed box near the
// image centre, labels 0, score 0.5): the reference rejects prediction files
// that are missing and submissions with no prediction at all.
func (Challenge) SampleSubmission(ctx context.Context, publicDir, outDir string) error {
	ids, err := sampleIDs(publicDir)
	if err != nil {
		return err
	}
	preds := map[string][]predJSON{}
	for _, id := range ids {
		preds[id] = []predJSON{{ImageID: id, BBox: [4]float64{150, 60, 20, 40}, Score: 0.5}}
	}
	return writeSubmission(outDir, ids, preds)
}

// Trivial predicts one whole-image box per image (labels 0, score 0.01):
// valid everywhere, matching nothing.
func (Challenge) Trivial(ctx context.Context, publicDir, outDir string) error {
	ids, err := sampleIDs(publicDir)
	if err != nil {
		return err
	}
	preds := map[string][]predJSON{}
	for _, id := range ids {
		preds[id] = []predJSON{{ImageID: id, BBox: [4]float64{0, 0, 1, 1}, Score: 0.01}}
	}
	return writeSubmission(outDir, ids, preds)
}

// Perfect copies every private truth box with its 0-based labels, score 1.
func (Challenge) Perfect(ctx context.Context, publicDir, privateDir, outDir string) error {
	truth, ans, err := loadTruth(privateDir)
	if err != nil {
		return err
	}
	ids, _ := ans.Column(colID)
	idOf := map[int64]string{}
	for stem, id := range truth.stemToID {
		idOf[id] = stem
	}
	preds := map[string][]predJSON{}
	for i, g := range truth.gts {
		var lab [3]int64
		for k, a := range aspects {
			lab[k], _ = categoryOf(truth.anns[i], a)
		}
		stem := idOf[g.ImageID]
		preds[stem] = append(preds[stem], predJSON{ImageID: stem, BBox: [4]float64(g.BBox), Score: 1, Q: int(lab[0]), T: int(lab[1]), D: int(lab[2])})
	}
	return writeSubmission(outDir, ids, preds)
}

// component is a connected bright region found by the baseline.
type component struct {
	box  [4]float64
	mean float64
}

// brightComponents thresholds an image and returns the 4-connected
// components of at least minArea pixels with their bounding boxes and mean level.
func brightComponents(path string, thr float64, minArea int) ([]component, int, error) {
	v, err := imageio.Read(path, imageio.Options{MaxBytes: 1 << 30})
	if err != nil {
		return nil, 0, err
	}
	w, h, c := v.Grid.Shape[0], v.Grid.Shape[1], v.NumChannels()
	seen := make([]bool, w*h)
	var out []component
	var stack []int
	for start := 0; start < w*h; start++ {
		if seen[start] || v.Data[start*c] <= thr {
			continue
		}
		seen[start] = true
		stack = append(stack[:0], start)
		x0, y0, x1, y1, n, sum := w, h, -1, -1, 0, 0.0
		for len(stack) > 0 {
			p := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			x, y := p%w, p/w
			x0, y0, x1, y1 = min(x0, x), min(y0, y), max(x1, x), max(y1, y)
			n++
			sum += v.Data[p*c]
			for _, q := range [][2]int{{x - 1, y}, {x + 1, y}, {x, y - 1}, {x, y + 1}} {
				if q[0] < 0 || q[1] < 0 || q[0] >= w || q[1] >= h {
					continue
				}
				k := q[0] + w*q[1]
				if !seen[k] && v.Data[k*c] > thr {
					seen[k] = true
					stack = append(stack, k)
				}
			}
		}
		if n >= minArea {
			out = append(out, component{[4]float64{float64(x0), float64(y0), float64(x1 - x0 + 1), float64(y1 - y0 + 1)}, sum / float64(n)})
		}
	}
	return out, w, nil
}

// baselineModel is what the baseline learns from the training annotations.
type baselineModel struct {
	threshold  float64
	slot       float64    // median box width + gap: the horizontal pitch of teeth
	centroids  [4]float64 // mean grey level per 0-based diagnosis
	present    [4]bool
	upperSplit float64 // rows above this are the upper jaw
}

func (m baselineModel) predict(comps []component, width int, stem string) []predJSON {
	var out []predJSON
	mid := float64(width) / 2
	for _, c := range comps {
		cx, cy := c.box[0]+c.box[2]/2, c.box[1]+c.box[3]/2
		right := cx < mid // patient's right
		upper := cy < m.upperSplit
		q := map[[2]bool]int{{true, true}: 0, {false, true}: 1, {false, false}: 2, {true, false}: 3}[[2]bool{right, upper}]
		t := int(math.Abs(cx-mid) / m.slot)
		t = max(0, min(7, t))
		best, bd := 0, math.Inf(1)
		for d := 0; d < 4; d++ {
			if m.present[d] && math.Abs(c.mean-m.centroids[d]) < bd {
				best, bd = d, math.Abs(c.mean-m.centroids[d])
			}
		}
		score := 1 / (1 + bd/10)
		out = append(out, predJSON{ImageID: stem, BBox: c.box, Score: score, Q: q, T: t, D: best})
	}
	return out
}

// Baseline learns a brightness threshold, the tooth pitch and a grey-level
// centroid per diagnosis from the training boxes, then detects bright
// connected components in each test image, labels quadrant and tooth from
// the position and the diagnosis by the nearest centroid.
func (Challenge) Baseline(ctx context.Context, publicDir, outDir string, log io.Writer) error {
	tr, err := loadBaselineTraining(publicDir)
	if err != nil {
		return err
	}
	fmt.Fprintf(log, "loaded %d training X-rays with %d annotated abnormal teeth\n", len(tr.order), tr.nBoxes)
	gl, err := tr.greyLevels(ctx, publicDir)
	if err != nil {
		return err
	}
	m, minArea, err := fitBaseline(gl, log)
	if err != nil {
		return err
	}
	if err := tr.heldOutCheck(ctx, publicDir, m, minArea, log); err != nil {
		return err
	}

	ids, err := sampleIDs(publicDir)
	if err != nil {
		return err
	}
	preds := map[string][]predJSON{}
	total := 0
	for _, id := range ids {
		comps, w, err := brightComponents(filepath.Join(publicDir, "test", "images", id+".png"), m.threshold, minArea)
		if err != nil {
			return fmt.Errorf("baseline: %w", err)
		}
		preds[id] = m.predict(comps, w, id)
		total += len(preds[id])
	}
	if total == 0 { // the reference rejects an empty submission
		preds[ids[0]] = []predJSON{{ImageID: ids[0], BBox: [4]float64{0, 0, 1, 1}, Score: 0.01}}
	}
	fmt.Fprintf(log, "predicted %d boxes on %d test images into %s and predictions/*.json (0-based labels, as in the training JSON)\n", total, len(ids), submissionFile)
	return writeSubmission(outDir, ids, preds)
}

// trainBox is a training annotation the baseline learns from.
type trainBox struct {
	ImageID int64      `json:"image_id"`
	BBox    [4]float64 `json:"bbox"`
	D       int        `json:"category_id_3"`
}

// baselineTraining is the public training JSON as the baseline reads it.
type baselineTraining struct {
	files   map[int64]imageEntry
	order   []int64              // image ids in file order
	byImage map[int64][]trainBox // the boxes with a diagnosis (0–3), per image
	nBoxes  int
}

// loadBaselineTraining reads the public training JSON: its images and the
// boxes with a diagnosis.
func loadBaselineTraining(publicDir string) (*baselineTraining, error) {
	coco, err := readCOCO(filepath.Join(publicDir, "train", annotationName))
	if err != nil {
		return nil, fmt.Errorf("baseline: %w", err)
	}
	imgRaw, _ := coco.list("images")
	annRaw, _ := coco.list("annotations")
	tr := &baselineTraining{files: map[int64]imageEntry{}, byImage: map[int64][]trainBox{}}
	for _, r := range imgRaw {
		var e imageEntry
		if err := json.Unmarshal(r, &e); err != nil {
			return nil, fmt.Errorf("baseline: %w", err)
		}
		tr.files[e.ID] = e
		tr.order = append(tr.order, e.ID)
	}
	for _, r := range annRaw {
		var a trainBox
		if err := json.Unmarshal(r, &a); err == nil && a.D >= 0 && a.D < 4 {
			tr.byImage[a.ImageID] = append(tr.byImage[a.ImageID], a)
			tr.nBoxes++
		}
	}
	return tr, nil
}

// greyLevelStats are what the baseline fits: the mean grey level inside the
// training boxes per diagnosis, the boxes' sizes and centres, and the
// lowest 90th-percentile grey level of an image (healthy tissue).
type greyLevelStats struct {
	sums, counts              [4]float64
	widths, heights, centresY []float64
	background                float64
}

// greyLevels measures the grey level inside each training box, by
// diagnosis, and each image's tissue level.
func (tr *baselineTraining) greyLevels(ctx context.Context, publicDir string) (*greyLevelStats, error) {
	gl := &greyLevelStats{background: math.Inf(1)}
	for _, id := range tr.order {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		e := tr.files[id]
		v, err := imageio.Read(filepath.Join(publicDir, "train", "images", e.FileName), imageio.Options{MaxBytes: 1 << 30})
		if err != nil {
			return nil, fmt.Errorf("baseline: %w", err)
		}
		w, c := v.Grid.Shape[0], v.NumChannels()
		for _, a := range tr.byImage[id] {
			var s, n float64
			for y := int(a.BBox[1]) + 2; y < int(a.BBox[1]+a.BBox[3])-2; y++ {
				for x := int(a.BBox[0]) + 2; x < int(a.BBox[0]+a.BBox[2])-2; x++ {
					if x >= 0 && y >= 0 && x < w && y < v.Grid.Shape[1] {
						s += v.Data[(x+w*y)*c]
						n++
					}
				}
			}
			if n > 0 {
				gl.sums[a.D] += s / n
				gl.counts[a.D]++
			}
			gl.widths = append(gl.widths, a.BBox[2])
			gl.heights = append(gl.heights, a.BBox[3])
			gl.centresY = append(gl.centresY, a.BBox[1]+a.BBox[3]/2)
		}
		// The median level of the image approximates healthy tissue.
		vals := make([]float64, 0, len(v.Data)/c)
		for k := 0; k < len(v.Data); k += c {
			vals = append(vals, v.Data[k])
		}
		sort.Float64s(vals)
		gl.background = math.Min(gl.background, vals[len(vals)*9/10])
	}
	return gl, nil
}

// fitBaseline fits the threshold, the tooth pitch, the jaw split and the
// diagnosis centroids, and the smallest component area kept.
func fitBaseline(gl *greyLevelStats, log io.Writer) (baselineModel, int, error) {
	var m baselineModel
	lowest := math.Inf(1)
	for d := 0; d < 4; d++ {
		if gl.counts[d] > 0 {
			m.centroids[d], m.present[d] = gl.sums[d]/gl.counts[d], true
			lowest = math.Min(lowest, m.centroids[d])
		}
	}
	if math.IsInf(lowest, 1) {
		return m, 0, fmt.Errorf("baseline: no usable training annotation")
	}
	m.threshold = (lowest + gl.background) / 2
	slices.Sort(gl.widths)
	m.slot = gl.widths[len(gl.widths)/2] + 3
	slices.Sort(gl.centresY)
	m.upperSplit = (gl.centresY[0] + gl.centresY[len(gl.centresY)-1]) / 2
	minArea := int(gl.widths[len(gl.widths)/2] * gl.heights[len(gl.heights)/2] / 3)
	fmt.Fprintf(log, "fitted: threshold %.1f (between the 90th-percentile tissue level %.1f and the darkest diagnosis centroid %.1f), tooth pitch %.1f px, jaw split at row %.1f, diagnosis centroids %.1f\n",
		m.threshold, gl.background, lowest, m.slot, m.upperSplit, m.centroids)
	return m, minArea, nil
}

// heldOutCheck logs the model's AP on the last fifth of the training
// images (diagnosis level, 0-based classes).
func (tr *baselineTraining) heldOutCheck(ctx context.Context, publicDir string, m baselineModel, minArea int, log io.Writer) error {
	nVal := len(tr.order) / 5
	if nVal == 0 {
		return nil
	}
	var gts []detection.GroundTruth
	var dts []detection.Detection
	var ids []int64
	for k, id := range tr.order[len(tr.order)-nVal:] {
		ids = append(ids, id)
		for j, a := range tr.byImage[id] {
			gts = append(gts, detection.GroundTruth{ImageID: id, Category: int64(a.D), Box: detection.Box(a.BBox), Area: a.BBox[2] * a.BBox[3], ID: int64(k*1000 + j + 1)})
		}
		comps, w, err := brightComponents(filepath.Join(publicDir, "train", "images", tr.files[id].FileName), m.threshold, minArea)
		if err != nil {
			return fmt.Errorf("baseline: %w", err)
		}
		for _, p := range m.predict(comps, w, "") {
			dts = append(dts, detection.Detection{ImageID: id, Category: int64(p.D), Box: detection.Box(p.BBox), Score: p.Score})
		}
	}
	if ev, err := detection.Evaluate(ctx, gts, dts, detection.DefaultParams(ids, []int64{0, 1, 2, 3})); err == nil {
		fmt.Fprintf(log, "held-out check on %d training images (all 4 diagnosis classes): AP %.3f, AP50 %.3f, AR %.3f\n", nVal, ev.Stats[0], ev.Stats[1], ev.Stats[8])
	}
	return nil
}
