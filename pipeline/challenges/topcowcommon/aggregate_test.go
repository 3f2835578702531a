package topcowcommon

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/rexmle/rexmle/metrics/stats"
	"github.com/rexmle/rexmle/metrics/topology"
	"github.com/rexmle/rexmle/pipeline/challenge"
)

// randomResamples returns the full sample, nRand resamples of n cases drawn
// with replacement, and a few small ones (single cases, a case twice).
func randomResamples(gen *rand.Rand, n, nRand int) [][]int {
	all := make([]int, n)
	for i := range all {
		all[i] = i
	}
	out := [][]int{all, {0}, {n - 1, n - 1}, {n / 2, 0, n / 2}}
	for k := 0; k < nRand; k++ {
		m := 1 + gen.IntN(2*n)
		idx := make([]int, m)
		for j := range idx {
			idx[j] = gen.IntN(n)
		}
		out = append(out, idx)
	}
	return out
}

// TestCaseStatisticBalancedAccuracyHand checks hand-computed balanced
// accuracies, sklearn's rule included: the mean recall over the classes
// present among the resampled true classes; a class only predicted (here
// every miss) or absent altogether is not averaged.
func TestCaseStatisticBalancedAccuracyHand(t *testing.T) {
	type oc struct {
		class string
		hit   bool
	}
	outs := []oc{{"A", true}, {"A", false}, {"B", false}, {"B", true}, {"C", true}}
	cases := make([]challenge.Case, len(outs))
	for i, o := range outs {
		cases[i] = challenge.Case{ID: fmt.Sprint(i), Detail: encodeDetail(caseDetail{Acc: map[string]classOutcome{"anterior_acc": {o.class, o.hit}}})}
	}
	c := New(TopCoWT1T3)
	f, err := c.CaseStatistic("anterior_acc", cases)
	if err != nil || f == nil {
		t.Fatalf("anterior_acc: %v", err)
	}
	for _, tc := range []struct {
		idx  []int
		want float64
	}{
		{[]int{0, 1, 2, 3, 4}, (0.5 + 0.5 + 1) / 3},
		{[]int{0, 1, 1}, 1.0 / 3}, // B and C absent
		{[]int{4, 2, 2}, 0.5},     // B 0/2, C 1/1; A absent
		{[]int{2}, 0},
		{[]int{3, 3, 0, 0, 4}, 1},
	} {
		if got := f(tc.idx); got != tc.want {
			t.Errorf("resample %v: %v, want %v", tc.idx, got, tc.want)
		}
	}
}

// TestCaseStatisticBalancedAccuracyRandom compares the recomputation with
// stats.BalancedAccuracy over the resampled true and predicted classes
// themselves (predictions that are other cases' classes or classes no case
// has), for random data and resamples in which classes go missing.
func TestCaseStatisticBalancedAccuracyRandom(t *testing.T) {
	gen := rand.New(rand.NewPCG(1, 2))
	c := New(TopCoWT1T1)
	for trial := 0; trial < 40; trial++ {
		n := 1 + gen.IntN(25)
		nClass := 1 + gen.IntN(6)
		class := func(k int) string { return fmt.Sprintf("Var_Ant_%d_%d_1_1", k/2, k%2) }
		yt := make([]string, n)
		yp := make([]string, n)
		cases := make([]challenge.Case, n)
		for i := range cases {
			yt[i] = class(gen.IntN(nClass))
			switch r := gen.Float64(); {
			case r < 0.5:
				yp[i] = yt[i]
			case r < 0.8:
				yp[i] = class(gen.IntN(nClass))
			default:
				yp[i] = class(nClass + gen.IntN(3)) // a class no case has
			}
			d := caseDetail{Acc: map[string]classOutcome{"posterior_graph_acc": {yt[i], yp[i] == yt[i]}}}
			cases[i] = challenge.Case{ID: fmt.Sprint(i), Detail: encodeDetail(d)}
		}
		f, err := c.CaseStatistic("posterior_graph_acc", cases)
		if err != nil || f == nil {
			t.Fatalf("posterior_graph_acc: %v", err)
		}
		for _, idx := range randomResamples(gen, n, 20) {
			var rt, rp []string
			for _, i := range idx {
				rt, rp = append(rt, yt[i]), append(rp, yp[i])
			}
			want, err := stats.BalancedAccuracy(rt, rp)
			if err != nil {
				t.Fatal(err)
			}
			if got := f(idx); got != want {
				t.Fatalf("trial %d resample %v: %v, balanced accuracy of the labels %v", trial, idx, got, want)
			}
		}
	}
}

