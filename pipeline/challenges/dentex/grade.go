package dentex

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/rexmle/rexmle/metrics/detection"
	"github.com/rexmle/rexmle/pipeline/challenge"
	"github.com/rexmle/rexmle/pipeline/pyjson"
)

// maxPredictionBytes bounds one prediction JSON file; maxTotalBytes all of them.
const (
	maxPredictionBytes = 64 << 20
	maxTotalBytes      = 1 << 30
)

// truthAnn is the part of a ground-truth annotation the grader reads.
type truthAnn struct {
	ID      int64           `json:"id"`
	ImageID int64           `json:"image_id"`
	BBox    []float64       `json:"bbox"`
	Area    *float64        `json:"area"`
	IsCrowd json.RawMessage `json:"iscrowd"`
}

// categoryOf resolves a label level the way the reference does:
// category_id_N unless missing or null, else the alias, else 1. ok is false
// when the value is not an integral number (such a box is never registered).
func categoryOf(obj object, a aspect) (int64, bool) {
	v := categoryRaw(obj, a)
	if v == nil {
		return 1, true
	}
	var f float64
	if err := decodeFloat(v, &f); err != nil || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
		return 0, false
	}
	return int64(f), true
}

// categoryRaw is the raw value the reference takes for a label level:
// category_id_N unless missing or null, else the alias; nil when neither
// is there (the level defaults to 1).
func categoryRaw(obj object, a aspect) []byte {
	v, has := obj.get(a.field)
	if !has || string(v) == "null" {
		v, has = obj.get(a.alias)
		if !has {
			return nil
		}
	}
	return v
}

type truthSet struct {
	imageIDs  []int64
	stemToID  map[string]int64
	isImageID map[int64]bool
	anns      []object
	gts       []truthAnn
	perImage  map[int64]int
	// lastWithID is, per annotation id, the index in gts of the last
	// annotation with it (pycocotools' anns dict keeps that one).
	lastWithID map[int64]int
}

