// Package settings is the one place the pipeline's REXMLE_* environment
// variables are declared and read. Every variable is declared once in Vars
// (name, type, default, the targets that read it, help, allowed values);
// Load parses an injected environment into typed Settings and refuses, before
// any stage starts, a value it cannot read and a REXMLE_* name it does not
// know ("did you mean …"). The magefile and the cmd/ mains call it once and
// pass the typed values down; no other package reads the environment (a test
// enforces it).
package settings

import (
	"fmt"
	"strings"

	"github.com/rexmle/rexmle/pipeline/challenge"
)

// Kind says who sets a variable.
type Kind int

const (
	// User: a setting of the pipeline's targets, in README's table and
	// `mage settings`.
	User Kind = iota
	// Passed: a value a user sets on the host for agents; benchmark.toml
	// names it (env, api_key_env, base_url_env) and the runner hands it to
	// the agent by name. The pipeline itself does not interpret it.
	Passed
	// Test: a knob of the test suite or the bench/ scripts; Load accepts
	// it and ignores it.
	Test
)

// Type is how a variable's value is read.
type Type int

const (
	String   Type = iota // any text
	Bool                 // 1/0, true/false, yes/no (any case); empty is false
	List                 // comma-separated ids, at least one when set
	Duration             // Go duration (90s, 30m, 2h) of at least Min nanoseconds
	Int                  // decimal integer within [Min, Max]
	Enum                 // one of Allowed
	Size                 // REXMLE_SYNTH_CASES: default, full, full:N or a case count
)

// Var declares one environment variable.
type Var struct {
	Name    string
	Type    Type
	Kind    Kind
	Default string   // as README shows it; "" when unset means off/none
	Targets []string // the mage targets that read it (User), or who reads it
	Help    string   // one sentence for README and `mage -h`
	Allowed []string // Enum: the accepted values
	Min     int64    // Int: bounds; Duration: the least, in nanoseconds
	Max     int64
	Secret  bool // never print the value
	// Field is where Load puts a User setting's value in Settings: a
	// *string, *bool, *[]string, *time.Duration, *int, *uint64,
	// *challenge.Mode or *challenge.SynthSize, as Type says.
	Field func(s *Settings) any
}

// Targets of the pipeline, as mage names them.
const (
	tFetch       = "fetch"
	tFetchVerify = "fetchVerify"
	tPrepare     = "prepare"
	tRun         = "run"
	tDoctor      = "doctor"
	tSmoke       = "smoke"
	tGrade       = "grade"
	tGradeOne    = "gradeOne"
	tRank        = "rank"
	tJudge       = "judge"
	tJudgeAgr    = "judgeAgreement"
	tReport      = "report"
	tAll         = "all"
	tAgents      = "agents"
	tPublish     = "publish"
)

// stageTargets are the targets that load the benchmark through the stages.
var stageTargets = []string{tFetch, tFetchVerify, tPrepare, tRun, tDoctor, tGrade, tGradeOne, tRank, tJudge, tJudgeAgr, tReport, tAll, tPublish}

func with(base []string, more ...string) []string {
	return append(append([]string(nil), base...), more...)
}

