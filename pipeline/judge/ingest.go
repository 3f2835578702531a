package judge

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"unicode/utf8"
)

// Format names a log reader.
type Format string

const (
	// FormatAuto picks a reader per file (see ReadLogDir).
	FormatAuto Format = "auto"
	// FormatAgentJSONL is the step log of the built-in baseline agents
	// (logs/agent.jsonl, documented in README.md).
	FormatAgentJSONL Format = "agent-jsonl"
	// FormatText is any plain-text log: the whole file is one section.
	FormatText Format = "text"
	// FormatAIDE is AIDE's journal.json (a list of solution-tree nodes).
	FormatAIDE Format = "aide-journal"
	// FormatMLMaster is ML-Master's console log with "# Analysis" blocks.
	FormatMLMaster Format = "ml-master"
	// FormatRDAgent is a text dump of R&D-Agent's session objects (the
	// reference unpickles them into unpickled_data.txt) with feedback blocks.
	FormatRDAgent Format = "rd-agent"
)

// IngestOptions controls how logs are split into sections.
type IngestOptions struct {
	// Format forces one reader for every file; "" or FormatAuto detects.
	Format Format
	// MaxChars caps each section, in characters; 0 means DefaultMaxChars,
	// a negative value means no cap.
	MaxChars int
	// Truncation says which part of a long section is kept ("" = head, as
	// the reference).
	Truncation Truncation
	// IncludeCode keeps source code (fenced ``` blocks, "code" steps, AIDE
	// node code) in the sections. The paper judges traces "excluding code",
	// so the default drops it.
	IncludeCode bool
	// AIDEFull adds each AIDE node's plan and terminal output to its
	// analysis; the reference judges the analysis text only.
	AIDEFull bool
}

func (o IngestOptions) maxChars() int {
	switch {
	case o.MaxChars == 0:
		return DefaultMaxChars
	case o.MaxChars < 0:
		return 0
	}
	return o.MaxChars
}

// rawSection is a section before truncation.
type rawSection struct {
	label, text string
}

// ReadLogDir reads every log file under dir (recursively, in lexical order)
// and returns its sections, each truncated per opts. agent is a hint for
// format detection ("ml-master", "rd-agent", "aide"; may be empty).
//
// Detection with FormatAuto, per file: "journal.json" → AIDE; "*.jsonl" →
// baseline agent steps; "unpickled_data.txt" or text containing R&D-Agent
// feedback markers ("Hypothesis Evaluation:", "Reason: [Experiment
// Analysis]") → R&D-Agent; text containing "INFO:ml-master" or, for agent
// "ml-master", a "# Analysis" line → ML-Master; other "*.log", "*.txt",
// "*.out", "*.md" files → plain text. Other files, empty files and files that
// are not UTF-8 text are skipped. Labels are "<relative path>#<part>".
// A file that cannot be parsed is an error naming the file.
func ReadLogDir(dir, agent string, opts IngestOptions) ([]Section, error) {
	var files []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read log dir %s: %w", dir, err)
	}
	sort.Strings(files)
	var out []Section
	for _, p := range files {
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("read log %s: %w", p, err)
		}
		format := opts.Format
		if format == "" || format == FormatAuto {
			format = detectFormat(rel, agent, data)
		}
		if format == "" {
			continue
		}
		secs, err := ParseLog(rel, format, data, opts)
		if err != nil {
			return nil, fmt.Errorf("read log %s: %w", p, err)
		}
		out = append(out, secs...)
	}
	return out, nil
}

var rdAgentMarker = regexp.MustCompile(`Hypothesis Evaluation:|Reason:\s*\[Experiment Analysis\]`)

func detectFormat(rel, agent string, data []byte) Format {
	base := strings.ToLower(filepath.Base(rel))
	ext := strings.ToLower(filepath.Ext(base))
	if len(bytes.TrimSpace(data)) == 0 {
		return ""
	}
	switch {
	case base == "journal.json":
		return FormatAIDE
	case ext == ".jsonl":
		return FormatAgentJSONL
	}
	if ext != ".log" && ext != ".txt" && ext != ".out" && ext != ".md" && ext != "" {
		return ""
	}
	if !utf8.Valid(data) || bytes.IndexByte(data, 0) >= 0 {
		return ""
	}
	agent = strings.ToLower(agent)
	switch {
	case base == "unpickled_data.txt" || rdAgentMarker.Match(data):
		return FormatRDAgent
	case bytes.Contains(data, []byte("INFO:ml-master")),
		strings.Contains(agent, "ml-master") && bytes.Contains(data, []byte("# Analysis")):
		return FormatMLMaster
	}
	return FormatText
}

