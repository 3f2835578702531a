package topcowcommon

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/rexmle/rexmle/metrics/topology"
	"github.com/rexmle/rexmle/pipeline/challenge"
	"github.com/rexmle/rexmle/pipeline/challenges/topcowcommon/topcowtest"
)

func boxJS(s, l [3]int) string {
	return fmt.Sprintf(`{"size": [%d, %d, %d], "location": [%d, %d, %d]}`, s[0], s[1], s[2], l[0], l[1], l[2])
}

// Box aggregates of topcow-track1-task2 §7 and the grown-boxes quirk.
func TestBoxGrading(t *testing.T) {
	c := New(TopCoWT1T2)
	gt := boxJS([3]int{10, 10, 10}, [3]int{0, 0, 0})
	off := boxJS([3]int{10, 10, 10}, [3]int{5, 0, 0})
	type pred = [2]string
	grade := func(mode challenge.Mode, answers map[string][2]string, preds map[string]pred, order ...string) *challenge.Result {
		sub, priv := topcowtest.MiniFiles(t, "predicted_bbox_path", answers, preds, order)
		return topcowtest.Grade(t, c, sub, priv, mode)
	}
	a1 := map[string][2]string{"001": {"topcow_ct_001_bbox.json", gt}}
	r := grade(challenge.Reference, a1, map[string]pred{"001": {"predictions/a.json", off}}, "001")
	check(t, "row 2", r, map[string]float64{"boundary_iou": 9.0 / 19.0, "iou": 0.6})
	// Official: shells; r = 0.5 is the plain IoU 1/3.
	r = grade(challenge.Official, a1, map[string]pred{"001": {"predictions/a.json", off}}, "001")
	check(t, "row 2 official", r, map[string]float64{"iou": 1.0 / 3.0})
	a2 := map[string][2]string{"001": {"topcow_ct_001_bbox.json", gt}, "002": {"topcow_ct_002_bbox.json", gt}}
	r = grade(challenge.Reference, a2, map[string]pred{"001": {"p/1.json", gt}, "002": {"p/2.json", off}}, "001", "002")
	check(t, "rows 1+2", r, map[string]float64{"boundary_iou": (1 + 9.0/19.0) / 2, "iou": 0.8})
	// Python int(): floats truncate toward zero.
	r = grade(challenge.Reference, a1, map[string]pred{"001": {"p/1.json", `{"size":[10.9,10,10],"location":[-3.7,0,0]}`}}, "001")
	check(t, "int()", r, map[string]float64{"boundary_iou": 0.6470588235294118, "iou": 0.7391304347826086})
	// Text predictions: \b\d+\b loses signs ("-5" → 5); numeric strings pass int().
	txt := "--- ROI Meta Data ---\nSize (Voxels): 10 10 10\nLocation (Voxels): -5 0 0\n"
	r = grade(challenge.Reference, a1, map[string]pred{"001": {"p/1.TXT", txt}}, "001")
	check(t, "txt", r, map[string]float64{"boundary_iou": 9.0 / 19.0, "iou": 0.6})
	r = grade(challenge.Reference, a1, map[string]pred{"001": {"p/1.json", `{"size":["10"," 10 ",true],"location":[0,0,0]}`}}, "001")
	if r.Values["iou"] >= 1 || r.Values["iou"] <= 0 {
		t.Errorf("string/bool sizes: %v", r.Values)
	}
	// Python's json: NaN in a key the reference does not read is fine; a
	// string's characters are what int() gets when the reference iterates it.
	r = grade(challenge.Reference, a1, map[string]pred{"001": {"p/1.json", `{"size":[10,10,10],"location":[5,0,0],"confidence":NaN}`}}, "001")
	check(t, "NaN extra key", r, map[string]float64{"boundary_iou": 9.0 / 19.0, "iou": 0.6})
	r = grade(challenge.Reference, a1, map[string]pred{"001": {"p/1.json", `{"size":"999","location":[0,0,0]}`}}, "001")
	r9 := grade(challenge.Reference, a1, map[string]pred{"001": {"p/1.json", `{"size":[9,9,9],"location":[0,0,0]}`}}, "001")
	if r.Values["iou"] != r9.Values["iou"] || r.Values["boundary_iou"] != r9.Values["boundary_iou"] {
		t.Errorf("size \"999\": %v, want that of [9, 9, 9] %v", r.Values, r9.Values)
	}
	// int() reads decimal digits of any script.
	r = grade(challenge.Reference, a1, map[string]pred{"001": {"p/1.json", `{"size":["٩","9"," 9\u2003"],"location":[0,0,0]}`}}, "001")
	if r.Values["iou"] != r9.Values["iou"] {
		t.Errorf("size [\"٩\", \"9\", \" 9\\u2003\"]: %v, want that of [9, 9, 9] %v", r.Values, r9.Values)
	}
	// pathlib drops a trailing slash: "p/1.json/" is the JSON file p/1.json.
	r = grade(challenge.Reference, a1, map[string]pred{"001": {"p/1.json/", off}}, "001")
	check(t, "trailing slash", r, map[string]float64{"boundary_iou": 9.0 / 19.0, "iou": 0.6})
	// Invalid predictions.
	for name, p := range map[string]pred{
		"nan-size": {"p/1.json", `{"size":[NaN,1,1],"location":[0,0,0]}`},
		"unit-sep": {"p/1.json", `{"size":["9\u001f",1,1],"location":[0,0,0]}`},
		"latin1":   {"p/1.txt", "--- ROI Meta Data ---\nSize (Voxels): 10 10 10\nLocation (Voxels): 0 0 0\n# r\xe9gion\n"},
		"arity":    {"p/1.json", `{"size":[10,10],"location":[0,0,0]}`},
		"yml":      {"p/box.yml", gt},
		"str":      {"p/1.json", `{"size":["7.5",1,1],"location":[0,0,0]}`},
		"null":     {"p/1.json", `{"size":[null,1,1],"location":[0,0,0]}`},
		"trail":    {"p/1.json", gt + "{}"},
		"lines":    {"p/1.txt", "--- ROI ---\nSize (Voxels): 1 2 3\n"},
	} {
		sub, priv := topcowtest.MiniFiles(t, "predicted_bbox_path", a1, map[string]pred{"001": p}, []string{"001"})
		if _, err := challenge.SafeGrade(context.Background(), c, sub, priv, challenge.Reference); !challenge.IsInvalid(err) {
			t.Errorf("%s: want an invalid submission, got %v", name, err)
		}
	}
}

