package judge

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/rexmle/rexmle/pipeline/store"
)

// Label is one binary verdict of a rater (a judge or a human) on one
// strategy in one section of one run.
type Label struct {
	// Run is the run key ("<run-id>/<challenge>/<agent>/seed-<n>", as in
	// the run_key column of judge_sections).
	Run        string
	Section    string
	StrategyID int
	Value      int // 0 or 1
}

// LabelsFromScores turns stored scores into labels, skipping missing ones.
func LabelsFromScores(rows []ScoreRow) []Label {
	var out []Label
	for _, r := range rows {
		if r.Score == nil {
			continue
		}
		out = append(out, Label{r.RunKey, r.Section, r.StrategyID, *r.Score})
	}
	return out
}

// ReadLabelsCSV reads human labels from a CSV with the exact header
// run_id,section,strategy_id,label; run_id holds the run key, label is 0 or
// 1. Errors name the file and line.
func ReadLabelsCSV(path string) ([]Label, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read labels %s: %w", path, err)
	}
	defer f.Close()
	cr := csv.NewReader(f)
	cr.FieldsPerRecord = 4
	head, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("read labels %s: header: %w", path, err)
	}
	want := []string{"run_id", "section", "strategy_id", "label"}
	for i, h := range head {
		if strings.TrimSpace(strings.TrimPrefix(h, "\ufeff")) != want[i] {
			return nil, fmt.Errorf("read labels %s: header column %d is %q, want %q", path, i+1, h, want[i])
		}
	}
	var out []Label
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("read labels %s: %w", path, err)
		}
		line, _ := cr.FieldPos(0)
		id, err := strconv.Atoi(strings.TrimSpace(rec[2]))
		if err != nil {
			return nil, fmt.Errorf("read labels %s: line %d: strategy_id %q is not an integer", path, line, rec[2])
		}
		v := strings.TrimSpace(rec[3])
		if v != "0" && v != "1" {
			return nil, fmt.Errorf("read labels %s: line %d: label %q is not 0 or 1", path, line, rec[3])
		}
		out = append(out, Label{strings.TrimSpace(rec[0]), strings.TrimSpace(rec[1]), id, int(v[0] - '0')})
	}
	return out, nil
}

// AgreementStat compares two raters on a set of paired binary labels.
type AgreementStat struct {
	StrategyID int // 0 for the pooled row
	// N11: both 1; N10: A 1, B 0; N01: A 0, B 1; N00: both 0.
	N11, N10, N01, N00 int
	// N = N11+N10+N01+N00 paired labels.
	N int
	// Agreement Po = (N11+N00)/N; NaN when N = 0.
	Agreement float64
	// Expected chance agreement Pe = pA·pB + (1−pA)(1−pB), with pA =
	// (N11+N10)/N and pB = (N11+N01)/N.
	Expected float64
	// Kappa is Cohen's κ = (Po − Pe)/(1 − Pe). It is undefined (NaN, with
	// KappaDefined false) when Pe = 1, which happens exactly when both
	// raters give the same constant label to every item (then Po = 1 too),
	// and when N = 0. Two raters constant at different values give Pe = 0,
	// Po = 0, κ = 0.
	Kappa        float64
	KappaDefined bool
}

// AgreementReport is the per-strategy and pooled agreement of two raters.
type AgreementReport struct {
	RaterA, RaterB string
	PerStrategy    []AgreementStat // ascending id, only ids with a pair
	Pooled         AgreementStat   // all pairs together
	OnlyA, OnlyB   int             // labels without a partner
}

type labelKey struct {
	run, section string
	id           int
}

