package puma

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/rexmle/rexmle/pipeline/challenge"
	"github.com/rexmle/rexmle/pipeline/pyjson"
)

// nucleiCase is one hand-computed nuclei grading: one image, the metric
// want (NaN: the metric is NaN), or invalid.
type nucleiCase struct {
	name        string
	c           Challenge
	mode        challenge.Mode
	truth, pred string
	metric      string
	want        float64
	invalid     bool
}

func runNucleiCases(t *testing.T, cases []nucleiCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			sub, priv := nucleiFixture(t, []string{tc.truth}, []string{tc.pred}, "predicted_nuclei_path")
			res, err := tc.c.Grade(context.Background(), sub, priv, tc.mode)
			if tc.invalid {
				if !challenge.IsInvalid(err) {
					t.Fatalf("%s %s: want invalid, got %v (values %v)", tc.c.ID(), tc.mode, err, res)
				}
				return
			}
			if err != nil {
				t.Fatalf("%s %s: %v", tc.c.ID(), tc.mode, err)
			}
			got := res.Values[tc.metric]
			if math.IsNaN(tc.want) != math.IsNaN(got) || !math.IsNaN(got) && math.Abs(got-tc.want) > 1e-15 {
				t.Errorf("%s %s: %s = %.17g, want %.17g", tc.c.ID(), tc.mode, tc.metric, got, tc.want)
			}
		})
	}
}

var (
	ref = challenge.Reference
	off = challenge.Official
)