func TestParseBoxText(t *testing.T) {
	b, err := parseBoxText("--- ROI Meta Data ---\r\nSize (Voxels): 96 68 36\r\nLocation (Voxels): 103 93 77\r\nextra 1 2\n")
	if err != nil || b != (topology.Box{Size: [3]int{96, 68, 36}, Location: [3]int{103, 93, 77}}) {
		t.Errorf("%+v %v", b, err)
	}
	// "0.8" gives two numbers; "x12" none.
	// Python's re on a str is Unicode-aware (checked with CPython 3.11).
	for in, want := range map[string]string{
		"Size (Voxels): ٩ ١٢ 3": "[9 12 3]", "10\u00a010\u00d710\u201410": "[10 10 10 10]",
		"𝟘𝟙𝟚 𝟗 x": "[12 9]", "12² 5": "[5]", "é5 6é 7": "[7]",
	} {
		if got := wordDigits(in); fmt.Sprint(got) != want {
			t.Errorf("wordDigits(%q) = %v, want %s", in, got, want)
		}
	}
	if got := wordDigits("a 0.8 x12 7_ -5"); fmt.Sprint(got) != "[0 8 5]" {
		t.Errorf("wordDigits = %v", got)
	}
}

func edgeJSON(ant, pos [4]string) string {
	var b strings.Builder
	b.WriteString(`{"anterior": {`)
	for i, n := range topology.AnteriorEdgeNames {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%q: %s", n, ant[i])
	}
	b.WriteString(`}, "posterior": {`)
	for i, n := range topology.PosteriorEdgeNames {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%q: %s", n, pos[i])
	}
	b.WriteString("}}")
	return b.String()
}

