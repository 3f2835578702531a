package judge

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// Judge kinds, as stored with every score and shown wherever scores appear.
const (
	KindLLM       = "llm"
	KindHeuristic = "heuristic"
)

// Judge scores one log section against a rubric.
type Judge interface {
	// Name identifies the judge in the cache key and in stored rows: the
	// model for LLM judges (e.g. "gpt-5"), "heuristic-v1" for the heuristic.
	Name() string
	// Kind is KindLLM or KindHeuristic.
	Kind() string
	// Score judges one section. The returned SectionScore is meaningful even
	// with a non-nil error (it carries attempts, usage and the error text);
	// strategies the judge could not decide are listed in Missing, never
	// scored 0.
	Score(ctx context.Context, sec Section, r *Rubric) (SectionScore, error)
}

// Status of a judged section.
const (
	// StatusOK: every rubric strategy got a 0/1 score.
	StatusOK = "ok"
	// StatusPartial: some strategies got scores, the others are Missing.
	StatusPartial = "partial"
	// StatusError: no usable answer; all strategies are Missing.
	StatusError = "error"
)

// StrategyScore is one strategy's verdict on one section.
type StrategyScore struct {
	ID       int    `json:"id"`
	Name     string `json:"strategy"`
	Score    int    `json:"score"` // 0 or 1
	Evidence string `json:"evidence"`
}

// Usage counts LLM tokens over all HTTP attempts of one section.
type Usage struct {
	PromptTokens     int64   `json:"prompt_tokens"`
	CompletionTokens int64   `json:"completion_tokens"`
	TotalTokens      int64   `json:"total_tokens"`
	CostUSD          float64 `json:"cost_usd"`
}

func (u *Usage) add(v Usage) {
	u.PromptTokens += v.PromptTokens
	u.CompletionTokens += v.CompletionTokens
	u.TotalTokens += v.TotalTokens
	u.CostUSD += v.CostUSD
}

// SectionScore is a judge's answer for one section.
type SectionScore struct {
	Judge       string          `json:"judge"`
	Kind        string          `json:"kind"`
	RubricHash  string          `json:"rubric_hash"`
	SectionHash string          `json:"section_hash"`
	Scores      []StrategyScore `json:"scores"`  // sorted by ID, decided strategies only
	Missing     []int           `json:"missing"` // undecided strategy ids, ascending
	Status      string          `json:"status"`
	Error       string          `json:"error,omitempty"`
	// Raw is the judge's final answer text (scrubbed of secrets).
	Raw string `json:"raw,omitempty"`
	// Attempts is the number of HTTP requests made (0 for the heuristic).
	Attempts int   `json:"attempts"`
	Usage    Usage `json:"usage"`
	// CacheHit is true when the score came from the cache (not stored).
	CacheHit bool `json:"-"`
}

// setStatus derives Status from Scores and Missing.
func (s *SectionScore) setStatus() {
	switch {
	case len(s.Missing) == 0 && len(s.Scores) > 0:
		s.Status = StatusOK
	case len(s.Scores) > 0:
		s.Status = StatusPartial
	default:
		s.Status = StatusError
	}
}

// allMissing marks every rubric strategy missing.
func allMissing(r *Rubric) []int { return r.IDs() }

// answer is the JSON shape the LLM judge must return.
type answer struct {
	Results []json.RawMessage `json:"results"`
}

