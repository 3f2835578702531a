package report

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/rexmle/rexmle/pipeline/rank"
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

// capRow is one capability_scores row.
type capRow struct {
	RunID, Challenge, Agent, Backend, Section, Judge, Kind, Rubric string
	Seed, StrategyID                                               int
	Strategy, Evidence                                             string
	Score                                                          sql.NullInt64
}

// judgeSection is one judge_sections row, reduced.
type judgeSection struct {
	Judge, Kind, Rubric, Status string
	NMissing, CacheHit          int
	Truncated                   int
	JudgedAt                    string
}

// gpuSample is one telemetry sample.
type gpuSample struct {
	RunID, At                   string
	GPU                         int
	SMUtil, Power               sql.NullFloat64
	MemUsed, MemTotal, EnergyMJ sql.NullInt64
	ProcMem                     sql.NullInt64
	Elapsed                     sql.NullFloat64 // seconds since the run started, when the store records it
}

// caseValue is one per-case metric value.
type caseValue struct {
	RunID, Case, Metric string
	Value               float64
}

// overallPrinted is one printed_overall row.
type overallPrinted struct{ Table, Setting, Backend, Agent, Text string }

// dataset is everything the site reads from the store.
type dataset struct {
	Runs     []*runData
	ByID     map[string]*runData
	Groups   []*group
	Overall  []overallPrinted
	Caps     []capRow
	Sections []judgeSection
	GPU      map[string][]gpuSample
	Cases    map[string][]caseValue // by challenge
	Leader   map[string][]humanRow  // leaderboard as stored, by challenge
	PaperCap []paperCap             // the paper's stated capability scores
	Boot     *bootData              // bootstrap intervals and GPU summaries (uncertainty.go)
}

// paperCap is one paper_capabilities row.
type paperCap struct {
	Setting, Backend, Agent, Judge string
	StrategyID                     int
	Strategy, Printed              string
	Value                          float64
}

// humanRow is one stored leaderboard row.
type humanRow struct {
	Rank   int
	Team   string
	Mean   float64
	Values map[string]float64
}

func nf(v sql.NullFloat64) float64 {
	if !v.Valid {
		return math.NaN()
	}
	return v.Float64
}

