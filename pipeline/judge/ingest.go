package judge

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/rexmle/rexmle/pipeline/fsutil"
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

// ReadLogDir reads the log files of one run under dir and returns their
// sections, each truncated per opts. agent is the agent id; it selects the
// files the paper's judge reads for that agent (see SelectLogFiles) and
// hints format detection.
//
// Files are streamed: memory stays bounded by the section cap, not the
// file size (a multi-gigabyte console log keeps only the head and tail
// windows truncation needs). Detection with FormatAuto, per file:
// "journal.json" → AIDE; "*.jsonl" → step log; "unpickled_data.txt",
// "rdagent-trace.txt", a text file of agent "rd-agent", or text whose first
// MiB contains R&D-Agent feedback markers ("Hypothesis Evaluation:",
// "Reason: [Experiment Analysis]") → R&D-Agent; text of agent "ml-master" or
// whose first MiB contains "INFO:ml-master" → ML-Master; other "*.log",
// "*.txt", "*.out", "*.md" files → plain text. Other files, empty files and
// files whose first MiB is not UTF-8 text are skipped. Labels are
// "<relative path>#<part>". A file that cannot be parsed is an error naming
// the file.
func ReadLogDir(dir, agent string, opts IngestOptions) ([]Section, error) {
	var files []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			rel, _ := filepath.Rel(dir, p)
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read log dir %s: %w", dir, err)
	}
	sort.Strings(files)
	var out []Section
	for _, rel := range SelectLogFiles(files, agent) {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		secs, err := readLogFile(dir, rel, agent, opts)
		if err != nil {
			return nil, fmt.Errorf("read log %s: %w", p, err)
		}
		out = append(out, secs...)
	}
	return out, nil
}

// sniffBytes is how much of a file format detection looks at.
const sniffBytes = 1 << 20

// readLogFile detects the format of dir/rel from its name and first MiB,
// then streams it. It is opened as fsutil.OpenIn opens a run's files: an
// agent's log that is a FIFO, a device or a link (to the host's files or
// not) is refused, never read or waited on.
func readLogFile(dir, rel, agent string, opts IngestOptions) ([]Section, error) {
	f, err := fsutil.OpenIn(dir, rel)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	head := make([]byte, sniffBytes)
	n, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return nil, err
	}
	head = head[:n]
	format := opts.Format
	if format == "" || format == FormatAuto {
		format = detectFormat(rel, agent, head)
	}
	if format == "" {
		return nil, nil
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	return parseStream(rel, format, f, opts)
}

var rdAgentMarker = regexp.MustCompile(`Hypothesis Evaluation:|Reason:\s*\[Experiment Analysis\]`)

