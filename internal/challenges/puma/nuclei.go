package puma

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/rexmle/rexmle/internal/challenge"
	"github.com/rexmle/rexmle/metrics/imageio"
	"github.com/rexmle/rexmle/metrics/matching"
	"github.com/rexmle/rexmle/metrics/num"
)

// Scored classes.
var (
	track1Classes = []string{"tumor", "TILs", "other"}
	track2Classes = []string{"tumor", "lymphocytes", "plasma_cells", "histiocytes", "melanophages", "neutrophils",
		"stromal_cells", "epithelium", "endothelium", "apoptotic_cells"}
	track2Alias = map[string]string{"lymphocyte": "lymphocytes", "plasma_cell": "plasma_cells", "histiocyte": "histiocytes",
		"melanophage": "melanophages", "neutrophil": "neutrophils", "stroma": "stromal_cells", "apoptosis": "apoptotic_cells"}
)

const maxJSONBytes = 256 << 20

// normalise maps a raw class value to the category it is scored under;
// ok=false drops the item (track 2 reference: unknown names; null always).
func (c Challenge) normalise(v any, mode challenge.Mode) (string, bool, error) {
	if v == nil {
		return "", false, nil
	}
	if c.track == 1 {
		s, isStr := v.(string)
		if !isStr {
			return "", false, fmt.Errorf("class name %v is not a string", v)
		}
		switch strings.ToLower(strings.TrimSpace(s)) {
		case "tils", "til", "lymphocyte", "lymphocytes":
			return "TILs", true, nil
		case "tumor", "tumour":
			return "tumor", true, nil
		case "other", "others":
			return "other", true, nil
		}
		return s, true, nil
	}
	var s string
	switch x := v.(type) {
	case string:
		s = x
	case json.Number:
		s = x.String()
	case bool:
		s = map[bool]string{true: "True", false: "False"}[x]
	default:
		// Python's str() of a list or object is never a class name: dropped.
		if mode == challenge.Official {
			return fmt.Sprint(x), true, nil
		}
		return "", false, nil
	}
	t := strings.ToLower(strings.TrimSpace(s))
	for _, k := range track2Classes {
		if t == k {
			return k, true, nil
		}
	}
	if rest, ok := strings.CutPrefix(t, "nuclei_"); ok {
		if k, ok := track2Alias[rest]; ok {
			return k, true, nil
		}
	}
	if mode == challenge.Official {
		// The dataset's own names (nuclei_tumor, nuclei_stroma, …), which
		// the organisers' evaluation matches exactly: preparation's table.
		if k, ok := offNucleiTrack2[t]; ok {
			return k, true, nil
		}
		return s, true, nil // kept as a stray class
	}
	return "", false, nil
}

func toFloat(v any) (float64, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	f, err := n.Float64()
	return f, err == nil
}

// parseNuclei reads a predictions or truth JSON into points: the one-pass
// scanner (scan.go) where it answers, encoding/json otherwise.
func (c Challenge) parseNuclei(data []byte, mode challenge.Mode) ([]matching.Point, error) {
	if pts, ok := c.parseNucleiFast(data, mode); ok {
		return pts, nil
	}
	return c.parseNucleiJSON(data, mode)
}

