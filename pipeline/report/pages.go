package report

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"github.com/rexmle/rexmle/pipeline/config"
	"github.com/rexmle/rexmle/pipeline/fetch"
	"github.com/rexmle/rexmle/pipeline/publicview"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"

	"github.com/rexmle/rexmle/pipeline/challenge"
)

// reproductionPage lists every comparison that did not match, classified,
// with tallies per table and kind.
func (s *site) reproductionPage() ([]*page, error) {
	p := &page{Path: "reproduction.html", Title: "Reproduction of the paper", TOC: true, Intro: []string{
		"Every number the paper printed that the pipeline also computes is compared with the computation from the stored values: positions, mean ranks and percentiles of Tables S1–S20, the percentiles and primary values of Tables 3–5, and the overall mean percentiles.",
		"Classes: rounding (both prints are roundings of one unrounded value, or the paper averaged rounded numbers), inconsistency (no rounding explains it: the paper contradicts its own inputs), undetermined (the printed digits do not decide it).",
	}}
	type tk struct{ table, what string }
	tally := map[tk][2]int{}
	classes := map[string]int{}
	for _, c := range s.repro.Checks {
		k := tk{tableGroup(c.Table), kindOf(c.What)}
		v := tally[k]
		v[1]++
		if c.Class == classMatch {
			v[0]++
		}
		tally[k] = v
		classes[c.Class]++
	}
	sum := &section{ID: "tally", Title: "Summary"}
	if len(s.repro.Checks) == 0 {
		sum.Paragraphs = []string{"The store holds none of the paper's printed numbers: run the rank stage with results/paper present."}
		p.Sections = append(p.Sections, sum)
		return []*page{p}, nil
	}
	th := s.topHumanSection()
	sum.Paragraphs = []string{fmt.Sprintf("%d comparisons: %d match, %d rounding, %d inconsistency, %d undetermined. Besides these, %s",
		len(s.repro.Checks), classes[classMatch], classes[classRounding], classes[classInconsistency], classes[classUndetermined], th.Paragraphs[0])}
	keys := make([]tk, 0, len(tally))
	for k := range tally {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].table != keys[j].table {
			return keys[i].table < keys[j].table
		}
		return keys[i].what < keys[j].what
	})
	tt := &table{ID: "reproduction-tally", Caption: "Matches per table and kind of number", Head: []string{"Tables", "Number", "Match", "Compared", "Share"}}
	for _, k := range keys {
		v := tally[k]
		tt.Rows = append(tt.Rows, row{Cells: []cell{{Text: k.table}, {Text: k.what}, {Text: strconv.Itoa(v[0]), Class: "num"}, {Text: strconv.Itoa(v[1]), Class: "num"},
			{Text: fmtFrac(float64(v[0])/float64(v[1]), 1), Class: "num", Sort: sortKey(float64(v[0]) / float64(v[1]))}}})
	}
	sum.Tables = []*table{tt}
	dis := &section{ID: "disagreements", Title: "Where the computation and the paper differ"}
	t := &table{ID: "reproduction", Caption: "Every disagreement, classified", Head: []string{"Where", "Computed", "Printed", "Class", "Why"}}
	for _, c := range s.repro.Checks {
		if c.Class == classMatch {
			continue
		}
		b, bc, _ := c.badge()
		t.Rows = append(t.Rows, row{ID: c.anchor(), Cells: []cell{{Text: c.where()}, {Text: c.Computed, Class: "num"}, {Text: c.Printed, Class: "num"}, {Text: c.Class, Badge: b, BadgeClass: bc}, {Text: c.Why}}})
	}
	dis.Tables = []*table{t}
	if len(t.Rows) == 0 {
		dis.Paragraphs = []string{"None: every compared number matches."}
	}
	p.Sections = append(p.Sections, sum, dis, th)
	return []*page{p}, nil
}

