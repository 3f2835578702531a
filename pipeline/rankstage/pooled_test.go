package rankstage

import (
	"context"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rexmle/rexmle/pipeline/challenge"
	"github.com/rexmle/rexmle/pipeline/challenge/challengetest"
	"github.com/rexmle/rexmle/pipeline/challenges/cellseg"
	"github.com/rexmle/rexmle/pipeline/challenges/puma"
	"github.com/rexmle/rexmle/pipeline/challenges/topcowcommon"
	"github.com/rexmle/rexmle/pipeline/store"
)

// TestPooledMetricsGetIntervals grades the synthetic data of the
// challenges whose ranked metrics are pooled over cases (TopCoW detection
// F1 and balanced accuracies, TopBrain detection F1, PUMA tissue micro
// Dice) and of CellSeg with repeated ids, in both modes, stores the grades
// as the grade stage does (values, per-case values and details) and checks
// that the rank stage bootstraps every ranked metric of every run: the
// stored cases reproduce each graded value, so each has an interval around
// it, and each run a percentile interval.
func TestPooledMetricsGetIntervals(t *testing.T) {
	if testing.Short() {
		t.Skip("grades synthetic data")
	}
	b, st := setup(t)
	ctx := context.Background()
	type graded struct {
		id  string
		res *challenge.Result
	}
	var runs []graded
	for _, c := range []challenge.Challenge{topcowcommon.New(topcowcommon.TopCoWT1T1), topcowcommon.New(topcowcommon.TopCoWT1T3), topcowcommon.New(topcowcommon.TopBrain1), puma.Track1Task1, cellseg.Challenge{}} {
		p := challengetest.Prepare(t, c, 1)
		base := p.Submit(t, "baseline", func(ctx context.Context, out string) error {
			return c.Baseline(ctx, p.Public(), out, io.Discard)
		})
		for _, mode := range []challenge.Mode{challenge.Reference, challenge.Official} {
			sub := base
			if c.ID() == cellseg.ID && mode == challenge.Reference {
				// Repeat rows: the reference grades them again.
				sub = filepath.Join(t.TempDir(), "repeated")
				challengetest.CopyDir(t, base, sub)
				challengetest.EditCSV(t, filepath.Join(sub, "submission.csv"), func(h []string, rows [][]string) ([]string, [][]string) {
					return h, append(rows, rows[0], rows[len(rows)-1], rows[0])
				})
			}
			runs = append(runs, graded{fmt.Sprintf("x/%s/%s/seed-1", c.ID(), mode), p.Grade(t, sub, mode)})
		}
	}
	err := st.Update(ctx, func(tx *store.Tx) error {
		if err := tx.SyncChallenges(ctx, b.Challenges); err != nil {
			return err
		}
		for _, g := range runs {
			parts := strings.Split(g.id, "/")
			if err := tx.PutRun(ctx, store.Run{ID: g.id, Source: "x", Setting: "demo", Backend: "none", Challenge: parts[1], Agent: parts[2], Seed: 1, Status: "done"}); err != nil {
				return err
			}
			if err := tx.PutMetricValues(ctx, g.id, g.res.Values); err != nil {
				return err
			}
			cvs := make([]store.CaseValues, len(g.res.Cases))
			for i, cs := range g.res.Cases {
				cvs[i] = store.CaseValues{Case: cs.ID, Values: cs.Values, Detail: cs.Detail}
			}
			if err := tx.PutCaseValues(ctx, g.id, cvs); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	o, err := RunWith(ctx, b, st, Options{Boot: 200, BootSeed: 5, Confidence: 0.95})
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]*Ranked{}
	for _, r := range o.Runs {
		byID[r.Run.ID] = r
	}
	for _, g := range runs {
		r := byID[g.id]
		if r == nil || r.Boot == nil {
			t.Fatalf("%s: not ranked", g.id)
		}
		if r.Boot.samples == nil || math.IsNaN(r.Boot.Pct.Lo) || r.Boot.NCases != len(g.res.Cases) {
			t.Errorf("%s: no percentile interval (%d of %d cases): %s", g.id, r.Boot.NCases, len(g.res.Cases), r.Boot.Note)
		}
		for m, mb := range r.Boot.Metrics {
			v := r.Values[m]
			if mb.Aggregation == "" || !(mb.Value.Lo <= v && v <= mb.Value.Hi) {
				t.Errorf("%s %s: %q interval [%v, %v] around %v (%s)", g.id, m, mb.Aggregation, mb.Value.Lo, mb.Value.Hi, v, mb.Note)
			}
		}
		for _, m := range []string{"f1_grp2", "anterior_graph_acc", "anterior_topology", "anterior_acc", "posterior_acc", "f1_side_road"} {
			if mb := r.Boot.Metrics[m]; mb != nil && mb.Aggregation != AggChallenge {
				t.Errorf("%s %s: aggregation %q, want the challenge's", g.id, m, mb.Aggregation)
			}
		}
		if strings.Contains(g.id, "puma") && r.Boot.Metrics["dice"].Aggregation != AggChallenge {
			t.Errorf("%s dice: aggregation %q, want the pooled Dice", g.id, r.Boot.Metrics["dice"].Aggregation)
		}
	}
}