func detectFormat(rel, agent string, head []byte) Format {
	base := strings.ToLower(filepath.Base(rel))
	ext := strings.ToLower(filepath.Ext(base))
	if len(bytes.TrimSpace(head)) == 0 {
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
	if !validUTF8Prefix(head) || bytes.IndexByte(head, 0) >= 0 {
		return ""
	}
	switch agentFamily(agent) {
	case familyRDAgent:
		return FormatRDAgent
	case familyMLMaster:
		return FormatMLMaster
	}
	switch {
	case base == "unpickled_data.txt" || base == RDAgentTraceFile || rdAgentMarker.Match(head):
		return FormatRDAgent
	case bytes.Contains(head, []byte("INFO:ml-master")):
		return FormatMLMaster
	}
	return FormatText
}

// validUTF8Prefix is utf8.Valid, allowing a character cut at the end.
func validUTF8Prefix(b []byte) bool {
	for i := 0; i < utf8.UTFMax && len(b) > 0; i++ {
		if utf8.Valid(b) {
			return true
		}
		b = b[:len(b)-1]
	}
	return utf8.Valid(b)
}

// sink turns a file's finished section builders into Sections.
type sink struct {
	name   string
	format Format
	opts   IngestOptions
	seen   map[string]int
	out    []Section
}

func newSink(name string, format Format, opts IngestOptions) *sink {
	return &sink{name: name, format: format, opts: opts, seen: map[string]int{}}
}

func (s *sink) builder() *capBuilder { return newCapBuilder(s.opts.maxChars()) }

// add appends b as section label unless it is empty.
func (s *sink) add(label string, b *capBuilder) {
	if b == nil || b.Empty() {
		return
	}
	text, orig, cut := b.Finish(s.opts.Truncation)
	if text == "" {
		return
	}
	// Labels stay unique even if a log repeats a step number.
	if s.seen[label]++; s.seen[label] > 1 {
		label = fmt.Sprintf("%s~%d", label, s.seen[label])
	}
	s.out = append(s.out, Section{Label: s.name + "#" + label, Source: s.name, Format: s.format,
		Text: text, OrigChars: orig, Truncated: cut})
}

func (s *sink) addText(label, text string) {
	b := s.builder()
	b.WriteString(text)
	s.add(label, b)
}

// parseStream reads one log with the given reader. Seekable inputs (files,
// byte readers) may be read twice (step logs: once to see whether there
// are plan steps).
func parseStream(name string, format Format, r io.ReadSeeker, opts IngestOptions) ([]Section, error) {
	sk := newSink(name, format, opts)
	var err error
	switch format {
	case FormatAgentJSONL:
		err = parseAgentJSONL(r, sk)
	case FormatText:
		err = parseText(r, sk)
	case FormatAIDE:
		err = parseAIDE(r, sk)
	case FormatMLMaster:
		err = parseMLMaster(r, sk)
	case FormatRDAgent:
		err = parseRDAgentStream(r, sk)
	default:
		return nil, fmt.Errorf("unknown log format %q", format)
	}
	if err != nil {
		return nil, err
	}
	return sk.out, nil
}

// parseText makes the whole file one section, streamed in chunks.
func parseText(r io.Reader, sk *sink) error {
	b := sk.builder()
	buf := make([]byte, 64<<10)
	var carry []byte
	for {
		n, err := r.Read(buf)
		chunk := append(carry, buf[:n]...)
		// Keep a character cut at the chunk end for the next chunk.
		cut := len(chunk)
		if err == nil {
			for i := len(chunk) - 1; i >= 0 && i >= len(chunk)-utf8.UTFMax; i-- {
				if utf8.RuneStart(chunk[i]) {
					if !utf8.FullRune(chunk[i:]) {
						cut = i
					}
					break
				}
			}
		}
		b.WriteString(string(chunk[:cut]))
		carry = append([]byte(nil), chunk[cut:]...)
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
	}
	sk.add("full", b)
	return nil
}

// maxLineBytes caps one line of a step log or ML-Master/R&D-Agent log; a
// longer line is cut there (its rest is skipped), so memory stays bounded.
const maxLineBytes = 16 << 20

// lineReader yields lines without their end-of-line, each at most
// maxLineBytes (Long reports whether the last one was cut).
type lineReader struct {
	br   *bufio.Reader
	line []byte
	long bool
	err  error
}

func newLineReader(r io.Reader) *lineReader {
	return &lineReader{br: bufio.NewReaderSize(r, 64<<10)}
}

func (l *lineReader) Next() bool {
	l.line, l.long = l.line[:0], false
	got := false
	for {
		frag, err := l.br.ReadSlice('\n')
		if len(frag) > 0 {
			got = true
		}
		room := maxLineBytes - len(l.line)
		if len(frag) > room {
			l.long = true
			frag = frag[:max(room, 0)]
		}
		l.line = append(l.line, frag...)
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil && err != io.EOF {
			l.err = err
			return false
		}
		if err == io.EOF && !got {
			return false
		}
		l.line = bytes.TrimRight(l.line, "\r\n")
		return true
	}
}

func (l *lineReader) Text() string { return string(l.line) }

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

// AgentStep is one line of a step log (logs/agent.jsonl of the built-in
// agents; the stand-in agent's journal.jsonl). Fields other than these are
// ignored.
type AgentStep struct {
	Step int    `json:"step"`
	Time string `json:"time"`
	Kind string `json:"kind"`
	Text string `json:"text"`
}

// stepLine is an AgentStep as read: a missing step number is told apart
// from step 0 (the reader numbers such steps by their position).
type stepLine struct {
	Step *int   `json:"step"`
	Kind string `json:"kind"`
	Text string `json:"text"`
}

// Step kinds of AgentStep. Other kinds are kept as notes labelled with
// their own kind.
const (
	StepPlan   = "plan"
	StepCode   = "code"
	StepExec   = "exec"
	StepResult = "result"
	StepNote   = "note"
)

// readSteps streams the valid steps of a step log to fn. A line is valid
// when it is a JSON object with a string "kind"; unknown fields are
// ignored. It returns the number of valid and invalid lines and the first
// problem.
func readSteps(r io.Reader, fn func(st stepLine, idx int)) (good, bad int, firstBad error, err error) {
	lr := newLineReader(r)
	line := 0
	for lr.Next() {
		line++
		b := bytes.TrimSpace(lr.line)
		if len(b) == 0 {
			continue
		}
		var st stepLine
		var e error
		switch {
		case lr.long:
			e = fmt.Errorf("line %d: longer than %d bytes", line, maxLineBytes)
		default:
			e = json.Unmarshal(b, &st)
			if e == nil && strings.TrimSpace(st.Kind) == "" {
				e = errors.New(`no "kind"`)
			}
			if e != nil {
				e = fmt.Errorf("line %d: %w", line, e)
			}
		}
		if e != nil {
			bad++
			if firstBad == nil {
				firstBad = e
			}
			continue
		}
		fn(st, good)
		good++
	}
	return good, bad, firstBad, lr.err
}

func parseAgentJSONL(r io.ReadSeeker, sk *sink) error {
	hasPlan := false
	good, bad, firstBad, err := readSteps(r, func(st stepLine, _ int) {
		if st.Kind == StepPlan {
			hasPlan = true
		}
	})
	if err != nil {
		return err
	}
	if good == 0 && bad > 0 {
		return fmt.Errorf("no valid step (%d bad lines; first: %w)", bad, firstBad)
	}
	if _, err := r.Seek(0, io.SeekStart); err != nil {
		return err
	}
	var cur *capBuilder
	curLabel := ""
	iter := 0
	_, _, _, err = readSteps(r, func(st stepLine, i int) {
		step := i
		if st.Step != nil {
			step = *st.Step
		}
		if !hasPlan {
			sk.add(curLabel, cur)
			cur, curLabel = sk.builder(), fmt.Sprintf("step-%d", step)
		} else if st.Kind == StepPlan || i == 0 {
			sk.add(curLabel, cur)
			if st.Kind == StepPlan {
				iter++
			}
			cur, curLabel = sk.builder(), fmt.Sprintf("iter-%d", iter)
		}
		if st.Kind == StepCode && !sk.opts.IncludeCode {
			return
		}
		text := stripCode(st.Text, sk.opts.IncludeCode)
		if text == "" {
			return
		}
		fmt.Fprintf(writerOf(cur), "[step %d] %s\n%s\n\n", step, strings.ToUpper(st.Kind), text)
	})
	if err != nil {
		return err
	}
	sk.add(curLabel, cur)
	return nil
}

// writerOf adapts a capBuilder to fmt.Fprintf.
type builderWriter struct{ b *capBuilder }

func (w builderWriter) Write(p []byte) (int, error) { w.b.WriteString(string(p)); return len(p), nil }

func writerOf(b *capBuilder) io.Writer { return builderWriter{b} }

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

// parseAIDE streams journal.json: {"nodes": [node, ...], ...}, decoding
// one node at a time (other top-level values are skipped token by token).
func parseAIDE(r io.Reader, sk *sink) error {
	dec := json.NewDecoder(bufio.NewReaderSize(r, 64<<10))
	fail := func(err error) error { return fmt.Errorf("AIDE journal: %w", err) }
	if t, err := dec.Token(); err != nil {
		return fail(err)
	} else if d, ok := t.(json.Delim); !ok || d != '{' {
		return fail(errors.New("not a JSON object"))
	}
	sawNodes := false
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return fail(err)
		}
		key, _ := t.(string)
		if key != "nodes" {
			if err := skipValue(dec); err != nil {
				return fail(err)
			}
			continue
		}
		t, err = dec.Token()
		if err != nil {
			return fail(err)
		}
		if t == nil {
			continue
		}
		if d, ok := t.(json.Delim); !ok || d != '[' {
			return fail(errors.New(`"nodes" is not an array`))
		}
		sawNodes = true
		for i := 0; dec.More(); i++ {
			var n aideNode
			if err := dec.Decode(&n); err != nil {
				return fail(fmt.Errorf("node %d: %w", i, err))
			}
			addAIDENode(sk, i, n)
		}
		if _, err := dec.Token(); err != nil {
			return fail(err)
		}
	}
	if _, err := dec.Token(); err != nil {
		return fail(err)
	}
	if !sawNodes {
		return fail(errors.New(`no "nodes" array`))
	}
	return nil
}

