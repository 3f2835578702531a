// Package grade is the grade stage: it finds the submissions under the runs
// folder, grades those whose grade is missing or stale (the submission, the
// private answers or the grader changed), records every grade in the store
// and appends it to results/grades.jsonl. Run is the entry point; Folder
// grades one folder for gradeOne.
package grade

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rexmle/rexmle/pipeline/fsutil"
	"github.com/rexmle/rexmle/pipeline/runstatus"
	"github.com/rexmle/rexmle/pipeline/workpool"

	"github.com/rexmle/rexmle/metrics/num"
	"github.com/rexmle/rexmle/pipeline/challenge"
	_ "github.com/rexmle/rexmle/pipeline/challenges/all" // every challenge registers itself
	"github.com/rexmle/rexmle/pipeline/config"
	"github.com/rexmle/rexmle/pipeline/rank"
	"github.com/rexmle/rexmle/pipeline/store"
)

// Options configures Run. The caller (pipeline/stages) turns the
// environment into these.
type Options struct {
	Benchmark  *config.Benchmark
	Store      *store.Store
	RunsDir    string         // results/runs: <group>/<challenge>/<agent>/seed-<n>/submission
	ResultsDir string         // where grades.jsonl is appended to
	Challenges []string       // the challenge ids to grade; others are left alone
	Mode       challenge.Mode // the grading mode stored (the other mode's differences are recorded too)
	Force      bool           // regrade even the submissions whose grade is current
	Setting    string         // the setting recorded for a run whose run.json names none
	// PrivateDir returns the private answers folder a run group's submissions
	// of a challenge are graded against, or an error saying why there is none
	// (not prepared, or prepared from the other kind of data).
	PrivateDir func(group, challenge string) (string, error)
	Progress   func(total int) Progress // nil: no progress
	Out        io.Writer                // the stage's summary; nil: os.Stdout
	Rel        func(path string) string // how paths are shown; nil: as they are
}

// Progress is told of every finished submission.
type Progress interface {
	Step(item string, ok bool)
	Finish()
}

func (o *Options) rel(p string) string {
	if o.Rel == nil {
		return p
	}
	return o.Rel(p)
}

// Submission is one agent run's submission folder found under results/runs:
// results/runs/<group>/<challenge>/<agent>/seed-<n>/submission.
type Submission struct {
	RunID     string // <group>/<challenge>/<agent>/seed-<n>
	Group     string
	Challenge string
	Agent     string
	Seed      int
	Dir       string // the run folder
}

// SubmissionDir is the folder the grader reads.
func (s Submission) SubmissionDir() string { return filepath.Join(s.Dir, "submission") }

// DiscoverSubmissions lists the run folders under root that hold a submission folder.
func DiscoverSubmissions(root string) ([]Submission, error) {
	var out []Submission
	groups, err := os.ReadDir(root)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	for _, g := range groups {
		if !g.IsDir() {
			continue
		}
		matches, _ := filepath.Glob(filepath.Join(root, g.Name(), "*", "*", "seed-*", "submission"))
		for _, m := range matches {
			runDir := filepath.Dir(m)
			seed, err := strconv.Atoi(strings.TrimPrefix(filepath.Base(runDir), "seed-"))
			if err != nil {
				continue
			}
			agent := filepath.Base(filepath.Dir(runDir))
			ch := filepath.Base(filepath.Dir(filepath.Dir(runDir)))
			out = append(out, Submission{RunID: strings.Join([]string{g.Name(), ch, agent, "seed-" + strconv.Itoa(seed)}, "/"),
				Group: g.Name(), Challenge: ch, Agent: agent, Seed: seed, Dir: runDir})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].RunID < out[j].RunID })
	return out, nil
}