// The nuclei files as Python's json.load reads them (reference mode: the
// reference's extract_features_from_json; the expected values were checked
// against the reference's grade.py).
func TestNucleiPythonJSONReference(t *testing.T) {
	truth1 := polys(P("tumor", sq(50, 50)))
	var cases []nucleiCase
	for _, c := range []Challenge{Track1Task2, Track2Task2} {
		cases = append(cases,
			// N3: json.load refuses anything after the value ("Extra data").
			nucleiCase{name: "trailing-data", c: c, mode: ref, truth: truth1, pred: polys(P("tumor", sq(50, 50))) + " x", invalid: true},
			nucleiCase{name: "trailing-object", c: c, mode: ref, truth: truth1, pred: polys(P("tumor", sq(50, 50))) + "\n{}", invalid: true},
			// N4: the file is read as UTF-8 text.
			nucleiCase{name: "invalid-utf8", c: c, mode: ref, truth: truth1, pred: `{"note":"caf` + "\xe9" + `","polygons":[` + P("tumor", sq(50, 50)) + `]}`, invalid: true},
			// N5/N6: NaN, Infinity and overflowing numbers are floats.
			nucleiCase{name: "nan-score", c: c, mode: ref, truth: truth1, pred: polys(P("tumor", sq(50, 50), "NaN")), metric: "f1_tumor", want: 1},
			nucleiCase{name: "inf-score", c: c, mode: ref, truth: truth1, pred: polys(P("tumor", sq(50, 50), "-Infinity")), metric: "f1_tumor", want: 1},
			nucleiCase{name: "overflow-score", c: c, mode: ref, truth: truth1, pred: polys(P("tumor", sq(50, 50), "1e400")), metric: "f1_tumor", want: 1},
			// An infinite coordinate never matches: TP 0, one FP, one FN.
			nucleiCase{name: "infinite-coordinate", c: c, mode: ref, truth: truth1, pred: polys(P("tumor", "[[Infinity,0],[0,0],[0,0]]")), metric: "f1_tumor", want: 0},
			nucleiCase{name: "overflow-coordinate", c: c, mode: ref, truth: truth1, pred: polys(P("tumor", "[[1e400,0],[0,0],[0,0]]")), metric: "f1_tumor", want: 0},
			// N1: iterating None fails.
			nucleiCase{name: "polygons-null", c: c, mode: ref, truth: truth1, pred: `{"polygons":null}`, invalid: true},
			nucleiCase{name: "nuclei-null", c: c, mode: ref, truth: truth1, pred: `{"nuclei":null}`, invalid: true},
			nucleiCase{name: "polygons-null-beside-nuclei", c: c, mode: ref, truth: truth1, pred: `{"polygons":null,"nuclei":[` + P("tumor", sq(50, 50)) + `]}`, invalid: true},
			nucleiCase{name: "polygons-number", c: c, mode: ref, truth: truth1, pred: `{"polygons":5}`, invalid: true},
			// N2: an empty object or string iterates nothing; a non-empty one
			// gives items that are not objects.
			nucleiCase{name: "polygons-empty-object", c: c, mode: ref, truth: truth1, pred: `{"polygons":{}}`, metric: "f1_tumor", want: 0},
			nucleiCase{name: "polygons-empty-string", c: c, mode: ref, truth: truth1, pred: `{"polygons":""}`, metric: "f1_tumor", want: 0},
			nucleiCase{name: "polygons-object", c: c, mode: ref, truth: truth1, pred: `{"polygons":{"a":1}}`, invalid: true},
			nucleiCase{name: "polygons-string", c: c, mode: ref, truth: truth1, pred: `{"polygons":"ab"}`, invalid: true},
			// N7: an item without a class is skipped before its score and
			// geometry are read.
			nucleiCase{name: "null-name-bad-fields", c: c, mode: ref, truth: truth1,
				pred: polys(P("tumor", sq(50, 50)), `{"name":null,"score":"x","path_points":5}`, `{"score":[1],"centroid":"nowhere"}`), metric: "f1_tumor", want: 1},
			// N8: a score is only read when its prediction is a candidate.
			nucleiCase{name: "string-score-never-candidate", c: c, mode: ref, truth: truth1,
				pred: polys(P("tumor", sq(50, 50)), P("tumor", sq(300, 300), `"high"`), P("tumor", sq(400, 400), "null")), metric: "f1_tumor", want: 0.5},
			nucleiCase{name: "string-score-candidate", c: c, mode: ref, truth: truth1, pred: polys(P("tumor", sq(52, 50), `"high"`)), invalid: true},
			nucleiCase{name: "null-score-candidate", c: c, mode: ref, truth: truth1, pred: polys(P("tumor", sq(300, 300)), P("tumor", sq(52, 50), "null")), invalid: true},
			nucleiCase{name: "bool-score", c: c, mode: ref, truth: truth1, pred: polys(P("tumor", sq(50, 50), "true")), metric: "f1_tumor", want: 1},
			// N9: path_points with len < 3 skip the item, whatever its type;
			// a value without len fails.
			nucleiCase{name: "path-points-short-string", c: c, mode: ref, truth: truth1,
				pred: polys(P("tumor", sq(50, 50)), `{"name":"tumor","path_points":"ab"}`, `{"name":"tumor","path_points":{"a":1,"b":2}}`, `{"name":"tumor","path_points":""}`), metric: "f1_tumor", want: 1},
			nucleiCase{name: "path-points-number", c: c, mode: ref, truth: truth1, pred: polys(`{"name":"tumor","path_points":5}`), invalid: true},
			nucleiCase{name: "path-points-long-string", c: c, mode: ref, truth: truth1, pred: polys(`{"name":"tumor","path_points":"abc"}`), invalid: true},
			// Bool coordinates are numbers to numpy.
			nucleiCase{name: "bool-coordinates", c: c, mode: ref, truth: polys(P("tumor", sq(1, 1))), pred: polys(P("tumor", "[[true,false],[false,true],[true,true]]")), metric: "f1_tumor", want: 1},
			// N11: Python's strip() also strips U+001C–U+001F.
			nucleiCase{name: "strip-unit-separator", c: c, mode: ref, truth: truth1, pred: polys(P(`tumor\u001f`, sq(50, 50))), metric: "f1_tumor", want: 1},
			nucleiCase{name: "strip-nbsp", c: c, mode: ref, truth: truth1, pred: polys(P(`\u00a0tumor\u3000`, sq(50, 50))), metric: "f1_tumor", want: 1},
		)
	}
	cases = append(cases,
		// N7, track 2: a name the track drops skips the item first.
		nucleiCase{name: "dropped-name-bad-fields", c: Track2Task2, mode: ref, truth: truth1,
			pred: polys(P("tumor", sq(50, 50)), `{"name":"nuclei_tumor","score":"x","path_points":5}`, `{"name":"TILs","path_points":[[1],[2],[3]]}`, `{"name":7,"centroid":null}`), metric: "f1_tumor", want: 1},
		// Track 1: a name that is not a string fails before anything else.
		nucleiCase{name: "t1-number-name", c: Track1Task2, mode: ref, truth: truth1, pred: polys(`{"name":5,"path_points":[]}`), invalid: true},
		// N12: Python lower-cases İ to "i" + U+0307: no match.
		nucleiCase{name: "dotted-capital-I", c: Track2Task2, mode: ref, truth: polys(P("epithelium", sq(50, 50))), pred: polys(P(`ep\u0130thelium`, sq(50, 50))), metric: "f1_epithelium", want: 0},
		nucleiCase{name: "dotted-capital-I-t1", c: Track1Task2, mode: ref, truth: polys(P("TILs", sq(50, 50))), pred: polys(P(`T\u0130Ls`, sq(50, 50))), metric: "f1_TILs", want: 0},
	)
	runNucleiCases(t, cases)
}

