package puma

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/rexmle/rexmle/metrics/num"
	"github.com/rexmle/rexmle/pipeline/challenge"
)

// CaseStatistic recomputes the nuclei F1 scores over a resample of the
// graded images from the per-case per-class F1 Grade stores, as the
// reference mode aggregates them: a class's F1 is the mean over the images
// that have a per-case value for it (track 2 leaves out images without the
// class; track 1 keeps every image), and f1 / macro_f1 are the mean over the
// scored classes, a class with no image counting 0. The official mode's
// macro runs over class names outside the stored ones; the rank stage's
// check that the full sample reproduces the graded value turns that case
// into "interval unavailable". Tissue tasks: see tissueStatistic.
func (c Challenge) CaseStatistic(metric string, cases []challenge.Case) (func(idx []int) float64, error) {
	if c.task == Tissue {
		return c.tissueStatistic(metric, cases)
	}
	classes := track1Classes
	if c.track == 2 {
		classes = track2Classes
	}
	var over []string
	switch {
	case metric == "f1" || metric == "macro_f1":
		over = classes
	case strings.HasPrefix(metric, "f1_"):
		over = []string{strings.TrimPrefix(metric, "f1_")}
	default:
		return nil, fmt.Errorf("%s: %w (no recomputation for metric %q)", c.id, challenge.ErrNotAMean, metric)
	}
	// per[k][i]: case i's F1 for class over[k]; has[k][i]: whether it is stored.
	per := make([][]float64, len(over))
	has := make([][]bool, len(over))
	for k, cl := range over {
		per[k] = make([]float64, len(cases))
		has[k] = make([]bool, len(cases))
		for i, cs := range cases {
			per[k][i], has[k][i] = cs.Values["f1_"+cl]
		}
	}
	single := len(over) == 1 && metric != "f1" && metric != "macro_f1"
	buf := make([]float64, 0, len(cases))
	macro := make([]float64, len(over))
	return func(idx []int) float64 {
		for k := range over {
			buf = buf[:0]
			for _, i := range idx {
				if has[k][i] {
					buf = append(buf, per[k][i])
				}
			}
			macro[k] = 0
			if len(buf) > 0 {
				macro[k] = num.Sum(buf) / float64(len(buf))
			}
		}
		if single {
			return macro[0]
		}
		return num.Sum(macro) / float64(len(macro))
	}, nil
}

// GraderVersion versions what the grader stores beyond the metric cards:
// 2 adds the tissue cases' pixel counts (tissueDetail) and stores a
// repeated id's rows as distinct cases (challenge.DistinctCaseIDs).
func (Challenge) GraderVersion() string { return "2" }

// tissueDetail is what a graded tissue case stores (challenge.Case.Detail,
// JSON): its pixel counts for classes 1–5 (index 0 is class 1) and the
// grading mode, which decides how the pooled Dice scores a class without
// overlap.
type tissueDetail struct {
	Mode  challenge.Mode `json:"mode"`
	Inter [5]int64       `json:"inter"`
	Truth [5]int64       `json:"truth"`
	Pred  [5]int64       `json:"pred"`
}

// encodeTissueDetail renders a case's counts (never fails for these types).
func encodeTissueDetail(tc tissueCounts, mode challenge.Mode) []byte {
	d := tissueDetail{Mode: mode}
	for k := 1; k <= 5; k++ {
		d.Inter[k-1], d.Truth[k-1], d.Pred[k-1] = tc.inter[k], tc.truth[k], tc.pred[k]
	}
	b, err := json.Marshal(d)
	if err != nil {
		panic(fmt.Sprintf("encode tissue detail: %v", err))
	}
	return b
}

// tissueStatistic recomputes the tissue Dice over a resample of the graded
// images: it is a micro Dice, each class's intersection, truth and
// prediction pixels summed over the images (an image drawn twice counts
// twice) before the per-class Dice and the mean over the 5 classes
// (microDice, as Grade computes it) — not the mean of the per-image Dice
// Grade also stores. A run graded before the counts were stored has no
// recomputation.
func (c Challenge) tissueStatistic(metric string, cases []challenge.Case) (func(idx []int) float64, error) {
	if metric != "dice" {
		return nil, nil
	}
	per := make([]tissueCounts, len(cases))
	var mode challenge.Mode
	for i, cs := range cases {
		if cs.Detail == nil {
			return nil, fmt.Errorf("%s case %s: %w (the pooled Dice needs the per-image pixel counts, which this run's grading did not store: regrade it)", c.id, cs.ID, challenge.ErrNotAMean)
		}
		var d tissueDetail
		if err := json.Unmarshal(cs.Detail, &d); err != nil {
			return nil, fmt.Errorf("%s case %s: %w (unreadable per-case detail: %v)", c.id, cs.ID, challenge.ErrNotAMean, err)
		}
		if i > 0 && d.Mode != mode {
			return nil, fmt.Errorf("%s case %s: %w (graded in %q mode, case %s in %q)", c.id, cs.ID, challenge.ErrNotAMean, d.Mode, cases[0].ID, mode)
		}
		mode = d.Mode
		for k := 1; k <= 5; k++ {
			per[i].inter[k], per[i].truth[k], per[i].pred[k] = d.Inter[k-1], d.Truth[k-1], d.Pred[k-1]
		}
	}
	return func(idx []int) float64 {
		var pooled tissueCounts
		for _, i := range idx {
			for k := 1; k <= 5; k++ {
				pooled.inter[k] += per[i].inter[k]
				pooled.truth[k] += per[i].truth[k]
				pooled.pred[k] += per[i].pred[k]
			}
		}
		return c.microDice(pooled, mode)
	}, nil
}