// Line is one line of results/grades.jsonl and gradeOne's output.
type Line struct {
	RunID       string             `json:"run_id,omitempty"`
	Challenge   string             `json:"challenge"`
	Agent       string             `json:"agent,omitempty"`
	Mode        string             `json:"mode"`
	Valid       bool               `json:"valid"`
	Error       string             `json:"error,omitempty"`
	Metrics     map[string]float64 `json:"metrics,omitempty"`
	Positions   map[string]int     `json:"positions,omitempty"`
	MeanRank    *float64           `json:"mean_rank,omitempty"`
	Percentile  *float64           `json:"percentile,omitempty"`
	OtherMode   map[string]float64 `json:"other_mode_differences,omitempty"` // metric values that differ in the other mode
	Notes       []string           `json:"notes,omitempty"`
	GraderMS    float64            `json:"grader_ms"`
	Submission  string             `json:"submission"`
	SubmitHash  string             `json:"submission_sha256,omitempty"`
	AnswersHash string             `json:"answers_sha256,omitempty"` // the private answers graded against
	GraderVer   string             `json:"grader_version,omitempty"` // see graderVersion
	GradedAt    string             `json:"graded_at"`
	cases       []challenge.Case
	raw         map[string]float64
	otherRaw    map[string]float64
	otherModeID challenge.Mode
	rank        *rank.Result
}