// topHumanSection counts the S-tables whose top human's printed 100.0%
// differs from the percentile its own values reach among the leaderboard
// rows, and lists every table's pair.
func (s *site) topHumanSection() *section {
	sec := &section{ID: "top-human", Title: "The top human team's percentile"}
	t := &table{ID: "reproduction-top-human", Caption: "Top human team: the paper's 100.0% and the computed percentile", Head: []string{"Challenge", "Team", "Computed mean rank", "Paper", "Computed", "Check"},
		DataHead: []string{"challenge", "team", "mean_rank", "paper_pct", "computed_pct", "differs"}}
	flagged, n := 0, 0
	for _, c := range s.b.Challenges {
		if !s.hasSTable(c.ID) {
			continue
		}
		top, res, ok := topHuman(c)
		if !ok {
			continue
		}
		n++
		computed := runPct(&runData{Ranked: true, RankStatus: "ok", PosSum: res.PosSum, K: res.K, N: res.N, MeanRank: res.MeanRank, Pct: res.Percentile}, 1)
		differs := computed != paperTopHumanPct
		ce := cell{Text: "", Badge: "✓ matches", BadgeClass: "ok"}
		if differs {
			flagged++
			ce = cell{Text: "", Badge: "⚑ differs", BadgeClass: "warn", BadgeTitle: "the paper prints 100.0% for the top team by convention"}
		}
		t.Rows = append(t.Rows, row{Cells: []cell{{Text: c.ShortName, Href: "challenges/" + c.ID + ".html#values"}, {Text: top.Team}, {Text: fmtMeanRank(res.MeanRank), Class: "num"},
			{Text: paperTopHumanPct, Class: "num"}, {Text: computed, Class: "num"}, ce},
			Data: []any{c.ID, top.Team, valNum(res.MeanRank, true), 100.0, pctNum(res.Percentile), differs}})
	}
	sec.Paragraphs = []string{fmt.Sprintf("every S-table prints 100.0%% for the top human team; ranking that team's own values among the leaderboard rows gives another percentile in %d of %d tables (flagged ⚑ below and on the challenge pages): the paper's human column is a reference, not a ranked entry, so these are counted apart from the comparisons.", flagged, n)}
	sec.Tables = []*table{t}
	return sec
}

// hasSTable reports whether the paper printed an S-table for a challenge.
func (s *site) hasSTable(id string) bool {
	for _, r := range s.data.Runs {
		if r.Source == printedSource && r.Challenge == id {
			for t := range r.Printed {
				if strings.HasPrefix(t, "S") {
					return true
				}
			}
		}
	}
	return false
}

func tableGroup(t string) string {
	if strings.HasPrefix(t, "S") {
		return "S1–S20"
	}
	return "Table " + t
}

func kindOf(what string) string {
	if strings.HasPrefix(what, "position of") {
		return "position"
	}
	if strings.HasPrefix(what, "overall") {
		return "overall mean percentile"
	}
	return what
}