// skipValue consumes one JSON value from dec without keeping it.
func skipValue(dec *json.Decoder) error {
	depth := 0
	for {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		if d, ok := t.(json.Delim); ok {
			switch d {
			case '{', '[':
				depth++
			default:
				depth--
			}
		}
		if depth == 0 {
			return nil
		}
	}
}

func addAIDENode(sk *sink, i int, n aideNode) {
	opts := sk.opts
	step := i
	if n.Step != nil {
		step = *n.Step
	}
	b := sk.builder()
	w := writerOf(b)
	wrote := false
	if opts.AIDEFull && strings.TrimSpace(n.Plan) != "" {
		fmt.Fprintf(w, "Plan:\n%s\n\n", stripCode(n.Plan, opts.IncludeCode))
		wrote = true
	}
	if opts.IncludeCode && strings.TrimSpace(n.Code) != "" {
		fmt.Fprintf(w, "Code:\n%s\n\n", strings.TrimSpace(n.Code))
		wrote = true
	}
	if opts.AIDEFull {
		t := rawToText(n.TermOut)
		if t == "" {
			t = rawToText(n.TermOut2)
		}
		if t = strings.TrimSpace(t); t != "" {
			fmt.Fprintf(w, "Execution output:\n%s\n\n", t)
			wrote = true
		}
	}
	if a := stripCode(n.Analysis, opts.IncludeCode); a != "" {
		if wrote {
			b.WriteString("Analysis:\n")
		}
		b.WriteString(a)
	}
	sk.add(fmt.Sprintf("node-%d", step), b)
}

