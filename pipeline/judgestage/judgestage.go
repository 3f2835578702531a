// Package judgestage is the pipeline's judge stage: it scores the logs of
// a profile's finished runs against the rubric of winning strategies
// (pipeline/judge), stores the scores and capability profiles, writes
// results/capabilities.csv and the agreement between judges
// (results/judge-agreement.csv), and prints agreement tables on request.
package judgestage

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/rexmle/rexmle/pipeline/config"
	"github.com/rexmle/rexmle/pipeline/fsutil"
	"github.com/rexmle/rexmle/pipeline/judge"
	"github.com/rexmle/rexmle/pipeline/store"
)

// Options configures Run. The caller (pipeline/stages) turns the settings
// into these.
type Options struct {
	Benchmark   *config.Benchmark
	ProfileName string         // the run group judged: runs of other profiles are left alone
	Profile     config.Profile // its judge, when it names one, replaces the benchmark's
	Force       bool           // judge again what the cache holds
	// Getenv reads the variables the configuration names (the LLM judge's
	// API key) from the host environment the settings captured.
	Getenv func(name string) string
	// OpenStore opens the store (with the benchmark's challenges in it).
	OpenStore func(ctx context.Context) (*store.Store, error)
	Progress  func(total int) Progress // nil: no progress
	Out       io.Writer                // the stage's summary; nil: os.Stdout
	Rel       func(path string) string // how paths are shown; nil: as they are
}

// Progress is told of every judged run.
type Progress interface {
	Step(item string, ok bool)
	Finish()
}

func (o *Options) out() io.Writer {
	if o.Out == nil {
		return os.Stdout
	}
	return o.Out
}

func (o *Options) rel(p string) string {
	if o.Rel == nil {
		return p
	}
	return o.Rel(p)
}

// Run scores the logs of the profile's runs with the configured judge
// (heuristic on the demo profile) and writes results/capabilities.csv.
// Failed, interrupted and unfinished runs are left out of the profiles and
// counted (n_failed). When the judge fails on a section, or a run's logs
// cannot be read, it returns an error and leaves capabilities.csv and the
// runs' earlier scores as they were. Where the store holds scores of
// another judge with the same rubric (or results/judge-labels.csv holds
// human labels), their agreement is written to results/judge-agreement.csv.
// The report is nil when no run could be judged.
func Run(ctx context.Context, o Options) (*judge.Report, error) {
	b := o.Benchmark
	all, err := judge.DiscoverRuns(b.Path(b.Paths.Runs))
	if err != nil {
		return nil, fmt.Errorf("judge: no runs to judge (run `go run mage.go run` first): %w", err)
	}
	runs := judge.FilterGroup(all, o.ProfileName)
	if len(runs) == 0 {
		return nil, fmt.Errorf("judge: no runs of profile %q under %s (%d runs of other profiles; run `REXMLE_PROFILE=%s go run mage.go run` first)",
			o.ProfileName, o.rel(b.Path(b.Paths.Runs)), len(all), o.ProfileName)
	}
	kind := b.Judge.Kind
	if o.Profile.Judge != "" {
		kind = o.Profile.Judge
	}
	st, err := o.OpenStore(ctx)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	cfg := judge.Config{
		RubricPath: b.Path(b.Judge.Rubric),
		Judge:      kind,
		OpenAI: judge.OpenAIConfig{Model: b.Judge.Model, BaseURL: b.Judge.BaseURL, APIKeyEnv: b.Judge.APIKeyEnv, Getenv: o.Getenv,
			Timeout: b.Judge.Timeout.Duration, Concurrency: b.Judge.Concurrency, AnswerRetries: b.Judge.Retries},
		Ingest: judge.IngestOptions{MaxChars: b.Judge.MaxChars},
		Force:  o.Force,
	}
	var bar Progress
	cfg.Progress = func(p judge.Progress) {
		if bar == nil {
			if o.Progress == nil {
				bar = noProgress{}
			} else {
				bar = o.Progress(p.Total)
			}
		}
		bar.Step(fmt.Sprintf("%s (cache hits %d, errors %d)", p.Run, p.CacheHits, p.Errors), true)
	}
	rep, err := judge.Run(ctx, st, cfg, runs)
	if bar != nil {
		bar.Finish()
	}
	if err != nil {
		return rep, fmt.Errorf("judge: %w", err)
	}
	w := o.out()
	results := b.Path(b.Paths.Results)
	out := filepath.Join(results, "capabilities.csv")
	fmt.Fprintf(w, "judge (%s, %s, profile %s): %d runs (%d left out: failed, interrupted or unfinished), %d sections, %d sent to the judge, %d from cache, %d failed, %d strategies undecided\n",
		rep.JudgeKind, rep.Judge, o.ProfileName, rep.Runs, len(rep.Excluded), rep.Sections, rep.Judged, rep.CacheHits, rep.Errors, rep.MissingStrategies)
	for _, k := range sortedKeys(rep.Excluded) {
		fmt.Fprintf(w, "  left out %s: %s\n", k, rep.Excluded[k])
	}
	for _, k := range sortedKeys(rep.RunErrors) {
		fmt.Fprintf(w, "  %s: %s\n", k, rep.RunErrors[k])
	}
	if err := rep.Err(); err != nil {
		return rep, fmt.Errorf("%w; %s left as it was", err, o.rel(out))
	}
	if err := judge.WriteCapabilitiesCSV(out, rep.Profiles.ByAgent); err != nil {
		return rep, fmt.Errorf("judge: %w", err)
	}
	if err := judge.StoreProfiles(ctx, st, o.ProfileName, rep); err != nil {
		return rep, fmt.Errorf("judge: %w", err)
	}
	line, err := writeAgreement(ctx, st, rep, results)
	if err != nil {
		return rep, fmt.Errorf("judge: %w", err)
	}
	if line != "" {
		fmt.Fprintf(w, "wrote %s: %s\n", o.rel(filepath.Join(results, "judge-agreement.csv")), line)
	}
	return rep, nil
}

