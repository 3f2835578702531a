// Package paper loads the ReX-MLE paper's recorded results (results/paper/,
// in rexmle's own schema) and imports them into the store as runs of source
// Source, with the numbers the paper printed kept beside them so the rank
// stage can show where its computation and the paper agree.
package paper

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/rexmle/rexmle/pipeline/config"
	"github.com/rexmle/rexmle/pipeline/store"
)

// Source is the runs.source value of the paper's recorded runs. No profile
// may be called so (config refuses it), so new runs of the profile "paper"
// are a source of their own, never replaced or ranked as the printed results.
const Source = config.PrintedSource

// Appendix is results/paper/appendix.toml: Tables S1–S20.
type Appendix struct {
	Source  string          `toml:"source"`
	Setting string          `toml:"setting"`
	Backend string          `toml:"backend"`
	Runs    []AppendixRun   `toml:"run"`
	Human   []AppendixHuman `toml:"human"`
}

// AppendixHuman is the human column of one S-table as printed: the top
// team's values with the positions, mean rank, percentile and overall the
// paper prints for it. Shown as printed; never ranked (the rank stage
// ranks the leaderboard's own values).
type AppendixHuman struct {
	Table             string            `toml:"table"`
	Challenge         string            `toml:"challenge"`
	Values            map[string]string `toml:"values"` // ranked metric → printed value
	PrintedPositions  map[string]int    `toml:"printed_positions"`
	PrintedMeanRank   string            `toml:"printed_mean_rank"`
	PrintedPercentile string            `toml:"printed_percentile"`
	PrintedOverall    string            `toml:"printed_overall"`
	// Rows is the table's printed row order (ranked metric ids and
	// unranked metric names) where it differs from ranked-then-unranked.
	Rows []string `toml:"rows"`
}

// AppendixRun is one agent column of one S-table.
type AppendixRun struct {
	Table             string            `toml:"table"`
	Challenge         string            `toml:"challenge"`
	Agent             string            `toml:"agent"`
	Values            map[string]string `toml:"values"`   // ranked metric → printed value
	Failed            []string          `toml:"failed"`   // ranked metrics printed FAIL
	Unranked          map[string]string `toml:"unranked"` // printed metrics with no leaderboard column
	PrintedPositions  map[string]int    `toml:"printed_positions"`
	PrintedMeanRank   string            `toml:"printed_mean_rank"`
	PrintedPercentile string            `toml:"printed_percentile"`
	PrintedOverall    string            `toml:"printed_overall"`
	// UnrankedOrder is the order of the Unranked keys in the file (the
	// paper's row order); Load fills it.
	UnrankedOrder []string `toml:"-"`
}

// Summary is results/paper/summary.toml: Tables 3, 4 and 5.
type Summary struct {
	Cells   []Cell       `toml:"cell"`
	Overall []OverallRow `toml:"overall"`
}

// Cell is one agent's primary-metric value and percentile in Table 3, 4 or 5.
type Cell struct {
	Table             string `toml:"table"`
	Setting           string `toml:"setting"`
	Challenge         string `toml:"challenge"`
	Agent             string `toml:"agent"`
	Backend           string `toml:"backend"`
	MetricLabel       string `toml:"metric_label"`
	Value             string `toml:"value"` // as printed, or FAIL
	PrintedPercentile string `toml:"printed_percentile"`
}

// OverallRow is a printed 'Overall Mean Percentile'.
type OverallRow struct {
	Table   string `toml:"table"`
	Setting string `toml:"setting"`
	Agent   string `toml:"agent"`
	Backend string `toml:"backend"`
	Printed string `toml:"printed"`
}

// Capabilities is results/paper/capabilities.toml: the capability scores
// (paper Figure 4) the paper states as numbers in its text.
type Capabilities struct {
	Setting string          `toml:"setting"`
	Backend string          `toml:"backend"`
	Judge   string          `toml:"judge"`
	Scores  []CapabilityRow `toml:"score"`
}

// CapabilityRow is one stated score: an agent's mean over challenges of one
// strategy's binary judge score, as printed.
type CapabilityRow struct {
	Agent      string `toml:"agent"`
	StrategyID int    `toml:"strategy_id"`
	Strategy   string `toml:"strategy"`
	Printed    string `toml:"printed"`
}