// TestCaseStatisticDetectionF1Random compares the recomputation with
// pooling topology.DetectionCounts over the resampled cases' raw detection
// inputs; TopBrain cases with no label stay out of the counts.
func TestCaseStatisticDetectionF1Random(t *testing.T) {
	gen := rand.New(rand.NewPCG(5, 6))
	for _, cfg := range []Config{TopCoWT2T1, TopBrain1, TopBrain2} {
		c := New(cfg)
		metric, nl := c.f1Metric()
		for trial := 0; trial < 30; trial++ {
			n := 1 + gen.IntN(20)
			type in struct {
				empty  bool
				gt, pr []bool
				iou    []float64
			}
			ins := make([]in, n)
			cases := make([]challenge.Case, n)
			for i := range ins {
				x := in{empty: cfg.Family == TopBrain && gen.IntN(5) == 0}
				var d caseDetail
				if !x.empty {
					for k := 0; k < nl; k++ {
						g, p := gen.IntN(2) == 1, gen.IntN(2) == 1
						iou := 0.0
						if g && p {
							iou = []float64{0, 0.1, 0.25, 0.6, 1}[gen.IntN(5)] // 0.25 counts (inclusive)
						}
						x.gt, x.pr, x.iou = append(x.gt, g), append(x.pr, p), append(x.iou, iou)
						d.Det = append(d.Det, detectionOutcome(g, p, iou))
					}
				}
				ins[i] = x
				cases[i] = challenge.Case{ID: fmt.Sprint(i), Detail: encodeDetail(d)}
			}
			f, err := c.CaseStatistic(metric, cases)
			if err != nil || f == nil {
				t.Fatalf("%s %s: %v", cfg.ID, metric, err)
			}
			for _, idx := range randomResamples(gen, n, 20) {
				counts := make([]topology.DetectionCounts, nl)
				for _, i := range idx {
					if ins[i].empty {
						continue
					}
					for k := range counts {
						counts[k].Add(ins[i].gt[k], ins[i].pr[k], ins[i].iou[k], detectionIoU)
					}
				}
				if got, want := f(idx), topology.MeanF1(counts); got != want {
					t.Fatalf("%s trial %d resample %v: %v, pooled F1 %v", cfg.ID, trial, idx, got, want)
				}
			}
		}
	}
}

// TestCaseStatisticUnavailable: a run graded without details, or with
// details that do not fit, has no recomputation and says why; the means
// and the box task need none.
func TestCaseStatisticUnavailable(t *testing.T) {
	c := New(TopCoWT1T1)
	noDetail := []challenge.Case{{ID: "a", Values: map[string]float64{"anterior_topology": 1}}}
	for _, m := range []string{"f1_grp2", "anterior_graph_acc", "posterior_topology"} {
		if f, err := c.CaseStatistic(m, noDetail); f != nil || !errors.Is(err, challenge.ErrNotAMean) {
			t.Errorf("%s without details: %v", m, err)
		}
	}
	bad := [][]byte{[]byte(`{"det":["TP","FN"]}`), []byte(`{"det":["TP","FN","XX","TN"]}`), []byte(`{"acc":{}}`), []byte(`not json`)}
	for _, d := range bad {
		cs := []challenge.Case{{ID: "a", Detail: d}}
		_, e1 := c.CaseStatistic("f1_grp2", cs)
		_, e2 := c.CaseStatistic("anterior_graph_acc", cs)
		if !errors.Is(e1, challenge.ErrNotAMean) && !errors.Is(e2, challenge.ErrNotAMean) {
			t.Errorf("detail %s accepted", d)
		}
	}
	for _, tc := range []struct {
		cfg    Config
		metric string
	}{{TopCoWT1T1, "dice"}, {TopBrain1, "neighbor_error"}, {TopCoWT1T2, "iou"}, {TopCoWT1T3, "anterior_edge_distance"}, {TopBrain1, "f1_grp2"}} {
		if f, err := New(tc.cfg).CaseStatistic(tc.metric, noDetail); f != nil || err != nil {
			t.Errorf("%s %s: want the default mean, got %v", tc.cfg.ID, tc.metric, err)
		}
	}
}

// BenchmarkCaseStatistic times one bootstrap's recomputations (B = 1000
// resamples of 100 cases) of a balanced accuracy over 8 classes and of the
// detection F1 over the 4 group-2 labels.
func BenchmarkCaseStatistic(b *testing.B) {
	gen := rand.New(rand.NewPCG(9, 10))
	const n = 100
	cases := make([]challenge.Case, n)
	outcomes := []string{outTP, outFN, outFP, outTN}
	for i := range cases {
		d := caseDetail{Acc: map[string]classOutcome{"anterior_graph_acc": {fmt.Sprintf("Var_Ant_%d", gen.IntN(8)), gen.IntN(2) == 1}}}
		for range group2Labels {
			d.Det = append(d.Det, outcomes[gen.IntN(4)])
		}
		cases[i] = challenge.Case{ID: fmt.Sprint(i), Detail: encodeDetail(d)}
	}
	idx := make([][]int, 1000)
	for k := range idx {
		idx[k] = make([]int, n)
		for j := range idx[k] {
			idx[k][j] = gen.IntN(n)
		}
	}
	c := New(TopCoWT1T1)
	for _, m := range []string{"anterior_graph_acc", "f1_grp2"} {
		b.Run(m, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				f, err := c.CaseStatistic(m, cases)
				if err != nil {
					b.Fatal(err)
				}
				for _, ix := range idx {
					f(ix)
				}
			}
		})
	}
}