func strs(v [4]int) [4]string {
	var s [4]string
	for i, x := range v {
		s[i] = fmt.Sprint(x)
	}
	return s
}

// Task-3 vectors T3-1 … T3-8 and the edge quirks.
func TestEdgeGrading(t *testing.T) {
	c := New(TopCoWT1T3)
	V1, V2, V3, V4 := [4]int{1, 1, 0, 1}, [4]int{0, 1, 0, 1}, [4]int{1, 1, 1, 1}, [4]int{0, 0, 0, 0}
	type cs struct {
		gtA, gtP [4]int
		path     string
		pred     string
	}
	run := func(mode challenge.Mode, cases ...cs) (*challenge.Result, error) {
		ans, preds := map[string][2]string{}, map[string][2]string{}
		var order []string
		for i, k := range cases {
			id := fmt.Sprintf("%03d", i+1)
			order = append(order, id)
			ans[id] = [2]string{"topcow_ct_" + id + ".yml", edgesYAML(k.gtA, k.gtP)}
			p := k.path
			if p == "" {
				p = "predictions/topcow_ct_" + id + "_edges.json"
			}
			preds[id] = [2]string{p, k.pred}
		}
		sub, priv := topcowtest.MiniFiles(t, "predicted_edges_path", ans, preds, order)
		return challenge.SafeGrade(context.Background(), c, sub, priv, mode)
	}
	ok := func(name string, mode challenge.Mode, want map[string]float64, cases ...cs) {
		t.Helper()
		r, err := run(mode, cases...)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		check(t, name, r, want)
	}
	j := func(a, p [4]int) string { return edgeJSON(strs(a), strs(p)) }
	ref, off := challenge.Reference, challenge.Official
	ok("T3-1", ref, map[string]float64{"anterior_acc": 0.5, "posterior_acc": 1},
		cs{V1, V3, "", j(V1, V3)}, cs{V1, V3, "", j(V2, V3)}, cs{V2, V4, "", j(V2, V4)}, cs{V3, V1, "", j(V4, V1)})
	float1 := edgeJSON([4]string{"1.0", "1", "0", "1"}, strs(V3))
	ok("T3-2", ref, map[string]float64{"anterior_acc": 0.5, "posterior_acc": 1}, cs{V1, V3, "", float1}, cs{V1, V3, "", j(V1, V3)})
	ok("T3-2 official", off, map[string]float64{"anterior_acc": 1, "posterior_acc": 1}, cs{V1, V3, "", float1}, cs{V1, V3, "", j(V1, V3)})
	boolT := edgeJSON([4]string{"true", "1", "0", "1"}, strs(V3))
	ok("T3-3", ref, map[string]float64{"anterior_acc": 0, "posterior_acc": 1}, cs{V1, V3, "", boolT})
	ok("T3-3 official", off, map[string]float64{"anterior_acc": 1}, cs{V1, V3, "", boolT})
	for name, p := range map[string]string{
		"T3-4 value 2":   edgeJSON([4]string{"2", "1", "0", "1"}, strs(V3)),
		"T3-5 extra key": strings.TrimSuffix(j(V1, V3), "}") + `, "x": 1}`,
		"string value":   edgeJSON([4]string{`"1"`, "1", "0", "1"}, strs(V3)),
	} {
		if _, err := run(ref, cs{V1, V3, "", p}); !challenge.IsInvalid(err) {
			t.Errorf("%s: want invalid, got %v", name, err)
		}
	}
	yes := strings.Replace(edgesYAML(V1, V3), "L-A1: 1", "L-A1: yes", 1)
	ok("T3-6", ref, map[string]float64{"anterior_acc": 0, "posterior_acc": 1}, cs{V1, V3, "p/e.yml", yes})
	ok("T3-7", ref, map[string]float64{"anterior_acc": 1, "posterior_acc": 1}, cs{V1, V3, "p/e.yml", edgesYAML(V1, V3)})
	ok("T3-8", ref, map[string]float64{"anterior_acc": 0, "posterior_acc": 0}, cs{V1, V3, "", j(V2, V4)}, cs{V2, V4, "", j(V1, V3)})
	// Issue 15.9: official edge-vector distances, mean over rows: case 1
	// anterior V1 vs V2 = 1, posterior V3 vs V4 = 2; case 2 exact → 0.
	ok("edge distance", off, map[string]float64{"anterior_edge_distance": 0.5, "posterior_edge_distance": 1},
		cs{V1, V3, "", j(V2, V4)}, cs{V1, V3, "", j(V1, V3)})
	if r, err := run(ref, cs{V1, V3, "", j(V2, V4)}); err != nil || !math.IsNaN(r.Values["anterior_edge_distance"]) {
		t.Errorf("reference edge distance: %v, %v (want NaN)", err, r)
	}
	// Path normalisation of task 3.
	ok("dot-slash", ref, map[string]float64{"anterior_acc": 1}, cs{V1, V3, "./predictions/a.json", j(V1, V3)})
	ok("working", ref, map[string]float64{"anterior_acc": 1}, cs{V1, V3, "working/predictions/a.json", j(V1, V3)})
	// yaml-extension quirk: .yaml accepted by the reference only.
	ok(".yaml ref", ref, map[string]float64{"anterior_acc": 1}, cs{V1, V3, "p/e.yaml", edgesYAML(V1, V3)})
	if _, err := run(off, cs{V1, V3, "p/e.yaml", edgesYAML(V1, V3)}); !challenge.IsInvalid(err) {
		t.Errorf(".yaml official: want invalid, got %v", err)
	}
}

