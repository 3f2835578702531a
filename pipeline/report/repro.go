package report

import (
	"context"
	"strings"
)

// Classes of comparison between a computed number and the paper's print.
const (
	classMatch         = "match"         // the computed number prints as the paper printed it
	classRounding      = "rounding"      // both are roundings of one unrounded value
	classInconsistency = "inconsistency" // no rounding explains it
	classUndetermined  = "undetermined"  // the printed digits do not decide it
)

// check is one comparison of a computed number with a printed one.
type check struct {
	Table, Challenge, Agent, Setting, Backend, What string
	Computed, Printed, Class, Why                   string
}

func (c check) where() string {
	s := "Table " + c.Table
	if !strings.HasPrefix(c.Table, "S") && (c.Setting != "" || c.Backend != "") {
		s += " (" + c.Setting + ", " + c.Backend + ")"
	}
	if c.Challenge != "" {
		s += ", " + c.Challenge
	}
	return s + ", " + c.Agent + ", " + c.What
}

// anchor is the id of the check's row on the Reproduction page.
func (c check) anchor() string {
	return "check-" + slug(c.where())
}

// badge returns the cell badge for a check.
func (c *check) badge() (text, class, title string) {
	if c == nil {
		return "", "", ""
	}
	switch c.Class {
	case classMatch:
		return "✓ matches", "ok", "computed " + c.Computed + ", printed " + c.Printed
	case classRounding:
		return "≈ rounding", "warn", c.Why
	case classUndetermined:
		return "? undetermined", "warn", c.Why
	}
	why := c.Why
	if why == "" {
		why = "computed " + c.Computed + ", printed " + c.Printed
	}
	return "✗ differs", "bad", why
}

// classOrder ranks verdicts from best to worst.
var classOrder = map[string]int{classMatch: 0, classRounding: 1, classUndetermined: 2, classInconsistency: 3}

// cellBadge is the badge of a table cell that shows a value and a
// percentile: the worse of the stored value and percentile checks, its
// title naming both. Every page uses it, so a cell gets the same verdict
// wherever it appears, and that verdict is the stored one.
func cellBadge(value, pct *check) (text, class, title string) {
	var parts []string
	worst := (*check)(nil)
	for _, c := range []*check{value, pct} {
		if c == nil {
			continue
		}
		what := "percentile"
		if c == value {
			what = "value"
		}
		_, _, t := c.badge()
		parts = append(parts, what+": "+c.Class+" ("+t+")")
		if worst == nil || classOrder[c.Class] > classOrder[worst.Class] {
			worst = c
		}
	}
	if worst == nil {
		return "", "", ""
	}
	text, class, _ = worst.badge()
	return text, class, strings.Join(parts, "; ")
}

// reproduction is every comparison, indexed for the tables that show badges.
type reproduction struct {
	Checks  []check
	Primary map[string]*check // run id + "/" + table → percentile check of Tables 3–5
	Value   map[string]*check // run id + "/" + table → primary value check of Tables 3–5
	STable  map[string]*check // run id → S-table percentile check
	Overall map[string]*check // table/setting/backend/agent → overall check
}

// reproduce reads the rank stage's comparison of the computation with the
// paper's printed numbers (table reproduction) and indexes it for the pages
// that show badges: the S-table percentile of a run, the percentile of a run
// in Tables 3–5, and the overall means.
func (s *site) reproduce(ctx context.Context) (*reproduction, error) {
	rp := &reproduction{Primary: map[string]*check{}, Value: map[string]*check{}, STable: map[string]*check{}, Overall: map[string]*check{}}
	checks, err := s.opts.Store.Reproduction(ctx)
	if err != nil {
		return nil, err
	}
	type key struct {
		kind, key string
	}
	var keys []key
	for _, x := range checks {
		runID, challengeID, agentID := x.RunID, x.Challenge, x.Agent
		c := check{Table: x.Table, Setting: x.Setting, Backend: x.Backend, What: x.What, Computed: x.Computed, Printed: x.Printed, Class: x.Class, Why: x.Why}
		if challengeID != "" {
			c.Challenge = s.shortName(challengeID)
		}
		c.Agent = s.agentName(agentID)
		k := key{}
		switch {
		case c.What == "percentile" && strings.HasPrefix(c.Table, "S"):
			k = key{"S", runID}
		case c.What == "percentile":
			k = key{"P", runID + "/" + c.Table}
		case c.What == "primary_value" && !strings.HasPrefix(c.Table, "S"):
			k = key{"V", runID + "/" + c.Table}
		case c.What == "overall":
			k = key{"O", c.Table + "/" + c.Setting + "/" + c.Backend + "/" + agentID}
		}
		c.What = whatText(c.What, c.Setting, c.Backend)
		rp.Checks = append(rp.Checks, c)
		keys = append(keys, k)
	}
	for i, k := range keys {
		c := &rp.Checks[i]
		switch k.kind {
		case "S":
			rp.STable[k.key] = c
		case "P":
			rp.Primary[k.key] = c
		case "V":
			rp.Value[k.key] = c
		case "O":
			rp.Overall[k.key] = c
		}
	}
	return rp, nil
}

// whatText turns a stored kind of number into the words the pages use.
func whatText(what, setting, backend string) string {
	switch {
	case strings.HasPrefix(what, "position:"):
		return "position of " + strings.TrimPrefix(what, "position:")
	case what == "mean_rank":
		return "mean rank"
	case what == "primary_value":
		return "primary value (S-table print)"
	case what == "overall":
		return "overall mean percentile (" + setting + ", " + backend + ")"
	}
	return what
}