// mlMasterPrefix is the line prefix "[date time] [INFO] [Agent] " of the
// reference harness's run.log, which wraps ML-Master's output.
var mlMasterPrefix = regexp.MustCompile(`^\[\d{4}-\d{2}-\d{2}[^\]]*\]\s+\[INFO\]\s+\[Agent\]\s+`)

// mlMasterRecord is the start of a record in ML-Master's own log files
// (ml-master.log, ml-master.verbose.log): "[date time] LEVEL: message".
var mlMasterRecord = regexp.MustCompile(`^\[\d{4}-\d{2}-\d{2}[^\]]*\]\s+(DEBUG|INFO|WARNING|ERROR|CRITICAL):\s?(.*)$`)
var mlMasterResponse = regexp.MustCompile(`^INFO:ml-master:response(?: without think)?:\s*`)

// normalizeMLMaster maps a line of either layout to the harness's form:
// the run.log prefix is removed, and a record line of ML-Master's own files
// becomes "LEVEL:ml-master:message", so that every new log record (and only
// a new record) ends an analysis block. Continuation lines of a multi-line
// message are returned unchanged.
func normalizeMLMaster(l string) string {
	l = mlMasterPrefix.ReplaceAllString(l, "")
	if m := mlMasterRecord.FindStringSubmatch(l); m != nil {
		return m[1] + ":ml-master:" + m[2]
	}
	return l
}