// parseNucleiJSON reads a predictions or truth JSON into points through
// encoding/json: the definition parseNucleiFast follows, and its fallback.
func (c Challenge) parseNucleiJSON(data []byte, mode challenge.Mode) ([]matching.Point, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var top any
	if err := dec.Decode(&top); err != nil {
		return nil, fmt.Errorf("not valid JSON: %v", err)
	}
	obj, ok := top.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("top level must be a JSON object with a \"polygons\" (or \"nuclei\") list")
	}
	raw, ok := obj["polygons"]
	if !ok {
		raw = obj["nuclei"]
	}
	if raw == nil {
		return nil, nil
	}
	items, ok := raw.([]any)
	if !ok {
		return nil, fmt.Errorf("\"polygons\"/\"nuclei\" must be a list")
	}
	var out []matching.Point
	for i, it := range items {
		m, ok := it.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("item %d is not an object", i)
		}
		cv, has := m["name"]
		if !has {
			cv = m["class"]
		}
		cls, keep, err := c.normalise(cv, mode)
		if err != nil {
			return nil, fmt.Errorf("item %d: %v", i, err)
		}
		score := 1.0
		sv, has := m["score"]
		if !has {
			sv, has = m["confidence"]
		}
		if has {
			f, ok := toFloat(sv)
			if !ok {
				return nil, fmt.Errorf("item %d: score %v is not a number", i, sv)
			}
			score = f
		}
		var x, y float64
		if pp, has := m["path_points"]; has {
			pts, ok := pp.([]any)
			if !ok {
				return nil, fmt.Errorf("item %d: path_points is not a list", i)
			}
			if len(pts) < 3 {
				continue
			}
			for k, p := range pts {
				xy, ok := p.([]any)
				if !ok || len(xy) < 2 {
					return nil, fmt.Errorf("item %d: point %d is not [x, y]", i, k)
				}
				px, ok1 := toFloat(xy[0])
				py, ok2 := toFloat(xy[1])
				if !ok1 || !ok2 {
					return nil, fmt.Errorf("item %d: point %d has a non-numeric coordinate", i, k)
				}
				x += px
				y += py
			}
			x /= float64(len(pts))
			y /= float64(len(pts))
		} else if cv, has := m["centroid"]; has {
			xy, ok := cv.([]any)
			if !ok || len(xy) < 2 {
				return nil, fmt.Errorf("item %d: centroid is not [x, y]", i)
			}
			var ok1, ok2 bool
			x, ok1 = toFloat(xy[0])
			y, ok2 = toFloat(xy[1])
			if !ok1 || !ok2 {
				return nil, fmt.Errorf("item %d: centroid has a non-numeric coordinate", i)
			}
		} else {
			continue
		}
		if !keep {
			continue
		}
		out = append(out, matching.Point{X: x, Y: y, Class: cls, Score: score})
	}
	return out, nil
}

// readLimited reads f (at most maxJSONBytes) into buf, grown as needed.
func readLimited(f *os.File, buf []byte) ([]byte, error) {
	b, err := readSized(f, buf, maxJSONBytes)
	if err != nil {
		return nil, err
	}
	if len(b) > maxJSONBytes {
		return nil, fmt.Errorf("file larger than %d bytes", maxJSONBytes)
	}
	return b, nil
}

// readSized reads f into buf, sized from the file's length so that one read
// suffices, reading at most limit+1 bytes when limit > 0.
func readSized(f *os.File, buf []byte, limit int64) ([]byte, error) {
	b := buf[:0]
	if st, err := f.Stat(); err == nil && st.Size() >= 0 && (limit <= 0 || st.Size() < limit) && int64(cap(b)) <= st.Size() {
		b = make([]byte, 0, st.Size()+1) // one read, no regrowth
	}
	var r io.Reader = f
	if limit > 0 {
		r = io.LimitReader(f, limit+1)
	}
	return imageio.ReadAllInto(b, r)
}

// jsonBufs recycles the buffers nuclei files are read into (the points
// parsed from them keep no reference to them).
var jsonBufs sync.Pool

func getJSONBuf() *[]byte {
	if b, ok := jsonBufs.Get().(*[]byte); ok {
		return b
	}
	return new([]byte)
}

// readTruthFile reads a truth file into buf, grown as needed.
func readTruthFile(path string, buf []byte) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readSized(f, buf, 0)
}