type noProgress struct{}

func (noProgress) Step(string, bool) {}
func (noProgress) Finish()           {}

// writeAgreement compares this judge's stored scores with every other
// judge's under the same rubric, and with human labels from
// results/judge-labels.csv if present, into results/judge-agreement.csv
// (one row per rater pair and strategy, and a pooled row "all").
// Nothing to compare writes nothing. It returns a one-line summary of the
// agreements written ("" when none).
func writeAgreement(ctx context.Context, st *store.Store, rep *judge.Report, results string) (string, error) {
	others, err := st.StoredJudges(ctx, rep.RubricHash)
	if err != nil {
		return "", err
	}
	rub, err := judge.LoadRubric(rep.RubricPath)
	if err != nil {
		return "", err
	}
	human, haveHuman, err := readHumanLabels(results)
	if err != nil {
		return "", err
	}
	reports, err := compareJudge(ctx, st, rep.RubricHash, rep.Judge, others, human, haveHuman)
	if err != nil {
		return "", err
	}
	if len(reports) == 0 {
		return "", nil
	}
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	w.Write([]string{"rater_a", "rater_b", "strategy_id", "strategy", "n", "n11", "n10", "n01", "n00", "agreement", "kappa"})
	var lines []string
	for _, ag := range reports {
		row := func(id, name string, s judge.AgreementStat) {
			agr, kappa := "", ""
			if s.N > 0 {
				agr = strconv.FormatFloat(s.Agreement, 'f', 6, 64)
			}
			if s.KappaDefined {
				kappa = strconv.FormatFloat(s.Kappa, 'f', 6, 64)
			}
			w.Write([]string{ag.RaterA, ag.RaterB, id, name, strconv.Itoa(s.N), strconv.Itoa(s.N11), strconv.Itoa(s.N10),
				strconv.Itoa(s.N01), strconv.Itoa(s.N00), agr, kappa})
		}
		for _, s := range ag.PerStrategy {
			name := ""
			if st, ok := rub.Strategy(s.StrategyID); ok {
				name = st.Name
			}
			row(strconv.Itoa(s.StrategyID), name, s)
		}
		row("all", "(pooled)", ag.Pooled)
		lines = append(lines, agreementLine(ag))
	}
	w.Flush()
	if err := w.Error(); err != nil {
		return "", err
	}
	out := filepath.Join(results, "judge-agreement.csv")
	if err := fsutil.WriteFile(out, b.Bytes(), 0o644); err != nil {
		return "", fmt.Errorf("write %s: %w", out, err)
	}
	return strings.Join(lines, "; "), nil
}

// humanLabelsFile holds human labels (run_id,section,strategy_id,label)
// under the results folder; the agreement reports compare the judges with it.
const humanLabelsFile = "judge-labels.csv"

