package puma

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"unicode"

	"github.com/rexmle/rexmle/metrics/imageio"
	"github.com/rexmle/rexmle/metrics/matching"
	"github.com/rexmle/rexmle/metrics/num"
	"github.com/rexmle/rexmle/pipeline/challenge"
	"github.com/rexmle/rexmle/pipeline/pyjson"
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

// detection is one nucleus of a nuclei file: its centroid, its class and its
// score. BadScore, when not empty, names the Python type of a score that
// cannot be negated (str, NoneType, list, dict): the reference and the
// organisers read the score only to sort the candidate matches of a truth
// nucleus (-score), so such a score is harmless until the detection is a
// candidate (see matchNuclei).
type detection struct {
	X, Y     float64
	Class    string
	Score    float64
	BadScore string
}

// pyIsSpace is Python's str.isspace for one character: Go's unicode.IsSpace
// and the information separators U+001C–U+001F.
func pyIsSpace(r rune) bool { return unicode.IsSpace(r) || 0x1c <= r && r <= 0x1f }

// pyStrip is Python's str.strip().
func pyStrip(s string) string { return strings.TrimFunc(s, pyIsSpace) }

// pyLower is Python's str.lower() as far as the result is compared with
// ASCII names: Go's strings.ToLower but for U+0130 (İ), which Python
// lower-cases to "i" + U+0307 (Go: "i"). Every other character whose
// lower case contains an ASCII letter (only U+212A, Kelvin) agrees.
func pyLower(s string) string {
	return strings.ToLower(strings.ReplaceAll(s, "\u0130", "i\u0307"))
}

// normaliseReference maps a raw class value (name, else class) to the
// category the reference scores it under; keep=false drops the item, which
// the reference does before it reads anything else of it.
//   - track 1: None is dropped; a value that is not a string fails
//     (category.lower()); name.lower().strip() is compared with the
//     aliases, and an unknown name is kept as it is (a class of its own);
//   - track 2 (normalize_category_name): None is dropped; str(value)
//     .strip().lower() must be a canonical name or nuclei_<singular>, and
//     anything else (numbers, lists, nuclei_tumor, TILs, …) is dropped.
func (c Challenge) normaliseReference(v any) (string, bool, error) {
	if v == nil {
		return "", false, nil
	}
	s, isStr := v.(string)
	if c.track == 1 {
		if !isStr {
			return "", false, fmt.Errorf("class name %s is a %s, not a string ('%s' object has no attribute 'lower')", pyjson.Str(v), pyjson.TypeName(v), pyjson.TypeName(v))
		}
		switch pyStrip(pyLower(s)) {
		case "tils", "til", "lymphocyte", "lymphocytes":
			return "TILs", true, nil
		case "tumor", "tumour":
			return "tumor", true, nil
		case "other", "others":
			return "other", true, nil
		}
		return s, true, nil
	}
	if !isStr {
		return "", false, nil // str() of a number, bool, list or object is never a class name
	}
	t := pyLower(pyStrip(s))
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
	return "", false, nil
}

// normaliseOfficial maps a name to its category as the organisers' code
// does: the name exactly as written (no case or white-space folding, no
// aliases), a number or bool as Python's str() of it (a class of its own).
// Track 2 also takes the dataset's own names (nuclei_tumor, nuclei_stroma,
// …, preparation's table) as their classes: a documented departure (see
// the names-dropped quirk). A null name fails (the organisers' np.unique
// cannot order None among class names), as does a list or object
// (unhashable).
func (c Challenge) normaliseOfficial(v any) (string, error) {
	var s string
	switch x := v.(type) {
	case nil:
		return "", fmt.Errorf("name is null (the organisers' evaluation fails on it: np.unique cannot order None among class names)")
	case []any, map[string]any:
		return "", fmt.Errorf("name is a %s (the organisers' evaluation fails on it: unhashable type)", pyjson.TypeName(v))
	case string:
		s = x
	default:
		s = pyjson.Str(x)
	}
	if c.track == 2 {
		if k, ok := offNucleiTrack2[s]; ok {
			return k, nil
		}
	}
	return s, nil
}