// mlMasterNoise reports whether a (normalized) line ends an analysis block:
// a log record other than a model response, or the interpreter's
// "execution done" / "ExecutionResult" / "ValueError:" lines.
func mlMasterNoise(l string) bool {
	t := strings.TrimSpace(l)
	if strings.HasPrefix(t, "INFO:ml-master:response") {
		return false
	}
	for _, lvl := range []string{"INFO:", "DEBUG:", "WARNING:", "ERROR:", "CRITICAL:"} {
		if strings.HasPrefix(t, lvl) {
			return true
		}
	}
	return strings.HasPrefix(t, "execution done") || strings.HasPrefix(t, "ExecutionResult") || strings.HasPrefix(t, "ValueError:")
}

// paraWriter writes lines into a builder with code fences removed and runs
// of blank lines collapsed to one, streaming (the line-level form of
// stripCode).
type paraWriter struct {
	b          *capBuilder
	keepCode   bool
	inFence    bool
	wrote      bool
	pendingGap bool
}

func (w *paraWriter) line(l string) {
	if !w.keepCode {
		if w.inFence {
			i := strings.Index(l, "```")
			if i < 0 {
				return
			}
			w.inFence = false
			l = l[i+3:]
		} else if i := strings.Index(l, "```"); i >= 0 && !strings.Contains(l[i+3:], "`") {
			w.inFence = true
			l = l[:i]
		}
	}
	if strings.TrimSpace(l) == "" {
		if w.wrote {
			w.pendingGap = true
		}
		return
	}
	if w.wrote {
		w.b.WriteString("\n")
		if w.pendingGap {
			w.b.WriteString("\n")
		}
	}
	w.pendingGap = false
	w.b.WriteString(l)
	w.wrote = true
}

// parseMLMaster extracts ML-Master's analysis blocks, streaming. It reads
// both the reference harness's run.log (lines prefixed "[date] [INFO]
// [Agent] ", records as "INFO:ml-master:…") and ML-Master's own
// ml-master.log / ml-master.verbose.log ("[date] LEVEL: message"). A block
// starts at a line containing "# Analysis" and ends at the next log record
// that is not a model response ("response:" / "response without think:"),
// or an "execution done", "ExecutionResult" or "ValueError:" line. Inside a
// block, a response record starts a model response that runs to the block's
// end. Analyses and responses become separate sections ("analysis-i",
// "response-i", analyses first), numbered in file order; code fences are
// dropped unless IncludeCode.
func parseMLMaster(r io.Reader, sk *sink) error {
	var analyses, responses []Section
	collect := func(dst *[]Section, label string, b *capBuilder) {
		before := len(sk.out)
		sk.add(label, b)
		if len(sk.out) > before {
			*dst = append(*dst, sk.out[before:]...)
			sk.out = sk.out[:before]
		}
	}
	var an, resp *paraWriter
	capturing := false
	flushResp := func() {
		if resp != nil {
			collect(&responses, fmt.Sprintf("response-%d", len(responses)+1), resp.b)
			resp = nil
		}
	}
	endBlock := func() {
		flushResp()
		if an != nil {
			collect(&analyses, fmt.Sprintf("analysis-%d", len(analyses)+1), an.b)
			an = nil
		}
		capturing = false
	}
	lr := newLineReader(r)
	for lr.Next() {
		l := normalizeMLMaster(lr.Text())
		if strings.Contains(l, "# Analysis") {
			endBlock()
			capturing = true
			an = &paraWriter{b: sk.builder(), keepCode: sk.opts.IncludeCode}
			// The heading line itself is kept only when it is not a log
			// record ("INFO:ml-master:prompt: # Analysis" is not analysis).
			if strings.TrimSpace(l) != "# Analysis" && !mlMasterNoise(l) {
				an.line(l)
			}
			continue
		}
		if !capturing {
			continue
		}
		if mlMasterNoise(l) {
			endBlock()
			continue
		}
		if strings.HasPrefix(l, "INFO:ml-master:response") {
			flushResp()
			resp = &paraWriter{b: sk.builder(), keepCode: sk.opts.IncludeCode}
			resp.line(strings.TrimSpace(mlMasterResponse.ReplaceAllString(l, "")))
			continue
		}
		if resp != nil {
			resp.line(l)
		} else {
			an.line(l)
		}
	}
	if lr.err != nil {
		return lr.err
	}
	endBlock()
	sk.out = append(sk.out, analyses...)
	sk.out = append(sk.out, responses...)
	return nil
}

