package report

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/rexmle/rexmle/pipeline/gpu"
	"github.com/rexmle/rexmle/pipeline/rank"
	"github.com/rexmle/rexmle/pipeline/store"
)

// runData is one run with everything the site shows about it.
type runData struct {
	ID, Source, Setting, Backend, Challenge, Agent string
	Seed                                           int
	Status, Detail, StartedAt, EndedAt             string

	Ranked       bool // a ranks row exists
	RankStatus   string
	Reason       string
	PosSum, K, N int
	MeanRank     float64 // NaN when absent
	Pct          float64 // 0..1
	PctLo, PctHi float64 // NaN unless partial

	Values    map[string]float64 // NaN for a stored NULL
	Positions map[string]int
	Printed   map[string]map[string]string  // table → key → text
	Mode      map[string]map[string]float64 // other mode → metric → value
}

// exact returns the rank.Result the stored ranks row describes.
func (r *runData) result() rank.Result {
	st := rank.Fail
	if r.RankStatus == "ok" {
		st = rank.OK
	}
	return rank.Result{Status: st, PosSum: r.PosSum, K: r.K, N: r.N, MeanRank: r.MeanRank, Percentile: r.Pct}
}

func (r *runData) ok() bool      { return r.Ranked && r.RankStatus == "ok" }
func (r *runData) partial() bool { return r.Ranked && r.RankStatus == "partial" }

// groupKey identifies one agent configuration.
type groupKey struct{ Source, Setting, Backend, Agent string }

// group is the runs of one agent configuration with its ReX-MLE rank.
type group struct {
	groupKey
	Label        string
	Runs         []*runData
	PerChallenge map[string]float64 // mean percentile over seeds (fail counts 0); partial challenges absent
	Partial      map[string][2]float64
	NChallenges  int
	Overall      float64 // NaN with a partial challenge
	Lo, Hi       float64
}

// capRow is one capability_scores row (Score nil: undecided).
type capRow struct {
	RunID, Challenge, Agent, Backend, Section, Judge, Kind, Rubric string
	Seed, StrategyID                                               int
	Strategy, Evidence                                             string
	Score                                                          *int
}

// judgeSection is one judge_sections row, reduced.
type judgeSection struct {
	Judge, Kind, Rubric, Status string
	NMissing                    int
	CacheHit, Truncated         bool
	JudgedAt                    string
}

// caseValue is one per-case metric value.
type caseValue struct {
	RunID, Case, Metric string
	Value               float64
}

// overallPrinted is one printed_overall row.
type overallPrinted = store.PrintedOverall

// dataset is everything the site reads from the store.
type dataset struct {
	Runs       []*runData
	ByID       map[string]*runData
	Groups     []*group
	Overall    []overallPrinted
	Caps       []capRow
	Sections   []judgeSection
	GPU        map[string][]gpu.Sample     // telemetry samples by run, by GPU and time
	GPUSummary map[string]store.GPUSummary // gpu_summaries by run
	Cases      map[string][]caseValue      // by challenge
	Leader     map[string][]humanRow       // leaderboard as stored, by challenge
	PaperCap   []paperCap                  // the paper's stated capability scores
	Profiles   []store.CapabilityProfile   // the judge stage's capability profiles
	Boot       *bootData                   // bootstrap intervals and GPU summaries (uncertainty.go)
}

// paperCap is one paper_capabilities row.
type paperCap = store.PaperCapability

// humanRow is one stored leaderboard row.
type humanRow struct {
	Rank   int
	Team   string
	Mean   float64
	Values map[string]float64
}

// load reads the store.
func load(ctx context.Context, st *store.Store) (*dataset, error) {
	d := &dataset{ByID: map[string]*runData{}, Cases: map[string][]caseValue{}, Leader: map[string][]humanRow{}}
	if err := d.loadRuns(ctx, st); err != nil {
		return nil, err
	}
	var err error
	if d.Overall, err = st.AllPrintedOverall(ctx); err != nil {
		return nil, err
	}
	cases, err := st.KnownCaseValues(ctx)
	if err != nil {
		return nil, err
	}
	for _, c := range cases {
		d.Cases[c.Challenge] = append(d.Cases[c.Challenge], caseValue{RunID: c.RunID, Case: c.Case, Metric: c.Metric, Value: c.Value})
	}
	lb, err := st.Leaderboards(ctx)
	if err != nil {
		return nil, err
	}
	for _, h := range lb {
		d.Leader[h.Challenge] = append(d.Leader[h.Challenge], humanRow{Rank: h.Rank, Team: h.Team, Mean: h.Mean, Values: h.Values})
	}
	if d.GPU, err = st.GPUSamples(ctx); err != nil {
		return nil, err
	}
	if d.GPUSummary, err = st.GPUSummaries(ctx); err != nil {
		return nil, err
	}
	if err := d.loadJudging(ctx, st); err != nil {
		return nil, err
	}
	ss, err := st.Standings(ctx)
	if err != nil {
		return nil, err
	}
	if d.Groups, err = makeGroups(d.Runs, ss); err != nil {
		return nil, err
	}
	return d, nil
}

