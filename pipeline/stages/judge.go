package stages

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

	"github.com/rexmle/rexmle/pipeline/fsutil"
	"github.com/rexmle/rexmle/pipeline/judge"
	"github.com/rexmle/rexmle/pipeline/store"
)

// Judge scores the logs of the profile's runs with the configured judge
// (heuristic on the demo profile) and writes results/capabilities.csv.
// Failed, interrupted and unfinished runs are left out of the profiles and
// counted (n_failed). When the judge fails on a section, or a run's logs
// cannot be read, it exits non-zero and leaves capabilities.csv and the
// runs' earlier scores as they were. Where the store holds scores of
// another judge with the same rubric (or results/judge-labels.csv holds
// human labels), their agreement is written to results/judge-agreement.csv.
func Judge(ctx context.Context, o Options) error {
	e, err := load(o)
	if err != nil {
		return err
	}
	all, err := judge.DiscoverRuns(e.b.Path(e.b.Paths.Runs))
	if err != nil {
		return fmt.Errorf("judge: no runs to judge (run `go run mage.go run` first): %w", err)
	}
	runs := judge.FilterGroup(all, o.Profile)
	if len(runs) == 0 {
		return fmt.Errorf("judge: no runs of profile %q under %s (%d runs of other profiles; run `REXMLE_PROFILE=%s go run mage.go run` first)",
			o.Profile, rel(e.b.Path(e.b.Paths.Runs)), len(all), o.Profile)
	}
	kind := e.b.Judge.Kind
	if e.profile.Judge != "" {
		kind = e.profile.Judge
	}
	st, err := e.open(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	cfg := judge.Config{
		RubricPath: e.b.Path(e.b.Judge.Rubric),
		Judge:      kind,
		OpenAI: judge.OpenAIConfig{Model: e.b.Judge.Model, BaseURL: e.b.Judge.BaseURL, APIKeyEnv: e.b.Judge.APIKeyEnv, Getenv: e.opt.Host.Get,
			Timeout: e.b.Judge.Timeout.Duration, Concurrency: e.b.Judge.Concurrency, AnswerRetries: e.b.Judge.Retries},
		Ingest: judge.IngestOptions{MaxChars: e.b.Judge.MaxChars},
		Force:  o.Force,
	}
	var bar *progress
	cfg.Progress = func(p judge.Progress) {
		if bar == nil {
			bar = newProgress("judge", p.Total)
		}
		bar.step(fmt.Sprintf("%s (cache hits %d, errors %d)", p.Run, p.CacheHits, p.Errors), true)
	}
	rep, err := judge.Run(ctx, st, cfg, runs)
	if bar != nil {
		bar.finish()
	}
	if err != nil {
		return fmt.Errorf("judge: %w", err)
	}
	results := e.b.Path(e.b.Paths.Results)
	out := filepath.Join(results, "capabilities.csv")
	fmt.Printf("judge (%s, %s, profile %s): %d runs (%d left out: failed, interrupted or unfinished), %d sections, %d sent to the judge, %d from cache, %d failed, %d strategies undecided\n",
		rep.JudgeKind, rep.Judge, o.Profile, rep.Runs, len(rep.Excluded), rep.Sections, rep.Judged, rep.CacheHits, rep.Errors, rep.MissingStrategies)
	for _, k := range sortedKeys(rep.Excluded) {
		fmt.Printf("  left out %s: %s\n", k, rep.Excluded[k])
	}
	for _, k := range sortedKeys(rep.RunErrors) {
		fmt.Printf("  %s: %s\n", k, rep.RunErrors[k])
	}
	if err := rep.Err(); err != nil {
		return fmt.Errorf("%w; %s left as it was", err, rel(out))
	}
	if err := judge.WriteCapabilitiesCSV(out, rep.Profiles.ByAgent); err != nil {
		return fmt.Errorf("judge: %w", err)
	}
	if err := judge.StoreProfiles(ctx, st, o.Profile, rep); err != nil {
		return fmt.Errorf("judge: %w", err)
	}
	fmt.Printf("wrote %s\n", rel(out))
	if err := writeAgreement(ctx, st, rep, results); err != nil {
		return fmt.Errorf("judge: %w", err)
	}
	return nil
}

// writeAgreement compares this judge's stored scores with every other
// judge's under the same rubric, and with human labels from
// results/judge-labels.csv if present, into results/judge-agreement.csv
// (one row per rater pair and strategy, and a pooled row "all").
// Nothing to compare writes nothing.
func writeAgreement(ctx context.Context, st *store.Store, rep *judge.Report, results string) error {
	others, err := st.StoredJudges(ctx, rep.RubricHash)
	if err != nil {
		return err
	}
	rub, err := judge.LoadRubric(rep.RubricPath)
	if err != nil {
		return err
	}
	human, haveHuman, err := readHumanLabels(results)
	if err != nil {
		return err
	}
	reports, err := compareJudge(ctx, st, rep.RubricHash, rep.Judge, others, human, haveHuman)
	if err != nil {
		return err
	}
	if len(reports) == 0 {
		return nil
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
		return err
	}
	out := filepath.Join(results, "judge-agreement.csv")
	if err := writeFileAtomic(out, b.Bytes()); err != nil {
		return err
	}
	fmt.Printf("wrote %s: %s\n", rel(out), strings.Join(lines, "; "))
	return nil
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

// JudgeAgreement prints, from the store alone, the agreement and Cohen's
// kappa per strategy and pooled between every two judges whose scores were
// made with the current rubric (say the LLM judge and the heuristic one),
// and between each judge and the human labels of results/judge-labels.csv
// when that file exists: one table per pair. It judges nothing and writes
// no file; with nothing to compare it exits non-zero saying what is missing.
func JudgeAgreement(ctx context.Context, o Options) error {
	return judgeAgreement(ctx, o, os.Stdout)
}

func judgeAgreement(ctx context.Context, o Options, w io.Writer) error {
	e, err := load(o)
	if err != nil {
		return err
	}
	rub, err := judge.LoadRubric(e.b.Path(e.b.Judge.Rubric))
	if err != nil {
		return fmt.Errorf("judgeAgreement: %w", err)
	}
	results := e.b.Path(e.b.Paths.Results)
	human, haveHuman, err := readHumanLabels(results)
	if err != nil {
		return fmt.Errorf("judgeAgreement: %w", err)
	}
	db := e.b.Path(e.b.Paths.Database)
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
		labels := "no human labels in " + rel(filepath.Join(results, humanLabelsFile))
		if haveHuman {
			labels = "human labels but no judge's scores to compare them with"
		}
		return fmt.Errorf("judgeAgreement: nothing to compare: %d judge(s) in the store scored with rubric %s (%.12s), %s; run `go run mage.go judge` with another judge (judge.kind, or a profile's judge) or add human labels (run_id,section,strategy_id,label)",
			len(judges), rel(rub.Path), rub.Hash, labels)
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

// writeFileAtomic replaces path with data atomically and durably.
func writeFileAtomic(path string, data []byte) error { return fsutil.WriteFile(path, data, 0o644) }