// rdHeading matches the start of an R&D-Agent feedback field at a line start.
var rdHeading = regexp.MustCompile(`^[ \t]*(Reason:\s*\[Experiment Analysis\]|Observations:|Hypothesis Evaluation:|Code Change Summary:|New Hypothesis:|Target Problem:)`)
var rdCodeLike = regexp.MustCompile("(?s)```.*?```")
var spaceRun = regexp.MustCompile(`\s+`)

// rdFieldLimit caps one extracted R&D-Agent field (the reference keeps at
// most 1,000 characters of each).
const rdFieldLimit = 1000

// rdRawFieldLimit caps the raw text read for one field before its code is
// removed and it is cut to rdFieldLimit, so memory stays bounded.
const rdRawFieldLimit = 1 << 20

// RDAgentTraceFile is the text file the R&D-Agent adapter writes into the
// run's logs/: its session's pickled objects rendered as text inside the
// agent's container (where R&D-Agent's classes can be unpickled), in the
// layout of the reference's unpickled_data.txt (each object's str(),
// separated by "=====" lines).
const RDAgentTraceFile = "rdagent-trace.txt"

// rdMaxJSONBytes caps a JSON-rendered pickle file parseRDAgentStream
// decodes whole; larger ones are read as text.
const rdMaxJSONBytes = 64 << 20

// parseRDAgentStream reads an R&D-Agent text trace, streaming. A file that
// holds one JSON document (the adapter's rendering of one pickle: objects
// as {"__class__": ..., field: value}) is first turned into the text
// layout: every object's reason, code_change_summary, observations,
// hypothesis_evaluation, new_hypothesis and problem_desc become the fields
// "Reason:", "Code Change Summary:", "Observations:", "Hypothesis
// Evaluation:", "New Hypothesis:" and "Target Problem:", as R&D-Agent's own
// str() prints them; a string at the top level (or in a top-level list) is
// read as the text it holds.
func parseRDAgentStream(r io.ReadSeeker, sk *sink) error {
	br := bufio.NewReaderSize(r, 64<<10)
	first, _ := br.Peek(512)
	if t := bytes.TrimLeft(first, " \t\r\n"); len(t) > 0 && (t[0] == '{' || t[0] == '[' || t[0] == '"') {
		data, err := io.ReadAll(io.LimitReader(br, rdMaxJSONBytes+1))
		if err != nil {
			return err
		}
		var v any
		if len(data) <= rdMaxJSONBytes && json.Unmarshal(data, &v) == nil {
			var b strings.Builder
			renderRDJSON(&b, v, 0)
			return rdFields(strings.NewReader(b.String()), sk)
		}
		if _, err := r.Seek(0, io.SeekStart); err != nil {
			return err
		}
		br = bufio.NewReaderSize(r, 64<<10)
	}
	return rdFields(br, sk)
}

var rdJSONFields = []struct{ key, heading string }{
	{"reason", "Reason: "}, {"code_change_summary", "Code Change Summary: "}, {"observations", "Observations: "},
	{"hypothesis_evaluation", "Hypothesis Evaluation: "}, {"new_hypothesis", "New Hypothesis: "}, {"problem_desc", "Target Problem: "},
}