// Vars declares every REXMLE_* variable a user or a test sets. The names the
// runner sets for an agent's process (the agent contract) are in Child.
var Vars = []Var{
	{Name: "REXMLE_CONFIG", Field: func(s *Settings) any { return &s.Config }, Type: String, Default: "benchmark.toml", Targets: with(stageTargets, tSmoke, tAgents),
		Help: "path of the benchmark file"},
	{Name: "REXMLE_PROFILE", Field: func(s *Settings) any { return &s.Profile }, Type: String, Default: "demo", Targets: with(stageTargets, tSmoke, tAgents),
		Help: "a profile of `benchmark.toml` (`agents`: builds only its agents' images when set)"},
	{Name: "REXMLE_CHALLENGES", Field: func(s *Settings) any { return &s.Challenges }, Type: List, Default: "the profile's, else all", Targets: stageTargets,
		Help: "comma-separated challenge ids to work on"},
	{Name: "REXMLE_MODE", Field: func(s *Settings) any { return &s.Mode }, Type: Enum, Allowed: []string{string(challenge.Reference), string(challenge.Official)}, Default: "the configuration's `grading.mode`",
		Targets: []string{tPrepare, tRun, tGrade, tGradeOne, tAll},
		Help:    "grading mode: `reference` reproduces the reference graders (quirks included), `official` follows each challenge's own evaluation"},
	{Name: "REXMLE_FORCE", Field: func(s *Settings) any { return &s.Force }, Type: Bool, Targets: []string{tFetch, tPrepare, tRun, tGrade, tJudge, tAll, tAgents},
		Help: "`1` redoes work that is up to date (`fetch`: re-hashes every recorded file, fetching a changed one again; `agents`: rebuilds the images)"},
	{Name: "REXMLE_RETRY_FAILED", Field: func(s *Settings) any { return &s.RetryFailed }, Type: Bool, Targets: []string{tRun, tAll},
		Help: "`1`: `run` reruns the runs that ended failed (those that could not start included) and keeps every other finished run"},
	{Name: "REXMLE_DRY_RUN", Field: func(s *Settings) any { return &s.DryRun }, Type: Bool, Targets: []string{tFetch, tRun, tAll},
		Help: "`1`: `fetch` prints the download plan only: offline from the challenge files, then live when the sources answer (exits non-zero when an answering source cannot be planned); `run` says what would run"},
	{Name: "REXMLE_BOTH_MODES", Field: func(s *Settings) any { return &s.BothModes }, Type: Bool, Targets: []string{tGradeOne},
		Help: "`1`: `gradeOne` also grades the other mode and reports the metric values that differ (`grade` always records both)"},
	{Name: "REXMLE_LOCK_WAIT", Field: func(s *Settings) any { return &s.LockWait }, Type: Duration, Default: "2h", Targets: stageTargets,
		Help: "how long a stage waits for another stage holding this checkout's lock (`.rexmle.lock`), e.g. `30m`; `0` fails at once"},
	{Name: "REXMLE_ENGINE", Field: func(s *Settings) any { return &s.Engine }, Type: Enum, Allowed: []string{"docker", "podman"}, Default: "docker", Targets: []string{tRun, tDoctor, tSmoke, tAll, tAgents},
		Help: "`podman` or `docker`: the container engine of agents that do not set `engine`"},
	{Name: "REXMLE_AGENTS", Field: func(s *Settings) any { return &s.Agents }, Type: List, Default: "the profile's agents when `REXMLE_PROFILE` is set, else all", Targets: []string{tAgents, tSmoke},
		Help: "comma-separated agent ids for `agents` (and `smoke`: some of the profile's agents)"},
	{Name: "REXMLE_BOOT", Field: func(s *Settings) any { return &s.Boot }, Type: Int, Min: 0, Max: 1_000_000, Default: "1000", Targets: []string{tRank, tAll, tPublish},
		Help: "bootstrap resamples B of the rank stage; `0` turns the bootstrap off"},
	{Name: "REXMLE_BOOT_SEED", Field: func(s *Settings) any { return &s.BootSeed }, Type: Int, Min: 0, Max: 1<<63 - 1, Default: "20251218", Targets: []string{tRank, tAll, tPublish},
		Help: "seed recorded with every interval (0 … 2^63−1)"},
	{Name: "REXMLE_SMOKE_CHALLENGE", Field: func(s *Settings) any { return &s.SmokeChallenge }, Type: String, Default: "ldct-iqa", Targets: []string{tSmoke},
		Help: "the synthetic challenge `smoke` runs the agents on (`REXMLE_AGENTS` picks some of the profile's agents)"},
	{Name: "REXMLE_SMOKE_TIME", Field: func(s *Settings) any { return &s.SmokeTime }, Type: Duration, Min: 1, Default: "5m", Targets: []string{tSmoke},
		Help: "how long `smoke` lets each agent run, e.g. `90s`"},
	{Name: "REXMLE_SYNTH_CASES", Field: func(s *Settings) any { return &s.SynthSize }, Type: Size, Default: "default", Targets: []string{tPrepare, tRun, tGrade, tGradeOne, tAll},
		Help: "size of the demo's synthetic data: `default` (tiny, the demo's), `full` (each challenge's real case count — e.g. ISLES'22 250, TopCoW 125, USenhance 1500 pairs, DENTEX 705 — at its real image size, e.g. 512 × 512 × hundreds of slices for SEG.A), `full:N` (real image size, N cases: times a subset to extrapolate, see `bench/full.sh`) or a number of cases N (tiny images); N ≥ 10 (the reference's 80/20 split makes a fifth of them test cases); `prepare` re-synthesizes when it changes, `run` and `grade` refuse data of another size"},
	{Name: "REXMLE_FETCH_TOKEN", Field: func(s *Settings) any { return &s.FetchToken }, Type: String, Secret: true, Targets: []string{tFetch, tFetchVerify},
		Help: "an API token for the data sources that take one (sent only to them, never logged)"},

	// Values for agents, named by benchmark.toml.
	{Name: "REXMLE_STANDIN_BASE_URL", Kind: Passed, Targets: []string{"agents standin, standin-local"},
		Help: "the OpenAI-compatible server the stand-in agent talks to (`base_url_env`)"},
	{Name: "REXMLE_STANDIN_API_KEY", Kind: Passed, Secret: true, Targets: []string{"agents standin, standin-local"},
		Help: "the stand-in agent's API key (`api_key_env`; any value for a local server)"},
	{Name: "REXMLE_EMBEDDING_MODEL", Kind: Passed, Targets: []string{"agent rd-agent"},
		Help: "R&D-Agent's embedding model (`env`)"},

	// Knobs of the tests and the bench/ scripts.
	{Name: "REXMLE_NVML_TEST", Kind: Test, Type: Bool, Targets: []string{"pipeline/gpu tests"}, Help: "`1` runs the NVML test on a real GPU"},
	{Name: "REXMLE_NVML_LOAD", Kind: Test, Targets: []string{"pipeline/gpu tests"}, Help: "a command that keeps the GPU busy during the NVML test"},
	{Name: "REXMLE_SLURM_TEST", Kind: Test, Type: Bool, Targets: []string{"pipeline/runner/slurm tests"}, Help: "`1` runs the tests against a real single-node Slurm"},
	{Name: "REXMLE_SCREENSHOTS", Kind: Test, Targets: []string{"pipeline/report/browsertest"}, Help: "folder for the browser test's screenshots"},
	{Name: "REXMLE_CHROMIUM", Kind: Test, Targets: []string{"pipeline/report/browsertest"}, Help: "the Chromium binary of the browser test"},
	{Name: "REXMLE_AXE", Kind: Test, Targets: []string{"pipeline/report/browsertest"}, Help: "axe-core's `axe.min.js` for the browser test's accessibility audit (`.ci/run` installs a pinned, checksummed copy under `.ci/axe-core/`)"},
	{Name: "REXMLE_COVERAGE_SLOW", Kind: Test, Type: Bool, Targets: []string{"pipeline/rankstage tests"}, Help: "`1` runs the full interval coverage study"},
	{Name: "REXMLE_REPORT_STORE", Kind: Test, Targets: []string{"pipeline/report tests"}, Help: "a store the report test renders"},
	{Name: "REXMLE_REPORT_OUT", Kind: Test, Targets: []string{"pipeline/report tests"}, Help: "where the report test writes that site"},
	{Name: "REXMLE_VALIDATE_LATENCY", Kind: Test, Targets: []string{"pipeline/runner/validate tests"}, Help: "runs the validation latency measurement"},
	{Name: "REXMLE_BRIDGE_CHILD", Kind: Test, Targets: []string{"pipeline/runner/egress tests"}, Help: "marks the egress test's re-executed child"},
	{Name: "REXMLE_MLM_URL", Kind: Test, Targets: []string{"pipeline/agentrecipe tests"}, Help: "the ML-Master replay's server"},
	{Name: "REXMLE_RECORD_HTTP", Kind: Test, Targets: []string{"pipeline/agentrecipe tests"}, Help: "where the ML-Master replay records its requests"},
	{Name: "REXMLE_AIDE_SOURCE", Kind: Test, Targets: []string{"pipeline/agentrecipe tests"}, Help: "an AIDE checkout for the live test"},
	{Name: "REXMLE_AIDE_RECORD", Kind: Test, Type: Bool, Targets: []string{"pipeline/agentrecipe tests"}, Help: "`1` records the live AIDE run as test data"},
	{Name: "REXMLE_AIDE_LIVE_BACKEND", Kind: Test, Targets: []string{"pipeline/agentrecipe tests"}, Help: "the backend of the live AIDE test"},
	{Name: "REXMLE_AIDE_LIVE_LIMIT", Kind: Test, Targets: []string{"pipeline/agentrecipe tests"}, Help: "the live AIDE test's time limit"},
	{Name: "REXMLE_AIDE_LIVE_KEEP", Kind: Test, Targets: []string{"pipeline/agentrecipe tests"}, Help: "keeps the live AIDE test's folders"},
	{Name: "REXMLE_AIDE_LIVE_CHALLENGES", Kind: Test, Targets: []string{"pipeline/agentrecipe tests"}, Help: "the live AIDE test's challenges"},
	{Name: "REXMLE_RDAGENT_SOURCE", Kind: Test, Targets: []string{"pipeline/agentrecipe tests"}, Help: "an R&D-Agent checkout for the live test"},
	{Name: "REXMLE_RDAGENT_RECORD", Kind: Test, Type: Bool, Targets: []string{"pipeline/agentrecipe tests"}, Help: "`1` records the live R&D-Agent run as test data"},
	{Name: "REXMLE_RDAGENT_LIVE_LIMIT", Kind: Test, Targets: []string{"pipeline/agentrecipe tests"}, Help: "the live R&D-Agent test's time limit"},
	{Name: "REXMLE_RDAGENT_LIVE_KEEP", Kind: Test, Targets: []string{"pipeline/agentrecipe tests"}, Help: "keeps the live R&D-Agent test's folders"},
	{Name: "REXMLE_RDAGENT_LIVE_CHALLENGES", Kind: Test, Targets: []string{"pipeline/agentrecipe tests"}, Help: "the live R&D-Agent test's challenges"},
	{Name: "REXMLE_BENCH_KEEP", Kind: Test, Targets: []string{"grader benchmarks", "bench/"}, Help: "keeps the files the grader benchmarks graded"},
	{Name: "REXMLE_RESIZE_PAIRS", Kind: Test, Targets: []string{"pipeline/challenges/usenhance tests"}, Help: "how many synthetic pairs TestResizeArithmeticMetrics scores with both resize arithmetics"},
	{Name: "REXMLE_BENCH_N", Kind: Test, Targets: []string{"grader benchmarks", "bench/"}, Help: "the USenhance benchmark's pair count"},
	{Name: "REXMLE_BENCH_CORES", Kind: Test, Targets: []string{"bench/"}, Help: "cores the grader benchmarks use"},
	{Name: "REXMLE_BENCH_BINDIR", Kind: Test, Targets: []string{"bench/"}, Help: "prebuilt grader benchmark binaries"},
	{Name: "REXMLE_REFERENCE", Kind: Test, Targets: []string{"bench/"}, Help: "a ReX-MLE checkout to time the reference graders"},
	{Name: "REXMLE_PYTHON", Kind: Test, Targets: []string{"bench/"}, Help: "the Python with the reference's modules"},
	{Name: "REXMLE_REFERENCE_RUNS", Kind: Test, Targets: []string{"bench/"}, Help: "at most this many runs of each reference grader in bench/graders.sh (ours still runs COUNT times)"},
	{Name: "REXMLE_REFERENCE_SKIP", Kind: Test, Targets: []string{"bench/"}, Help: "rows of bench/graders.sh whose reference is not run (a regular expression): their recorded time is shown"},
	{Name: "REXMLE_REFERENCE_PROFILE", Kind: Test, Type: Bool, Targets: []string{"bench/"}, Help: "`1` adds each reference grader's time by function to bench/graders.sh's notes"},
	{Name: "REXMLE_UPDATE_README", Kind: Test, Type: Bool, Targets: []string{"pipeline/placing tests"}, Help: "`1` rewrites README's \"Placing downloads by hand\" table from the challenge files"},
	{Name: "REXMLE_FULL_DIR", Kind: Test, Targets: []string{"bench/full.sh"}, Help: "the paper-sized benchmark's scratch folder"},
	{Name: "REXMLE_FULL_KEEP", Kind: Test, Type: Bool, Targets: []string{"bench/full.sh"}, Help: "`1` keeps the paper-sized benchmark's scratch folder"},
	{Name: "REXMLE_FULL_MIN_FREE_GB", Kind: Test, Targets: []string{"bench/full.sh"}, Help: "free disk the paper-sized benchmark needs to start"},
	{Name: "REXMLE_GPU_BINDIR", Kind: Test, Targets: []string{"bench/gpucheck.sh"}, Help: "a folder of prebuilt `mage`, `rexmle-agent` and `rexmle-bridge` (`bench/gpucheck.sh --build-bins DIR`), for a GPU node without Go"},
	{Name: "REXMLE_GPU_DIR", Kind: Test, Targets: []string{"bench/gpucheck.sh"}, Help: "the GPU check's scratch folder (kept: its results and site are the evidence)"},
	{Name: "REXMLE_GPU_PYTHON", Kind: Test, Targets: []string{"bench/gpucheck.sh"}, Help: "the python with torch, numpy and PIL the GPU check's agent runs with (under /usr or /opt)"},
	{Name: "REXMLE_GPU_TRAIN_SECONDS", Kind: Test, Targets: []string{"bench/gpucheck.sh"}, Help: "how long the GPU check's agent trains (default 40)"},
	{Name: "REXMLE_FULL_BINDIR", Kind: Test, Targets: []string{"bench/full.sh"}, Help: "a folder of prebuilt `mage`, `fullsubmit` and `gradefolder` binaries (`bench/full.sh --build-bins DIR`), for a machine without Go"},
	{Name: "REXMLE_FULL_PREPARE_PROCS", Kind: Test, Targets: []string{"bench/full.sh"}, Help: "GOMAXPROCS of the paper-sized benchmark's prepare stage alone (cases synthesized at once), to bound its memory on many cores"},
	{Name: "REXMLE_FULL_REAL_CASES", Kind: Test, Targets: []string{"bench/full.sh"}, Help: "with `REXMLE_SYNTH_CASES=full:N` and one challenge, its real case count: the paper-sized benchmark extrapolates prepare and grade to it"},
}