// parseNuclei reads a predictions or truth JSON into nuclei: the one-pass
// scanner (scan.go) where it answers, the Python-json reader otherwise.
func (c Challenge) parseNuclei(data []byte, mode challenge.Mode) ([]detection, error) {
	if pts, ok := c.parseNucleiFast(data, mode); ok {
		return pts, nil
	}
	return c.parseNucleiJSON(data, mode)
}

// parseNucleiJSON reads a predictions or truth JSON into nuclei as the
// reference's extract_features_from_json (reference mode) or the
// organisers' (official mode) does, from what Python's json.load gives:
// the definition parseNucleiFast follows, and its fallback. An error is
// where the Python code raises.
//
// Reference: the list is json_data.get('polygons', json_data.get('nuclei',
// [])); per item, the class (name, else class) first — an item without
// one, or one the track drops, is skipped before anything else is read —,
// then the score (score, else confidence, else 1), then path_points
// (len < 3: skipped, whatever the type that has a len) or else centroid,
// else the item is skipped.
//
// Official: the list is json_data.get('polygons', []) ("nuclei", "class",
// "confidence" and "centroid" are not read); every item must have "name"
// and "path_points" (KeyError); the score is score, else 1; path_points
// with len < 3 skip the item; the name is checked last (normaliseOfficial).
func (c Challenge) parseNucleiJSON(data []byte, mode challenge.Mode) ([]detection, error) {
	top, err := pyjson.Load(data)
	if err != nil {
		return nil, err
	}
	obj, ok := top.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("top level is a JSON %s, not an object with a \"polygons\" list ('%s' object has no attribute 'get')", pyjson.TypeName(top), pyjson.TypeName(top))
	}
	var raw any = []any{}
	key := "polygons"
	if v, has := obj["polygons"]; has {
		raw = v
	} else if v, has := obj["nuclei"]; has && mode == challenge.Reference {
		raw, key = v, "nuclei"
	}
	var items []any
	switch x := raw.(type) {
	case []any:
		items = x
	case map[string]any, string:
		// Iterating an object gives its keys, a string its characters:
		// nothing when empty, else items that are not objects.
		if n, _ := pyjson.Len(x); n > 0 {
			return nil, fmt.Errorf("%q is a non-empty %s, not a list of objects", key, pyjson.TypeName(x))
		}
	default:
		return nil, fmt.Errorf("%q is %s, not a list ('%s' object is not iterable)", key, pyjson.Str(x), pyjson.TypeName(x))
	}
	var out []detection
	for i, it := range items {
		m, ok := it.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("item %d is a %s, not an object", i, pyjson.TypeName(it))
		}
		var n detection
		var keep bool
		if mode == challenge.Official {
			n, keep, err = c.officialItem(m)
		} else {
			n, keep, err = c.referenceItem(m)
		}
		if err != nil {
			return nil, fmt.Errorf("item %d: %v", i, err)
		}
		if keep {
			out = append(out, n)
		}
	}
	return out, nil
}

// referenceItem reads one item as the reference does (see parseNucleiJSON).
func (c Challenge) referenceItem(m map[string]any) (n detection, keep bool, err error) {
	cv, has := m["name"]
	if !has {
		cv = m["class"]
	}
	if n.Class, keep, err = c.normaliseReference(cv); err != nil || !keep {
		return n, false, err
	}
	n.Score = 1
	sv, has := m["score"]
	if !has {
		sv, has = m["confidence"]
	}
	if has {
		setScore(&n, sv)
	}
	if pp, has := m["path_points"]; has {
		n.X, n.Y, keep, err = pathCentroid(pp)
		return n, keep, err
	}
	if cen, has := m["centroid"]; has {
		xy, ok := cen.([]any)
		if !ok || len(xy) < 2 {
			return n, false, fmt.Errorf("centroid is not [x, y]")
		}
		var ok1, ok2 bool
		n.X, ok1 = pyjson.Number(xy[0])
		n.Y, ok2 = pyjson.Number(xy[1])
		if !ok1 || !ok2 {
			return n, false, fmt.Errorf("centroid has a non-numeric coordinate")
		}
		return n, true, nil
	}
	return n, false, nil
}

