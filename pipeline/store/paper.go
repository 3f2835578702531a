package store

import (
	"context"
	"fmt"
)

// PaperCapability is one of the paper's stated capability scores (table
// paper_capabilities).
type PaperCapability struct {
	Setting, Backend, Agent, Judge string
	StrategyID                     int
	Strategy, Printed              string
	Value                          float64
}

// PrintedOverall is one overall mean the paper printed (table
// printed_overall).
type PrintedOverall struct{ Table, Setting, Backend, Agent, Text string }

// ReplacePaperCapabilities replaces every stored paper capability score.
func (t *Tx) ReplacePaperCapabilities(ctx context.Context, cs []PaperCapability) error {
	if _, err := t.tx.ExecContext(ctx, `DELETE FROM paper_capabilities`); err != nil {
		return fmt.Errorf("clear paper_capabilities: %w", err)
	}
	for _, c := range cs {
		if _, err := t.tx.ExecContext(ctx, `INSERT INTO paper_capabilities(setting, backend, agent, judge, strategy_id, strategy, printed, value) VALUES (?,?,?,?,?,?,?,?)`,
			c.Setting, c.Backend, c.Agent, c.Judge, c.StrategyID, c.Strategy, c.Printed, c.Value); err != nil {
			return fmt.Errorf("capability %s/%d: %w", c.Agent, c.StrategyID, err)
		}
	}
	return nil
}

// ReplacePrintedOverall replaces every stored printed overall mean.
func (t *Tx) ReplacePrintedOverall(ctx context.Context, os []PrintedOverall) error {
	if _, err := t.tx.ExecContext(ctx, `DELETE FROM printed_overall`); err != nil {
		return fmt.Errorf("clear printed_overall: %w", err)
	}
	for _, o := range os {
		if _, err := t.tx.ExecContext(ctx, `INSERT OR REPLACE INTO printed_overall(tbl, setting, backend, agent, text) VALUES (?,?,?,?,?)`,
			o.Table, o.Setting, o.Backend, o.Agent, o.Text); err != nil {
			return fmt.Errorf("printed overall %s/%s/%s/%s: %w", o.Table, o.Setting, o.Backend, o.Agent, err)
		}
	}
	return nil
}