// TestNucleiNaNScoreSort: with a NaN score among the candidates, the
// reference takes the first element of CPython's sort. Truth T1 (50,50),
// T2 (68,50); predictions C (55,50) 0.5, A (45,50) NaN, B (50,55) 0.9, all
// candidates of T1. The sort keys (-0.5, 5), (nan, 5), (-0.9, 5) form one
// ascending run (nothing is less than NaN, NaN is less than nothing), so
// T1 takes C, and T2, whose only candidate was C, is missed: TP 1 of 3
// predictions and 2 truths, F1 = 2·(1/3)·(1/2)/(1/3 + 1/2) = 0.4. (Taking
// the highest score would give B to T1 and C to T2: F1 0.8.)
func TestNucleiNaNScoreSort(t *testing.T) {
	truth := polys(P("tumor", sq(50, 50)), P("tumor", sq(68, 50)))
	pred := polys(P("tumor", sq(55, 50), "0.5"), P("tumor", sq(45, 50), "NaN"), P("tumor", sq(50, 55), "0.9"))
	runNucleiCases(t, []nucleiCase{
		{name: "t1", c: Track1Task2, mode: ref, truth: truth, pred: pred, metric: "f1_tumor", want: 0.4},
		{name: "t2", c: Track2Task2, mode: ref, truth: truth, pred: pred, metric: "f1_tumor", want: 0.4},
		{name: "t2-official", c: Track2Task2, mode: off, truth: truth, pred: pred, metric: "f1_tumor", want: 0.4},
	})
	// pySortFirst against hand-sorted lists.
	nan := math.NaN()
	for _, tc := range []struct {
		xs   []candidate
		want int
	}{
		{[]candidate{{0, 0.5, 5}, {1, nan, 5}, {2, 0.9, 5}}, 0},
		{[]candidate{{0, nan, 5}, {1, 0.9, 1}}, 0},
		{[]candidate{{0, 0.9, 1}, {1, nan, 5}}, 0},
		// (-0.5) < (-0.1): a descending run of 2, reversed, then NaN
		// inserted after everything not greater than it.
		{[]candidate{{0, 0.1, 1}, {1, 0.5, 1}, {2, nan, 1}}, 1},
		// Keys -0.1, -0.2: a descending run, reversed; NaN stays after it;
		// -0.9 is below both: binary insertion puts it first.
		{[]candidate{{0, 0.1, 1}, {1, 0.2, 1}, {2, nan, 1}, {3, 0.9, 1}}, 3},
	} {
		if got := pySortFirst(append([]candidate(nil), tc.xs...)).k; got != tc.want {
			t.Errorf("pySortFirst(%v) = %d, want %d", tc.xs, got, tc.want)
		}
	}
}