// officialItem reads one item as the organisers do (see parseNucleiJSON).
func (c Challenge) officialItem(m map[string]any) (n detection, keep bool, err error) {
	cv, has := m["name"]
	if !has {
		return n, false, fmt.Errorf("no \"name\" (the organisers' evaluation reads polygon_data['name']: KeyError)")
	}
	n.Score = 1
	if sv, has := m["score"]; has {
		setScore(&n, sv)
	}
	pp, has := m["path_points"]
	if !has {
		return n, false, fmt.Errorf("no \"path_points\" (the organisers' evaluation reads polygon_data['path_points']: KeyError)")
	}
	if n.X, n.Y, keep, err = pathCentroid(pp); err != nil || !keep {
		return n, false, err
	}
	n.Class, err = c.normaliseOfficial(cv)
	return n, err == nil, err
}

// setScore records a score: numbers (NaN and ±Inf included) and bools
// (-True is -1) as their value, anything else as a BadScore.
func setScore(n *detection, sv any) {
	if f, ok := pyjson.Number(sv); ok {
		n.Score = f
	} else {
		n.BadScore = pyjson.TypeName(sv)
	}
}

// pathCentroid is the mean of the points of path_points (x, y of each),
// keep=false when len(path_points) < 3 (the item is skipped, whatever
// value has that len: a short list, string or object). A value without a
// len, and points numpy could not average to an (x, y) pair, fail.
func pathCentroid(pp any) (x, y float64, keep bool, err error) {
	n, ok := pyjson.Len(pp)
	if !ok {
		return 0, 0, false, fmt.Errorf("path_points is %s, not a list (object of type '%s' has no len())", pyjson.Str(pp), pyjson.TypeName(pp))
	}
	if n < 3 {
		return 0, 0, false, nil
	}
	pts, ok := pp.([]any)
	if !ok {
		return 0, 0, false, fmt.Errorf("path_points is a %s, not a list of points", pyjson.TypeName(pp))
	}
	for k, p := range pts {
		xy, ok := p.([]any)
		if !ok || len(xy) < 2 {
			return 0, 0, false, fmt.Errorf("point %d is not [x, y]", k)
		}
		px, ok1 := pyjson.Number(xy[0])
		py, ok2 := pyjson.Number(xy[1])
		if !ok1 || !ok2 {
			return 0, 0, false, fmt.Errorf("point %d has a non-numeric coordinate", k)
		}
		if bigInt(xy[0]) || bigInt(xy[1]) {
			// numpy averages such ints as Python objects, and int / int
			// beyond the float range fails.
			return 0, 0, false, fmt.Errorf("point %d has an integer coordinate too large for a float (integer division result too large for a float)", k)
		}
		x += px
		y += py
	}
	return x / float64(len(pts)), y / float64(len(pts)), true, nil
}

// bigInt reports whether v is a JSON integer beyond the float64 range.
func bigInt(v any) bool {
	n, ok := v.(pyjson.Num)
	return ok && n.IsInt && math.IsInf(n.F, 0)
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
	perCase := make([]map[string]matching.ClassCount, len(rows))
	err = challenge.ForEach(ctx, len(rows), func(i int) error {
		var err error
		perCase[i], err = c.matchCase(subDir, filepath.Join(adir, labelOf[rows[i].id]), rows[i], mode)
		return err
	})
	if err != nil {
		return nil, err
	}
	classes := track1Classes
	if c.track == 2 {
		classes = track2Classes
	}
	all := seenClasses(perCase, classes, mode)

	res := &challenge.Result{Mode: mode}
	perClass := c.classF1(perCase, append(append([]string{}, classes...), all...), mode)
	macro := macroF1(perClass, classes, all, mode)
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
	res.Notes = c.nucleiNotes(len(all), len(classes), len(rows), len(answers), mode)
	return res, nil
}