// quirksPage lists every known departure of the reference graders from the
// official evaluations, with the size of the difference on the stored runs.
func (s *site) quirksPage() ([]*page, error) {
	p := &page{Path: "known-issues.html", Title: "Known issues: the paper's harness and the reference graders", TOC: true, Intro: []string{
		"The pipeline grades in reference mode to stay comparable with the paper, and where the reference grader departs from the challenge's official evaluation it also records the official mode's values. Each quirk below shows how far the two modes' values lie apart on the runs graded both ways.",
	}}
	total := 0
	// The differences are measured on the comparable runs (the paper's and
	// new runs on the real data); synthetic runs' differences are apart, in
	// their own marked section.
	var real, synthetic []*runData
	for _, r := range s.data.Runs {
		if s.comparable(r.Source) {
			real = append(real, r)
		} else {
			synthetic = append(synthetic, r)
		}
	}
	syn := &table{ID: "quirks-synthetic", Caption: "Synthetic runs: the difference between the modes (pipeline check, not results)", Head: []string{"Challenge", "Known issue", "Runs graded both ways", "Mean |difference|", "Max |difference|"}}
	for _, c := range s.b.Challenges {
		reg, ok := challenge.Lookup(c.ID)
		if !ok {
			continue
		}
		qs := reg.Quirks()
		if len(qs) == 0 {
			continue
		}
		sec := &section{ID: c.ID, Title: c.ShortName}
		sec.List = append(sec.List, listItem{Text: "Challenge page", Href: "challenges/" + c.ID + ".html"})
		t := &table{ID: "quirks-" + c.ID, Caption: c.ShortName + ": known issues and the difference between the modes on runs on the real data", Head: []string{"Known issue", "Metrics", "Reference grader", "Official evaluation", "Runs graded both ways", "Mean |difference|", "Max |difference|"}}
		for _, q := range qs {
			total++
			n, cnt, sum, mx := quirkDiff(real, c.ID, q.Metrics)
			mean, maxT := diffTexts(cnt, sum, mx)
			t.Rows = append(t.Rows, row{ID: "quirk-" + c.ID + "-" + q.ID, Cells: []cell{{Text: quirkName(q.ID)}, {Text: s.metricNames(c, q.Metrics)}, {Text: q.Reference}, {Text: q.Official},
				{Text: strconv.Itoa(n), Class: "num"}, {Text: mean, Class: "num"}, {Text: maxT, Class: "num"}}})
			if n, cnt, sum, mx := quirkDiff(synthetic, c.ID, q.Metrics); n > 0 {
				mean, maxT := diffTexts(cnt, sum, mx)
				syn.Rows = append(syn.Rows, row{Cells: []cell{{Text: c.ShortName, Href: "challenges/" + c.ID + ".html"}, {Text: quirkName(q.ID)}, {Text: strconv.Itoa(n), Class: "num"}, {Text: mean, Class: "num"}, {Text: maxT, Class: "num"}}})
			}
		}
		sec.Tables = []*table{t}
		p.Sections = append(p.Sections, sec)
	}
	if len(syn.Rows) > 0 {
		p.Sections = append(p.Sections, &section{ID: "synthetic", Title: "Synthetic runs graded both ways (not comparable)", Class: "section-demo",
			Paragraphs: []string{"The differences between the modes on the synthetic runs: they show that both modes run, not how far they lie apart on the real data."},
			Tables:     []*table{syn}})
	}
	p.Intro = append(p.Intro, fmt.Sprintf("%d known issues in all. The differences are measured on the paper's runs and new runs on the real data; synthetic runs are apart, at the end. A mode's values are stored only where they differ from the reference mode's, so runs not graded in the other mode, or graded identically, show no difference; NaN and infinite values are left out of the means.", total))
	harness, err := s.harnessIssues()
	if err != nil {
		return nil, err
	}
	if harness != nil {
		p.Sections = append([]*section{harness}, p.Sections...)
	}
	return []*page{p}, nil
}

// knownIssuesFile is where the benchmark records how the paper's own
// harness departs from the paper when running the agents.
const knownIssuesFile = "benchmark/known-issues.toml"

// harnessIssues is the section of the known-issues page on the paper's
// harness (benchmark/known-issues.toml); nil when the file is absent.
func (s *site) harnessIssues() (*section, error) {
	path := s.b.Path(knownIssuesFile)
	if _, err := os.Stat(path); err != nil {
		return nil, nil
	}
	issues, err := config.LoadKnownIssues(path)
	if err != nil {
		return nil, err
	}
	sec := &section{ID: "harness", Title: "Where the paper's harness departs from the paper", Paragraphs: []string{
		"How the paper's own harness ran the agents, where it differs from what the paper says, and what rexmle's profiles do instead (they follow the paper). The graders' quirks follow, per challenge.",
	}}
	t := &table{ID: "harness-issues", Caption: "The paper's harness and rexmle", Head: []string{"Issue", "Agents", "The paper", "The harness", "rexmle", "Sources"}}
	for _, k := range issues {
		agents := "all"
		if len(k.Agents) > 0 {
			agents = strings.Join(k.Agents, ", ")
		}
		t.Rows = append(t.Rows, row{Cells: []cell{{Text: k.Title}, {Text: agents}, {Text: k.Paper}, {Text: k.Harness}, {Text: k.Rexmle}, {Text: strings.Join(k.Sources, "; ")}},
			Data: []any{k.ID, agents, k.Paper, k.Harness, k.Rexmle, strings.Join(k.Sources, "; ")}})
	}
	t.DataHead = []string{"id", "agents", "paper", "harness", "rexmle", "sources"}
	sec.Tables = []*table{t}
	return sec, nil
}