// TestPrefix is reserved for the scratch variables tests set for
// themselves (e.g. a fake API key's name); Load accepts and ignores them.
const TestPrefix = "REXMLE_TEST_"

// Child lists the REXMLE_* variables the pipeline sets in an agent's
// environment (the agent contract, agents/README.md): the runner's, and the
// set_env / agent_env values benchmark.toml gives its agents. They are not
// settings: a user never sets them, so Load refuses them on the host with
// what they are, and LoadChild, which an agent's process runs, reads them.
var Child = map[string]string{
	"REXMLE_SEED":            "the run's seed",
	"REXMLE_CHALLENGE":       "the run's challenge id",
	"REXMLE_TIME_LIMIT":      "the run's wall-clock seconds",
	"REXMLE_VALIDATE_SOCKET": "the run's validation endpoint (Unix socket)",
	"REXMLE_VALIDATE_URL":    "the run's validation endpoint (HTTP)",
	"REXMLE_VALIDATE_HTTP":   "the run's validation endpoint, as the adapters pass it on",
	"REXMLE_WORKING_SECONDS": "the working time an agent reports on its output",
	"REXMLE_DATA":            "the agent's public data folder",
	"REXMLE_SUBMISSION":      "the agent's submission folder",
	"REXMLE_LOGS":            "the agent's logs folder",
	"REXMLE_WORKSPACE":       "the agent's scratch folder",
	"REXMLE_STEPS":           "the agent's step budget",
	"REXMLE_STEP_TIMEOUT":    "seconds one program run of the agent may take",
	"REXMLE_COPY_RESERVE":    "seconds kept at the end of a run for copying",
	"REXMLE_HARDWARE":        "the hardware line of the agent's notes",
	"REXMLE_BACKEND":         "the backend label of the run",
	"REXMLE_MODEL":           "the model or deployment name",
	"REXMLE_ENDPOINT":        "the kind of LLM endpoint",
	"REXMLE_API_KEY_ENV":     "the name of the variable holding the API key",
	"REXMLE_BASE_URL_ENV":    "the name of the variable holding the endpoint URL",
	"REXMLE_API_VERSION_ENV": "the name of the variable holding the Azure API version",
	"REXMLE_LLM_BASE_URL":    "ML-Master's endpoint, set by its adapter",
	"REXMLE_LLM_API_KEY":     "ML-Master's key, set by its adapter",
	"REXMLE_STANDIN_HOLD":    "how long the stand-in agent holds, set by its tests",
	"REXMLE_AIDE_BEST_DIR":   "AIDE's best-solution folder, set by its adapter",
	"REXMLE_HARNESS_COMMIT":  "the commit of an agent's harness, set in its image",
	"REXMLE_SMOKE_BASE_URL":  "the smoke's scripted LLM",
}

// Lookup returns the declaration of name.
func Lookup(name string) (Var, bool) {
	for _, v := range Vars {
		if v.Name == name {
			return v, true
		}
	}
	return Var{}, false
}

// CheckPassedName says why benchmark.toml may not name a REXMLE_* variable
// for the pipeline to read on the host and pass to an agent (an agent's
// env, a backend's api_key_env, base_url_env or api_version_env, the
// judge's api_key_env): Load refuses every undeclared REXMLE_* name, so
// one that is not declared as Passed (or a test's scratch name) could
// never be set. Other names are the configuration's to choose.
func CheckPassedName(name string) error {
	if !strings.HasPrefix(name, "REXMLE_") || strings.HasPrefix(name, TestPrefix) {
		return nil
	}
	if v, ok := Lookup(name); ok && v.Kind == Passed {
		return nil
	}
	return fmt.Errorf("%s is a REXMLE_* name that is not declared in pipeline/settings as a value for agents, so it cannot be set: pick a name without the REXMLE_ prefix (or declare it there)", name)
}