// ParseLog splits one log file's bytes into sections with the given reader.
// name is the file's label prefix (its path relative to the log dir).
func ParseLog(name string, format Format, data []byte, opts IngestOptions) ([]Section, error) {
	var raws []rawSection
	var err error
	switch format {
	case FormatAgentJSONL:
		raws, err = parseAgentJSONL(data, opts)
	case FormatText:
		if t := strings.TrimSpace(string(data)); t != "" {
			raws = []rawSection{{"full", t}}
		}
	case FormatAIDE:
		raws, err = parseAIDE(data, opts)
	case FormatMLMaster:
		raws = parseMLMaster(string(data), opts)
	case FormatRDAgent:
		raws = parseRDAgent(string(data))
	default:
		return nil, fmt.Errorf("unknown log format %q", format)
	}
	if err != nil {
		return nil, err
	}
	max := opts.maxChars()
	out := make([]Section, 0, len(raws))
	seen := map[string]int{}
	for _, r := range raws {
		text, cut := truncateText(r.text, max, opts.Truncation)
		label := r.label
		// Labels stay unique even if a log repeats a step number.
		if seen[label]++; seen[label] > 1 {
			label = fmt.Sprintf("%s~%d", label, seen[label])
		}
		out = append(out, Section{
			Label:     name + "#" + label,
			Source:    name,
			Format:    format,
			Text:      text,
			OrigChars: utf8.RuneCountInString(r.text),
			Truncated: cut,
		})
	}
	return out, nil
}

// fencedBlock matches a Markdown fenced code block (any info string).
var fencedBlock = regexp.MustCompile("(?s)```[^\\n`]*\\n.*?```")
var manyNewlines = regexp.MustCompile(`\n{3,}`)

// stripCode removes fenced code blocks unless code is kept.
func stripCode(s string, keep bool) string {
	if keep {
		return strings.TrimSpace(s)
	}
	s = fencedBlock.ReplaceAllString(s, "")
	return strings.TrimSpace(manyNewlines.ReplaceAllString(s, "\n\n"))
}

// AgentStep is one line of the baseline agents' logs/agent.jsonl.
type AgentStep struct {
	Step int    `json:"step"`
	Time string `json:"time"`
	Kind string `json:"kind"`
	Text string `json:"text"`
}

// Step kinds of AgentStep.
const (
	StepPlan   = "plan"
	StepCode   = "code"
	StepExec   = "exec"
	StepResult = "result"
	StepNote   = "note"
)

func parseAgentJSONL(data []byte, opts IngestOptions) ([]rawSection, error) {
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64*1024), 64*1024*1024)
	var steps []AgentStep
	line, bad := 0, 0
	var firstBad error
	for sc.Scan() {
		line++
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		var st AgentStep
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&st); err != nil {
			bad++
			if firstBad == nil {
				firstBad = fmt.Errorf("line %d: %w", line, err)
			}
			continue
		}
		switch st.Kind {
		case StepPlan, StepCode, StepExec, StepResult, StepNote:
		default:
			bad++
			if firstBad == nil {
				firstBad = fmt.Errorf("line %d: unknown step kind %q", line, st.Kind)
			}
			continue
		}
		steps = append(steps, st)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(steps) == 0 && bad > 0 {
		return nil, fmt.Errorf("no valid step (%d bad lines; first: %w)", bad, firstBad)
	}
	hasPlan := false
	for _, st := range steps {
		if st.Kind == StepPlan {
			hasPlan = true
			break
		}
	}
	var out []rawSection
	var cur strings.Builder
	curLabel := ""
	flush := func() {
		if t := strings.TrimSpace(cur.String()); t != "" {
			out = append(out, rawSection{curLabel, t})
		}
		cur.Reset()
	}
	iter := 0
	for i, st := range steps {
		if !hasPlan {
			flush()
			curLabel = fmt.Sprintf("step-%d", st.Step)
		} else if st.Kind == StepPlan || i == 0 {
			flush()
			if st.Kind == StepPlan {
				iter++
			}
			curLabel = fmt.Sprintf("iter-%d", iter)
		}
		if st.Kind == StepCode && !opts.IncludeCode {
			continue
		}
		text := stripCode(st.Text, opts.IncludeCode)
		if text == "" {
			continue
		}
		fmt.Fprintf(&cur, "[step %d] %s\n%s\n\n", st.Step, strings.ToUpper(st.Kind), text)
	}
	flush()
	return out, nil
}