func sortedModes(m map[string]map[string]float64) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// provenancePage records what the site was built from.
func (s *site) provenancePage() ([]*page, error) {
	p := &page{Path: "provenance.html", Title: "Provenance", TOC: true}
	commit := s.opts.GitCommit
	if commit == "" {
		commit = GitCommit(s.b.Root)
	}
	facts := &table{ID: "provenance", Caption: "Build inputs", Head: []string{"Item", "Value"}}
	add := func(k, v string) { facts.Rows = append(facts.Rows, row{Cells: []cell{{Text: k}, {Text: v}}}) }
	add("Benchmark", s.b.Meta.Name+" ("+s.b.Meta.Paper+")")
	prof := s.buildProfile()
	add("Profile", prof)
	if pr, ok := s.b.Profiles[prof]; ok {
		add("Data", orDash(pr.Data)+" (checksums of the prepared datasets below)")
	} else if prof == "paper" {
		add("Data", "the paper's recorded results (results/paper)")
	} else {
		add("Data", "synthetic (runs of sources not in benchmark.toml's profiles)")
	}
	for _, src := range s.sources() {
		cmp := "comparable with the human leaderboards"
		if !s.comparable(src) {
			cmp = "NOT comparable with the human leaderboards"
		}
		add("Runs of source "+src, s.dataKind(src)+"; "+cmp)
	}
	add("benchmark.toml hash (with every challenge file)", s.b.Hash)
	add("Git commit", commit)
	add("Go version", runtime.Version())
	add("Grading mode", orDash(s.b.Grading.Mode))
	add("Judge (configured)", fmt.Sprintf("kind %s, model %s", orDash(s.b.Judge.Kind), orDash(s.b.Judge.Model)))
	add("Judge rubric", orDash(s.b.Judge.Rubric)+" "+rubricHash(s.b.Path(s.b.Judge.Rubric), s.b.Judge.Rubric))
	judges := map[string]bool{}
	for _, x := range s.data.Sections {
		judges[x.Judge+" ("+x.Kind+"), rubric "+shortHash(x.Rubric)] = true
	}
	for _, j := range sortedKeys(judges) {
		add("Judge (stored scores)", j)
	}
	add("ECharts", "5.4.3 (vendored)")
	rt := s.runDatesTable()
	dt := s.datasetsTable()
	p.Sections = []*section{
		{ID: "build", Title: "Build", Tables: []*table{facts}},
		{ID: "runs", Title: "Runs", Tables: []*table{rt}},
		{ID: "data", Title: "Datasets", Tables: []*table{dt}},
	}
	return []*page{p}, nil
}

// runDatesTable lists, per source and setting, the number of runs and the
// first and last time stamps they carry.
func (s *site) runDatesTable() *table {
	type dr struct{ first, last string }
	dates := map[string]*dr{}
	for _, r := range s.data.Runs {
		k := r.Source + " / " + r.Setting
		d := dates[k]
		if d == nil {
			d = &dr{}
			dates[k] = d
		}
		for _, t := range []string{r.StartedAt, r.EndedAt} {
			if t == "" {
				continue
			}
			if d.first == "" || t < d.first {
				d.first = t
			}
			if t > d.last {
				d.last = t
			}
		}
	}
	rt := &table{ID: "run-dates", Caption: "Run dates per source and setting", Head: []string{"Source / setting", "Runs", "First", "Last"}}
	counts := map[string]int{}
	for _, r := range s.data.Runs {
		counts[r.Source+" / "+r.Setting]++
	}
	keys := make([]string, 0, len(dates))
	for k := range dates {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		d := dates[k]
		rt.Rows = append(rt.Rows, row{Cells: []cell{{Text: k}, {Text: strconv.Itoa(counts[k]), Class: "num"}, {Text: orDash(d.first)}, {Text: orDash(d.last)}}})
	}
	return rt
}