func TestYAMLScalars(t *testing.T) {
	for in, want := range map[string]string{
		"1": "1", "0": "0", "+1": "1", "01": "1", "0x1": "1", "1.0": "1.0", "-0.0": "-0.0",
		"yes": "True", "Off": "False", "~": "None", "'1'": "1", "abc": "abc", "1e0": "1e0",
	} {
		if got := yamlScalar(in).str; got != want {
			t.Errorf("yamlScalar(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[float64]string{1: "1.0", 0.5: "0.5", 1e16: "1e+16", 1e-5: "1e-05", math.Copysign(0, -1): "-0.0", 123456: "123456.0"} {
		if got := pyFloatStr(in); got != want {
			t.Errorf("pyFloatStr(%v) = %q, want %q", in, got, want)
		}
	}
	if pyFloatStr(math.Copysign(0, -1)) != "-0.0" {
		t.Error("negative zero")
	}
	m, err := parseYAMLMapping("anterior: {L-A1: 1, Acom: 0}\n# c\nposterior:\n  L-P1: 1 # x\n")
	if err != nil || m["anterior"]["Acom"] != "0" || m["posterior"]["L-P1"] != "1" {
		t.Errorf("%v %v", m, err)
	}
}

// The reference split: sklearn train_test_split(test_size=0.2,
// random_state=42) positions for the archive sizes (C-8).
func TestSplitPinned(t *testing.T) {
	ids := func(n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = fmt.Sprintf("%03d", i)
		}
		return out
	}
	_, test := Split(ids(125))
	want := "018 042 036 076 053 091 056 123 093 004 027 116 044 096 019 077 010 101 011 114 047 078 000 026 031"
	if got := strings.Join(test, " "); got != want {
		t.Errorf("n=125 test = %s", got)
	}
	train, test := Split(ids(25))
	if got := strings.Join(test, " "); got != "008 016 000 023 011" || len(train) != 20 {
		t.Errorf("n=25 test = %s (train %d)", got, len(train))
	}
	_, test = Split(ids(synthCases))
	if len(test) != 3 {
		t.Errorf("synthetic split has %d test cases", len(test))
	}
}

func TestTopIndices(t *testing.T) {
	v := []float64{3, 9, 1, 9, 7, 0, 5}
	if got := fmt.Sprint(topIndices(v, 3)); got != "[1 3 4]" {
		t.Errorf("top 3 = %s", got)
	}
	if got := fmt.Sprint(topIndices(v, 10)); got != "[1 3 4 6 0 2 5]" {
		t.Errorf("top all = %s", got)
	}
}