// Recorded is everything the paper recorded.
type Recorded struct {
	Appendix     Appendix
	Summary      Summary
	Capabilities Capabilities // empty when capabilities.toml is absent
}

func decodeStrict(path string, v any) error {
	_, err := decodeStrictMeta(path, v)
	return err
}

func decodeStrictMeta(path string, v any) (toml.MetaData, error) {
	md, err := toml.DecodeFile(path, v)
	if err != nil {
		return md, fmt.Errorf("%s: %w", path, err)
	}
	if u := md.Undecoded(); len(u) > 0 {
		return md, fmt.Errorf("%s: unknown key %q", path, u[0].String())
	}
	return md, nil
}

// unrankedOrder sets each run's UnrankedOrder from the order of the keys
// in the file (the decoder keeps it; maps do not).
func unrankedOrder(md toml.MetaData, runs []AppendixRun) {
	i := -1
	for _, k := range md.Keys() {
		switch {
		case len(k) == 1 && k[0] == "run":
			i++
		case len(k) == 3 && k[0] == "run" && k[1] == "unranked" && i >= 0 && i < len(runs):
			runs[i].UnrankedOrder = append(runs[i].UnrankedOrder, k[2])
		}
	}
}

// Load reads dir/appendix.toml and dir/summary.toml and checks them against
// the benchmark: known challenges, ranked metric names, parseable numbers.
func Load(dir string, b *config.Benchmark) (*Recorded, error) {
	r := &Recorded{}
	ap := filepath.Join(dir, "appendix.toml")
	md, err := decodeStrictMeta(ap, &r.Appendix)
	if err != nil {
		return nil, err
	}
	unrankedOrder(md, r.Appendix.Runs)
	sp := filepath.Join(dir, "summary.toml")
	if err := decodeStrict(sp, &r.Summary); err != nil {
		return nil, err
	}
	cp := filepath.Join(dir, "capabilities.toml")
	if _, err := os.Stat(cp); err == nil {
		if err := decodeStrict(cp, &r.Capabilities); err != nil {
			return nil, err
		}
		if err := checkCapabilities(cp, r.Capabilities, b); err != nil {
			return nil, err
		}
	}
	for i, run := range r.Appendix.Runs {
		c, ok := b.Challenge(run.Challenge)
		if !ok {
			return nil, fmt.Errorf("%s: run %d (%s): unknown challenge %q", ap, i+1, run.Table, run.Challenge)
		}
		for k, v := range run.Values {
			if _, ok := c.Metric(k); !ok {
				return nil, fmt.Errorf("%s: run %d (%s %s): %q is not a ranked metric of %s", ap, i+1, run.Table, run.Agent, k, c.ID)
			}
			if _, err := ParseValue(v); err != nil {
				return nil, fmt.Errorf("%s: run %d (%s %s): %s: %w", ap, i+1, run.Table, run.Agent, k, err)
			}
		}
	}
	for i, h := range r.Appendix.Human {
		c, ok := b.Challenge(h.Challenge)
		if !ok {
			return nil, fmt.Errorf("%s: human column %d (%s): unknown challenge %q", ap, i+1, h.Table, h.Challenge)
		}
		for k, v := range h.Values {
			if _, ok := c.Metric(k); !ok {
				return nil, fmt.Errorf("%s: human column %d (%s): %q is not a ranked metric of %s", ap, i+1, h.Table, k, c.ID)
			}
			if _, err := ParseValue(v); err != nil {
				return nil, fmt.Errorf("%s: human column %d (%s): %s: %w", ap, i+1, h.Table, k, err)
			}
		}
		for k := range h.PrintedPositions {
			if _, ok := h.Values[k]; !ok {
				return nil, fmt.Errorf("%s: human column %d (%s): position of %q without its value", ap, i+1, h.Table, k)
			}
		}
		if len(h.Rows) > 0 {
			known := map[string]bool{}
			for _, m := range c.Metrics {
				known[m.Name] = true
			}
			for _, run := range r.Appendix.Runs {
				if run.Table == h.Table {
					for u := range run.Unranked {
						known[u] = true
					}
				}
			}
			for _, row := range h.Rows {
				if !known[row] {
					return nil, fmt.Errorf("%s: human column %d (%s): rows: %q is neither a ranked metric of %s nor an unranked row of the table", ap, i+1, h.Table, row, c.ID)
				}
			}
		}
	}
	for i, cell := range r.Summary.Cells {
		if _, ok := b.Challenge(cell.Challenge); !ok {
			return nil, fmt.Errorf("%s: cell %d: unknown challenge %q", sp, i+1, cell.Challenge)
		}
		if cell.Value != "FAIL" {
			if _, err := ParseValue(cell.Value); err != nil {
				return nil, fmt.Errorf("%s: cell %d (table %s %s %s): %w", sp, i+1, cell.Table, cell.Challenge, cell.Agent, err)
			}
		}
	}
	return r, nil
}

