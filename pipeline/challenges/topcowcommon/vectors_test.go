package topcowcommon

import (
	"context"
	"math"
	"testing"

	"github.com/rexmle/rexmle/pipeline/challenge"
	"github.com/rexmle/rexmle/pipeline/challenges/topcowcommon/topcowtest"
)

type vox = topcowtest.Vox

var (
	line  = topcowtest.Line
	block = topcowtest.Block
	unit  = [3]float64{1, 1, 1}
)

// pt is one labelled voxel at (z, y, x).
func pt(z, y, x, l int) vox { return vox{Z: z, Y: y, X: x, L: l} }

func cat(parts ...[]vox) []vox {
	var out []vox
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// check compares expected metric values (tolerance 1e-9, 1e-5 for hd95 as
// the spec allows for float32/numpy differences).
func check(t *testing.T, name string, r *challenge.Result, want map[string]float64) {
	t.Helper()
	for k, w := range want {
		got, ok := r.Values[k]
		tol := 1e-9
		if k == "hd95" {
			tol = 1e-5
		}
		if !ok || math.Abs(got-w) > tol {
			t.Errorf("%s: %s = %v, want %v", name, k, got, w)
		}
	}
}

func gradeSeg(t *testing.T, c Challenge, mode challenge.Mode, cases ...topcowtest.Seg) *challenge.Result {
	t.Helper()
	sub, priv := topcowtest.MiniSeg(t, c.stem("x")[:len("topcow_ct")], cases)
	return topcowtest.Grade(t, c, sub, priv, mode)
}

func seg(id string, zyx [3]int, spacing [3]float64, gt, pred []vox) topcowtest.Seg {
	return topcowtest.Seg{ID: id, ZYX: zyx, Spacing: spacing, GT: gt, Pred: pred}
}

// Vectors A–G of topcow-track1-task1 §7 (reference mode).
func TestTopCoWSegmentationVectors(t *testing.T) {
	c := New(TopCoWT1T1)
	ref := challenge.Reference
	cases := []struct {
		name string
		segs []topcowtest.Seg
		want map[string]float64
	}{
		{"A", []topcowtest.Seg{seg("001", [3]int{1, 1, 4}, unit, line(0, 0, 0, 1, 1), cat(line(0, 0, 0, 0, 1), line(0, 0, 3, 3, 2)))},
			map[string]float64{"dice": 0.6666666444444452, "cldice": 0.5, "b0_error": 0, "hd95": 0, "f1_grp2": 0,
				"anterior_graph_acc": 1, "anterior_topology": 1, "posterior_graph_acc": 0, "posterior_topology": 0}},
		{"B", []topcowtest.Seg{seg("001", [3]int{3, 1, 1}, [3]float64{0.5, 0.5, 2}, []vox{pt(0, 0, 0, 1)}, []vox{pt(2, 0, 0, 1)})},
			map[string]float64{"dice": 0, "cldice": 0, "b0_error": 0, "hd95": 4.0}},
		{"C1", []topcowtest.Seg{seg("001", [3]int{1, 1, 20}, unit, line(0, 0, 0, 9, 1), line(0, 0, 0, 19, 1))},
			map[string]float64{"dice": 20 / (30 + 1e-7), "cldice": 2.0 / 3.0, "hd95": 9.05}},
		{"C2", []topcowtest.Seg{seg("001", [3]int{1, 1, 20}, [3]float64{0.5, 1, 1}, line(0, 0, 0, 9, 1), line(0, 0, 0, 19, 1))},
			map[string]float64{"hd95": 4.525}},
		{"C3", []topcowtest.Seg{seg("001", [3]int{1, 1, 20}, unit, line(0, 0, 0, 19, 1), line(0, 0, 0, 9, 1))},
			map[string]float64{"hd95": 0, "cldice": 2.0 / 3.0}},
		{"D", []topcowtest.Seg{seg("001", [3]int{3, 3, 3}, unit, []vox{pt(0, 0, 0, 1), pt(2, 2, 2, 1)}, []vox{pt(0, 0, 0, 1), pt(1, 1, 1, 1)})},
			map[string]float64{"dice": 0.4999999875000003, "cldice": 0.5, "b0_error": 1, "hd95": 1.645448237657547}},
		{"F1z", []topcowtest.Seg{seg("001", [3]int{5, 5, 5}, unit, block(1, 3, 1, 3, 1, 3, 1), []vox{pt(1, 2, 2, 1), pt(2, 2, 2, 1), pt(3, 2, 2, 1)})},
			map[string]float64{"cldice": 1, "dice": 6 / (30 + 1e-7), "hd95": 0.8999999999999999}},
		{"F2x", []topcowtest.Seg{seg("001", [3]int{5, 5, 5}, unit, block(1, 3, 1, 3, 1, 3, 1), line(2, 2, 1, 3, 1))},
			map[string]float64{"cldice": 0.5}},
		{"G", []topcowtest.Seg{seg("001", [3]int{6, 6, 12}, unit, block(1, 4, 1, 4, 1, 10, 1), block(1, 4, 1, 4, 1, 10, 1))},
			map[string]float64{"dice": 320 / (320 + 1e-7), "cldice": 0, "b0_error": 0, "hd95": 0}},
		{"empty", []topcowtest.Seg{seg("001", [3]int{2, 3, 4}, unit, nil, nil)},
			map[string]float64{"dice": 1, "cldice": 0, "b0_error": 0, "hd95": 0, "f1_grp2": 0,
				"anterior_graph_acc": 1, "posterior_graph_acc": 1, "anterior_topology": 1, "posterior_topology": 1}},
	}
	for _, tc := range cases {
		r := gradeSeg(t, c, ref, tc.segs...)
		check(t, tc.name, r, tc.want)
	}
}

// Vector E: detection F1 and topology aggregated over three cases.
func TestTopCoWVectorE(t *testing.T) {
	gt := cat(line(0, 0, 0, 3, 10), line(0, 2, 0, 2, 11), line(0, 2, 4, 6, 12))
	pred := cat([]vox{pt(0, 0, 0, 10)}, line(0, 2, 0, 2, 11), line(0, 2, 4, 6, 12))
	noAcom := cat(line(0, 2, 0, 2, 11), line(0, 2, 4, 6, 12))
	sh := [3]int{1, 4, 8}
	r := gradeSeg(t, New(TopCoWT1T1), challenge.Reference,
		seg("001", sh, unit, gt, pred), seg("002", sh, unit, gt, noAcom), seg("003", sh, unit, noAcom, pred))
	check(t, "E", r, map[string]float64{
		"dice": 0.8222222083703706, "cldice": 0.8322021116138761, "b0_error": 1.0 / 9.0, "hd95": 10,
		"f1_grp2": 0.125, "anterior_graph_acc": 1.0 / 3.0, "anterior_topology": 1.0 / 3.0,
		"posterior_graph_acc": 1, "posterior_topology": 1,
	})
	if len(r.Cases) != 3 || r.Cases[1].Values["hd95"] != 30 {
		t.Errorf("per-case values: %+v", r.Cases)
	}
}

// Every quirk of the TopCoW segmentation grader changes the value as the
// spec says.
func TestTopCoWSegmentationQuirks(t *testing.T) {
	c := New(TopCoWT1T1)
	grade := func(mode challenge.Mode, s topcowtest.Seg) *challenge.Result { return gradeSeg(t, c, mode, s) }
	// hd95-directed: C3 gives 0 in reference, 9.05 officially.
	c3 := seg("001", [3]int{1, 1, 20}, unit, line(0, 0, 0, 19, 1), line(0, 0, 0, 9, 1))
	check(t, "C3 ref", grade(challenge.Reference, c3), map[string]float64{"hd95": 0})
	check(t, "C3 official", grade(challenge.Official, c3), map[string]float64{"hd95": 9.05})
	// gt-labels-only and dice-epsilon: vector A officially averages over
	// labels {1, 2}: dice (2/3 + 0)/2, b0 (0 + 1)/2, hd95 (0 + 90)/2.
	a := seg("001", [3]int{1, 1, 4}, unit, line(0, 0, 0, 1, 1), cat(line(0, 0, 0, 0, 1), line(0, 0, 3, 3, 2)))
	// Symmetric HD95 of label 1 is max(0, 0.95) = 0.95.
	check(t, "A official", grade(challenge.Official, a), map[string]float64{"dice": 1.0 / 3.0, "b0_error": 0.5, "hd95": (0.95 + 90) / 2})
	// cldice-axis-order: F1z scores 1 on (z,y,x) and 0.5 on (x,y,z).
	f1z := seg("001", [3]int{5, 5, 5}, unit, block(1, 3, 1, 3, 1, 3, 1), []vox{pt(1, 2, 2, 1), pt(2, 2, 2, 1), pt(3, 2, 2, 1)})
	check(t, "F1z official", grade(challenge.Official, f1z), map[string]float64{"cldice": 0.5})
	// simplified-topology: a prediction whose Acom is detected but broken
	// in two (B0 error) still matches in the reference, not officially.
	gt := cat(line(0, 0, 0, 5, 10), line(0, 2, 0, 2, 11), line(0, 2, 4, 6, 12))
	broken := cat(line(0, 0, 0, 1, 10), line(0, 0, 4, 5, 10), line(0, 2, 0, 2, 11), line(0, 2, 4, 6, 12))
	s := seg("001", [3]int{1, 4, 8}, unit, gt, broken)
	check(t, "broken ref", grade(challenge.Reference, s), map[string]float64{"anterior_topology": 1, "anterior_graph_acc": 1})
	check(t, "broken official", grade(challenge.Official, s), map[string]float64{"anterior_topology": 0, "b0_error": 1.0 / 3.0})
}

// Hand-built CoW topology: a broken vessel gives a B0 error of 1; a
// missing Pcom removes the edge, changes the variant class (official graph
// accuracy 0) and fails detection.
func TestTopCoWTopologyHandCases(t *testing.T) {
	c := New(TopCoWT1T1)
	// 1-D strip along x: R-ICA(4) touching R-PCA(2) through R-Pcom(8); BA(1) touching PCAs.
	gt := cat(line(0, 0, 0, 2, 4), line(0, 0, 3, 5, 8), line(0, 0, 6, 8, 2), line(0, 0, 9, 11, 1), line(0, 0, 12, 14, 3))
	brokenBA := cat(line(0, 0, 0, 2, 4), line(0, 0, 3, 5, 8), line(0, 0, 6, 8, 2), []vox{pt(0, 0, 9, 1), pt(0, 0, 11, 1)}, line(0, 0, 12, 14, 3))
	r := gradeSeg(t, c, challenge.Reference, seg("001", [3]int{1, 1, 16}, unit, gt, brokenBA))
	// b0: labels {1,2,3,4,8}: only BA has 2 components instead of 1 → 1/5.
	check(t, "broken BA", r, map[string]float64{"b0_error": 0.2})
	// A single vessel broken in two: B0 error exactly 1.
	r = gradeSeg(t, c, challenge.Reference, seg("001", [3]int{1, 1, 16}, unit, line(0, 0, 0, 9, 1), cat(line(0, 0, 0, 3, 1), line(0, 0, 6, 9, 1))))
	check(t, "broken vessel", r, map[string]float64{"b0_error": 1})
	noPcom := cat(line(0, 0, 0, 2, 4), line(0, 0, 6, 8, 2), line(0, 0, 9, 11, 1), line(0, 0, 12, 14, 3))
	for _, mode := range []challenge.Mode{challenge.Reference, challenge.Official} {
		r = gradeSeg(t, c, mode, seg("001", [3]int{1, 1, 16}, unit, gt, noPcom))
		check(t, "missing Pcom "+string(mode), r, map[string]float64{"posterior_topology": 0, "posterior_graph_acc": 0, "f1_grp2": 0})
	}
}

// A perfect prediction shifted inside the volume is not perfect; a perfect
// prediction written with another origin or spacing is (only the GT
// geometry is used when the sizes agree).
func TestTopCoWTranslationAndGeometry(t *testing.T) {
	c := New(TopCoWT1T1)
	gt := cat(line(1, 2, 1, 6, 1), line(2, 2, 1, 6, 4))
	shifted := cat(line(1, 2, 2, 7, 1), line(2, 2, 2, 7, 4))
	r := gradeSeg(t, c, challenge.Reference, seg("001", [3]int{4, 4, 9}, unit, gt, shifted))
	if r.Values["dice"] > 0.9 || r.Values["hd95"] == 0 {
		t.Errorf("shifted prediction scored as perfect: %v", r.Values)
	}
	// Same content, different header geometry of the prediction.
	sub, priv := topcowtest.MiniSeg(t, "topcow_ct", []topcowtest.Seg{seg("001", [3]int{4, 4, 9}, unit, gt, gt)})
	r0 := topcowtest.Grade(t, c, sub, priv, challenge.Reference)
	p := sub + "/predictions/topcow_ct_001_0000.nii.gz"
	rewriteGeometry(t, p, [3]float64{10, -20, 30}, [3]float64{0.3, 2, 5})
	r1 := topcowtest.Grade(t, c, sub, priv, challenge.Reference)
	for k, v := range r0.Values {
		if r1.Values[k] != v && !(math.IsNaN(v) && math.IsNaN(r1.Values[k])) {
			t.Errorf("moved origin changes %s: %v → %v", k, v, r1.Values[k])
		}
	}
	check(t, "moved origin", r1, map[string]float64{"b0_error": 0, "hd95": 0, "f1_grp2": 0})
	if r1.Values["dice"] < 0.999999 {
		t.Errorf("dice %v", r1.Values["dice"])
	}
}

// Nearest-neighbour resampling of a prediction with another size.
func TestResampleToGT(t *testing.T) {
	c := New(TopCoWT1T1)
	// GT 1×1×4 (x 0..3), spacing 1; prediction 1×1×2 with spacing 2 covers
	// voxel centres 0 and 2: GT voxel i maps to continuous index i/2, rounded
	// half up (0, 1, 1) and voxel 3 (index 1.5) falls outside → [1, 1, 1, 0].
	sub, priv := topcowtest.MiniSeg(t, "topcow_ct", []topcowtest.Seg{{ID: "001", ZYX: [3]int{1, 1, 4}, Spacing: unit,
		GT: line(0, 0, 0, 3, 1), Pred: []vox{pt(0, 0, 0, 1), pt(0, 0, 1, 1)}, PredShape: &[3]int{1, 1, 2}}})
	rewriteGeometry(t, sub+"/predictions/topcow_ct_001_0000.nii.gz", [3]float64{0, 0, 0}, [3]float64{2, 1, 1})
	r := topcowtest.Grade(t, c, sub, priv, challenge.Reference)
	check(t, "resampled", r, map[string]float64{"dice": 6 / (7 + 1e-7)})
}

// Issue 15.5: official mode refuses a prediction on another grid (the
// organisers stop on "gt pred not matching shapes"), reference mode
// resamples it; a case with no label anywhere scores Dice 1 in reference
// mode and 0 officially.
func TestTopCoWOfficialShapeAndEmptyCase(t *testing.T) {
	c := New(TopCoWT1T1)
	sub, priv := topcowtest.MiniSeg(t, "topcow_ct", []topcowtest.Seg{{ID: "001", ZYX: [3]int{1, 1, 4}, Spacing: unit,
		GT: line(0, 0, 0, 3, 1), Pred: []vox{pt(0, 0, 0, 1), pt(0, 0, 1, 1)}, PredShape: &[3]int{1, 1, 2}}})
	if _, err := challenge.SafeGrade(context.Background(), c, sub, priv, challenge.Official); !challenge.IsInvalid(err) {
		t.Errorf("official, wrong shape: err = %v, want invalid", err)
	}
	topcowtest.Grade(t, c, sub, priv, challenge.Reference) // resampled, graded
	empty := seg("001", [3]int{1, 1, 4}, unit, nil, nil)
	check(t, "empty ref", gradeSeg(t, c, challenge.Reference, empty), map[string]float64{"dice": 1})
	check(t, "empty official", gradeSeg(t, c, challenge.Official, empty), map[string]float64{"dice": 0})
}

// Issue 15.9: the organisers' unranked outputs. Vector C3 (GT x 0..19,
// prediction x 0..9, one label): HD100 = 10 (GT voxel 19 to prediction
// voxel 9), symmetric HD95 9.05, merged Dice 2·10/30, merged |ΔB0| 0;
// NaN in reference mode.
func TestTopCoWOfficialExtras(t *testing.T) {
	c := New(TopCoWT1T1)
	c3 := seg("001", [3]int{1, 1, 20}, unit, line(0, 0, 0, 19, 1), line(0, 0, 0, 9, 1))
	check(t, "C3 extras", gradeSeg(t, c, challenge.Official, c3), map[string]float64{
		"hd": 10, "hd_merged": 10, "hd95_merged": 9.05, "dice_merged": 2.0 / 3.0, "b0_error_merged": 0,
	})
	// Two labels: the merged class ignores which label a voxel has.
	swapped := seg("001", [3]int{1, 1, 20}, unit, cat(line(0, 0, 0, 9, 1), line(0, 0, 10, 19, 2)), cat(line(0, 0, 0, 9, 2), line(0, 0, 10, 19, 1)))
	check(t, "swapped labels", gradeSeg(t, c, challenge.Official, swapped), map[string]float64{"dice_merged": 1, "hd_merged": 0, "dice": 0})
	ref := gradeSeg(t, c, challenge.Reference, c3)
	for _, k := range []string{"hd", "dice_merged", "b0_error_merged", "hd95_merged", "hd_merged"} {
		if !math.IsNaN(ref.Values[k]) {
			t.Errorf("reference %s = %v, want NaN", k, ref.Values[k])
		}
	}
}

// TopBrain vectors (topbrain-track1 §7, topbrain-track2 §7).
func TestTopBrainVectors(t *testing.T) {
	ct, mr := New(TopBrain1), New(TopBrain2)
	tb1gt := cat(line(0, 0, 0, 2, 1), line(0, 2, 5, 7, 5), []vox{pt(0, 2, 0, 7)})
	tb1pr := cat(line(0, 0, 0, 2, 1), []vox{pt(0, 1, 3, 5)}, line(0, 2, 5, 7, 5))
	tb1 := seg("001", [3]int{1, 3, 8}, unit, tb1gt, tb1pr)
	want1 := map[string]float64{"dice": (1 + 6.0/7.0) / 3, "cldice": (1 + 6.0/7.0) / 3, "b0_error": 2.0 / 3.0,
		"hd95": (1.9006578 + 290) / 3, "neighbor_error": 2.0 / 3.0, "f1_side_road": 0}
	for _, c := range []Challenge{ct, mr} {
		r := gradeSeg(t, c, challenge.Reference, tb1)
		check(t, "TB1 "+c.Config.ID, r, map[string]float64{"dice": want1["dice"], "cldice": want1["cldice"], "b0_error": want1["b0_error"], "neighbor_error": want1["neighbor_error"], "f1_side_road": 0})
		if math.Abs(r.Values["hd95"]-97.30022) > 1e-5 {
			t.Errorf("TB1 hd95 %v", r.Values["hd95"])
		}
	}
	tb2 := seg("001", [3]int{1, 3, 6}, unit, cat(line(0, 0, 0, 5, 1), line(0, 2, 0, 5, 8)), cat(line(0, 0, 0, 5, 1), line(0, 2, 0, 5, 8)))
	check(t, "TB2 ct", gradeSeg(t, ct, challenge.Reference, tb2), map[string]float64{"dice": 1, "cldice": 1, "b0_error": 0, "hd95": 0, "neighbor_error": 0, "f1_side_road": 1.0 / 18})
	check(t, "TB2 mr", gradeSeg(t, mr, challenge.Reference, tb2), map[string]float64{"f1_side_road": 1.0 / 17})
	tb3 := seg("001", [3]int{1, 3, 6}, unit, line(0, 0, 0, 5, 1), cat(line(0, 0, 0, 5, 1), []vox{pt(0, 2, 0, 2), pt(0, 2, 5, 2)}))
	check(t, "TB3", gradeSeg(t, ct, challenge.Reference, tb3), map[string]float64{"dice": 0.5, "cldice": 0.5, "b0_error": 1, "hd95": 145, "neighbor_error": 0, "f1_side_road": 0})
	blk := block(1, 3, 1, 3, 1, 3, 1)
	check(t, "TB4z", gradeSeg(t, ct, challenge.Reference, seg("001", [3]int{5, 5, 5}, unit, blk, []vox{pt(1, 2, 2, 1), pt(2, 2, 2, 1), pt(3, 2, 2, 1)})),
		map[string]float64{"cldice": 0.5, "dice": 0.2, "hd95": 0.9, "b0_error": 0})
	check(t, "TB4x", gradeSeg(t, ct, challenge.Reference, seg("001", [3]int{5, 5, 5}, unit, blk, line(2, 2, 1, 3, 1))),
		map[string]float64{"cldice": 1})
	tb5gt := cat(line(0, 0, 0, 2, 36), line(0, 2, 0, 2, 21))
	tb5 := seg("001", [3]int{1, 3, 8}, unit, tb5gt, cat(tb5gt, []vox{pt(0, 1, 1, 36)}))
	base5 := map[string]float64{"dice": (6.0/7.0 + 1) / 2, "cldice": 0.5, "hd95": 0.425, "b0_error": 0, "f1_side_road": 0}
	base5["neighbor_error"] = 0
	check(t, "TB5 ct", gradeSeg(t, ct, challenge.Reference, tb5), base5)
	base5["neighbor_error"] = 1
	check(t, "TB5 mr", gradeSeg(t, mr, challenge.Reference, tb5), base5)
	big := seg("001", [3]int{1, 3, 6}, unit, line(0, 0, 0, 5, 1), cat(line(0, 0, 0, 5, 1), []vox{pt(0, 1, 2, 41)}))
	check(t, "label 41", gradeSeg(t, ct, challenge.Reference, big), map[string]float64{"dice": 0.5, "cldice": 0.5, "b0_error": 0.5, "hd95": 145, "neighbor_error": 1, "f1_side_road": 0})
	check(t, "fat", gradeSeg(t, ct, challenge.Reference, seg("001", [3]int{6, 6, 12}, unit, block(1, 4, 1, 4, 1, 10, 1), block(1, 4, 1, 4, 1, 10, 1))),
		map[string]float64{"cldice": 0, "dice": 1, "hd95": 0})
	check(t, "empty+perfect", gradeSeg(t, ct, challenge.Reference,
		seg("001", [3]int{1, 3, 6}, unit, nil, nil), seg("002", [3]int{1, 3, 6}, unit, line(0, 0, 0, 5, 1), line(0, 0, 0, 5, 1))),
		map[string]float64{"dice": 0.5, "cldice": 0.5, "b0_error": 0, "hd95": 0, "neighbor_error": 0, "f1_side_road": 0})
}

// TopBrain quirks: neighbour error over the prediction's labels only, and
// symmetric HD95, in official mode.
func TestTopBrainQuirks(t *testing.T) {
	ct := New(TopBrain1)
	// TB1: prediction labels {1, 5}: (1 + 1)/2 = 1 officially vs 2/3.
	tb1 := seg("001", [3]int{1, 3, 8}, unit, cat(line(0, 0, 0, 2, 1), line(0, 2, 5, 7, 5), []vox{pt(0, 2, 0, 7)}),
		cat(line(0, 0, 0, 2, 1), []vox{pt(0, 1, 3, 5)}, line(0, 2, 5, 7, 5)))
	check(t, "TB1 official", gradeSeg(t, ct, challenge.Official, tb1), map[string]float64{"neighbor_error": 1})
	// Directed vs symmetric HD95: prediction a sub-line of the GT line.
	s := seg("001", [3]int{1, 1, 20}, unit, line(0, 0, 0, 19, 1), line(0, 0, 0, 9, 1))
	check(t, "ref", gradeSeg(t, ct, challenge.Reference, s), map[string]float64{"hd95": 0})
	check(t, "official", gradeSeg(t, ct, challenge.Official, s), map[string]float64{"hd95": 9.05})
}

// no-roi-crop quirk: officially a false positive outside the CoW ROI does
// not count; the reference scores the whole volume.
func TestTopCoWROICrop(t *testing.T) {
	c := New(TopCoWT1T1)
	gt := line(1, 1, 1, 4, 1)
	pred := cat(line(1, 1, 1, 4, 1), []vox{pt(1, 1, 8, 2)})
	sub, priv := topcowtest.MiniSeg(t, "topcow_ct", []topcowtest.Seg{seg("001", [3]int{3, 3, 10}, unit, gt, pred)})
	before := topcowtest.Grade(t, c, sub, priv, challenge.Official)
	if before.Values["dice"] > 0.6 {
		t.Fatalf("without ROI the false positive label should halve dice: %v", before.Values)
	}
	roi := "--- ROI Meta Data ---\nSize (Voxels): 6 3 3\nLocation (Voxels): 0 0 0\n"
	if err := challenge.WriteFileAtomic(priv+"/test/roi/topcow_ct_001.txt", []byte(roi)); err != nil {
		t.Fatal(err)
	}
	check(t, "official with ROI", topcowtest.Grade(t, c, sub, priv, challenge.Official), map[string]float64{"dice": 1, "b0_error": 0, "hd95": 0})
	check(t, "reference ignores ROI", topcowtest.Grade(t, c, sub, priv, challenge.Reference), map[string]float64{"dice": 8 / (8 + 1e-7)})
}

// Official topology fails a prediction whose left and right PCAs are
// swapped (LPS+: left has the larger x); the reference only checks IoU.
func TestTopCoWLRFlip(t *testing.T) {
	c := New(TopCoWT1T1)
	gt := cat(line(0, 0, 0, 2, 2), line(0, 0, 4, 6, 1), line(0, 0, 8, 10, 3))
	swapped := cat(line(0, 0, 0, 2, 3), line(0, 0, 4, 6, 1), line(0, 0, 8, 10, 2))
	s := seg("001", [3]int{1, 1, 12}, unit, gt, swapped)
	check(t, "flip ref", gradeSeg(t, c, challenge.Reference, s), map[string]float64{"posterior_topology": 0})
	if m := medianX(&labelMap{shape: [3]int{4, 1, 1}, labels: []uint8{1, 0, 1, 1}}, box{hi: [3]int{3, 0, 0}}, 1); m != 2 {
		t.Errorf("median x = %v, want 2", m)
	}
	if m := medianX(&labelMap{shape: [3]int{4, 1, 1}, labels: []uint8{1, 1, 0, 1}}, box{hi: [3]int{3, 0, 0}}, 1); m != 1 {
		t.Errorf("median x = %v, want 1", m)
	}
	st := scanLabels(mustLabels(s.ZYX, s.GT), mustLabels(s.ZYX, swapped), [3]int{12, 1, 1})
	if !lrFlipped(&labelMap{shape: [3]int{12, 1, 1}, labels: mustLabels(s.ZYX, swapped)}, st, [][2]uint8{{3, 2}}) {
		t.Error("swapped PCAs not detected as flipped")
	}
	if lrFlipped(&labelMap{shape: [3]int{12, 1, 1}, labels: mustLabels(s.ZYX, gt)}, scanLabels(mustLabels(s.ZYX, gt), mustLabels(s.ZYX, gt), [3]int{12, 1, 1}), [][2]uint8{{3, 2}}) {
		t.Error("GT detected as flipped")
	}
}

func mustLabels(zyx [3]int, v []vox) []uint8 {
	vol := topcowtest.Volume(zyx, unit, v)
	out := make([]uint8, len(vol.Data))
	for i, x := range vol.Data {
		out[i] = uint8(x)
	}
	return out
}