// datasetsTable lists each challenge's prepared dataset checksums and raw
// data provenance.
func (s *site) datasetsTable() *table {
	dt := &table{ID: "datasets", Caption: "Prepared datasets (data/<id>/manifest.json); the files the agents saw besides the data (paper_public_folder)", Head: []string{"Challenge", "Input hash", "Files", "Agents also saw", "Manifest sha256", "Raw data"}}
	sets := s.opts.Datasets
	if sets == nil {
		sets = ReadDatasets(s.opts.DataDir, s.b)
	}
	byID := map[string]Dataset{}
	for _, d := range sets {
		byID[d.Challenge] = d
	}
	for _, c := range s.b.Challenges {
		d, ok := byID[c.ID]
		if !ok {
			d = Dataset{InputHash: "not prepared"}
		}
		if d.Raw == "" && s.opts.Datasets == nil && s.opts.DataDir != "" { // a live build: not prepared, raw data perhaps there
			d.Raw = fetch.Provenance(filepath.Join(s.opts.DataDir, "raw", c.RawFolder()))
		}
		dt.Rows = append(dt.Rows, row{Cells: []cell{{Text: c.ShortName, Href: "challenges/" + c.ID + ".html"}, {Text: d.InputHash}, {Text: d.Files, Class: "num"}, {Text: d.AlsoSaw}, {Text: d.ManifestSHA256}, {Text: orDash(d.Raw)}}})
	}
	return dt
}

// Dataset is what the provenance page says of one challenge's prepared
// data, as shown: its manifest's input hash and file count, the files the
// agents saw besides the data, and the manifest's sha256.
type Dataset struct {
	Challenge      string `json:"challenge"`
	InputHash      string `json:"input_hash"`
	Files          string `json:"files"`
	AlsoSaw        string `json:"also_saw"`
	ManifestSHA256 string `json:"manifest_sha256"`
	// Raw says where the raw data came from: downloaded by mage fetch, or
	// placed by hand and verified, unverified or not checked (fetch.Provenance).
	Raw string `json:"raw"`
}

// ReadDatasets reads the prepared datasets' manifests (dataDir/<id>/manifest.json)
// of the benchmark's challenges; a challenge with no manifest is left out.
func ReadDatasets(dataDir string, b *config.Benchmark) []Dataset {
	var out []Dataset
	if dataDir == "" {
		return nil
	}
	for _, c := range b.Challenges {
		bs, err := os.ReadFile(filepath.Join(dataDir, c.ID, "manifest.json"))
		if err != nil {
			continue
		}
		sum := sha256.Sum256(bs)
		d := Dataset{Challenge: c.ID, ManifestSHA256: hex.EncodeToString(sum[:]), Raw: fetch.Provenance(filepath.Join(dataDir, "raw", c.RawFolder()))}
		var m struct {
			InputHash string            `json:"input_hash"`
			Files     map[string]string `json:"files"`
		}
		if json.Unmarshal(bs, &m) != nil {
			d.InputHash = "unreadable manifest"
			out = append(out, d)
			continue
		}
		d.InputHash, d.Files = m.InputHash, strconv.Itoa(len(m.Files))
		var seen []string
		for _, f := range publicview.Files(c.ID) {
			if _, ok := m.Files["public/"+f]; ok && (f != publicview.ReadmeFile || m.Files["public/"+publicview.GradingFile] != "") {
				seen = append(seen, f)
			}
		}
		d.AlsoSaw = "data only"
		if len(seen) > 0 {
			d.AlsoSaw = strings.Join(seen, ", ")
		}
		out = append(out, d)
	}
	return out
}

// sources lists the run sources in the store, sorted.
func (s *site) sources() []string {
	m := map[string]bool{}
	for _, r := range s.data.Runs {
		m[r.Source] = true
	}
	return sortedKeys(m)
}