// aideNode holds the journal.json node fields the reader uses. AIDE
// serialises term_out as "_term_out" (a list of strings); a plain string
// "term_out" is accepted too.
type aideNode struct {
	Step     *int            `json:"step"`
	Plan     string          `json:"plan"`
	Code     string          `json:"code"`
	TermOut  json.RawMessage `json:"_term_out"`
	TermOut2 json.RawMessage `json:"term_out"`
	Analysis string          `json:"analysis"`
}

func rawToText(m json.RawMessage) string {
	if len(m) == 0 || string(m) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(m, &s) == nil {
		return s
	}
	var parts []string
	if json.Unmarshal(m, &parts) == nil {
		return strings.Join(parts, "")
	}
	return ""
}

func parseAIDE(data []byte, opts IngestOptions) ([]rawSection, error) {
	var j struct {
		Nodes []aideNode `json:"nodes"`
	}
	if err := json.Unmarshal(data, &j); err != nil {
		return nil, fmt.Errorf("AIDE journal: %w", err)
	}
	if j.Nodes == nil {
		return nil, errors.New("AIDE journal: no \"nodes\" array")
	}
	var out []rawSection
	for i, n := range j.Nodes {
		step := i
		if n.Step != nil {
			step = *n.Step
		}
		var b strings.Builder
		if opts.AIDEFull && strings.TrimSpace(n.Plan) != "" {
			fmt.Fprintf(&b, "Plan:\n%s\n\n", stripCode(n.Plan, opts.IncludeCode))
		}
		if opts.IncludeCode && strings.TrimSpace(n.Code) != "" {
			fmt.Fprintf(&b, "Code:\n%s\n\n", strings.TrimSpace(n.Code))
		}
		if opts.AIDEFull {
			t := rawToText(n.TermOut)
			if t == "" {
				t = rawToText(n.TermOut2)
			}
			if t = strings.TrimSpace(t); t != "" {
				fmt.Fprintf(&b, "Execution output:\n%s\n\n", t)
			}
		}
		if a := stripCode(n.Analysis, opts.IncludeCode); a != "" {
			if b.Len() > 0 {
				b.WriteString("Analysis:\n")
			}
			b.WriteString(a)
		}
		if t := strings.TrimSpace(b.String()); t != "" {
			out = append(out, rawSection{fmt.Sprintf("node-%d", step), t})
		}
	}
	return out, nil
}

// mlMasterPrefix is the runner's line prefix "[date time] [INFO] [Agent] ".
var mlMasterPrefix = regexp.MustCompile(`^\[\d{4}-\d{2}-\d{2}[^\]]*\]\s+\[INFO\]\s+\[Agent\]\s+`)
var mlMasterResponse = regexp.MustCompile(`^INFO:ml-master:response(?: without think)?:\s*`)

// parseMLMaster extracts ML-Master's analysis blocks: a block starts at a
// line containing "# Analysis" and ends at the next log-noise line (a line
// starting with "INFO:" other than an "INFO:ml-master:response" line, or
// "execution done", "ExecutionResult", "ValueError:"). Inside a block,
// "INFO:ml-master:response…" lines start a model response that runs to the
// block's end. Analyses and responses become separate sections
// ("analysis-i", "response-i"), numbered in file order.
func parseMLMaster(text string, opts IngestOptions) []rawSection {
	isNoise := func(l string) bool {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "INFO:ml-master:response") {
			return false
		}
		return strings.HasPrefix(t, "INFO:") || strings.HasPrefix(t, "execution done") ||
			strings.HasPrefix(t, "ExecutionResult") || strings.HasPrefix(t, "ValueError:")
	}
	var blocks [][]string
	var cur []string
	capturing := false
	for _, l := range strings.Split(text, "\n") {
		l = strings.TrimRight(l, "\r")
		l = mlMasterPrefix.ReplaceAllString(l, "")
		if strings.Contains(l, "# Analysis") {
			if len(cur) > 0 {
				blocks = append(blocks, cur)
			}
			cur = []string{l}
			capturing = true
			continue
		}
		if capturing {
			if isNoise(l) {
				blocks = append(blocks, cur)
				cur, capturing = nil, false
				continue
			}
			cur = append(cur, l)
		}
	}
	if len(cur) > 0 {
		blocks = append(blocks, cur)
	}
	var analyses, responses []string
	for _, blk := range blocks {
		body := stripCode(strings.Join(blk, "\n"), opts.IncludeCode)
		var an, resp []string
		inResp := false
		flushResp := func() {
			if t := strings.TrimSpace(strings.Join(resp, "\n")); t != "" {
				responses = append(responses, t)
			}
			resp = nil
		}
		for _, l := range strings.Split(body, "\n") {
			if strings.TrimSpace(l) == "# Analysis" {
				continue
			}
			if strings.HasPrefix(l, "INFO:ml-master:response") {
				flushResp()
				inResp = true
				if c := strings.TrimSpace(mlMasterResponse.ReplaceAllString(l, "")); c != "" {
					resp = append(resp, c)
				}
				continue
			}
			if inResp {
				resp = append(resp, l)
			} else {
				an = append(an, l)
			}
		}
		flushResp()
		if t := strings.TrimSpace(strings.Join(an, "\n")); t != "" {
			analyses = append(analyses, t)
		}
	}
	var out []rawSection
	for i, a := range analyses {
		out = append(out, rawSection{fmt.Sprintf("analysis-%d", i+1), a})
	}
	for i, r := range responses {
		out = append(out, rawSection{fmt.Sprintf("response-%d", i+1), r})
	}
	return out
}