// treeHash is one hash over a folder's file names and contents.
func treeHash(dir string) (string, error) {
	files, err := challenge.HashTree(dir)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	for _, k := range challenge.SortedKeys(files) {
		fmt.Fprintf(h, "%s\x00%s\n", k, files[k])
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// maxHashedFile is the largest submission file whose content is hashed for
// the grade cache; a larger one (which no grader accepts anyway) enters the
// key by its size, time and inode, so a sparse giant file cannot make the
// stage read gigabytes before the grader rejects it.
const maxHashedFile = 1 << 30

// submissionHash is treeHash for a submission folder: regular files only,
// none followed out through a link, giant files by their metadata.
func submissionHash(dir string) (string, error) {
	h := sha256.New()
	var names []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			names = append(names, p)
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	sort.Strings(names)
	for _, p := range names {
		r, _ := filepath.Rel(dir, p)
		info, err := os.Lstat(p)
		if err != nil {
			return "", err
		}
		if info.Size() > maxHashedFile {
			fmt.Fprintf(h, "%s\x00size %d mtime %d\n", filepath.ToSlash(r), info.Size(), info.ModTime().UnixNano())
			continue
		}
		f, err := challenge.OpenRegular(p)
		if err != nil {
			return "", err
		}
		fh := sha256.New()
		_, err = io.Copy(fh, io.LimitReader(f, maxHashedFile+1))
		f.Close()
		if err != nil {
			return "", fmt.Errorf("hash %s: %w", p, err)
		}
		fmt.Fprintf(h, "%s\x00%x\n", filepath.ToSlash(r), fh.Sum(nil))
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// gradersVersion is bumped when grading changes in a way neither the metric
// cards nor the quirks show (a fixed bug in a metric): every grade is then
// redone. A challenge may also version its own grader (GraderVersion).
var gradersVersion = "4" // 3: per-case details (challenge.Case.Detail); 4: the fidelity fixes of the second differential run (resizes, merges, CSV and JSON reading)

// versioned is what a challenge implements to version its own grader.
type versioned interface{ GraderVersion() string }

// graderVersion identifies the grader of c: the common version, the
// challenge's own if it has one, and every metric card and quirk text, so a
// changed card (a changed convention) also regrades.
func graderVersion(c challenge.Grader) string {
	h := sha256.New()
	fmt.Fprintf(h, "graders %s\n", gradersVersion)
	if v, ok := c.(versioned); ok {
		fmt.Fprintf(h, "challenge %s\n", v.GraderVersion())
	}
	for _, m := range c.Metrics() {
		fmt.Fprintf(h, "metric %s\x00%s\x00%v\x00%s\n", m.Name, m.Direction, m.Ranked, m.Card)
	}
	for _, q := range c.Quirks() {
		fmt.Fprintf(h, "quirk %s\x00%s\x00%s\x00%s\n", q.ID, strings.Join(q.Metrics, ","), q.Reference, q.Official)
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// answerHashes remembers the fingerprint of each private-answers folder
// for one stage, so it is hashed once however many runs it grades.
type answerHashes struct {
	mu   sync.Mutex
	m    map[string]answerHash
	memo *hashMemo // content hashes by file stats across runs of the stage; nil: hash every time
}

type answerHash struct {
	hash string
	err  error
}

func (a *answerHashes) get(priv string, rel func(string) string) (string, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if v, ok := a.m[priv]; ok {
		return v.hash, v.err
	}
	h, err := a.memo.hash("answers", priv, treeHash)
	if err != nil {
		err = fmt.Errorf("fingerprint of the private answers %s: %w", rel(priv), err)
	}
	if a.m == nil {
		a.m = map[string]answerHash{}
	}
	a.m[priv] = answerHash{h, err}
	return h, err
}

// Folder grades dir in mode (and, with both, the other mode too, to record
// where they differ) and ranks the result on the challenge's leaderboard
// (cc; nil: not ranked). It writes nothing.
func Folder(ctx context.Context, c challenge.Grader, cc *config.Challenge, dir, privateDir string, mode challenge.Mode, both bool) *Line {
	line := &Line{Challenge: c.ID(), Mode: string(mode), Submission: dir, GradedAt: store.Now()}
	if h, err := submissionHash(dir); err == nil {
		line.SubmitHash = h
	}
	start := time.Now()
	res, err := challenge.SafeGrade(ctx, c, dir, privateDir, mode)
	line.GraderMS = float64(time.Since(start).Microseconds()) / 1000
	if err != nil {
		line.Error = err.Error()
		var ge *challenge.GraderError
		if errors.As(err, &ge) {
			line.Error += "\n" + ge.Stack
		}
		return line
	}
	line.Valid = true
	line.raw = res.Values
	line.Metrics = res.Rounded()
	line.Notes = res.Notes
	line.cases = res.Cases
	if both {
		line.gradeOther(ctx, c, dir, privateDir, mode)
	}
	if cc != nil {
		r := rank.Rank(cc.Board(), res.Values)
		line.rank = &r
		line.Positions = r.Positions
		if r.Status == rank.OK {
			mr, pct := num.Round5(r.MeanRank), num.Round5(r.Percentile)
			line.MeanRank, line.Percentile = &mr, &pct
		}
	}
	return line
}

// gradeOther grades dir in the mode other than mode and keeps the values
// that differ. A submission invalid in the other mode records nothing; any
// other failure there (a grader crash, an unreadable answer) is recorded as a
// note, so the missing comparison is never silent.
func (line *Line) gradeOther(ctx context.Context, c challenge.Grader, dir, privateDir string, mode challenge.Mode) {
	other := challenge.Official
	if mode == challenge.Official {
		other = challenge.Reference
	}
	ores, err := challenge.SafeGrade(ctx, c, dir, privateDir, other)
	if err != nil {
		if !challenge.IsInvalid(err) {
			line.Notes = append(line.Notes, fmt.Sprintf("%s mode failed, so where the two modes differ is unknown: %v", other, err))
		}
		return
	}
	line.otherModeID = other
	line.otherRaw = ores.Values
	for k, v := range ores.Rounded() {
		if mv, ok := line.Metrics[k]; !ok || (mv != v && !(math.IsNaN(mv) && math.IsNaN(v))) {
			if line.OtherMode == nil {
				line.OtherMode = map[string]float64{}
			}
			line.OtherMode[k] = v
		}
	}
}

// Marshal writes the line as JSON; values JSON cannot carry (NaN, ±Inf)
// are written as the strings "NaN", "Infinity" and "-Infinity".
func (l *Line) Marshal() ([]byte, error) {
	type alias Line
	enc := func(m map[string]float64) map[string]any {
		if m == nil {
			return nil
		}
		out := make(map[string]any, len(m))
		for k, v := range m {
			switch {
			case math.IsNaN(v):
				out[k] = "NaN"
			case math.IsInf(v, 1):
				out[k] = "Infinity"
			case math.IsInf(v, -1):
				out[k] = "-Infinity"
			default:
				out[k] = v
			}
		}
		return out
	}
	return json.Marshal(struct {
		*alias
		Metrics   map[string]any `json:"metrics,omitempty"`
		OtherMode map[string]any `json:"other_mode_differences,omitempty"`
	}{(*alias)(l), enc(l.Metrics), enc(l.OtherMode)})
}

// Run grades every submission under o.RunsDir whose submission has no
// grade yet for the mode, or changed since. Every failure is reported: an
// invalid submission in the summary, a grade that could not be made or
// recorded (a corrupt run.json, a failed append to grades.jsonl) in the
// error.
func Run(ctx context.Context, o Options) error {
	if o.Benchmark == nil || o.Store == nil || o.PrivateDir == nil {
		return errors.New("grade: no benchmark, store or private answers")
	}
	out := o.Out
	if out == nil {
		out = os.Stdout
	}
	mode := o.Mode
	subs, err := DiscoverSubmissions(o.RunsDir)
	if err != nil {
		return fmt.Errorf("grade: %w", err)
	}
	e := &o
	answers := &answerHashes{memo: loadMemo(filepath.Join(o.ResultsDir, ".stamps", "grade-hashes.json"))}
	defer answers.memo.save() // best effort: without it the next run hashes again
	todo, unended := pendingSubmissions(ctx, e, answers, subs)
	if unended > 0 {
		fmt.Fprintf(out, "grade: %d run(s) not ended (running, or interrupted and to be restarted by the run stage) left ungraded\n", unended)
	}
	if len(todo) == 0 {
		fmt.Fprintf(out, "grade: nothing to grade (%d submissions, all graded)\n", len(subs))
		return nil
	}
	jsonl := filepath.Join(o.ResultsDir, "grades.jsonl")
	if err := os.MkdirAll(filepath.Dir(jsonl), 0o755); err != nil {
		return err
	}
	jf, err := os.OpenFile(jsonl, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("grade: %w", err)
	}
	defer jf.Close()
	t := gradeAll(ctx, e, answers, todo, jf, jsonl)
	if err := ctx.Err(); err != nil {
		// Interrupted: what was graded is kept; nothing cut short is recorded.
		fmt.Fprintf(out, "grade: interrupted; %d graded and kept, %d not graded yet; rerun `mage grade` to resume\n", t.graded+len(t.failures), len(todo)-t.graded-len(t.failures))
		return err
	}
	fmt.Fprintf(out, "grade: %d graded, %d invalid or failed (mode %s); lines appended to %s\n", t.graded, len(t.failures), mode, o.rel(jsonl))
	for _, f := range t.failures {
		fmt.Fprintln(out, "  "+f)
	}
	if err := jf.Close(); err != nil {
		t.errs = append(t.errs, fmt.Sprintf("close %s: %v", o.rel(jsonl), err))
	}
	if len(t.errs) > 0 {
		sort.Strings(t.errs)
		return fmt.Errorf("grade: %d run(s) could not be graded or recorded:\n  %s", len(t.errs), strings.Join(t.errs, "\n  "))
	}
	return ctx.Err()
}

// pendingSubmissions are the submissions of the chosen challenges whose run
// has ended and whose grade is not current (all of them with Force), and
// the number of runs not ended.
func pendingSubmissions(ctx context.Context, e *Options, answers *answerHashes, subs []Submission) (todo []Submission, unended int) {
	want := map[string]bool{}
	for _, id := range e.Challenges {
		want[id] = true
	}
	for _, s := range subs {
		if !want[s.Challenge] {
			continue
		}
		if !runEnded(e.Benchmark, s) {
			unended++
			continue
		}
		if !e.Force && gradeIsCurrent(ctx, e.Store, e, answers, s, e.Mode) {
			continue
		}
		todo = append(todo, s)
	}
	return todo, unended
}

// gradeTally counts what gradeAll did: valid grades, invalid or failed
// submissions, and the runs that could not be graded or recorded.
type gradeTally struct {
	graded         int
	failures, errs []string
}

// gradeAll grades the submissions with the benchmark's workers, saves each
// grade and appends its line to jf (the file jsonl); a grade cut short by
// ctx is not recorded.
func gradeAll(ctx context.Context, e *Options, answers *answerHashes, todo []Submission, jf *os.File, jsonl string) *gradeTally {
	workers := e.Benchmark.Grading.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	var bar Progress = noProgress{}
	if e.Progress != nil {
		bar = e.Progress(len(todo))
	}
	var mu sync.Mutex
	t := &gradeTally{}
	workpool.Each(ctx, len(todo), workers, func(i int) {
		s := todo[i]
		line, key := gradeSubmission(ctx, e, answers, s, e.Mode)
		if ctx.Err() != nil {
			return // cut short by an interrupt: not a grade; the next run grades it
		}
		err := saveGrade(ctx, e.Store, e, s, line, key)
		mu.Lock()
		defer mu.Unlock()
		switch {
		case err != nil:
			t.errs = append(t.errs, fmt.Sprintf("%s: %v", s.RunID, err))
		case !line.Valid:
			t.failures = append(t.failures, fmt.Sprintf("%s: %s", s.RunID, firstLine(line.Error)))
		default:
			t.graded++
		}
		if err == nil {
			b, err := line.Marshal()
			if err == nil {
				_, err = jf.Write(append(b, '\n'))
			}
			if err != nil {
				t.errs = append(t.errs, fmt.Sprintf("%s: append to %s: %v", s.RunID, e.rel(jsonl), err))
			}
		}
		bar.Step(s.RunID, line.Valid && err == nil)
	})
	bar.Finish()
	return t
}

type noProgress struct{}

func (noProgress) Step(string, bool) {}
func (noProgress) Finish()           {}

// gradeKey is what a stored grade must match to be reused.
type gradeKey struct {
	submission, answers, grader string
}

// keyOf computes the grade key of s, or an error saying what could not be read.
func keyOf(e *Options, answers *answerHashes, s Submission) (gradeKey, string, error) {
	var k gradeKey
	c, ok := challenge.Lookup(s.Challenge)
	if !ok {
		return k, "", fmt.Errorf("no grader registered for challenge %s", s.Challenge)
	}
	priv, err := e.PrivateDir(s.Group, s.Challenge)
	if err != nil {
		return k, "", err
	}
	ah, err := answers.get(priv, e.rel)
	if err != nil {
		return k, "", err
	}
	k.answers = ah
	k.grader = graderVersion(c)
	return k, priv, nil
}

// gradeIsCurrent reports whether the store holds a grade of s in mode for
// the same submission, private answers and grader.
func gradeIsCurrent(ctx context.Context, st *store.Store, e *Options, answers *answerHashes, s Submission, mode challenge.Mode) bool {
	g, ok, err := st.GradeKeyOf(ctx, s.RunID)
	if err != nil || !ok || g.Mode != string(mode) {
		return false
	}
	k, _, err := keyOf(e, answers, s)
	if err != nil || k.answers != g.AnswersHash || k.grader != g.GraderVersion {
		return false
	}
	h, err := answers.memo.hash("submission", s.SubmissionDir(), submissionHash)
	return err == nil && h == g.SubmissionHash
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

func gradeSubmission(ctx context.Context, e *Options, answers *answerHashes, s Submission, mode challenge.Mode) (*Line, gradeKey) {
	fail := func(msg string) *Line {
		return &Line{RunID: s.RunID, Challenge: s.Challenge, Agent: s.Agent, Mode: string(mode), Error: msg, Submission: s.SubmissionDir(), GradedAt: store.Now()}
	}
	k, priv, err := keyOf(e, answers, s)
	if err != nil {
		return fail(err.Error()), k
	}
	c, _ := challenge.Lookup(s.Challenge)
	cc, _ := e.Benchmark.Challenge(s.Challenge)
	// `mage grade` records both modes, so the site can show where they differ.
	line := Folder(ctx, c, cc, s.SubmissionDir(), priv, mode, true)
	line.RunID, line.Agent = s.RunID, s.Agent
	line.AnswersHash, line.GraderVer = k.answers, k.grader
	k.submission = line.SubmitHash
	if k.submission != "" {
		answers.memo.put("submission", s.SubmissionDir(), k.submission) // so the next run's check reads no data
	}
	return line, k
}

// runMeta is the part of run.json the grade stage reads.
type runMeta struct {
	Backend string `json:"backend"`
	Setting string `json:"setting"`
	Status  string `json:"status"`
	Start   string `json:"started_at"`
	End     string `json:"ended_at"`
}

// readRunMeta reads the run folder's run.json; a missing one gives the
// zero value, an unreadable or corrupt one an error.
// runEnded: the run's submission is final. A run still running (another
// stage or a Slurm job writes it) is not; nor is one a stopped stage left
// interrupted, which the next run stage restarts from a clean folder,
// unless its profile keeps interrupted runs (resume = "mark"). A Ctrl-C'd
// run's partial submission was graded and ranked as done.
func runEnded(b *config.Benchmark, s Submission) bool {
	meta, err := readRunMeta(s.Dir, func(p string) string { return p })
	if err != nil {
		return true // graded, and the corrupt run.json reported there
	}
	switch meta.Status {
	case string(runstatus.Running):
		return false
	case string(runstatus.Interrupted):
		p, ok := b.Profiles[s.Group]
		return ok && p.Resume == "mark"
	}
	return true
}

func readRunMeta(dir string, rel func(string) string) (runMeta, error) {
	var meta runMeta
	p := filepath.Join(dir, "run.json")
	b, err := fsutil.ReadFileIn(dir, "run.json", 16<<20)
	if errors.Is(err, fs.ErrNotExist) {
		return meta, nil
	}
	if err != nil {
		return meta, fmt.Errorf("run.json: %w", err)
	}
	if err := json.Unmarshal(b, &meta); err != nil {
		return meta, fmt.Errorf("%s is corrupt (%s): fix or remove it, or rerun the run", rel(p), challenge.Clip(err.Error()))
	}
	return meta, nil
}

func saveGrade(ctx context.Context, st *store.Store, e *Options, s Submission, line *Line, key gradeKey) error {
	meta, err := readRunMeta(s.Dir, e.rel)
	if err != nil {
		return err
	}
	if meta.Backend == "" {
		if a, ok := e.Benchmark.Agent(s.Agent); ok {
			meta.Backend = a.Backend
		} else {
			meta.Backend = "unknown"
		}
	}
	if meta.Setting == "" {
		meta.Setting = e.Setting
	}
	status := store.RunDone
	if !line.Valid {
		status = store.RunInvalid
	}
	cases := make([]store.CaseValues, len(line.cases))
	for i, cs := range line.cases {
		cases[i] = store.CaseValues{Case: cs.ID, Values: cs.Values, Detail: cs.Detail}
	}
	return st.Update(ctx, func(tx *store.Tx) error {
		if err := tx.PutRun(ctx, store.Run{ID: s.RunID, Source: s.Group, Setting: meta.Setting, Backend: meta.Backend,
			Challenge: s.Challenge, Agent: s.Agent, Seed: s.Seed, Status: status, Detail: firstLine(line.Error),
			SubmissionDir: s.SubmissionDir(), StartedAt: meta.Start, EndedAt: meta.End}); err != nil {
			return err
		}
		vals := line.raw
		if vals == nil {
			vals = map[string]float64{}
		}
		if err := tx.PutMetricValues(ctx, s.RunID, vals); err != nil {
			return err
		}
		if err := tx.PutGrade(ctx, store.Grade{RunID: s.RunID, Mode: line.Mode, Valid: line.Valid, Error: line.Error,
			SubmissionHash: line.SubmitHash, GraderMS: line.GraderMS, GradedAt: line.GradedAt, Notes: strings.Join(line.Notes, "\n"),
			AnswersHash: key.answers, GraderVersion: key.grader}); err != nil {
			return err
		}
		if err := tx.PutCaseValues(ctx, s.RunID, cases); err != nil {
			return err
		}
		if err := tx.PutModeValues(ctx, s.RunID, string(line.otherModeID), line.otherRaw); err != nil {
			return err
		}
		if line.rank != nil {
			return tx.PutRank(ctx, s.RunID, *line.rank)
		}
		return tx.DeleteRank(ctx, s.RunID)
	})
}