// checkCapabilities checks the stated capability scores: known agents,
// positive strategy ids, numbers in [0, 1], no duplicate agent × strategy.
func checkCapabilities(path string, c Capabilities, b *config.Benchmark) error {
	seen := map[string]bool{}
	for i, s := range c.Scores {
		if _, ok := b.Agent(s.Agent); !ok {
			return fmt.Errorf("%s: score %d: unknown agent %q", path, i+1, s.Agent)
		}
		if s.StrategyID <= 0 || strings.TrimSpace(s.Strategy) == "" {
			return fmt.Errorf("%s: score %d (%s): want a positive strategy_id and a strategy name, got %d %q", path, i+1, s.Agent, s.StrategyID, s.Strategy)
		}
		v, err := ParseValue(s.Printed)
		if err != nil || v < 0 || v > 1 {
			return fmt.Errorf("%s: score %d (%s, strategy %d): printed %q: want a number in [0, 1]", path, i+1, s.Agent, s.StrategyID, s.Printed)
		}
		k := s.Agent + "/" + strconv.Itoa(s.StrategyID)
		if seen[k] {
			return fmt.Errorf("%s: score %d: agent %s, strategy %d appears twice", path, i+1, s.Agent, s.StrategyID)
		}
		seen[k] = true
	}
	return nil
}

// capabilities returns c's scores as store rows.
func capabilities(c Capabilities) ([]store.PaperCapability, error) {
	out := make([]store.PaperCapability, 0, len(c.Scores))
	for _, s := range c.Scores {
		v, err := ParseValue(s.Printed)
		if err != nil {
			return nil, fmt.Errorf("capability %s/%d: %w", s.Agent, s.StrategyID, err)
		}
		out = append(out, store.PaperCapability{Setting: c.Setting, Backend: c.Backend, Agent: s.Agent, Judge: c.Judge,
			StrategyID: s.StrategyID, Strategy: s.Strategy, Printed: s.Printed, Value: v})
	}
	return out, nil
}

// ParseValue parses a printed number.
func ParseValue(s string) (float64, error) {
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil {
		return 0, fmt.Errorf("value %q: want a number", s)
	}
	return v, nil
}

// RunID is the id of a recorded run.
func RunID(setting, backend, challenge, agent string) string {
	return strings.Join([]string{Source, setting, backend, challenge, agent}, "/")
}

