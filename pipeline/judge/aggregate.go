package judge

import (
	"encoding/csv"
	"io"
	"math"
	"sort"
	"strconv"

	"github.com/rexmle/rexmle/pipeline/fsutil"
)

// maxEvidence is how many evidence snippets an aggregate keeps per strategy.
const maxEvidence = 3

// StrategyMean is the mean binary score of one strategy over a set of
// sections.
type StrategyMean struct {
	StrategyID int
	Strategy   string
	// Mean = (number of sections scored 1) / NSections; NaN when
	// NSections = 0. Missing sections are excluded, not counted as 0.
	Mean float64
	// NSections counts sections with a 0/1 score for this strategy.
	NSections int
	// NMissing counts sections the judge left undecided for this strategy.
	NMissing int
	// Evidence holds up to three evidence texts of sections scored 1, in
	// run/section order.
	Evidence []string
}

// JudgeLabel names the judge behind an aggregate: its Name and Kind
// (KindLLM or KindHeuristic), so heuristic scores are always labelled.
type JudgeLabel struct {
	Judge, JudgeKind string
}

// RunStrategy is a StrategyMean over the sections of one run.
type RunStrategy struct {
	RunKey, RunID, Challenge, Agent, Backend string
	Seed                                     int
	JudgeLabel
	StrategyMean
}

// AgentStrategy is a StrategyMean over all sections of all runs of one
// agent and backend (sections pooled, as the paper's capability profile).
type AgentStrategy struct {
	Agent, Backend string
	JudgeLabel
	StrategyMean
	// NRuns counts the runs whose sections are pooled here.
	NRuns int
	// NFailed counts the agent's runs left out of the profile because they
	// failed, were interrupted or never finished (set by Run).
	NFailed int
}

// ChallengeStrategy is a StrategyMean over all sections of one agent and
// backend on one challenge.
type ChallengeStrategy struct {
	Challenge, Agent, Backend string
	JudgeLabel
	StrategyMean
}

// Profiles holds the three aggregations, each sorted by its key columns and
// strategy id, and always listing every rubric strategy for each key.
type Profiles struct {
	ByRun       []RunStrategy
	ByAgent     []AgentStrategy
	ByChallenge []ChallengeStrategy
}

type acc struct {
	ones, n, missing int
	evidence         []string
}

func (a *acc) add(r ScoreRow) {
	if r.Score == nil {
		a.missing++
		return
	}
	a.n++
	if *r.Score == 1 {
		a.ones++
		if len(a.evidence) < maxEvidence && r.Evidence != "" {
			a.evidence = append(a.evidence, r.Evidence)
		}
	}
}

func (a *acc) mean(s Strategy) StrategyMean {
	m := math.NaN()
	if a != nil && a.n > 0 {
		m = float64(a.ones) / float64(a.n)
	}
	out := StrategyMean{StrategyID: s.ID, Strategy: s.Name, Mean: m}
	if a != nil {
		out.NSections, out.NMissing, out.Evidence = a.n, a.missing, a.evidence
	}
	return out
}

// Aggregate computes the capability profiles of score rows (normally of one
// rubric; rows of different judges are kept apart). Rows of strategy ids not
// in the rubric are ignored. The mean of a group is the fraction of its
// scored (non-missing) sections with score 1.
func Aggregate(rows []ScoreRow, r *Rubric) Profiles {
	type runK struct {
		key, id, ch, agent, backend string
		seed                        int
		j                           JudgeLabel
	}
	type agentK struct {
		agent, backend string
		j              JudgeLabel
	}
	type chK struct {
		ch, agent, backend string
		j                  JudgeLabel
	}
	byRun := map[runK]map[int]*acc{}
	byAgent := map[agentK]map[int]*acc{}
	agentRuns := map[agentK]map[string]bool{}
	byCh := map[chK]map[int]*acc{}
	get := func(m map[int]*acc, id int) *acc {
		if m[id] == nil {
			m[id] = &acc{}
		}
		return m[id]
	}
	for _, row := range rows {
		if _, ok := r.Strategy(row.StrategyID); !ok {
			continue
		}
		j := JudgeLabel{row.JudgeName, row.JudgeKind}
		rk := runK{row.RunKey, row.RunID, row.Challenge, row.Agent, row.Backend, row.Seed, j}
		ak := agentK{row.Agent, row.Backend, j}
		ck := chK{row.Challenge, row.Agent, row.Backend, j}
		if byRun[rk] == nil {
			byRun[rk] = map[int]*acc{}
		}
		if byAgent[ak] == nil {
			byAgent[ak] = map[int]*acc{}
			agentRuns[ak] = map[string]bool{}
		}
		agentRuns[ak][row.RunKey] = true
		if byCh[ck] == nil {
			byCh[ck] = map[int]*acc{}
		}
		get(byRun[rk], row.StrategyID).add(row)
		get(byAgent[ak], row.StrategyID).add(row)
		get(byCh[ck], row.StrategyID).add(row)
	}
	var p Profiles
	for k, m := range byRun {
		for _, s := range r.Strategies {
			p.ByRun = append(p.ByRun, RunStrategy{k.key, k.id, k.ch, k.agent, k.backend, k.seed, k.j, m[s.ID].mean(s)})
		}
	}
	for k, m := range byAgent {
		for _, s := range r.Strategies {
			p.ByAgent = append(p.ByAgent, AgentStrategy{Agent: k.agent, Backend: k.backend, JudgeLabel: k.j,
				StrategyMean: m[s.ID].mean(s), NRuns: len(agentRuns[k])})
		}
	}
	for k, m := range byCh {
		for _, s := range r.Strategies {
			p.ByChallenge = append(p.ByChallenge, ChallengeStrategy{k.ch, k.agent, k.backend, k.j, m[s.ID].mean(s)})
		}
	}
	sort.Slice(p.ByRun, func(i, j int) bool {
		a, b := p.ByRun[i], p.ByRun[j]
		if a.RunKey != b.RunKey {
			return a.RunKey < b.RunKey
		}
		if a.Judge != b.Judge {
			return a.Judge < b.Judge
		}
		return a.StrategyID < b.StrategyID
	})
	sortByAgent(p.ByAgent)
	sort.Slice(p.ByChallenge, func(i, j int) bool {
		a, b := p.ByChallenge[i], p.ByChallenge[j]
		if a.Challenge != b.Challenge {
			return a.Challenge < b.Challenge
		}
		if a.Agent != b.Agent {
			return a.Agent < b.Agent
		}
		if a.Backend != b.Backend {
			return a.Backend < b.Backend
		}
		if a.Judge != b.Judge {
			return a.Judge < b.Judge
		}
		return a.StrategyID < b.StrategyID
	})
	return p
}