func (c Challenge) gradeNuclei(ctx context.Context, subDir, privateDir string, mode challenge.Mode) (*challenge.Result, error) {
	rows, err := readSubmission(subDir, "predicted_nuclei_path")
	if err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, challenge.Invalidf(submissionFile, "", "no rows")
	}
	answers, err := readAnswers(privateDir)
	if err != nil {
		return nil, err
	}
	labelOf := map[string]string{}
	for _, a := range answers {
		labelOf[a.id] = a.label
	}
	for _, r := range rows {
		if _, ok := labelOf[r.id]; !ok {
			return nil, challenge.Invalidf(submissionFile, fmt.Sprintf("row %d case_id", r.line), "%q is not a test case", r.id)
		}
	}
	// Official mode: a dropped test case is not left out of the scores.
	if err := checkOfficialIDs(rows, answers, mode); err != nil {
		return nil, err
	}
	adir := answerDir(privateDir, mode)
	opt := matching.PointOptions{Radius: 15, RemoveFirstEqualCentroid: true, Inclusive: c.track == 2 && mode == challenge.Reference}
	perCase := make([]map[string]matching.ClassCount, len(rows))
	err = challenge.ForEach(ctx, len(rows), func(i int) error {
		r := rows[i]
		f, err := challenge.OpenInside(subDir, r.path, fmt.Sprintf("row %d (%s) predicted_nuclei_path", r.line, r.id))
		if err != nil {
			return err
		}
		pbuf, tbuf := getJSONBuf(), getJSONBuf()
		defer jsonBufs.Put(pbuf)
		defer jsonBufs.Put(tbuf)
		data, err := readLimited(f, *pbuf)
		f.Close()
		*pbuf = data[:0]
		if err != nil {
			return challenge.Invalidf(r.path, "", "cannot read: %v", err)
		}
		pred, err := c.parseNuclei(data, mode)
		if err != nil {
			return challenge.Invalidf(r.path, "", "%v", err)
		}
		tdata, err := readTruthFile(filepath.Join(adir, labelOf[r.id]), *tbuf)
		*tbuf = tdata[:0]
		if err != nil {
			return fmt.Errorf("read truth of %s: %w", r.id, err)
		}
		truth, err := c.parseNuclei(tdata, mode)
		if err != nil {
			return fmt.Errorf("truth of %s: %w", r.id, err)
		}
		perCase[i] = matching.MatchPoints(truth, pred, opt)
		return nil
	})
	if err != nil {
		return nil, err
	}
	classes := track1Classes
	if c.track == 2 {
		classes = track2Classes
	}
	// Every category seen anywhere (official macro).
	seen := map[string]bool{}
	for _, pc := range perCase {
		for k := range pc {
			seen[k] = true
		}
	}
	if mode == challenge.Reference {
		for _, k := range classes {
			seen[k] = true
		}
	}
	all := make([]string, 0, len(seen))
	for k := range seen {
		all = append(all, k)
	}
	sort.Strings(all)

	res := &challenge.Result{Mode: mode}
	perClass := map[string]float64{}
	for _, k := range append(append([]string{}, classes...), all...) {
		var vals []float64
		for _, pc := range perCase {
			cc, present := pc[k]
			if c.track == 2 && mode == challenge.Reference && !present {
				continue
			}
			vals = append(vals, matching.F1(cc))
		}
		switch {
		case len(vals) == 0:
		case mode == challenge.Official:
			// evaluate.py: a running Python sum, divided by the file count.
			sum := 0.0
			for _, v := range vals {
				sum += v
			}
			perClass[k] = sum / float64(len(vals))
		default:
			// np.mean: numpy's pairwise summation, then one division.
			perClass[k] = num.Sum(vals) / float64(len(vals))
		}
	}
	// np.mean over the classes (pairwise summation; the reference's and the
	// official script's class order depend on Python set/dict order, which
	// can move the result by an ulp; ours is fixed).
	macroOver := classes
	if mode == challenge.Official {
		macroOver = all
	}
	macroVals := make([]float64, len(macroOver))
	for i, k := range macroOver {
		macroVals[i] = perClass[k]
	}
	macro := 0.0
	if len(macroVals) > 0 {
		macro = num.Sum(macroVals) / float64(len(macroVals))
	}
	res.Set("f1", macro)
	if c.track == 1 {
		res.Set("macro_f1", macro)
	}
	for _, k := range classes {
		res.Set("f1_"+k, perClass[k])
	}
	caseIDs := distinctCaseIDs(rows)
	for i, pc := range perCase {
		vals := map[string]float64{}
		for _, k := range classes {
			if cc, ok := pc[k]; ok || c.track == 1 {
				vals["f1_"+k] = matching.F1(cc)
			}
		}
		res.Cases = append(res.Cases, challenge.Case{ID: caseIDs[i], Values: vals})
	}
	if mode == challenge.Official {
		if len(all) > len(classes) {
			res.Notes = append(res.Notes, fmt.Sprintf("OFFICIAL MODE: macro F1 runs over %d class names seen in the files, including names outside the scored classes", len(all)))
		}
		if c.track == 1 {
			res.Notes = append(res.Notes, "OFFICIAL MODE: truth built with the real nuclei names (lymphocytes and plasma cells are TILs); the reference (paper) truth has no TILs")
		}
	} else if c.track == 1 {
		res.Notes = append(res.Notes, "REFERENCE QUIRK: the reference truth holds no TILs because "+namesNote+"; f1_TILs is 0 for every submission and the macro F1 is at most 2/3")
	}
	if len(rows) != len(answers) {
		res.Notes = append(res.Notes, fmt.Sprintf("%d rows graded for %d test cases: the reference grades only the submitted rows (missing cases are not penalised, duplicates count twice; the k-th row of an id is stored as case <id>#k)", len(rows), len(answers)))
	}
	return res, nil
}