func renderRDJSON(b *strings.Builder, v any, depth int) {
	if depth > 64 {
		return
	}
	switch x := v.(type) {
	case string:
		// A logged text (an LLM answer, a message) at the top level or in a
		// top-level list: its own lines, as str() would print it.
		if depth <= 1 {
			b.WriteString(x + "\n=====\n")
		}
	case []any:
		for _, e := range x {
			renderRDJSON(b, e, depth+1)
		}
	case map[string]any:
		wrote := false
		for _, f := range rdJSONFields {
			if s, ok := x[f.key].(string); ok && strings.TrimSpace(s) != "" {
				b.WriteString(f.heading + s + "\n")
				wrote = true
			}
		}
		if wrote {
			b.WriteString("=====\n")
		}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			switch x[k].(type) {
			case map[string]any, []any:
				renderRDJSON(b, x[k], depth+1)
			}
		}
	}
}

// rdFields extracts R&D-Agent's experiment feedback from a text trace of
// its session: the fields "Reason: [Experiment Analysis]", "Observations:",
// "Hypothesis Evaluation:", "Code Change Summary:" and "Target Problem:",
// each starting at a line start and running to the next field heading or a
// line starting with "=====". Code (``` blocks), literal "\n" escapes and
// repeated whitespace are removed; fields of 50 characters or fewer, and
// fields that start with "{", are dropped; each field keeps at most 1,000
// characters. Consecutive fields are grouped into one section of at most
// three fields, a group also ending after a "Hypothesis Evaluation" field
// ("feedback-i"); "Target Problem" fields become their own sections
// ("target-i"), duplicates removed.
func rdFields(r io.Reader, sk *sink) error {
	var group []string
	nFeedback, nTarget := 0, 0
	seenTarget := map[string]bool{}
	flush := func() {
		if len(group) > 0 {
			nFeedback++
			sk.addText(fmt.Sprintf("feedback-%d", nFeedback), strings.Join(group, "\n"))
		}
		group = nil
	}
	var kind string
	var body strings.Builder
	active := false
	endField := func() {
		if !active {
			return
		}
		active = false
		text := rdCodeLike.ReplaceAllString(body.String(), "")
		body.Reset()
		text = strings.NewReplacer(`\n`, " ", `\r`, " ", `\t`, " ").Replace(text)
		text = strings.TrimSpace(spaceRun.ReplaceAllString(text, " "))
		if utf8.RuneCountInString(text) <= 50 || strings.HasPrefix(text, "{") {
			return
		}
		if rs := []rune(text); len(rs) > rdFieldLimit {
			text = string(rs[:rdFieldLimit])
		}
		switch kind {
		case "Target Problem":
			if !seenTarget[text] {
				seenTarget[text] = true
				nTarget++
				sk.addText(fmt.Sprintf("target-%d", nTarget), "Target Problem: "+text)
			}
			return
		case "New Hypothesis":
			return
		}
		group = append(group, kind+": "+text)
		if len(group) >= 3 || kind == "Hypothesis Evaluation" {
			flush()
		}
	}
	lr := newLineReader(r)
	for lr.Next() {
		l := lr.Text()
		if m := rdHeading.FindStringSubmatchIndex(l); m != nil {
			endField()
			head := l[m[2]:m[3]]
			kind = strings.TrimSpace(strings.SplitN(head, ":", 2)[0])
			active = true
			body.WriteString(l[m[1]:])
			continue
		}
		if strings.HasPrefix(l, "=====") {
			endField()
			continue
		}
		if active && body.Len() < rdRawFieldLimit {
			body.WriteString("\n")
			body.WriteString(l[:min(len(l), rdRawFieldLimit-body.Len())])
		}
	}
	if lr.err != nil {
		return lr.err
	}
	endField()
	flush()
	return nil
}
