package config

import (
	"errors"
	"fmt"
	"math"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
	"github.com/rexmle/rexmle/pipeline/settings"
)

// Problem is one thing wrong with a configuration file.
type Problem struct {
	File string
	Line int // 0 when unknown
	Msg  string
}

func (p Problem) String() string {
	if p.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", p.File, p.Line, p.Msg)
	}
	return fmt.Sprintf("%s: %s", p.File, p.Msg)
}

// Error lists every problem found, one per line.
type Error struct{ Problems []Problem }

func (e *Error) Error() string {
	lines := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		lines[i] = p.String()
	}
	return "invalid configuration:\n  " + strings.Join(lines, "\n  ")
}

// checker collects problems for one file and finds line numbers in its text.
type checker struct {
	file  string
	lines []string
	out   *[]Problem
}

func newChecker(file string, text []byte, out *[]Problem) *checker {
	return &checker{file: file, lines: strings.Split(string(text), "\n"), out: out}
}

func (c *checker) addf(line int, format string, args ...any) {
	*c.out = append(*c.out, Problem{File: c.file, Line: line, Msg: fmt.Sprintf(format, args...)})
}

// table returns the line of the idx-th (0-based) header "[name]" or "[[name]]".
func (c *checker) table(name string, idx int) int {
	n := 0
	for i, l := range c.lines {
		t := strings.TrimSpace(l)
		if t == "[["+name+"]]" || t == "["+name+"]" {
			if n == idx {
				return i + 1
			}
			n++
		}
	}
	return 0
}

// key returns the first line at or after from (1-based) that assigns key.
func (c *checker) key(key string, from int) int {
	if from < 1 {
		from = 1
	}
	re := regexp.MustCompile(`^\s*"?` + regexp.QuoteMeta(key) + `"?\s*=`)
	for i := from - 1; i < len(c.lines); i++ {
		if re.MatchString(c.lines[i]) {
			return i + 1
		}
	}
	// an inline-table key such as values = { key = 1 }
	re2 := regexp.MustCompile(`[{,]\s*"?` + regexp.QuoteMeta(key) + `"?\s*=`)
	for i := from - 1; i < len(c.lines); i++ {
		if re2.MatchString(c.lines[i]) {
			return i + 1
		}
	}
	return from
}

// positive reports a duration written in the file (set) as zero or
// negative: a limit or a period must be longer than nothing (a missing key
// keeps its default).
func (c *checker) positive(d Duration, set bool, key string, from int, who string, args ...any) {
	if set && d.Duration <= 0 {
		c.addf(c.key(key, from), "%s: %s is %s, want a positive duration such as \"24h\" or \"90m\"", fmt.Sprintf(who, args...), key, d.Duration)
	}
}

// nonNegative reports a negative duration (zero means none: no grace period,
// no margin).
func (c *checker) nonNegative(d Duration, key string, from int, who string, args ...any) {
	if d.Duration < 0 {
		c.addf(c.key(key, from), "%s: %s is %s, want zero or a positive duration", fmt.Sprintf(who, args...), key, d.Duration)
	}
}

// writtenDurations records which of the durations that must be positive are
// written in the file, so an explicit "0s" is told from a missing key.
type writtenDurations struct {
	Agents []struct {
		TimeLimit *string `toml:"time_limit"`
	} `toml:"agent"`
	Judge struct {
		Timeout *string `toml:"timeout"`
	} `toml:"judge"`
	Profiles map[string]struct {
		TimeLimit      *string `toml:"time_limit"`
		GPUSampleEvery *string `toml:"gpu_sample_every"`
		Slurm          struct {
			PollEvery *string `toml:"poll_every"`
		} `toml:"slurm"`
	} `toml:"profile"`
}

// decode reads TOML into v// decode reads TOML into v, reporting syntax errors and unknown keys.
func (c *checker) decode(text []byte, v any) bool {
	md, err := toml.Decode(string(text), v)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			c.addf(pe.Position.Line, "TOML syntax: %s", pe.Message)
		} else {
			c.addf(0, "%v", err)
		}
		return false
	}
	for _, k := range md.Undecoded() {
		c.addf(c.key(k[len(k)-1], 1), "unknown key %q", k.String())
	}
	return true
}