// rdHeading matches the start of an R&D-Agent feedback field.
var rdHeading = regexp.MustCompile(`(?m)^[ \t]*(Reason:\s*\[Experiment Analysis\]|Observations:|Hypothesis Evaluation:|Code Change Summary:|New Hypothesis:|Target Problem:)`)
var rdCodeLike = regexp.MustCompile("(?s)```.*?```")
var spaceRun = regexp.MustCompile(`\s+`)

// rdFieldLimit caps one extracted R&D-Agent field (the reference keeps at
// most 1,000 characters of each).
const rdFieldLimit = 1000

// parseRDAgent extracts R&D-Agent's experiment feedback from a text dump of
// its session: the fields "Reason: [Experiment Analysis]", "Observations:",
// "Hypothesis Evaluation:", "Code Change Summary:" and "Target Problem:",
// each running to the next field heading or the end of its line group.
// Code (``` blocks), literal "\n" escapes and repeated whitespace are
// removed; fields shorter than 50 characters are dropped; each field keeps
// at most 1,000 characters. Consecutive fields are grouped into one section
// of at most three fields, a group also ending after a "Hypothesis
// Evaluation" field ("feedback-i"); "Target Problem" fields become their own
// sections ("target-i"), duplicates removed.
func parseRDAgent(text string) []rawSection {
	locs := rdHeading.FindAllStringSubmatchIndex(text, -1)
	type field struct{ kind, body string }
	var fields []field
	for i, loc := range locs {
		end := len(text)
		if i+1 < len(locs) {
			end = locs[i+1][0]
		}
		head := text[loc[2]:loc[3]]
		body := text[loc[1]:end]
		// A field also ends at a blank line followed by a separator line.
		if k := strings.Index(body, "\n====="); k >= 0 {
			body = body[:k]
		}
		body = rdCodeLike.ReplaceAllString(body, "")
		body = strings.NewReplacer(`\n`, " ", `\r`, " ", `\t`, " ").Replace(body)
		body = strings.TrimSpace(spaceRun.ReplaceAllString(body, " "))
		if utf8.RuneCountInString(body) <= 50 || strings.HasPrefix(body, "{") {
			continue
		}
		if r := []rune(body); len(r) > rdFieldLimit {
			body = string(r[:rdFieldLimit])
		}
		kind := strings.TrimSuffix(strings.TrimSpace(strings.SplitN(head, ":", 2)[0]), ":")
		fields = append(fields, field{kind, body})
	}
	var out []rawSection
	var group []string
	nFeedback, nTarget := 0, 0
	seenTarget := map[string]bool{}
	flush := func() {
		if len(group) > 0 {
			nFeedback++
			out = append(out, rawSection{fmt.Sprintf("feedback-%d", nFeedback), strings.Join(group, "\n")})
		}
		group = nil
	}
	for _, f := range fields {
		switch f.kind {
		case "Target Problem":
			if !seenTarget[f.body] {
				seenTarget[f.body] = true
				nTarget++
				out = append(out, rawSection{fmt.Sprintf("target-%d", nTarget), "Target Problem: " + f.body})
			}
			continue
		case "New Hypothesis":
			continue
		}
		group = append(group, f.kind+": "+f.body)
		if len(group) >= 3 || f.kind == "Hypothesis Evaluation" {
			flush()
		}
	}
	flush()
	return out
}