// ParseAnswer validates an LLM judge's reply against the rubric. The reply
// must be one JSON object {"results":[{"id","strategy","score","evidence"}]}
// (a surrounding Markdown ``` fence is tolerated). An item counts only if its
// id is a rubric id (an integer, an integral number such as 3.0, or a string
// holding an integer) and its score is 0 or 1 (same forms, or a boolean);
// the first valid item for an id wins.
// It returns the valid scores, the rubric ids left without a valid score, and
// an error when the reply is not a JSON object with a "results" array.
func ParseAnswer(content string, r *Rubric) ([]StrategyScore, []int, error) {
	c := strings.TrimSpace(content)
	if strings.HasPrefix(c, "```") {
		c = strings.TrimPrefix(c, "```")
		if i := strings.IndexByte(c, '\n'); i >= 0 {
			c = c[i+1:]
		}
		c = strings.TrimSuffix(strings.TrimSpace(c), "```")
	}
	var a answer
	dec := json.NewDecoder(strings.NewReader(c))
	if err := dec.Decode(&a); err != nil {
		return nil, allMissing(r), fmt.Errorf("answer is not a JSON object with \"results\": %w", err)
	}
	if dec.More() {
		return nil, allMissing(r), fmt.Errorf("answer has trailing data after the JSON object")
	}
	if a.Results == nil {
		return nil, allMissing(r), fmt.Errorf("answer has no \"results\" array")
	}
	got := map[int]StrategyScore{}
	for _, raw := range a.Results {
		var item struct {
			ID       json.RawMessage `json:"id"`
			Strategy string          `json:"strategy"`
			Score    json.RawMessage `json:"score"`
			Evidence any             `json:"evidence"`
		}
		if json.Unmarshal(raw, &item) != nil {
			continue
		}
		id, ok := parseIntish(item.ID)
		if !ok {
			continue
		}
		st, ok := r.Strategy(id)
		if !ok {
			continue
		}
		score, ok := parseBinary(item.Score)
		if !ok {
			continue
		}
		if _, dup := got[id]; dup {
			continue
		}
		ev := ""
		switch e := item.Evidence.(type) {
		case string:
			ev = e
		case nil:
		default:
			b, _ := json.Marshal(e)
			ev = string(b)
		}
		got[id] = StrategyScore{ID: id, Name: st.Name, Score: score, Evidence: strings.TrimSpace(ev)}
	}
	var scores []StrategyScore
	var missing []int
	for _, id := range r.IDs() {
		if s, ok := got[id]; ok {
			scores = append(scores, s)
		} else {
			missing = append(missing, id)
		}
	}
	return scores, missing, nil
}

func parseIntish(m json.RawMessage) (int, bool) {
	if isNull(m) {
		return 0, false
	}
	var n json.Number
	if json.Unmarshal(m, &n) == nil {
		if v, err := strconv.Atoi(n.String()); err == nil {
			return v, true
		}
		// Integral floats such as 3.0 are accepted.
		if f, err := strconv.ParseFloat(n.String(), 64); err == nil && f == float64(int(f)) {
			return int(f), true
		}
		return 0, false
	}
	var s string
	if json.Unmarshal(m, &s) == nil {
		if v, err := strconv.Atoi(strings.TrimSpace(s)); err == nil {
			return v, true
		}
	}
	return 0, false
}

func parseBinary(m json.RawMessage) (int, bool) {
	if isNull(m) {
		return 0, false // json.Unmarshal would leave a bool false on null
	}
	var b bool
	if json.Unmarshal(m, &b) == nil {
		if b {
			return 1, true
		}
		return 0, true
	}
	if v, ok := parseIntish(m); ok && (v == 0 || v == 1) {
		return v, true
	}
	return 0, false
}

// isNull reports an absent or JSON null value.
func isNull(m json.RawMessage) bool {
	t := strings.TrimSpace(string(m))
	return t == "" || t == "null"
}

// BuildUserPrompt renders the user message for one section: every strategy
// as "TARGET STRATEGY: <name>" followed by its criteria, blank-line
// separated, then the labelled log section and the answer reminder (the
// message layout of the paper's Appendix B.3).
func BuildUserPrompt(sec Section, r *Rubric) string {
	var b strings.Builder
	for i, s := range r.Strategies {
		if i > 0 {
			b.WriteString("\n\n")
		}
		fmt.Fprintf(&b, "TARGET STRATEGY: %s (id %d)\n%s", s.Name, s.ID, s.Criteria)
	}
	fmt.Fprintf(&b, "\n\nLog section (%s):\n%s\n\n", sec.Label, sec.Text)
	fmt.Fprintf(&b, "Return JSON with key 'results' holding exactly one object per strategy (ids %s).", idList(r.IDs()))
	return b.String()
}

func idList(ids []int) string {
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = strconv.Itoa(id)
	}
	return strings.Join(parts, ", ")
}