// Import replaces the paper's runs in the store: one run per agent column of
// S1–S20 (every ranked metric value), and one per Table 4 / Table 5 row not
// already covered (the primary metric only). What the paper printed goes to
// the printed tables.
// The writes join the caller's transaction tx.
func Import(ctx context.Context, tx *store.Tx, r *Recorded, b *config.Benchmark) (int, error) {
	if err := tx.DeleteSource(ctx, Source); err != nil {
		return 0, err
	}
	a := r.Appendix
	seen := map[string]bool{}
	n := 0
	for _, run := range a.Runs {
		id := RunID(a.Setting, a.Backend, run.Challenge, run.Agent)
		if err := importAppendixRun(ctx, tx, id, a, run); err != nil {
			return n, err
		}
		seen[id] = true
		n++
	}
	for _, cell := range r.Summary.Cells {
		id := RunID(cell.Setting, cell.Backend, cell.Challenge, cell.Agent)
		if !seen[id] {
			if err := importPrimaryOnlyRun(ctx, tx, id, b, cell); err != nil {
				return n, err
			}
			seen[id] = true
			n++
		}
		if err := tx.PutPrinted(ctx, id, cell.Table, "primary", cell.Value); err != nil {
			return n, err
		}
		if err := tx.PutPrinted(ctx, id, cell.Table, "percentile", cell.PrintedPercentile); err != nil {
			return n, err
		}
	}
	caps, err := capabilities(r.Capabilities)
	if err != nil {
		return n, err
	}
	if err := tx.ReplacePaperCapabilities(ctx, caps); err != nil {
		return n, err
	}
	overall := make([]store.PrintedOverall, len(r.Summary.Overall))
	for i, o := range r.Summary.Overall {
		overall[i] = store.PrintedOverall{Table: o.Table, Setting: o.Setting, Backend: o.Backend, Agent: o.Agent, Text: o.Printed}
	}
	if err := tx.ReplacePrintedOverall(ctx, overall); err != nil {
		return n, err
	}
	return n, nil
}

// importAppendixRun stores one run of an S-table (as run id): its values
// and every number the table prints for it.
func importAppendixRun(ctx context.Context, tx *store.Tx, id string, a Appendix, run AppendixRun) error {
	if err := tx.PutRun(ctx, store.Run{ID: id, Source: Source, Setting: a.Setting, Backend: a.Backend,
		Challenge: run.Challenge, Agent: run.Agent, Seed: 1, Status: store.RunRecorded, Detail: "Table " + run.Table}); err != nil {
		return err
	}
	vals := map[string]float64{}
	for k, s := range run.Values {
		vals[k], _ = ParseValue(s)
	}
	if err := tx.PutMetricValues(ctx, id, vals); err != nil {
		return err
	}
	put := func(key, text string) error { return tx.PutPrinted(ctx, id, run.Table, key, text) }
	for k, s := range run.Values {
		if err := put(k, s); err != nil {
			return err
		}
	}
	for _, k := range run.Failed {
		if err := put(k, "FAIL"); err != nil {
			return err
		}
	}
	for k, p := range run.PrintedPositions {
		if err := put("position:"+k, strconv.Itoa(p)); err != nil {
			return err
		}
	}
	for k, s := range run.Unranked {
		if err := put("unranked:"+k, s); err != nil {
			return err
		}
	}
	if len(run.UnrankedOrder) > 1 {
		// Not a printed number: the order of the unranked rows.
		if err := put(OrderKey, strings.Join(run.UnrankedOrder, "\t")); err != nil {
			return err
		}
	}
	if err := put("mean_rank", run.PrintedMeanRank); err != nil {
		return err
	}
	if err := put("percentile", run.PrintedPercentile); err != nil {
		return err
	}
	if run.PrintedOverall != "" {
		if err := put("overall", run.PrintedOverall); err != nil {
			return err
		}
	}
	return nil
}

// importPrimaryOnlyRun stores a run that only a summary table prints (as
// run id): its primary metric alone.
func importPrimaryOnlyRun(ctx context.Context, tx *store.Tx, id string, b *config.Benchmark, cell Cell) error {
	c, _ := b.Challenge(cell.Challenge)
	if err := tx.PutRun(ctx, store.Run{ID: id, Source: Source, Setting: cell.Setting, Backend: cell.Backend,
		Challenge: cell.Challenge, Agent: cell.Agent, Seed: 1, Status: store.RunRecorded, Detail: "Table " + cell.Table + " (primary metric only)"}); err != nil {
		return err
	}
	vals := map[string]float64{}
	if cell.Value != "FAIL" {
		vals[c.PrimaryMetric], _ = ParseValue(cell.Value)
	}
	return tx.PutMetricValues(ctx, id, vals)
}

// OrderKey is the printed-table key that holds, tab-separated, the order of
// a run's unranked rows as the paper prints them.
const OrderKey = "order:unranked"

// Exists reports whether dir holds the recorded results.
func Exists(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, "appendix.toml"))
	return err == nil
}