// sortByAgent orders per-agent rows by agent, backend, judge and strategy.
func sortByAgent(rows []AgentStrategy) {
	sort.Slice(rows, func(i, j int) bool {
		a, b := rows[i], rows[j]
		if a.Agent != b.Agent {
			return a.Agent < b.Agent
		}
		if a.Backend != b.Backend {
			return a.Backend < b.Backend
		}
		if a.Judge != b.Judge {
			return a.Judge < b.Judge
		}
		return a.StrategyID < b.StrategyID
	})
}

// addFailedRuns sets NFailed on the per-agent rows from the runs Run left
// out (RunLogs.Excluded), adding rows with no mean for an agent and backend
// whose every run was left out, so the failures still show.
func addFailedRuns(p *Profiles, runs []RunLogs, r *Rubric, j JudgeLabel) {
	type key struct{ agent, backend string }
	failed := map[key]int{}
	for _, run := range runs {
		if run.Excluded() {
			failed[key{run.Agent, run.Backend}]++
		}
	}
	if len(failed) == 0 {
		return
	}
	seen := map[key]bool{}
	for i := range p.ByAgent {
		k := key{p.ByAgent[i].Agent, p.ByAgent[i].Backend}
		p.ByAgent[i].NFailed = failed[k]
		seen[k] = true
	}
	for k, n := range failed {
		if seen[k] {
			continue
		}
		for _, s := range r.Strategies {
			p.ByAgent = append(p.ByAgent, AgentStrategy{Agent: k.agent, Backend: k.backend, JudgeLabel: j,
				StrategyMean: (*acc)(nil).mean(s), NFailed: n})
		}
	}
	sortByAgent(p.ByAgent)
}

// CapabilitiesHeader is the header of the capabilities CSV.
var CapabilitiesHeader = []string{"agent", "backend", "strategy_id", "strategy", "mean_score", "n_sections", "n_missing", "judge", "judge_kind", "n_runs", "n_failed"}

// WriteCapabilitiesCSV writes per-agent capability scores to path
// atomically (a temporary file in the same directory, renamed over path).
// Columns: agent,backend,strategy_id,strategy,mean_score,n_sections,n_missing,
// then judge,judge_kind (the judge's name and "llm" or "heuristic", so a
// heuristic profile is never mistaken for an LLM judge's), then n_runs (runs
// pooled) and n_failed (runs left out because they failed, were interrupted
// or never finished);
// mean_score is rounded to 6 decimals and printed in its shortest form
// (0.5, 0.333333, 1), empty when n_sections is 0 (no decided section).
func WriteCapabilitiesCSV(path string, rows []AgentStrategy) error {
	return fsutil.WriteWith(path, 0o644, func(f io.Writer) error {
		w := csv.NewWriter(f)
		if err := w.Write(CapabilitiesHeader); err != nil {
			return err
		}
		for _, r := range rows {
			mean := ""
			if r.NSections > 0 && !math.IsNaN(r.Mean) {
				mean = formatMean(r.Mean)
			}
			rec := []string{r.Agent, r.Backend, strconv.Itoa(r.StrategyID), r.Strategy, mean,
				strconv.Itoa(r.NSections), strconv.Itoa(r.NMissing), r.Judge, r.JudgeKind,
				strconv.Itoa(r.NRuns), strconv.Itoa(r.NFailed)}
			if err := w.Write(rec); err != nil {
				return err
			}
		}
		w.Flush()
		return w.Error()
	})
}

// formatMean rounds to 6 decimals and prints the shortest form (0.5, 0.333333, 1).
func formatMean(m float64) string {
	return strconv.FormatFloat(math.Round(m*1e6)/1e6, 'f', -1, 64)
}