// Agreement pairs labels of rater A and rater B on (run, section, strategy)
// and computes agreement and Cohen's kappa per strategy and pooled. If a
// rater has several labels for one key, the first is used.
func Agreement(nameA string, a []Label, nameB string, b []Label) AgreementReport {
	rep := AgreementReport{RaterA: nameA, RaterB: nameB}
	bm := map[labelKey]int{}
	for _, l := range b {
		k := labelKey{l.Run, l.Section, l.StrategyID}
		if _, dup := bm[k]; !dup {
			bm[k] = l.Value
		}
	}
	seenA := map[labelKey]bool{}
	per := map[int]*AgreementStat{}
	pooled := &AgreementStat{}
	for _, l := range a {
		k := labelKey{l.Run, l.Section, l.StrategyID}
		if seenA[k] {
			continue
		}
		seenA[k] = true
		vb, ok := bm[k]
		if !ok {
			rep.OnlyA++
			continue
		}
		st := per[l.StrategyID]
		if st == nil {
			st = &AgreementStat{StrategyID: l.StrategyID}
			per[l.StrategyID] = st
		}
		for _, s := range []*AgreementStat{st, pooled} {
			switch {
			case l.Value == 1 && vb == 1:
				s.N11++
			case l.Value == 1:
				s.N10++
			case vb == 1:
				s.N01++
			default:
				s.N00++
			}
		}
	}
	for k := range bm {
		if !seenA[k] {
			rep.OnlyB++
		}
	}
	ids := make([]int, 0, len(per))
	for id := range per {
		ids = append(ids, id)
	}
	sort.Ints(ids)
	for _, id := range ids {
		s := per[id]
		s.finish()
		rep.PerStrategy = append(rep.PerStrategy, *s)
	}
	pooled.finish()
	rep.Pooled = *pooled
	return rep
}

func (s *AgreementStat) finish() {
	s.N = s.N11 + s.N10 + s.N01 + s.N00
	s.Agreement, s.Expected, s.Kappa = math.NaN(), math.NaN(), math.NaN()
	if s.N == 0 {
		return
	}
	n := float64(s.N)
	s.Agreement = float64(s.N11+s.N00) / n
	pa := float64(s.N11+s.N10) / n
	pb := float64(s.N11+s.N01) / n
	s.Expected = pa*pb + (1-pa)*(1-pb)
	if s.N11 == s.N || s.N00 == s.N { // Pe = 1 exactly
		return
	}
	s.Kappa = (s.Agreement - s.Expected) / (1 - s.Expected)
	s.KappaDefined = true
}

// PrintAgreement writes the report as an aligned table: one row per
// strategy (id, name from r when given, n, agreement, kappa) and a pooled
// row. An undefined kappa prints as "undef (constant)" or "n/a" when there
// are no pairs.
func PrintAgreement(w io.Writer, rep AgreementReport, r *Rubric) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "agreement: %s vs %s (unpaired: %d only in %s, %d only in %s)\n",
		rep.RaterA, rep.RaterB, rep.OnlyA, rep.RaterA, rep.OnlyB, rep.RaterB)
	fmt.Fprintln(tw, "id\tstrategy\tn\tagreement\tkappa")
	row := func(id, name string, s AgreementStat) {
		ag := "n/a"
		if s.N > 0 {
			ag = strconv.FormatFloat(s.Agreement, 'f', 3, 64)
		}
		kp := "n/a"
		switch {
		case s.KappaDefined:
			kp = strconv.FormatFloat(s.Kappa, 'f', 3, 64)
		case s.N > 0:
			kp = "undef (constant)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\n", id, name, s.N, ag, kp)
	}
	for _, s := range rep.PerStrategy {
		name := ""
		if r != nil {
			if st, ok := r.Strategy(s.StrategyID); ok {
				name = st.Name
			}
		}
		row(strconv.Itoa(s.StrategyID), name, s)
	}
	row("all", "(pooled)", rep.Pooled)
	return tw.Flush()
}

// CompareJudges computes the agreement of two judges' stored scores made
// with the same rubric (rubricHash; "" matches any), pairing them on run,
// section and strategy. Missing scores are left out.
func CompareJudges(ctx context.Context, st *store.Store, judgeA, judgeB, rubricHash string) (AgreementReport, error) {
	a, err := LoadScores(ctx, st, judgeA, rubricHash)
	if err != nil {
		return AgreementReport{}, err
	}
	b, err := LoadScores(ctx, st, judgeB, rubricHash)
	if err != nil {
		return AgreementReport{}, err
	}
	return Agreement(judgeA, LabelsFromScores(a), judgeB, LabelsFromScores(b)), nil
}