// matchCase reads one row's predicted nuclei and the case's truth (at
// truthPath) and matches them, counting per class.
func (c Challenge) matchCase(subDir, truthPath string, r row, mode challenge.Mode) (map[string]matching.ClassCount, error) {
	f, err := challenge.OpenInside(subDir, r.path, fmt.Sprintf("row %d (%s) predicted_nuclei_path", r.line, r.id))
	if err != nil {
		return nil, err
	}
	pbuf, tbuf := getJSONBuf(), getJSONBuf()
	defer jsonBufs.Put(pbuf)
	defer jsonBufs.Put(tbuf)
	data, err := readLimited(f, *pbuf)
	f.Close()
	*pbuf = data[:0]
	if err != nil {
		return nil, challenge.Invalidf(r.path, "", "cannot read: %v", err)
	}
	pred, err := c.parseNuclei(data, mode)
	if err != nil {
		return nil, challenge.Invalidf(r.path, "", "%v", err)
	}
	tdata, err := readTruthFile(truthPath, *tbuf)
	*tbuf = tdata[:0]
	if err != nil {
		return nil, fmt.Errorf("read truth of %s: %w", r.id, err)
	}
	truth, err := c.parseNuclei(tdata, mode)
	if err != nil {
		return nil, fmt.Errorf("truth of %s: %w", r.id, err)
	}
	counts, err := matchNuclei(truth, pred, c.track == 2 && mode == challenge.Reference)
	if err != nil {
		return nil, challenge.Invalidf(r.path, "", "%v", err)
	}
	return counts, nil
}

// seenClasses is every category seen anywhere (official macro), plus the
// scored classes in reference mode, sorted.
func seenClasses(perCase []map[string]matching.ClassCount, classes []string, mode challenge.Mode) []string {
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
	return all
}

// classF1 is each class's F1 averaged over the cases (in track 2's
// reference mode, over the cases where the class appears).
func (c Challenge) classF1(perCase []map[string]matching.ClassCount, classes []string, mode challenge.Mode) map[string]float64 {
	perClass := map[string]float64{}
	for _, k := range classes {
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
	return perClass
}

// macroF1 is np.mean over the classes (pairwise summation; the reference's
// and the official script's class order depend on Python set/dict order,
// which can move the result by an ulp; ours is fixed): the scored classes,
// or in official mode every class seen.
func macroF1(perClass map[string]float64, classes, all []string, mode challenge.Mode) float64 {
	macroOver := classes
	if mode == challenge.Official {
		macroOver = all
	}
	macroVals := make([]float64, len(macroOver))
	for i, k := range macroOver {
		macroVals[i] = perClass[k]
	}
	macro := 0.0
	switch {
	case len(macroVals) > 0:
		macro = num.Sum(macroVals) / float64(len(macroVals))
	case mode == challenge.Official:
		// No class name in any file: the organisers' np.mean of an empty
		// list is NaN (unranked).
		macro = math.NaN()
	}
	return macro
}

// nucleiNotes say what the mode's macro and truth are, and how rows that do
// not match the test cases one to one were graded.
func (c Challenge) nucleiNotes(nSeen, nClasses, nRows, nAnswers int, mode challenge.Mode) []string {
	var notes []string
	if mode == challenge.Official {
		if nSeen > nClasses {
			notes = append(notes, fmt.Sprintf("OFFICIAL MODE: macro F1 runs over %d class names seen in the files, including names outside the scored classes", nSeen))
		}
		if c.track == 1 {
			notes = append(notes, "OFFICIAL MODE: truth built with the real nuclei names (lymphocytes and plasma cells are TILs); the reference (paper) truth has no TILs")
		}
	} else if c.track == 1 {
		notes = append(notes, "REFERENCE QUIRK: the reference truth holds no TILs because "+namesNote+"; f1_TILs is 0 for every submission and the macro F1 is at most 2/3")
	}
	if nRows != nAnswers {
		notes = append(notes, fmt.Sprintf("%d rows graded for %d test cases: the reference grades only the submitted rows (missing cases are not penalised, duplicates count twice; the k-th row of an id is stored as case <id>#k)", nRows, nAnswers))
	}
	return notes
}
