// Package challenge defines what a benchmark challenge is to the pipeline and
// keeps the registry of them. Each challenge package under
// pipeline/challenges/ registers itself from init, the way image formats and
// database/sql drivers do: a single task with Register, a family of tasks
// (PUMA, TopCoW/TopBrain, PANTHER) from its table of variants with
// RegisterFamily; pipeline/challenges/all imports every one of them.
package challenge

import (
	"context"
	"fmt"
	"io"
	"sort"
	"sync"

	"github.com/rexmle/rexmle/metrics/num"
)

// Mode selects which evaluation a grader follows where the reference
// implementation's grader departs from the challenge's own published one.
type Mode string

const (
	// Reference reproduces the reference (ReX-MLE) graders exactly, quirks
	// included: it is what makes our numbers comparable with the paper's.
	Reference Mode = "reference"
	// Official follows the challenge organisers' published evaluation.
	Official Mode = "official"
)

// ParseMode accepts "reference" (also the empty string) and "official".
func ParseMode(s string) (Mode, error) {
	switch s {
	case "", string(Reference):
		return Reference, nil
	case string(Official):
		return Official, nil
	}
	return "", fmt.Errorf("grading mode %q: want %q or %q", s, Reference, Official)
}

// Direction says which way a metric improves.
type Direction string

const (
	HigherBetter Direction = "higher_better"
	LowerBetter  Direction = "lower_better"
)

// MetricCard documents one metric a grader returns.
type MetricCard struct {
	Name      string    // key in Result.Values; the leaderboard column name for ranked metrics
	Direction Direction // which way is better
	Ranked    bool      // a leaderboard column, counted in the mean rank
	Card      string    // one line: what it measures, units, empty-mask and degenerate conventions
}

// Quirk is one place where the reference grader departs from the
// challenge's official evaluation. Graders implement both behaviours and
// choose by Mode.
type Quirk struct {
	ID        string   // short stable id, e.g. "hd-voxels"
	Metrics   []string // the metric names it changes
	Reference string   // what the reference grader does
	Official  string   // what the official evaluation does
}

// Case holds the per-case metric values of one graded case (image, volume).
//
// Detail is optional, grader-defined and opaque to everything but the
// grader's own challenge.CaseAggregator: what a metric that is not a mean
// over cases (COCO AP, F1 over pooled detections, accuracies over pooled
// outcomes) needs to be recomputed from a resample of cases — e.g. the
// case's scored detections and their matches. The store keeps it beside the
// values; keep it compact (a few hundred bytes per case).
type Case struct {
	ID     string
	Values map[string]float64
	Detail []byte
}

// Result is what a grader returns: unrounded values (positions are computed
// from them), in the order the grader lists them, plus per-case values.
type Result struct {
	Mode   Mode
	Values map[string]float64
	Order  []string // keys of Values in display order
	Cases  []Case
	Notes  []string // anything the user should know about this grading (e.g. resized predictions)
}

// Set records a metric value, keeping the display order.
func (r *Result) Set(name string, v float64) {
	if r.Values == nil {
		r.Values = map[string]float64{}
	}
	if _, ok := r.Values[name]; !ok {
		r.Order = append(r.Order, name)
	}
	r.Values[name] = v
}

// Rounded returns the values rounded to 5 decimals, as the reference's
// grader wrapper returns them.
func (r *Result) Rounded() map[string]float64 {
	out := make(map[string]float64, len(r.Values))
	for k, v := range r.Values {
		out[k] = num.Round5(v)
	}
	return out
}

// Grader is what grading needs of a challenge: its metrics, the
// reference's departures from the official evaluation, and the grader.
type Grader interface {
	// ID is the challenge id used everywhere (benchmark.toml, data folders), e.g. "isles22".
	ID() string
	// Metrics lists every metric Grade returns, ranked ones first.
	Metrics() []MetricCard
	// Quirks lists where the reference grader departs from the official evaluation.
	Quirks() []Quirk
	// Grade scores the submission folder against the private answers.
	// Problems with the submission are returned as *InvalidSubmission.
	Grade(ctx context.Context, submissionDir, privateDir string, mode Mode) (*Result, error)
}

// Preparer is what preparation needs: the demo's synthetic raw data and the
// reference's split into public and private folders.
type Preparer interface {
	ID() string
	// Synthesize writes a deterministic dataset for seed into rawDir, in the
	// layout and formats the real download has: tiny at the default size,
	// with size.Count(default, real) cases otherwise (real: the download's
	// case count), and at the real image size when size.RealImages()
	// (each synthesizer records its sizes and their sources).
	Synthesize(ctx context.Context, rawDir string, seed int64, size SynthSize) error
	// Prepare turns raw data into dataDir/public (what the agent sees: train
	// inputs and labels, test inputs, sample_submission.csv, description.md)
	// and dataDir/private (the answers), as the reference preparer does.
	Prepare(ctx context.Context, rawDir, dataDir string) error
}

// BuiltinAgents is what the demo's built-in agents need.
type BuiltinAgents interface {
	ID() string
	// SampleSubmission writes into outDir what the reference's dummy agent
	// submits: public/sample_submission.csv and whatever files it names.
	SampleSubmission(ctx context.Context, publicDir, outDir string) error
	// Baseline trains a simple, real method on the public training data and
	// writes a valid submission for the test inputs into outDir, narrating
	// what it does, one line per step, to log (the built-in demo agent).
	Baseline(ctx context.Context, publicDir, outDir string, log io.Writer) error
}

// Challenge is one benchmark task: everything a registered challenge
// provides. Consumers take the narrower interface they use (Grader,
// Preparer, BuiltinAgents).
type Challenge interface {
	Grader
	Preparer
	BuiltinAgents
}

// Oracle is an optional extension for tests, found by type assertion (as
// database/sql/driver's optional interfaces are): submissions built from
// the private answers and uninformed ones. The conformance kit
// (challengetest) requires it of every registered challenge.
type Oracle interface {
	// Perfect writes the submission built from the private answers.
	Perfect(ctx context.Context, publicDir, privateDir, outDir string) error
	// Trivial writes a valid but uninformed submission: all background,
	// no detections, a constant score.
	Trivial(ctx context.Context, publicDir, outDir string) error
}

var (
	regMu    sync.RWMutex
	registry = map[string]Challenge{}
)

// Register makes a challenge available by its id. It panics on a duplicate
// id or a nil challenge, as database/sql.Register does: both are programming
// errors found at start-up.
func Register(c Challenge) {
	regMu.Lock()
	defer regMu.Unlock()
	if c == nil {
		panic("challenge: Register of nil challenge")
	}
	if _, dup := registry[c.ID()]; dup {
		panic("challenge: Register called twice for " + c.ID())
	}
	registry[c.ID()] = c
}

// Lookup returns the registered challenge with the id.
func Lookup(id string) (Challenge, bool) {
	regMu.RLock()
	defer regMu.RUnlock()
	c, ok := registry[id]
	return c, ok
}

// IDs returns the registered ids, sorted.
func IDs() []string {
	regMu.RLock()
	defer regMu.RUnlock()
	ids := make([]string, 0, len(registry))
	for id := range registry {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}