// loadRuns reads the ranked runs with their metric values, positions,
// printed cells and per-mode values.
func (d *dataset) loadRuns(ctx context.Context, st *store.Store) error {
	runs, err := st.RankedRuns(ctx)
	if err != nil {
		return err
	}
	for _, x := range runs {
		r := &runData{ID: x.ID, Source: x.Source, Setting: x.Setting, Backend: x.Backend, Challenge: x.Challenge, Agent: x.Agent,
			Seed: x.Seed, Status: string(x.Status), Detail: x.Detail, StartedAt: x.StartedAt, EndedAt: x.EndedAt,
			Ranked: x.Ranked, RankStatus: x.RankStatus, Reason: x.Reason, PosSum: x.PosSum, K: x.K, N: x.N,
			MeanRank: x.MeanRank, Pct: x.Percentile, PctLo: x.PctLo, PctHi: x.PctHi,
			Values: map[string]float64{}, Positions: map[string]int{}, Printed: map[string]map[string]string{}, Mode: map[string]map[string]float64{}}
		d.Runs = append(d.Runs, r)
		d.ByID[r.ID] = r
	}
	vals, err := st.AllMetricValues(ctx)
	if err != nil {
		return err
	}
	for _, v := range vals {
		if r := d.ByID[v.RunID]; r != nil {
			r.Values[v.Metric] = v.Value
		}
	}
	pos, err := st.AllPositions(ctx)
	if err != nil {
		return err
	}
	for _, p := range pos {
		if r := d.ByID[p.RunID]; r != nil {
			r.Positions[p.Metric] = p.Position
		}
	}
	printed, err := st.AllPrinted(ctx)
	if err != nil {
		return err
	}
	for _, p := range printed {
		if r := d.ByID[p.RunID]; r != nil {
			if r.Printed[p.Table] == nil {
				r.Printed[p.Table] = map[string]string{}
			}
			r.Printed[p.Table][p.Key] = p.Text
		}
	}
	modes, err := st.AllModeValues(ctx)
	if err != nil {
		return err
	}
	for _, m := range modes {
		if r := d.ByID[m.RunID]; r != nil {
			if r.Mode[m.Mode] == nil {
				r.Mode[m.Mode] = map[string]float64{}
			}
			r.Mode[m.Mode][m.Metric] = m.Value
		}
	}
	return nil
}

// loadJudging reads the judge's capability scores and sections, the paper's
// capability figures and the capability profiles.
func (d *dataset) loadJudging(ctx context.Context, st *store.Store) error {
	caps, err := st.AllCapabilityScores(ctx)
	if err != nil {
		return err
	}
	for _, c := range caps {
		d.Caps = append(d.Caps, capRow{RunID: c.RunID, Challenge: c.Challenge, Agent: c.Agent, Backend: c.Backend, Section: c.Section,
			Judge: c.JudgeName, Kind: c.JudgeKind, Rubric: c.RubricHash, Seed: c.Seed, StrategyID: c.StrategyID,
			Strategy: c.Strategy, Evidence: c.Evidence, Score: c.Score})
	}
	secs, err := st.AllJudgeSections(ctx)
	if err != nil {
		return err
	}
	for _, x := range secs {
		d.Sections = append(d.Sections, judgeSection{Judge: x.Judge, Kind: x.Kind, Rubric: x.RubricHash, Status: x.Status,
			NMissing: x.NMissing, CacheHit: x.CacheHit, Truncated: x.Truncated, JudgedAt: x.JudgedAt})
	}
	if d.PaperCap, err = st.PaperCapabilities(ctx); err != nil {
		return err
	}
	if d.Profiles, err = st.CapabilityProfiles(ctx); err != nil {
		return err
	}
	return nil
}

// makeGroups gathers ranked runs by agent configuration and takes each
// configuration's numbers from the rank stage's standings (its one
// computation: per challenge the mean percentile over seeds, a failed run
// 0; the ReX-MLE rank the mean over challenges; a challenge known only
// partially makes the overall a range [Lo, Hi] and Overall NaN). The site
// never recomputes them; a configuration the rank stage has not stood is an
// error telling to run the rank stage.
func makeGroups(runs []*runData, standings []store.Standing) ([]*group, error) {
	byKey := map[groupKey]store.Standing{}
	for _, st := range standings {
		byKey[groupKey{st.Source, st.Setting, st.Backend, st.Agent}] = st
	}
	idx := map[groupKey]*group{}
	var keys []groupKey
	for _, r := range runs {
		if !r.Ranked {
			continue
		}
		k := groupKey{r.Source, r.Setting, r.Backend, r.Agent}
		g := idx[k]
		if g == nil {
			g = &group{groupKey: k, PerChallenge: map[string]float64{}, Partial: map[string][2]float64{}}
			idx[k] = g
			keys = append(keys, k)
		}
		g.Runs = append(g.Runs, r)
	}
	sort.Slice(keys, func(i, j int) bool { return groupLess(keys[i], keys[j]) })
	out := make([]*group, 0, len(keys))
	for _, k := range keys {
		g := idx[k]
		st, ok := byKey[k]
		if !ok {
			return nil, fmt.Errorf("no standing for %s/%s/%s/%s: run `go run mage.go rank` before the report", k.Source, k.Setting, k.Backend, k.Agent)
		}
		for _, c := range st.Challenges {
			if c.Partial {
				g.Partial[c.Challenge] = [2]float64{c.Lo, c.Hi}
				continue
			}
			g.PerChallenge[c.Challenge] = c.Pct
		}
		g.NChallenges = st.NChallenges
		g.Lo, g.Hi, g.Overall = st.Lo, st.Hi, st.Overall
		out = append(out, g)
	}
	return out, nil
}

// groupLess orders the paper's configurations first, then by setting,
// backend and agent.
func groupLess(a, b groupKey) bool {
	if (a.Source == printedSource) != (b.Source == printedSource) {
		return a.Source == printedSource
	}
	if a.Source != b.Source {
		return a.Source < b.Source
	}
	if a.Setting != b.Setting {
		return a.Setting < b.Setting
	}
	if a.Backend != b.Backend {
		return a.Backend > b.Backend
	}
	return a.Agent < b.Agent
}

// shortSource is how a run source is shown.
func shortSource(s string) string {
	switch s {
	case printedSource:
		return "paper"
	case "paper":
		return "paper profile (new runs)"
	}
	return strings.TrimSpace(s)
}
