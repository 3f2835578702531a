package puma

import (
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
// into "interval unavailable". Tissue tasks: means over cases (default).
func (c Challenge) CaseStatistic(metric string, cases []challenge.Case) (func(idx []int) float64, error) {
	if c.task != Nuclei {
		return nil, nil
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
				macro[k] = num.PairwiseSum(buf) / float64(len(buf))
			}
		}
		if single {
			return macro[0]
		}
		return num.PairwiseSum(macro) / float64(len(macro))
	}, nil
}