// GitCommit asks git for HEAD in dir; "unknown" when that fails.
func GitCommit(dir string) string {
	cmd := exec.Command("git", "rev-parse", "HEAD")
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(string(out))
}

// rubricHash is "(sha256 …)" of the rubric file, or "" if it cannot be read.
func rubricHash(path, name string) string {
	if name == "" {
		return ""
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	sum := sha256.Sum256(b)
	return "(sha256 " + hex.EncodeToString(sum[:])[:12] + ")"
}

// downloadsPage lists every table as CSV and JSON, and the pipeline's CSV
// exports, which it copies under downloads/.
func (s *site) downloadsPage() ([]*page, error) {
	p := &page{Path: "downloads.html", Title: "Downloads", Intro: []string{"Every table on the site as CSV and JSON, and the pipeline's own exports."}}
	t := &table{Caption: "Tables", Head: []string{"Table", "Page", "CSV", "JSON"}}
	for _, x := range s.tables() {
		t.Rows = append(t.Rows, row{Cells: []cell{{Text: x.Caption}, {Text: x.Page, Href: x.Page}, {Text: x.ID + ".csv", Href: "data/" + x.ID + ".csv"}, {Text: x.ID + ".json", Href: "data/" + x.ID + ".json"}}})
	}
	sec := &section{ID: "tables", Title: "Site tables", Tables: []*table{t}}
	ex := &section{ID: "exports", Title: "Pipeline exports"}
	if s.opts.ResultsDir != "" {
		names, _ := filepath.Glob(filepath.Join(s.opts.ResultsDir, "*.csv"))
		sort.Strings(names)
		for _, n := range names {
			b, err := os.ReadFile(n)
			if err != nil {
				return nil, fmt.Errorf("read %s: %w", n, err)
			}
			base := filepath.Base(n)
			s.addFile("downloads/"+base, b)
			ex.List = append(ex.List, listItem{Text: base, Href: "downloads/" + base, Note: fmt.Sprintf("%d bytes", len(b))})
		}
	}
	if len(ex.List) == 0 {
		ex.Paragraphs = []string{"No CSV exports were found."}
	}
	p.Sections = []*section{sec, ex}
	return []*page{p}, nil
}

// quirkDiff compares the other grading mode's values (mode_values) with the
// reference values on one challenge's runs for the given metrics: runs with
// at least one finite pair, the number of pairs, the sum and the maximum of
// |other − reference|. NaN and infinite values are left out.
func quirkDiff(runs []*runData, challengeID string, metrics []string) (nRuns, nPairs int, sum, max float64) {
	for _, r := range runs {
		if r.Challenge != challengeID {
			continue
		}
		counted := false
		for _, mode := range sortedModes(r.Mode) {
			for _, m := range metrics {
				ov, ok1 := r.Mode[mode][m]
				rv, ok2 := r.Values[m]
				if !ok1 || !ok2 || math.IsNaN(ov) || math.IsNaN(rv) || math.IsInf(ov, 0) || math.IsInf(rv, 0) {
					continue
				}
				d := math.Abs(ov - rv)
				sum += d
				max = math.Max(max, d)
				nPairs++
				if !counted {
					nRuns++
					counted = true
				}
			}
		}
	}
	return nRuns, nPairs, sum, max
}

// diffTexts prints a mean and a maximum |difference| ("—" for no pairs).
func diffTexts(pairs int, sum, max float64) (string, string) {
	if pairs == 0 {
		return "—", "—"
	}
	return strconv.FormatFloat(sum/float64(pairs), 'g', 4, 64), strconv.FormatFloat(max, 'g', 4, 64)
}

// metricNames lists metric ids by the paper's names ("all N metrics" when
// a quirk touches every ranked metric of the challenge).
func (s *site) metricNames(c *config.Challenge, ids []string) string {
	if len(ids) > 1 && len(ids) == len(c.Metrics) {
		return fmt.Sprintf("all %d metrics", len(ids))
	}
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = id
		if m, ok := c.Metric(id); ok {
			out[i] = metricLabel(m)
		}
	}
	return strings.Join(out, ", ")
}