// Load reads benchmark.toml at path and every challenge file it names, and
// validates them. All problems are reported together in an *Error.
func Load(path string) (*Benchmark, error) {
	text, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("load config: %w", err)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	var problems []Problem
	ck := newChecker(path, text, &problems)
	b := &Benchmark{Root: filepath.Dir(abs), File: path}
	if !ck.decode(text, b) {
		return nil, &Error{problems}
	}
	b.defaults()
	var written writtenDurations
	toml.Decode(string(text), &written) // the file decoded above; only the keys' presence is read
	b.validate(ck, &written)
	files := []string{path}
	seen := map[string]int{}
	for i, id := range b.Meta.Challenges {
		line := ck.key("challenges", 1)
		if prev, dup := seen[id]; dup {
			ck.addf(line, "benchmark.challenges lists %q twice (entries %d and %d)", id, prev+1, i+1)
			continue
		}
		seen[id] = i
		cf := filepath.Join(b.Path(b.Meta.ChallengesDir), id+".toml")
		c, err := loadChallenge(cf, &problems)
		if err != nil {
			ck.addf(line, "challenge %q: %v", id, err)
			continue
		}
		if c == nil {
			continue
		}
		if c.ID != id {
			problems = append(problems, Problem{File: cf, Line: 1, Msg: fmt.Sprintf("id is %q, but benchmark.challenges names the file %q", c.ID, id)})
		}
		files = append(files, cf)
		b.Challenges = append(b.Challenges, c)
	}
	for name, p := range b.Profiles {
		for _, id := range p.Challenges {
			if _, ok := seen[id]; !ok {
				ck.addf(ck.table("profile."+name, 0), "profile %q: unknown challenge %q", name, id)
			}
		}
	}
	if len(problems) > 0 {
		return nil, &Error{problems}
	}
	if b.Hash, err = hashFiles(files); err != nil {
		return nil, err
	}
	return b, nil
}

func (b *Benchmark) defaults() {
	def := func(s *string, v string) {
		if *s == "" {
			*s = v
		}
	}
	def(&b.Meta.ChallengesDir, "benchmark/challenges")
	def(&b.Paths.Data, "data")
	def(&b.Paths.Results, "results")
	def(&b.Paths.Database, "results/rexmle.sqlite")
	def(&b.Paths.Site, "site")
	def(&b.Paths.PaperResults, "results/paper")
	def(&b.Paths.Runs, "results/runs")
	def(&b.Grading.Mode, "reference")
	def(&b.Judge.Kind, "heuristic")
	if b.Judge.MaxChars == 0 {
		b.Judge.MaxChars = 15000
	}
	for i := range b.Agents {
		def(&b.Agents[i].Executor, "local")
		def(&b.Agents[i].Name, b.Agents[i].ID)
	}
}

var idPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]*$`)

// profileName is what a profile may be called: it names run groups and their
// folders (and PrintedSource is reserved).
var profileName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// PrintedSource is the run source of the paper's recorded results
// (paper.Source), reserved: no profile may be called so, so the runs of a
// profile (the profile "paper" included) are never replaced by, or ranked
// as, what the paper printed.
const PrintedSource = "paper-printed"

func (b *Benchmark) validate(ck *checker, written *writtenDurations) {
	if b.Meta.Name == "" {
		ck.addf(ck.table("benchmark", 0), "benchmark.name is missing, want the benchmark's name")
	}
	if len(b.Meta.Challenges) == 0 {
		ck.addf(ck.table("benchmark", 0), "benchmark.challenges is missing or empty, want the list of challenge ids")
	}
	if b.Grading.Mode != "reference" && b.Grading.Mode != "official" {
		ck.addf(ck.key("mode", ck.table("grading", 0)), "grading.mode is %q, want \"reference\" or \"official\"", b.Grading.Mode)
	}
	ids := b.validateAgents(ck)
	b.validateAgentLimits(ck, written)
	b.validateJudgeAndGrading(ck, written)
	b.validateProfiles(ck, written, ids)
}

// validateAgents checks each [[agent]] table's identity, executor, sandbox,
// backends and passed variables, and returns the set of agent ids.
func (b *Benchmark) validateAgents(ck *checker) map[string]bool {
	ids := map[string]bool{}
	for i, a := range b.Agents {
		line := ck.table("agent", i)
		switch {
		case a.ID == "":
			ck.addf(line, "agent %d: id is missing", i+1)
		case !idPattern.MatchString(a.ID):
			ck.addf(line, "agent %q: id must be lower-case letters, digits, '.', '_' or '-'", a.ID)
		case ids[a.ID]:
			ck.addf(line, "agent %q is defined twice", a.ID)
		}
		ids[a.ID] = true
		if a.Builtin != "" && a.Builtin != "sample" && a.Builtin != "baseline" {
			ck.addf(ck.key("builtin", line), "agent %q: builtin is %q, want \"sample\" or \"baseline\"", a.ID, a.Builtin)
		}
		if a.Builtin == "" && len(a.Command) == 0 {
			ck.addf(line, "agent %q: want either builtin = \"sample\"|\"baseline\" or a command", a.ID)
		}
		checkCode(ck, line, a)
		switch a.Executor {
		case "local", "docker", "apptainer":
		default:
			ck.addf(ck.key("executor", line), "agent %q: executor is %q, want local, docker or apptainer", a.ID, a.Executor)
		}
		if (a.Executor == "docker" || a.Executor == "apptainer") && a.Image == "" {
			ck.addf(line, "agent %q: executor %s needs an image", a.ID, a.Executor)
		}
		switch a.Engine {
		case "", "docker", "podman":
		default:
			ck.addf(ck.key("engine", line), "agent %q: engine is %q, want docker or podman", a.ID, a.Engine)
		}
		if a.CPUs < 0 {
			ck.addf(ck.key("cpus", line), "agent %q: cpus is %v, want a number of cores > 0 (or leave it out)", a.ID, a.CPUs)
		}
		switch a.Sandbox {
		case "", "bwrap", "auto", "namespaces", "none":
		default:
			ck.addf(ck.key("sandbox", line), "agent %q: sandbox is %q, want bwrap (the default) or none", a.ID, a.Sandbox)
		}
		if len(a.Egress) > 0 && a.Network {
			ck.addf(ck.key("egress", line), "agent %q: egress lists endpoints but network = true gives the full network; keep one of them", a.ID)
		}
		if a.Backend == "" {
			ck.addf(line, "agent %q: backend is missing, want the LLM behind it (\"none\" for built-ins)", a.ID)
		}
		if _, ok := a.Backends[a.Backend]; len(a.Backends) > 0 && !ok {
			ck.addf(ck.key("backend", line), "agent %q: backend %q has no [agent.backends.%q] table (backends: %s)", a.ID, a.Backend, a.Backend, strings.Join(backendNames(a.Backends), ", "))
		}
		for _, name := range backendNames(a.Backends) {
			be := a.Backends[name]
			if be.Model == "" {
				ck.addf(line, "agent %q, backend %q: model is missing, want the model or deployment name", a.ID, name)
			}
			if !contains(Endpoints, be.Endpoint) {
				ck.addf(line, "agent %q, backend %q: endpoint is %q, want one of %s", a.ID, name, be.Endpoint, strings.Join(Endpoints, ", "))
			}
			if be.APIKeyEnv == "" {
				ck.addf(line, "agent %q, backend %q: api_key_env is missing, want the name of the variable holding the API key", a.ID, name)
			}
			if be.Endpoint == "azure" && be.BaseURLEnv == "" {
				ck.addf(line, "agent %q, backend %q: endpoint azure needs base_url_env (the variable holding the resource URL)", a.ID, name)
			}
			checkEgress(ck, line, fmt.Sprintf("agent %q, backend %q", a.ID, name), be.Egress)
			for _, n := range []string{be.APIKeyEnv, be.BaseURLEnv, be.APIVersionEnv} {
				if err := settings.CheckPassedName(n); err != nil {
					ck.addf(line, "agent %q, backend %q: %v", a.ID, name, err)
				}
			}
		}
		for _, n := range a.Env {
			if err := settings.CheckPassedName(n); err != nil {
				ck.addf(ck.key("env", line), "agent %q: env: %v", a.ID, err)
			}
		}
		checkEgress(ck, line, fmt.Sprintf("agent %q", a.ID), a.Egress)
	}
	return ids
}

// validateAgentLimits checks each agent's time, process and size limits.
func (b *Benchmark) validateAgentLimits(ck *checker, written *writtenDurations) {
	for i, a := range b.Agents {
		line := ck.table("agent", i)
		ck.positive(a.TimeLimit, i < len(written.Agents) && written.Agents[i].TimeLimit != nil, "time_limit", line, "agent %q", a.ID)
		ck.nonNegative(a.GracePeriod, "grace_period", line, "agent %q", a.ID)
		ck.nonNegative(a.LimitCheckEvery, "limit_check_every", line, "agent %q", a.ID)
		if a.PidsLimit < 0 {
			ck.addf(ck.key("pids_limit", line), "agent %q: pids_limit is %d, want a number of processes > 0 (or leave it out: 4096)", a.ID, a.PidsLimit)
		}
		for _, f := range []struct{ key, v string }{{"memory", a.Memory}, {"file_size_limit", a.FileSizeLimit}, {"disk_limit", a.DiskLimit}} {
			if _, err := ParseSize(f.v); err != nil {
				ck.addf(ck.key(f.key, line), "agent %q: %s: %v", a.ID, f.key, err)
			}
		}
	}
}

// validateJudgeAndGrading checks the [judge] table and grading.workers.
func (b *Benchmark) validateJudgeAndGrading(ck *checker, written *writtenDurations) {
	ck.positive(b.Judge.Timeout, written.Judge.Timeout != nil, "timeout", ck.table("judge", 0), "judge")
	if b.Judge.Concurrency < 0 || b.Judge.Retries < 0 || b.Judge.MaxChars < 0 {
		ck.addf(ck.table("judge", 0), "judge: concurrency, retries and max_chars must not be negative (have %d, %d, %d)", b.Judge.Concurrency, b.Judge.Retries, b.Judge.MaxChars)
	}
	if b.Grading.Workers < 0 {
		ck.addf(ck.key("workers", ck.table("grading", 0)), "grading.workers is %d, want 0 (one per core) or more", b.Grading.Workers)
	}
	switch b.Judge.Kind {
	case "heuristic", "openai":
	default:
		ck.addf(ck.key("kind", ck.table("judge", 0)), "judge.kind is %q, want \"heuristic\" or \"openai\"", b.Judge.Kind)
	}
	if b.Judge.Kind == "openai" && (b.Judge.Model == "" || b.Judge.APIKeyEnv == "") {
		ck.addf(ck.table("judge", 0), "judge.kind \"openai\" needs model and api_key_env")
	}
	if err := settings.CheckPassedName(b.Judge.APIKeyEnv); err != nil {
		ck.addf(ck.key("api_key_env", ck.table("judge", 0)), "judge: api_key_env: %v", err)
	}
}

// validateProfiles checks every [profile.*] table (in name order) against
// the agents defined (ids).
func (b *Benchmark) validateProfiles(ck *checker, written *writtenDurations, ids map[string]bool) {
	if len(b.Profiles) == 0 {
		ck.addf(0, "no [profile.*] table, want at least profile.demo")
	}
	names := make([]string, 0, len(b.Profiles))
	for n := range b.Profiles {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		p := b.Profiles[n]
		line := ck.table("profile."+n, 0)
		if !profileName.MatchString(n) {
			ck.addf(line, "profile %q: name wants letters, digits, '.', '_' or '-' (it names run groups and their folders)", n)
		} else if n == PrintedSource {
			ck.addf(line, "profile %q: the name is reserved for the paper's recorded results; choose another", n)
		}
		if p.Data != "synthetic" && p.Data != "fetched" {
			ck.addf(ck.key("data", line), "profile %q: data is %q, want \"synthetic\" or \"fetched\"", n, p.Data)
		}
		if strings.TrimSpace(p.Setting) == "" {
			ck.addf(line, "profile %q: setting missing, want the label its runs carry in the tables (e.g. setting = \"24h\"; the paper's are \"24h\" and \"72h\")", n)
		} else if strings.ContainsAny(p.Setting, "/\\") {
			ck.addf(ck.key("setting", line), "profile %q: setting %q, want a label without / or \\ (it names runs and their folders)", n, p.Setting)
		}
		for _, a := range p.Agents {
			if !ids[a] {
				ck.addf(ck.key("agents", line), "profile %q: unknown agent %q", n, a)
			}
		}
		if p.Judge != "" && p.Judge != "heuristic" && p.Judge != "openai" {
			ck.addf(ck.key("judge", line), "profile %q: judge is %q, want \"heuristic\" or \"openai\"", n, p.Judge)
		}
		if p.Resume != "" && p.Resume != "restart" && p.Resume != "mark" {
			ck.addf(ck.key("resume", line), "profile %q: resume is %q, want \"restart\" or \"mark\"", n, p.Resume)
		}
		if p.Workers < 0 {
			ck.addf(ck.key("workers", line), "profile %q: workers is %d, want 0 (one per core) or more", n, p.Workers)
		}
		w := written.Profiles[n]
		ck.positive(p.TimeLimit, w.TimeLimit != nil, "time_limit", line, "profile %q", n)
		ck.positive(p.GPUSampleEvery, w.GPUSampleEvery != nil, "gpu_sample_every", line, "profile %q", n)
		ck.positive(p.Slurm.PollEvery, w.Slurm.PollEvery != nil, "poll_every", line, "profile %q slurm", n)
		ck.nonNegative(p.Slurm.TimeMargin, "time_margin", line, "profile %q slurm", n)
		if p.Slurm.CPUsPerTask < 0 || p.Slurm.MaxParallel < 0 {
			ck.addf(line, "profile %q: slurm cpus_per_task and max_parallel must not be negative", n)
		}
		for _, s := range p.Seeds {
			if s < 0 {
				ck.addf(ck.key("seeds", line), "profile %q: seed %d, want seeds of 0 or more", n, s)
			}
		}
		if p.Scheduler != "" && p.Scheduler != "local" && p.Scheduler != "slurm" {
			ck.addf(ck.key("scheduler", line), "profile %q: scheduler is %q, want \"local\" or \"slurm\"", n, p.Scheduler)
		}
		if p.Backend != "" {
			for _, id := range p.Agents {
				if a, ok := b.Agent(id); ok && a.Builtin == "" {
					if _, has := a.Backends[p.Backend]; !has {
						ck.addf(ck.key("backend", line), "profile %q: backend %q, but agent %q has no such backend (backends: %s)", n, p.Backend, id, strings.Join(backendNames(a.Backends), ", "))
					}
				}
			}
		}
		for _, id := range sortedKeys(p.AgentEnv) {
			if !contains(p.Agents, id) {
				ck.addf(ck.key("agent_env", line), "profile %q: agent_env names agent %q, which the profile does not run", n, id)
			}
		}
	}
}

// checkCode checks an agent's code setting: a folder path for an agent with
// a command (a built-in agent has no code of its own); whether the folder
// exists is the doctor's check, so a configuration still loads on a host
// that lacks it.
func checkCode(ck *checker, line int, a Agent) {
	if a.Code == "" {
		if strings.Contains(strings.Join(a.Command, " "), "{code}") {
			ck.addf(ck.key("command", line), "agent %q: the command names {code} but the agent has no code folder, want code = \"<folder of the agent's code>\"", a.ID)
		}
		return
	}
	at := ck.key("code", line)
	switch {
	case a.Builtin != "":
		ck.addf(at, "agent %q: code is set, but a builtin agent runs rexmle's own code; remove code or builtin", a.ID)
	case strings.TrimSpace(a.Code) != a.Code || strings.ContainsAny(a.Code, "{}:,\x00\n"):
		ck.addf(at, "agent %q: code is %q, want a folder path without surrounding spaces, braces, ':' or ','", a.ID, a.Code)
	case filepath.Clean(a.Code) == "/" || filepath.Clean(a.Code) == ".":
		ck.addf(at, "agent %q: code is %q, want the folder holding the agent's code, not the whole %s", a.ID, a.Code, map[bool]string{true: "file system", false: "checkout"}[filepath.Clean(a.Code) == "/"])
	}
}

func checkEgress(ck *checker, line int, who string, entries []string) {
	for _, e := range entries {
		if strings.HasPrefix(e, "$") {
			if !envName.MatchString(e[1:]) {
				ck.addf(ck.key("egress", line), "%s: egress entry %q, want \"$NAME\" with a variable name", who, e)
			}
			continue
		}
		host, port, err := net.SplitHostPort(e)
		if n, perr := strconv.Atoi(port); err != nil || host == "" || perr != nil || n < 1 || n > 65535 {
			ck.addf(ck.key("egress", line), "%s: egress entry %q, want \"host:port\" with a port from 1 to 65535 (e.g. \"api.openai.com:443\") or \"$NAME\"", who, e)
		}
	}
}

var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

func sortedKeys[V any](m map[string]V) []string {
	k := make([]string, 0, len(m))
	for n := range m {
		k = append(k, n)
	}
	sort.Strings(k)
	return k
}

var validKinds = map[string]bool{"zenodo": true, "figshare": true, "gdrive": true, "url": true, "manual": true}

func loadChallenge(path string, problems *[]Problem) (*Challenge, error) {
	text, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	ck := newChecker(path, text, problems)
	c := &Challenge{File: path}
	if !ck.decode(text, c) {
		return nil, nil
	}
	req := func(v, name, want string) {
		if strings.TrimSpace(v) == "" {
			ck.addf(0, "%s is missing, want %s", name, want)
		}
	}
	req(c.ID, "id", "the challenge id")
	req(c.Name, "name", "the challenge's full name")
	req(c.ShortName, "short_name", "the name the paper's tables use")
	req(c.Modality, "modality", "the imaging modality")
	req(c.TaskType, "task_type", "the task type")
	switch c.Category {
	case "segmentation", "detection", "classification", "quality":
	default:
		ck.addf(ck.key("category", 1), "category is %q, want segmentation, detection, classification or quality", c.Category)
	}
	checkSources(ck, c.Sources)
	if len(c.Metrics) == 0 {
		ck.addf(0, "no [[metric]], want the ranked leaderboard metrics with their directions")
	}
	names := map[string]bool{}
	for i, m := range c.Metrics {
		line := ck.table("metric", i)
		if m.Name == "" {
			ck.addf(line, "metric %d: name is missing", i+1)
			continue
		}
		if names[m.Name] {
			ck.addf(line, "metric %q is defined twice", m.Name)
		}
		names[m.Name] = true
		if m.Direction != "higher_better" && m.Direction != "lower_better" {
			if m.Direction == "" {
				ck.addf(line, "metric %q has no direction, want \"higher_better\" or \"lower_better\"", m.Name)
			} else {
				ck.addf(ck.key("direction", line), "metric %q: direction is %q, want \"higher_better\" or \"lower_better\"", m.Name, m.Direction)
			}
		}
	}
	if c.PrimaryMetric == "" {
		ck.addf(0, "primary_metric is missing, want the metric shown in the summary table")
	} else if !names[c.PrimaryMetric] {
		ck.addf(ck.key("primary_metric", 1), "primary_metric %q is not one of the [[metric]] names", c.PrimaryMetric)
	}
	if len(c.Leaderboard) == 0 {
		ck.addf(0, "no [[leaderboard]] rows, want the top human entries")
	}
	ranks := map[int]bool{}
	for i, e := range c.Leaderboard {
		line := ck.table("leaderboard", i)
		if e.Rank < 1 {
			ck.addf(line, "leaderboard row %d: rank is %d, want a positive integer", i+1, e.Rank)
		} else if ranks[e.Rank] {
			ck.addf(line, "leaderboard row %d: rank %d appears twice", i+1, e.Rank)
		}
		ranks[e.Rank] = true
		if e.Team == "" {
			ck.addf(line, "leaderboard row %d: team is missing", i+1)
		}
		for _, m := range c.Metrics {
			v, ok := e.Values[m.Name]
			switch {
			case !ok:
				ck.addf(line, "leaderboard row %d (%s): no value for metric %q", i+1, e.Team, m.Name)
			case math.IsNaN(v) || math.IsInf(v, 0):
				ck.addf(ck.key(m.Name, line), "leaderboard row %d (%s): %s is %v, want a finite number", i+1, e.Team, m.Name, v)
			}
		}
		for k := range e.Values {
			if !names[k] {
				ck.addf(ck.key(k, line), "leaderboard row %d (%s): value for %q, which is not a [[metric]]", i+1, e.Team, k)
			}
		}
	}
	sort.SliceStable(c.Leaderboard, func(i, j int) bool { return c.Leaderboard[i].Rank < c.Leaderboard[j].Rank })
	return c, nil
}

// checkSources checks each [[source]] table of a challenge: a known kind
// with the fields that kind needs, and no negative size.
func checkSources(ck *checker, sources []Source) {
	for i, s := range sources {
		line := ck.table("source", i)
		if !validKinds[s.Kind] {
			ck.addf(ck.key("kind", line), "source %d: kind is %q, want zenodo, figshare, gdrive, url or manual", i+1, s.Kind)
		}
		if (s.Kind == "zenodo" || s.Kind == "figshare" || s.Kind == "gdrive") && s.Record == "" {
			ck.addf(line, "source %d: kind %s needs record (the record/article/file id)", i+1, s.Kind)
		}
		if s.Kind == "url" && (s.URL == "" || (s.SHA256 == "" && s.MD5 == "")) {
			ck.addf(line, "source %d: kind url needs url and a sha256 or md5 checksum", i+1)
		}
		if s.Kind == "manual" && s.Instructions == "" {
			ck.addf(line, "source %d: kind manual needs instructions", i+1)
		}
		if s.ApproxSizeGB < 0 || s.Size < 0 {
			ck.addf(line, "source %d: approx_size_gb and size must not be negative", i+1)
		}
	}
}