func loadTruth(privateDir string) (*truthSet, *challenge.Table, error) {
	tab, err := challenge.ReadCSV(filepath.Join(privateDir, "test_labels.csv"))
	if err != nil {
		return nil, nil, fmt.Errorf("read answers: %w", err)
	}
	gtCol, err := tab.Col(colGT)
	if err != nil {
		return nil, nil, err
	}
	// Files are read and parsed in parallel, then merged in row order.
	per := make([]truthFile, len(tab.Rows))
	err = challenge.ForEach(context.Background(), len(tab.Rows), func(k int) error {
		rel := tab.Rows[k][gtCol]
		b, err := os.ReadFile(filepath.Join(privateDir, filepath.FromSlash(rel)))
		if err != nil {
			return fmt.Errorf("read ground truth: %w", err)
		}
		if imgs, gts, objs, ok := scanTruthFile(b); ok {
			per[k] = truthFile{imgs, gts, objs}
		} else if per[k], err = decodeTruthFile(b, filepath.Join(privateDir, filepath.FromSlash(rel)), rel); err != nil {
			return err
		}
		for _, a := range per[k].gts {
			if len(a.BBox) != 4 {
				return fmt.Errorf("ground truth %s: annotation %d has bbox %v", rel, a.ID, a.BBox)
			}
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	ts := &truthSet{stemToID: map[string]int64{}, isImageID: map[int64]bool{}, perImage: map[int64]int{}, lastWithID: map[int64]int{}}
	for _, p := range per {
		for _, e := range p.imgs {
			ts.imageIDs = append(ts.imageIDs, e.ID)
			ts.isImageID[e.ID] = true
			ts.stemToID[strings.ReplaceAll(e.FileName, ".png", "")] = e.ID
		}
		for i, a := range p.gts {
			ts.lastWithID[a.ID] = len(ts.gts)
			ts.gts = append(ts.gts, a)
			ts.anns = append(ts.anns, p.objs[i])
			ts.perImage[a.ImageID]++
		}
	}
	return ts, tab, nil
}

// truthFile is what the grader reads of one ground-truth file.
type truthFile struct {
	imgs []imageEntry
	gts  []truthAnn
	objs []object
}

// decodeTruthFile reads a ground-truth file with encoding/json (the
// reference behaviour scanTruthFile is a fast path of; its errors).
func decodeTruthFile(b []byte, path, rel string) (truthFile, error) {
	var tf truthFile
	c, err := parseCOCO(b, path)
	if err != nil {
		return tf, fmt.Errorf("read ground truth: %w", err)
	}
	imgs, err := c.list("images")
	if err != nil {
		return tf, err
	}
	for _, r := range imgs {
		var e imageEntry
		if err := json.Unmarshal(r, &e); err != nil {
			return tf, fmt.Errorf("ground truth %s: %w", rel, err)
		}
		tf.imgs = append(tf.imgs, e)
	}
	anns, err := c.list("annotations")
	if err != nil {
		return tf, err
	}
	for _, r := range anns {
		var a truthAnn
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(r, &a); err != nil {
			return tf, fmt.Errorf("ground truth %s: %w", rel, err)
		}
		if err := json.Unmarshal(r, &obj); err != nil {
			return tf, err
		}
		if len(a.BBox) != 4 {
			return tf, fmt.Errorf("ground truth %s: annotation %d has bbox %v", rel, a.ID, a.BBox)
		}
		tf.gts = append(tf.gts, a)
		tf.objs = append(tf.objs, objectOf(obj))
	}
	return tf, nil
}

// prediction is one parsed prediction, image already resolved.
type prediction struct {
	image     int64
	box       detection.Box
	score     float64
	cat       [3]int64 // per aspect
	catOK     [3]bool  // false: not an integral category (never registered)
	rewritten bool
	boolScore bool // the score is a JSON true or false (1 or 0 to Python)
}

// Grade scores the submission with three COCO box evaluations (see the
// package doc and Quirks for the reference/official differences).
func (Challenge) Grade(ctx context.Context, submissionDir, privateDir string, mode challenge.Mode) (*challenge.Result, error) {
	truth, ans, err := loadTruth(privateDir)
	if err != nil {
		return nil, err
	}
	ansIDs, _ := ans.Column(colID)
	sub, idCol, predCol, err := readSubmissionCSV(submissionDir)
	if err != nil {
		return nil, err
	}
	if err := checkSubmissionIDs(sub, idCol, ansIDs, mode); err != nil {
		return nil, err
	}
	preds, err := readPredictions(ctx, submissionDir, sub, idCol, predCol, truth, mode)
	if err != nil {
		return nil, err
	}

	res := &challenge.Result{Mode: mode}
	var levels [3]levelStats
	var records [3][]detection.ImageRecord // per level, per image in ascending id order
	var evalIDs []int64
	var notes []string
	for ai, a := range aspects {
		ev, aspectNotes, err := evaluateAspect(ctx, ai, a, truth, preds, mode)
		if err != nil {
			return nil, err
		}
		levels[ai] = levelStats{ev.Stats[0], ev.Stats[1], ev.Stats[2], ev.Stats[8]}
		records[ai], evalIDs = ev.Images, ev.Params.ImageIDs
		notes = append(notes, aspectNotes...)
	}
	setLevelMetrics(res, levels)
	res.Notes = append(res.Notes, modeNotes(preds, mode)...)
	res.Notes = append(res.Notes, notes...)
	res.Cases = imageCases(truth, ansIDs, preds, records, evalIDs)
	return res, nil
}

// readSubmissionCSV parses the submission's CSV and finds its id and
// prediction-file columns.
func readSubmissionCSV(submissionDir string) (sub *challenge.Table, idCol, predCol int, err error) {
	f, err := challenge.OpenInside(submissionDir, submissionFile, "")
	if err != nil {
		return nil, 0, 0, err
	}
	sub, err = challenge.ParseCSV(f, submissionFile)
	f.Close()
	if err != nil {
		return nil, 0, 0, challenge.Invalidf(submissionFile, "", "cannot parse CSV: %v", err)
	}
	idCol, err = sub.Col(colID)
	if err != nil {
		return nil, 0, 0, challenge.Invalidf(submissionFile, colID, "missing required column %q", colID)
	}
	predCol, err = sub.Col(colPred)
	if err != nil {
		return nil, 0, 0, challenge.Invalidf(submissionFile, colPred, "missing required column %q", colPred)
	}
	return sub, idCol, predCol, nil
}

// checkSubmissionIDs refuses a submission that misses a test image (and, in
// official mode, one that breaks the common id rule).
func checkSubmissionIDs(sub *challenge.Table, idCol int, ansIDs []string, mode challenge.Mode) error {
	// The reference compares the id sets as pandas read them: a text id
	// keeps its blanks (" test_1" is not "test_1"), an integer column is
	// numbers.
	subIDs := make([]string, len(sub.Rows))
	for i, r := range sub.Rows {
		subIDs[i] = r[idCol]
	}
	subIDs = challenge.PandasIDs(subIDs)
	ansKeys := challenge.PandasIDs(ansIDs)
	have := map[string]bool{}
	for _, id := range subIDs {
		have[id] = true
	}
	var missing []string
	for i, id := range ansKeys {
		if !have[id] {
			missing = append(missing, ansIDs[i])
		}
	}
	if len(missing) > 0 {
		return challenge.Invalidf(submissionFile, colID, "missing predictions for %d test images (first: %s)", len(missing), strings.Join(missing[:min(5, len(missing))], ", "))
	}
	if mode == challenge.Official {
		// The common id rule: every test case exactly once, nothing else.
		if err := challenge.CheckIDs(submissionFile, colID, subIDs, nil, ansKeys, challenge.StrictIDs); err != nil {
			return err
		}
	}
	return nil
}

// readPredictions reads and parses the prediction files in parallel and
// resolves them in row order.
func readPredictions(ctx context.Context, submissionDir string, sub *challenge.Table, idCol, predCol int, truth *truthSet, mode challenge.Mode) ([]prediction, error) {
	type parsed struct {
		objs     []object
		err      error // reading
		preds    []prediction
		parseErr error // resolving the predictions
	}
	files := make([]parsed, len(sub.Rows))
	// Each row's predictions are resolved as its file is read; a read error
	// stops the grading, the first resolution error in row order is reported.
	var total atomic.Int64
	if err := challenge.ForEach(ctx, len(sub.Rows), func(ri int) error {
		f := &files[ri]
		row := sub.Rows[ri]
		if f.objs, f.err = readPredictionFile(submissionDir, row[predCol], fmt.Sprintf("row %d, %s", ri+2, colPred), &total); f.err != nil {
			return f.err
		}
		rowImage := rowImageID(strings.TrimSpace(row[idCol]), truth)
		f.preds = make([]prediction, 0, len(f.objs))
		for pi, obj := range f.objs {
			p, err := parsePrediction(obj, rowImage, truth, mode)
			if err != nil {
				f.parseErr = challenge.Invalidf(row[predCol], fmt.Sprintf("prediction %d", pi), "%v", err)
				break
			}
			f.preds = append(f.preds, p)
		}
		f.objs = nil
		return nil
	}); err != nil {
		return nil, err
	}
	nPred := 0
	for _, f := range files {
		if f.parseErr != nil {
			return nil, f.parseErr
		}
		nPred += len(f.preds)
	}
	preds := make([]prediction, 0, nPred)
	for _, f := range files {
		preds = append(preds, f.preds...)
	}
	if len(preds) == 0 {
		// Both the reference and the organisers' evaluation hand the
		// results to pycocotools' loadRes, which fails on an empty list.
		return nil, challenge.Invalidf(submissionFile, "", "the submission holds no prediction at all (pycocotools' loadRes, used by the reference and by the organisers' evaluation, fails on an empty result list)")
	}
	return preds, nil
}

// rowImageID is the row's fallback image id: the truth's id for the file
// stem, else the number after the last underscore, else the id text itself.
func rowImageID(rowID string, truth *truthSet) any {
	if id, ok := truth.stemToID[rowID]; ok {
		return id
	}
	if n, err := strconv.ParseInt(rowID[strings.LastIndex(rowID, "_")+1:], 10, 64); err == nil {
		return n
	}
	return rowID
}

// levelStats are the four statistics one label level reports.
type levelStats struct{ ap, ap50, ap75, ar float64 }

// evaluateAspect runs the COCO box evaluation of one label level over the
// categories the mode registers, with the notes it adds to the result.
func evaluateAspect(ctx context.Context, ai int, a aspect, truth *truthSet, preds []prediction, mode challenge.Mode) (*detection.Eval, []string, error) {
	cats := a.registered(mode)
	reg := map[int64]bool{}
	for _, c := range cats {
		reg[c] = true
	}
	gts, skipped := aspectTruth(a, truth, reg)
	dts := make([]detection.Detection, 0, len(preds))
	var boolScores []bool // per dts entry
	for _, p := range preds {
		c, ok := p.cat[ai], p.catOK[ai]
		if !ok || !reg[c] {
			continue
		}
		dts = append(dts, detection.Detection{ImageID: p.image, Category: c, Box: p.box, Score: p.score})
		boolScores = append(boolScores, p.boolScore)
	}
	if mode != challenge.Official {
		if c, bad := boolScoreArray(gts, dts, boolScores, cats); bad {
			return nil, nil, challenge.Invalidf(submissionFile, "", "%s class id %d: the top-scoring detection of every image evaluated for it has a boolean score (true/false), so the reference's COCOeval.accumulate gathers a boolean score array and fails negating it (numpy refuses - on booleans): give scores as numbers", a.name, c)
		}
	}
	ev, err := detection.Evaluate(ctx, gts, dts, rankedParams(truth.imageIDs, cats))
	if err != nil {
		return nil, nil, challenge.Invalidf(submissionFile, "", "%s evaluation: %v", a.name, err)
	}
	var notes []string
	if skipped > 0 {
		notes = append(notes, fmt.Sprintf("%s: %d of %d truth boxes carry a category the grader does not register and were not scored (reference mode: class id 0 = %s)", a.name, skipped, len(truth.gts), a.className(0)))
	}
	var per []string
	for k, c := range cats {
		v := ev.Summarize(true, math.NaN(), "all", 100, k)
		if v > -1 {
			per = append(per, fmt.Sprintf("id %d: %.4f", c, v))
		} else {
			per = append(per, fmt.Sprintf("id %d: no truth", c))
		}
	}
	notes = append(notes, fmt.Sprintf("%s AP per registered class (%s)", a.name, strings.Join(per, ", ")))
	return ev, notes, nil
}

// aspectTruth is the truth of one label level as pycocotools loads it for
// the registered categories, and how many boxes carry another category.
func aspectTruth(a aspect, truth *truthSet, reg map[int64]bool) ([]detection.GroundTruth, int) {
	gts := make([]detection.GroundTruth, 0, len(truth.gts))
	skipped := 0
	for i := range truth.gts {
		c, ok := categoryOf(truth.anns[i], a)
		if !ok || !reg[c] {
			skipped++
			continue
		}
		// pycocotools selects the truth by its own category, then
		// loads it by id: where ids repeat, every one of them loads
		// the last annotation with that id (image and label too).
		j := truth.lastWithID[truth.gts[i].ID]
		g := truth.gts[j]
		if j != i {
			if c, ok = categoryOf(truth.anns[j], a); !ok || !reg[c] {
				continue
			}
		}
		area := g.BBox[2] * g.BBox[3]
		if g.Area != nil {
			area = *g.Area
		}
		crowd := len(g.IsCrowd) > 0 && string(g.IsCrowd) != "0" && string(g.IsCrowd) != "false" && string(g.IsCrowd) != "null"
		gts = append(gts, detection.GroundTruth{ImageID: g.ImageID, Category: c, Box: detection.Box{g.BBox[0], g.BBox[1], g.BBox[2], g.BBox[3]}, Area: area, Crowd: crowd, ID: g.ID})
	}
	return gts, skipped
}

// setLevelMetrics sets the per-level statistics and their means over the
// three levels.
func setLevelMetrics(res *challenge.Result, levels [3]levelStats) {
	mean := func(get func(levelStats) float64) float64 {
		return (get(levels[0]) + get(levels[1]) + get(levels[2])) / 3
	}
	res.Set("ap_mean", mean(func(l levelStats) float64 { return l.ap }))
	res.Set("ap50_mean", mean(func(l levelStats) float64 { return l.ap50 }))
	res.Set("ap75_mean", mean(func(l levelStats) float64 { return l.ap75 }))
	res.Set("ar_mean", mean(func(l levelStats) float64 { return l.ar }))
	for i, a := range aspects {
		res.Set("ap_"+a.name, levels[i].ap)
		res.Set("ap50_"+a.name, levels[i].ap50)
		res.Set("ap75_"+a.name, levels[i].ap75)
		res.Set("ar_"+a.name, levels[i].ar)
	}
}

// modeNotes say how the mode registers categories and reads boxes (and, in
// reference mode, how many boxes the corner heuristic rewrote).
func modeNotes(preds []prediction, mode challenge.Mode) []string {
	if mode == challenge.Official {
		return []string{"OFFICIAL mode: categories registered 0-based as in the data (all 4/8/4 classes scored); boxes taken as [x, y, w, h] without the corner heuristic."}
	}
	notes := []string{"REFERENCE mode QUIRK: categories registered 1-based (1–4, 1–8, 1–4) while the data are 0-based, so class 0 of every level (quadrant 1, tooth 1, Impacted) is never scored and predictions only line up when they use the 0-based training ids."}
	rew := 0
	for _, p := range preds {
		if p.rewritten {
			rew++
		}
	}
	if rew > 0 {
		notes = append(notes, fmt.Sprintf("%d predicted boxes were rewritten by the corner-format heuristic ([a,b,c,d] → [a,b,c−a,d−b]).", rew))
	}
	return notes
}

// imageCases are, per image, the box counts and the COCO records
// CaseStatistic re-accumulates resamples from.
func imageCases(truth *truthSet, ansIDs []string, preds []prediction, records [3][]detection.ImageRecord, evalIDs []int64) []challenge.Case {
	counts := map[int64]int{}
	for _, p := range preds {
		counts[p.image]++
	}
	var cases []challenge.Case
	var arena []byte
	for i, id := range truth.imageIDs {
		name := strconv.FormatInt(id, 10)
		if i < len(ansIDs) {
			name = ansIDs[i]
		}
		var recs [3]detection.ImageRecord
		if at, found := slices.BinarySearch(evalIDs, id); found {
			for l := range recs {
				recs[l] = records[l][at]
			}
		}
		start := len(arena)
		arena = encodeDetail(arena, id, len(detection.COCOIoUThresholds()), recs)
		cases = append(cases, challenge.Case{ID: name, Values: map[string]float64{
			"truth_boxes": float64(truth.perImage[id]), "predicted_boxes": float64(counts[id]),
		}, Detail: arena[start:len(arena):len(arena)]})
	}
	return cases
}

// rankedParams are COCOeval's defaults restricted to what the metrics read:
// area range "all" and maxDets 100. Every (area range, maxDets) is evaluated
// and accumulated independently of the others (the per-image truncation
// uses the last maxDets, 100 either way), so AP, AP50, AP75 and AR@100 over
// "all", per class and averaged, are those of the full defaults, bit for
// bit; the statistics of the other ranges and maxDets are not computed.
func rankedParams(imageIDs, cats []int64) detection.Params {
	p := detection.DefaultParams(imageIDs, cats)
	p.AreaRanges, p.AreaNames = p.AreaRanges[:1], p.AreaNames[:1]
	p.MaxDets = p.MaxDets[len(p.MaxDets)-1:]
	return p
}

// readPredictionFile opens a prediction file inside the submission folder
// (bounded in size) and parses it.
func readPredictionFile(submissionDir, rel, field string, total *atomic.Int64) ([]object, error) {
	fp, err := challenge.OpenInside(submissionDir, rel, field)
	if err != nil {
		return nil, err
	}
	if st, err := fp.Stat(); err == nil && total.Add(st.Size()) > maxTotalBytes {
		fp.Close()
		return nil, challenge.Invalidf(rel, "", "the prediction files together exceed %d MiB", maxTotalBytes>>20)
	}
	var buf bytes.Buffer
	if st, err := fp.Stat(); err == nil && st.Size() < maxPredictionBytes {
		buf.Grow(int(st.Size()) + bytes.MinRead) // room to see EOF without growing
	}
	_, err = buf.ReadFrom(io.LimitReader(fp, maxPredictionBytes+1))
	fp.Close()
	if err != nil {
		return nil, challenge.Invalidf(rel, "", "cannot read: %v", err)
	}
	b := buf.Bytes()
	if len(b) > maxPredictionBytes {
		return nil, challenge.Invalidf(rel, "", "file larger than %d MiB", maxPredictionBytes>>20)
	}
	objs, err := parsePredictions(b)
	if err != nil {
		return nil, challenge.Invalidf(rel, "", "%v", err)
	}
	return objs, nil
}

// parsePredictionFile accepts a list of objects, an object with an
// "annotations" list, or a single object. It is the encoding/json reading
// that parsePredictions' scanner is a fast path of (and its errors).
func parsePredictionFile(b []byte) ([]map[string]json.RawMessage, error) {
	b = trimJSONSpace(b)
	if d := pyjson.Depth(b); d > pyjson.MaxDepth {
		// The scanner declines such files (its own bound is lower).
		return nil, fmt.Errorf("%w: %d levels, at most %d", pyjson.ErrTooDeep, d, pyjson.MaxDepth)
	}
	if len(b) == 0 {
		return nil, fmt.Errorf("empty file, want JSON")
	}
	if string(b) == `""` {
		return []map[string]json.RawMessage{}, nil // the reference iterates the empty string: no prediction
	}
	if b[0] == '[' {
		var list []map[string]json.RawMessage
		if err := json.Unmarshal(b, &list); err != nil {
			return nil, fmt.Errorf("not a JSON list of prediction objects: %v", err)
		}
		return list, nil
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(b, &obj); err != nil {
		return nil, fmt.Errorf("not valid JSON (want a list of predictions or an object): %v", err)
	}
	if a, ok := obj["annotations"]; ok {
		// The reference iterates whatever "annotations" holds: an empty
		// string or object gives no prediction, null fails.
		switch t := string(trimJSONSpace(a)); {
		case t == "null":
			return nil, fmt.Errorf("\"annotations\" is null, want a list of prediction objects")
		case t == `""` || isEmptyJSONObject(a):
			return []map[string]json.RawMessage{}, nil
		}
		var list []map[string]json.RawMessage
		if err := json.Unmarshal(a, &list); err != nil {
			return nil, fmt.Errorf("\"annotations\" is not a list of prediction objects: %v", err)
		}
		return list, nil
	}
	return []map[string]json.RawMessage{obj}, nil
}

// isEmptyJSONObject reports whether raw is {} (blanks allowed inside).
func isEmptyJSONObject(raw []byte) bool {
	t := trimJSONSpace(raw)
	return len(t) >= 2 && t[0] == '{' && t[len(t)-1] == '}' && len(trimJSONSpace(t[1:len(t)-1])) == 0
}

func parsePrediction(obj object, rowImage any, truth *truthSet, mode challenge.Mode) (prediction, error) {
	if obj == nil {
		return prediction{}, fmt.Errorf("prediction is null, want an object")
	}
	var p prediction
	for i, a := range aspects {
		p.cat[i], p.catOK[i] = categoryOf(obj, a)
		// pycocotools indexes every result by its category: a list or an
		// object there is unhashable and fails, registered or not.
		if raw := categoryRaw(obj, a); len(raw) > 0 && (raw[0] == '[' || raw[0] == '{') {
			return p, fmt.Errorf("%s %s is a list or an object, want a category id", a.field, raw)
		}
	}
	// Image id.
	img := rowImage
	if raw, ok := obj.get("image_id"); ok && string(raw) == "null" {
		// Not a string and present: the reference keeps None, which
		// matches no image.
		return p, fmt.Errorf("image_id is null, want a file stem or an integer image id")
	} else if ok {
		var s string
		var f float64
		switch {
		case decodeString(raw, &s) == nil:
			if id, ok := truth.stemToID[strings.ReplaceAll(s, ".png", "")]; ok {
				img = id
			}
		case decodeFloat(raw, &f) == nil && f == math.Trunc(f) && math.Abs(f) < 1<<53:
			img = int64(f)
		default:
			return p, fmt.Errorf("image_id %s is neither a file stem nor an integer image id", raw)
		}
	}
	id, ok := img.(int64)
	if !ok || !truth.isImageID[id] {
		return p, fmt.Errorf("image_id resolves to %v, which is not a test image", img)
	}
	p.image = id
	// Box.
	raw, ok := obj.get("bbox")
	if !ok {
		return p, fmt.Errorf("missing bbox")
	}
	var bb []float64
	if err := decodePyFloats(raw, &bb); err != nil {
		return p, fmt.Errorf("bbox %s is not a list of numbers", raw)
	}
	if len(bb) < 4 {
		return p, fmt.Errorf("bbox has %d numbers, want 4 [x, y, width, height]", len(bb))
	}
	if len(bb) > 4 && p.registered(mode) {
		// (Unregistered in every level: never evaluated, as in the reference.)
		return p, fmt.Errorf("bbox has %d numbers, want 4 [x, y, width, height]", len(bb))
	}
	if mode != challenge.Official && len(bb) == 4 && bb[2] > bb[0] && bb[3] > bb[1] && (bb[2] > bb[0]+50 || bb[3] > bb[1]+50) {
		bb = []float64{bb[0], bb[1], bb[2] - bb[0], bb[3] - bb[1]}
		p.rewritten = true
	}
	p.box = detection.Box{bb[0], bb[1], bb[2], bb[3]}
	// Score.
	p.score = 0.5
	for _, k := range []string{"score", "confidence"} {
		if raw, ok := obj.get(k); ok {
			if err := decodeFloat(raw, &p.score); err != nil || string(raw) == "null" {
				if !p.registered(mode) {
					// Never evaluated, so the reference never compares it.
					p.score = 0.5
					break
				}
				return p, fmt.Errorf("%s %s is not a number", k, raw)
			}
			t := string(trimJSONSpace(raw))
			p.boolScore = t == "true" || t == "false"
			break
		}
	}
	return p, nil
}

// registered reports whether the prediction's category is registered at
// some level, so that the reference evaluates (and reads) it.
func (p *prediction) registered(mode challenge.Mode) bool {
	for i, a := range aspects {
		if c, ok := p.cat[i], p.catOK[i]; ok {
			for _, r := range a.registered(mode) {
				if r == c {
					return true
				}
			}
		}
	}
	return false
}

// boolScoreArray reports the first registered category for which
// pycocotools' accumulate would build a boolean score array: with
// maxDet = 1 (its first pass) it concatenates, over every image evaluated
// for the category (truth or detections of it there), the score of the
// image's top detection (detections sorted by descending score, stably, in
// submission order), and an image with truth but no detection adds an
// empty float list. The result is boolean, and -dtScores raises, exactly
// when every such image has a detection whose top score is a JSON bool.
func boolScoreArray(gts []detection.GroundTruth, dts []detection.Detection, isBool []bool, cats []int64) (int64, bool) {
	type top struct {
		score  float64
		isBool bool
	}
	for _, c := range cats {
		evaluated := map[int64]bool{}
		for _, g := range gts {
			if g.Category == c {
				evaluated[g.ImageID] = true
			}
		}
		tops := map[int64]top{}
		for i, d := range dts {
			if d.Category != c {
				continue
			}
			evaluated[d.ImageID] = true
			t, seen := tops[d.ImageID]
			// argsort(-score, mergesort): the first of equal scores wins; NaN sorts last.
			if !seen || math.IsNaN(t.score) && !math.IsNaN(d.Score) || d.Score > t.score {
				tops[d.ImageID] = top{d.Score, isBool[i]}
			}
		}
		if len(evaluated) == 0 {
			continue
		}
		all := true
		for img := range evaluated {
			if t, ok := tops[img]; !ok || !t.isBool {
				all = false
				break
			}
		}
		if all {
			return c, true
		}
	}
	return 0, false
}