// Official mode reads the files as the organisers' eval_nuclei.py does
// (checked against it).
func TestNucleiOfficialSchema(t *testing.T) {
	truth1 := polys(P("tumor", sq(50, 50)))
	var cases []nucleiCase
	for _, c := range []Challenge{Track1Task2, Track2Task2} {
		cases = append(cases,
			nucleiCase{name: "trailing-data", c: c, mode: off, truth: truth1, pred: polys(P("tumor", sq(50, 50))) + " x", invalid: true},
			nucleiCase{name: "invalid-utf8", c: c, mode: off, truth: truth1, pred: `{"polygons":[` + P("tum\xffor", sq(50, 50)) + `]}`, invalid: true},
			nucleiCase{name: "nan-score", c: c, mode: off, truth: truth1, pred: polys(P("tumor", sq(50, 50), "NaN")), metric: "f1_tumor", want: 1},
			nucleiCase{name: "polygons-null", c: c, mode: off, truth: truth1, pred: `{"polygons":null}`, invalid: true},
			nucleiCase{name: "polygons-empty-object", c: c, mode: off, truth: truth1, pred: `{"polygons":{}}`, metric: "f1_tumor", want: 0},
			// F6: "nuclei" is not read: no predictions.
			nucleiCase{name: "nuclei-key-ignored", c: c, mode: off, truth: truth1, pred: nuclei(P("tumor", sq(50, 50))), metric: "f1_tumor", want: 0},
			// F5: name and path_points are required; class and centroid
			// are not read.
			nucleiCase{name: "class-instead-of-name", c: c, mode: off, truth: truth1, pred: polys(`{"class":"tumor","path_points":` + sq(50, 50) + `}`), invalid: true},
			nucleiCase{name: "centroid-only", c: c, mode: off, truth: truth1, pred: polys(`{"name":"tumor","centroid":[50,50]}`), invalid: true},
			nucleiCase{name: "no-name-short", c: c, mode: off, truth: truth1, pred: polys(`{"path_points":[]}`), invalid: true},
			nucleiCase{name: "null-name", c: c, mode: off, truth: truth1, pred: polys(P("tumor", sq(50, 50)), `{"name":null,"path_points":`+sq(60, 60)+`}`), invalid: true},
			// A list name on a skipped item is never used.
			nucleiCase{name: "list-name-skipped", c: c, mode: off, truth: truth1, pred: polys(P("tumor", sq(50, 50)), `{"name":["x"],"path_points":[]}`), metric: "f1_tumor", want: 1},
			nucleiCase{name: "list-name", c: c, mode: off, truth: truth1, pred: polys(`{"name":["tumor"],"path_points":` + sq(50, 50) + `}`), invalid: true},
			// F3: names are matched exactly: "Tumor" is a class of its own
			// (macro over tumor and Tumor, both 0).
			nucleiCase{name: "case-not-folded", c: c, mode: off, truth: truth1, pred: polys(P("Tumor", sq(50, 50))), metric: "f1", want: 0},
			nucleiCase{name: "space-not-stripped", c: c, mode: off, truth: truth1, pred: polys(P("tumor ", sq(50, 50))), metric: "f1_tumor", want: 0},
			// F4: a number name is a class of its own, not an error:
			// macro over tumor (1) and "5" (0).
			nucleiCase{name: "number-name", c: c, mode: off, truth: truth1, pred: polys(P("tumor", sq(50, 50)), `{"name":5,"path_points":`+sq(300, 300)+`}`), metric: "f1", want: 0.5},
			// F7: a score read only for candidates; bools are numbers.
			nucleiCase{name: "string-score-never-candidate", c: c, mode: off, truth: truth1,
				pred: polys(P("tumor", sq(50, 50)), P("tumor", sq(300, 300), `"0.9"`)), metric: "f1_tumor", want: 2.0 / 3},
			nucleiCase{name: "string-score-candidate", c: c, mode: off, truth: truth1, pred: polys(P("tumor", sq(52, 50), `"0.9"`)), invalid: true},
			nucleiCase{name: "bool-score", c: c, mode: off, truth: truth1, pred: polys(P("tumor", sq(50, 50), "true")), metric: "f1_tumor", want: 1},
			// F9: no class name in any file: np.mean([]) is NaN.
			nucleiCase{name: "all-empty", c: c, mode: off, truth: `{"polygons":[]}`, pred: `{"polygons":[]}`, metric: "f1", want: math.NaN()},
			nucleiCase{name: "all-empty-reference", c: c, mode: ref, truth: `{"polygons":[]}`, pred: `{"polygons":[]}`, metric: "f1", want: 0},
		)
	}
	// F6: "confidence" is not read (every score is 1, the nearer wins):
	// T1 (50,50) takes A (44,50) over B (58,50), and T2 (30,50), whose only
	// candidate was A, is missed: F1 0.5. The reference orders by the
	// confidence (B 0.9 first) and matches both: 1.
	conf := polys(P("tumor", sq(50, 50)), P("tumor", sq(30, 50)))
	confPred := polys(`{"name":"tumor","path_points":`+sq(44, 50)+`,"confidence":0.1}`, `{"name":"tumor","path_points":`+sq(58, 50)+`,"confidence":0.9}`)
	cases = append(cases,
		nucleiCase{name: "confidence-ignored", c: Track2Task2, mode: off, truth: conf, pred: confPred, metric: "f1_tumor", want: 0.5},
		nucleiCase{name: "confidence-read-reference", c: Track2Task2, mode: ref, truth: conf, pred: confPred, metric: "f1_tumor", want: 1},
		// F3: no track-1 aliases.
		nucleiCase{name: "t1-alias", c: Track1Task2, mode: off, truth: polys(P("TILs", sq(50, 50))), pred: polys(P("lymphocytes", sq(50, 50))), metric: "f1_TILs", want: 0},
		nucleiCase{name: "t1-alias-reference", c: Track1Task2, mode: ref, truth: polys(P("TILs", sq(50, 50))), pred: polys(P("lymphocytes", sq(50, 50))), metric: "f1_TILs", want: 1},
		// Track 2 keeps the documented dataset names, exactly written.
		nucleiCase{name: "t2-dataset-name", c: Track2Task2, mode: off, truth: truth1, pred: polys(P("nuclei_tumor", sq(50, 50))), metric: "f1_tumor", want: 1},
		nucleiCase{name: "t2-dataset-name-case", c: Track2Task2, mode: off, truth: truth1, pred: polys(P("Nuclei_tumor", sq(50, 50))), metric: "f1_tumor", want: 0},
	)
	runNucleiCases(t, cases)
}