// readHumanLabels reads results/judge-labels.csv; found is false (and no
// error) when the file does not exist.
func readHumanLabels(results string) (labels []judge.Label, found bool, err error) {
	path := filepath.Join(results, humanLabelsFile)
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	} else if err != nil {
		return nil, false, fmt.Errorf("read %s: %w", path, err)
	}
	labels, err = judge.ReadLabelsCSV(path)
	if err != nil {
		return nil, false, err
	}
	return labels, true, nil
}

// compareJudge pairs judge a's stored scores under rubricHash with those of
// every judge in others (a itself is skipped) and, when haveHuman, with the
// human labels: one report per pair, in that order.
func compareJudge(ctx context.Context, st *store.Store, rubricHash, a string, others []string, human []judge.Label, haveHuman bool) ([]judge.AgreementReport, error) {
	var reports []judge.AgreementReport
	for _, other := range others {
		if other == a {
			continue
		}
		ag, err := judge.CompareJudges(ctx, st, a, other, rubricHash)
		if err != nil {
			return nil, err
		}
		reports = append(reports, ag)
	}
	if haveHuman {
		mine, err := judge.LoadScores(ctx, st, a, rubricHash)
		if err != nil {
			return nil, err
		}
		reports = append(reports, judge.Agreement(a, judge.LabelsFromScores(mine), "human", human))
	}
	return reports, nil
}

// Agreement prints, from the store alone, the agreement and Cohen's kappa
// per strategy and pooled between every two judges whose scores were made
// with the current rubric (say the LLM judge and the heuristic one), and
// between each judge and the human labels of results/judge-labels.csv when
// that file exists: one table per pair. It judges nothing and writes no
// file; with nothing to compare it returns an error saying what is missing.
func Agreement(ctx context.Context, b *config.Benchmark, w io.Writer, rel func(string) string) error {
	o := Options{Rel: rel}
	rub, err := judge.LoadRubric(b.Path(b.Judge.Rubric))
	if err != nil {
		return fmt.Errorf("judgeAgreement: %w", err)
	}
	results := b.Path(b.Paths.Results)
	human, haveHuman, err := readHumanLabels(results)
	if err != nil {
		return fmt.Errorf("judgeAgreement: %w", err)
	}
	db := b.Path(b.Paths.Database)
	if _, err := os.Stat(db); err != nil {
		return fmt.Errorf("judgeAgreement: no store (run `go run mage.go judge` first): %w", err)
	}
	st, err := store.Open(ctx, db)
	if err != nil {
		return fmt.Errorf("judgeAgreement: %w", err)
	}
	defer st.Close()
	judges, err := st.StoredJudges(ctx, rub.Hash)
	if err != nil {
		return fmt.Errorf("judgeAgreement: %w", err)
	}
	var reports []judge.AgreementReport
	for i, a := range judges {
		r, err := compareJudge(ctx, st, rub.Hash, a, judges[i+1:], human, haveHuman)
		if err != nil {
			return fmt.Errorf("judgeAgreement: %w", err)
		}
		reports = append(reports, r...)
	}
	if len(reports) == 0 {
		labels := "no human labels in " + o.rel(filepath.Join(results, humanLabelsFile))
		if haveHuman {
			labels = "human labels but no judge's scores to compare them with"
		}
		return fmt.Errorf("judgeAgreement: nothing to compare: %d judge(s) in the store scored with rubric %s (%.12s), %s; run `go run mage.go judge` with another judge (judge.kind, or a profile's judge) or add human labels (run_id,section,strategy_id,label)",
			len(judges), o.rel(rub.Path), rub.Hash, labels)
	}
	for i, rep := range reports {
		if i > 0 {
			fmt.Fprintln(w)
		}
		if err := judge.PrintAgreement(w, rep, rub); err != nil {
			return fmt.Errorf("judgeAgreement: %w", err)
		}
	}
	return nil
}

func agreementLine(ag judge.AgreementReport) string {
	s := fmt.Sprintf("%s vs %s: %d pairs", ag.RaterA, ag.RaterB, ag.Pooled.N)
	if ag.Pooled.N > 0 {
		s += fmt.Sprintf(", agreement %.3f", ag.Pooled.Agreement)
	}
	if ag.Pooled.KappaDefined {
		s += fmt.Sprintf(", kappa %.3f", ag.Pooled.Kappa)
	}
	return s
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