func tableExists(ctx context.Context, db *sql.DB, name string) (bool, error) {
	var n int
	err := db.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE type='table' AND name=?`, name).Scan(&n)
	if err != nil {
		return false, fmt.Errorf("look up table %s: %w", name, err)
	}
	return n > 0, nil
}

// columnExists reports whether a table has a column (the GPU helper adds
// gpu_samples.elapsed_s; older stores lack it).
func columnExists(ctx context.Context, db *sql.DB, tbl, col string) (bool, error) {
	rows, err := db.QueryContext(ctx, `SELECT name FROM pragma_table_info(?)`, tbl)
	if err != nil {
		return false, fmt.Errorf("look up columns of %s: %w", tbl, err)
	}
	defer rows.Close()
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return false, fmt.Errorf("look up columns of %s: %w", tbl, err)
		}
		if n == col {
			return true, nil
		}
	}
	return false, rows.Err()
}

// load reads the store.
func load(ctx context.Context, db *sql.DB) (*dataset, error) {
	d := &dataset{ByID: map[string]*runData{}, GPU: map[string][]gpuSample{}, Cases: map[string][]caseValue{}, Leader: map[string][]humanRow{}}
	rows, err := db.QueryContext(ctx, `SELECT r.id, r.source, r.setting, r.backend, r.challenge_id, r.agent, r.seed, r.status, r.detail,
		r.started_at, r.ended_at, k.status, k.reason, k.pos_sum, k.n_metrics, k.n_leaderboard, k.mean_rank, k.percentile, k.percentile_lo, k.percentile_hi
		FROM runs r LEFT JOIN ranks k ON k.run_id = r.id ORDER BY r.source DESC, r.setting, r.backend DESC, r.agent, r.challenge_id, r.seed, r.id`)
	if err != nil {
		return nil, fmt.Errorf("read runs: %w", err)
	}
	for rows.Next() {
		r := &runData{Values: map[string]float64{}, Positions: map[string]int{}, Printed: map[string]map[string]string{}, Mode: map[string]map[string]float64{}}
		var kst, reason sql.NullString
		var ps, nm, nl sql.NullInt64
		var mr, pct, lo, hi sql.NullFloat64
		if err := rows.Scan(&r.ID, &r.Source, &r.Setting, &r.Backend, &r.Challenge, &r.Agent, &r.Seed, &r.Status, &r.Detail,
			&r.StartedAt, &r.EndedAt, &kst, &reason, &ps, &nm, &nl, &mr, &pct, &lo, &hi); err != nil {
			rows.Close()
			return nil, fmt.Errorf("read runs: %w", err)
		}
		r.Ranked = kst.Valid
		r.RankStatus, r.Reason = kst.String, reason.String
		r.PosSum, r.K, r.N = int(ps.Int64), int(nm.Int64), int(nl.Int64)
		r.MeanRank, r.Pct, r.PctLo, r.PctHi = nf(mr), pct.Float64, nf(lo), nf(hi)
		d.Runs = append(d.Runs, r)
		d.ByID[r.ID] = r
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read runs: %w", err)
	}
	if err := eachRow(ctx, db, `SELECT run_id, metric, value FROM metric_values`, func(s scanner) error {
		var id, m string
		var v sql.NullFloat64
		if err := s.Scan(&id, &m, &v); err != nil {
			return err
		}
		if r := d.ByID[id]; r != nil {
			r.Values[m] = nf(v)
		}
		return nil
	}); err != nil {
		return nil, fmt.Errorf("read metric values: %w", err)
	}
	if err := eachRow(ctx, db, `SELECT run_id, metric, position FROM positions`, func(s scanner) error {
		var id, m string
		var p int
		if err := s.Scan(&id, &m, &p); err != nil {
			return err
		}
		if r := d.ByID[id]; r != nil {
			r.Positions[m] = p
		}
		return nil
	}); err != nil {
		return nil, fmt.Errorf("read positions: %w", err)
	}
	if err := eachRow(ctx, db, `SELECT run_id, tbl, key, text FROM printed`, func(s scanner) error {
		var id, t, k, x string
		if err := s.Scan(&id, &t, &k, &x); err != nil {
			return err
		}
		if r := d.ByID[id]; r != nil {
			if r.Printed[t] == nil {
				r.Printed[t] = map[string]string{}
			}
			r.Printed[t][k] = x
		}
		return nil
	}); err != nil {
		return nil, fmt.Errorf("read printed: %w", err)
	}
	if err := eachRow(ctx, db, `SELECT run_id, mode, metric, value FROM mode_values`, func(s scanner) error {
		var id, mo, m string
		var v sql.NullFloat64
		if err := s.Scan(&id, &mo, &m, &v); err != nil {
			return err
		}
		if r := d.ByID[id]; r != nil {
			if r.Mode[mo] == nil {
				r.Mode[mo] = map[string]float64{}
			}
			r.Mode[mo][m] = nf(v)
		}
		return nil
	}); err != nil {
		return nil, fmt.Errorf("read mode values: %w", err)
	}
	if err := eachRow(ctx, db, `SELECT tbl, setting, backend, agent, text FROM printed_overall ORDER BY tbl, setting, backend, agent`, func(s scanner) error {
		var o overallPrinted
		if err := s.Scan(&o.Table, &o.Setting, &o.Backend, &o.Agent, &o.Text); err != nil {
			return err
		}
		d.Overall = append(d.Overall, o)
		return nil
	}); err != nil {
		return nil, fmt.Errorf("read printed overall: %w", err)
	}
	if err := eachRow(ctx, db, `SELECT c.run_id, r.challenge_id, c.case_id, c.metric, c.value FROM case_values c JOIN runs r ON r.id = c.run_id
		WHERE c.value IS NOT NULL ORDER BY r.challenge_id, c.metric, c.case_id, c.run_id`, func(s scanner) error {
		var cv caseValue
		var ch string
		if err := s.Scan(&cv.RunID, &ch, &cv.Case, &cv.Metric, &cv.Value); err != nil {
			return err
		}
		d.Cases[ch] = append(d.Cases[ch], cv)
		return nil
	}); err != nil {
		return nil, fmt.Errorf("read case values: %w", err)
	}
	lbIdx := map[string]map[int]*humanRow{}
	if err := eachRow(ctx, db, `SELECT challenge_id, rank, team, mean_position FROM leaderboard ORDER BY challenge_id, rank`, func(s scanner) error {
		var ch string
		h := humanRow{Values: map[string]float64{}}
		if err := s.Scan(&ch, &h.Rank, &h.Team, &h.Mean); err != nil {
			return err
		}
		d.Leader[ch] = append(d.Leader[ch], h)
		return nil
	}); err != nil {
		return nil, fmt.Errorf("read leaderboard: %w", err)
	}
	for ch, hs := range d.Leader {
		lbIdx[ch] = map[int]*humanRow{}
		for i := range hs {
			lbIdx[ch][hs[i].Rank] = &hs[i]
		}
	}
	if err := eachRow(ctx, db, `SELECT challenge_id, rank, metric, value FROM leaderboard_values`, func(s scanner) error {
		var ch, m string
		var rk int
		var v float64
		if err := s.Scan(&ch, &rk, &m, &v); err != nil {
			return err
		}
		if h := lbIdx[ch][rk]; h != nil {
			h.Values[m] = v
		}
		return nil
	}); err != nil {
		return nil, fmt.Errorf("read leaderboard values: %w", err)
	}
	elapsed := "NULL"
	if ok, err := columnExists(ctx, db, "gpu_samples", "elapsed_s"); err != nil {
		return nil, err
	} else if ok {
		elapsed = "elapsed_s"
	}
	if err := eachRow(ctx, db, `SELECT run_id, at, gpu, sm_util, mem_used_bytes, mem_total_bytes, power_w, energy_mj, proc_mem_bytes, `+elapsed+`
		FROM gpu_samples ORDER BY run_id, gpu, at`, func(s scanner) error {
		var g gpuSample
		if err := s.Scan(&g.RunID, &g.At, &g.GPU, &g.SMUtil, &g.MemUsed, &g.MemTotal, &g.Power, &g.EnergyMJ, &g.ProcMem, &g.Elapsed); err != nil {
			return err
		}
		d.GPU[g.RunID] = append(d.GPU[g.RunID], g)
		return nil
	}); err != nil {
		return nil, fmt.Errorf("read gpu samples: %w", err)
	}
	if ok, err := tableExists(ctx, db, "capability_scores"); err != nil {
		return nil, err
	} else if ok {
		if err := eachRow(ctx, db, `SELECT run_id, challenge, agent, backend, seed, section, judge_name, judge_kind, rubric_hash, strategy_id, strategy, score, evidence
			FROM capability_scores ORDER BY agent, backend, judge_name, strategy_id, challenge, seed, section, run_key`, func(s scanner) error {
			var c capRow
			if err := s.Scan(&c.RunID, &c.Challenge, &c.Agent, &c.Backend, &c.Seed, &c.Section, &c.Judge, &c.Kind, &c.Rubric, &c.StrategyID, &c.Strategy, &c.Score, &c.Evidence); err != nil {
				return err
			}
			d.Caps = append(d.Caps, c)
			return nil
		}); err != nil {
			return nil, fmt.Errorf("read capability scores: %w", err)
		}
	}
	if ok, err := tableExists(ctx, db, "judge_sections"); err != nil {
		return nil, err
	} else if ok {
		if err := eachRow(ctx, db, `SELECT judge_name, judge_kind, rubric_hash, status, n_missing, cache_hit, truncated, judged_at
			FROM judge_sections ORDER BY judge_name, rubric_hash, run_key, section`, func(s scanner) error {
			var j judgeSection
			if err := s.Scan(&j.Judge, &j.Kind, &j.Rubric, &j.Status, &j.NMissing, &j.CacheHit, &j.Truncated, &j.JudgedAt); err != nil {
				return err
			}
			d.Sections = append(d.Sections, j)
			return nil
		}); err != nil {
			return nil, fmt.Errorf("read judge sections: %w", err)
		}
	}
	if ok, err := tableExists(ctx, db, "paper_capabilities"); err != nil {
		return nil, err
	} else if ok {
		if err := eachRow(ctx, db, `SELECT setting, backend, agent, judge, strategy_id, strategy, printed, value FROM paper_capabilities ORDER BY agent, strategy_id`, func(s scanner) error {
			var c paperCap
			if err := s.Scan(&c.Setting, &c.Backend, &c.Agent, &c.Judge, &c.StrategyID, &c.Strategy, &c.Printed, &c.Value); err != nil {
				return err
			}
			d.PaperCap = append(d.PaperCap, c)
			return nil
		}); err != nil {
			return nil, fmt.Errorf("read the paper's capability scores: %w", err)
		}
	}
	d.Groups = makeGroups(d.Runs)
	return d, nil
}

type scanner interface{ Scan(dest ...any) error }

func eachRow(ctx context.Context, db *sql.DB, q string, fn func(scanner) error) error {
	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := fn(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

// makeGroups gathers ranked runs by agent configuration. Per challenge the
// percentile is the mean over seeds (a failed run counts 0); the ReX-MLE
// rank is the mean over the group's challenges (rank.Overall). A challenge
// known only partially makes the overall a range [Lo, Hi] and Overall NaN.
func makeGroups(runs []*runData) []*group {
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
		type acc struct {
			sum, lo, hi float64
			n           int
			partial     bool
		}
		per := map[string]*acc{}
		for _, r := range g.Runs {
			a := per[r.Challenge]
			if a == nil {
				a = &acc{}
				per[r.Challenge] = a
			}
			a.n++
			switch {
			case r.partial():
				a.partial = true
				a.lo += r.PctLo
				a.hi += r.PctHi
			case r.ok():
				a.sum += r.Pct
				a.lo += r.Pct
				a.hi += r.Pct
			}
		}
		chs := make([]string, 0, len(per))
		for ch := range per {
			chs = append(chs, ch)
		}
		sort.Strings(chs)
		var lo, hi float64
		for _, ch := range chs {
			a := per[ch]
			lo += a.lo / float64(a.n)
			hi += a.hi / float64(a.n)
			if a.partial {
				g.Partial[ch] = [2]float64{a.lo / float64(a.n), a.hi / float64(a.n)}
				continue
			}
			g.PerChallenge[ch] = a.sum / float64(a.n)
		}
		g.NChallenges = len(chs)
		g.Lo, g.Hi = lo/float64(g.NChallenges), hi/float64(g.NChallenges)
		if len(g.Partial) == 0 {
			g.Overall = rank.Overall(g.PerChallenge, g.NChallenges)
		} else {
			g.Overall = math.NaN()
		}
		out = append(out, g)
	}
	return out
}

// groupLess orders the paper's configurations first, then by setting,
// backend and agent.
func groupLess(a, b groupKey) bool {
	if (a.Source == "paper") != (b.Source == "paper") {
		return a.Source == "paper"
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
	if s == "paper" {
		return "paper"
	}
	return strings.TrimSpace(s)
}