// TestPathCentroidBigInt: numpy averages integers beyond int64 as Python
// objects, and the division of a sum beyond the float range fails there;
// a 30-digit integer is averaged as a float.
func TestPathCentroidBigInt(t *testing.T) {
	load := func(s string) any {
		v, err := pyjson.Load([]byte(s))
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	if _, _, _, err := pathCentroid(load(`[[1` + strings.Repeat("0", 400) + `, 2], [3, 4], [5, 6]]`)); err == nil || !strings.Contains(err.Error(), "too large for a float") {
		t.Errorf("400-digit coordinate: %v, want the overflow", err)
	}
	x, y, keep, err := pathCentroid(load(`[[3` + strings.Repeat("0", 29) + `, 3], [0, 3], [0, 3]]`))
	if err != nil || !keep || x != 1e29 || y != 3 {
		t.Errorf("30-digit coordinate: %v %v %v %v", x, y, keep, err)
	}
}

// TestNucleiDeepJSON: a nuclei file nested deeper than Python's json decodes
// under its recursion limit is refused (RecursionError in the reference) in
// both modes, even where the depth sits in a field no one reads; one level
// less is read.
func TestNucleiDeepJSON(t *testing.T) {
	item := `{"name": "nuclei_tumor", "path_points": [[10, 10], [20, 10], [20, 20]], "score": 0.9, "x": %s}`
	for _, depth := range []int{pyjson.MaxDepth, pyjson.MaxDepth + 1} {
		// The top object is level 1, "polygons" 2, the item 3.
		x := strings.Repeat("[", depth-3) + strings.Repeat("]", depth-3)
		doc := []byte(`{"polygons": [` + fmt.Sprintf(item, x) + `]}`)
		if d := pyjson.Depth(doc); d != depth {
			t.Fatalf("built %d levels, want %d", d, depth)
		}
		for _, mode := range []challenge.Mode{challenge.Reference, challenge.Official} {
			pts, err := Track1Task2.parseNuclei(doc, mode)
			if depth > pyjson.MaxDepth {
				if !errors.Is(err, pyjson.ErrTooDeep) {
					t.Errorf("depth %d, %s: %v, want RecursionError", depth, mode, err)
				}
			} else if err != nil || len(pts) != 1 {
				t.Errorf("depth %d, %s: %v %v, want one nucleus", depth, mode, pts, err)
			}
		}
	}
}
