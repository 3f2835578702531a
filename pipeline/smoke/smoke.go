// Package smoke is `mage smoke`: before days of GPU runs, each agent of a
// profile runs for a few minutes on one small synthetic challenge, through
// the real runner (its executor, the egress proxy, the validation
// endpoint), against a scripted OpenAI-compatible LLM on loopback
// (package scriptedllm) instead of its backend, and must hand in a
// submission that the challenge's grader accepts. It needs no network and
// no API key: the backend's key variable is given a dummy value for the
// smoke's runs only (passed as the runner passes keys, never written to a
// log, run.json or the report).
//
// Each agent's result names the first step that broke, in run order:
// "image" (the agent's image is not built, or a local agent's program or
// code is missing), "agent start", "LLM call", "validation call",
// "submission" (none was handed in) and "valid submission" (the grader
// refuses it), with what the run showed and what to do.
package smoke

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"text/tabwriter"
	"time"

	"github.com/rexmle/rexmle/pipeline/binaries"
	"github.com/rexmle/rexmle/pipeline/challenge"
	"github.com/rexmle/rexmle/pipeline/config"
	"github.com/rexmle/rexmle/pipeline/doctor"
	"github.com/rexmle/rexmle/pipeline/fsutil"
	"github.com/rexmle/rexmle/pipeline/gpu"
	"github.com/rexmle/rexmle/pipeline/runner"
	"github.com/rexmle/rexmle/pipeline/runner/validate"
	"github.com/rexmle/rexmle/pipeline/scriptedllm"
	"github.com/rexmle/rexmle/pipeline/settings"
)

// The steps of a smoke run, in the order the run reaches them.
const (
	StepImage      = "image"
	StepStart      = "agent start"
	StepLLM        = "LLM call"
	StepValidate   = "validation call"
	StepSubmission = "submission"
	StepValid      = "valid submission"
)

// Defaults.
const (
	DefaultChallenge = "ldct-iqa"
	DefaultTime      = 5 * time.Minute
	// MaxGrace caps the agent's grace period in the smoke (the paper
	// agents' 10 minutes would double a smoke stopped at its limit).
	MaxGrace = time.Minute
	// DummyKey is the API key the agents get in the smoke.
	DummyKey = "rexmle-smoke-dummy-key"
	// URLVar names the base URL variable of a backend that has none (an
	// OpenAI, Anthropic or Gemini backend, answered by the scripted LLM as
	// an OpenAI-compatible endpoint).
	URLVar = "REXMLE_SMOKE_BASE_URL"
)

// Options says what to smoke.
type Options struct {
	Bench     *config.Benchmark
	Profile   string
	Agents    []string      // a subset of the profile's agents; empty: all
	Challenge string        // synthetic challenge; empty: DefaultChallenge
	TimeLimit time.Duration // per agent; 0: DefaultTime
	// Out is where the results go: <Out>/data/<challenge> and
	// <Out>/<profile>/<agent>/ (the run folder) and <Out>/<profile>/smoke.json.
	Out string
	// AgentBin and BridgeBin are rexmle-agent and the static rexmle-bridge
	// (empty: binaries.Agent/Bridge of Bench.Root).
	AgentBin, BridgeBin string
	// Script gives the scripted LLM's script per agent (nil: scriptedllm.ForAgent).
	Script func(agent string) scriptedllm.Script
	// Probe is how the image and command checks look at the host (zero:
	// doctor.System(Host)).
	Probe *doctor.Probe
	// Host is the environment the settings captured (variables the
	// configuration names are read from it; the agents' keys are replaced
	// by the scripted LLM's).
	Host settings.Environ
	// Engine is the REXMLE_ENGINE setting ("": docker).
	Engine string
	// GPUs lists the devices runs may use (nil: none; FromSettings discovers them with NVML).
	GPUs []gpu.Device
	Log  *slog.Logger
}

// Result is one agent's smoke.
type Result struct {
	Agent   string `json:"agent"`
	OK      bool   `json:"ok"`
	Step    string `json:"step,omitempty"` // the step that broke
	Message string `json:"message"`        // what broke and what to do, or what passed
	// What the run showed.
	Executor      string       `json:"executor"`
	Status        string       `json:"status,omitempty"` // run.json status
	ExitCode      int          `json:"exit_code"`
	LLMCalls      int          `json:"llm_calls"`
	ValidateCalls int          `json:"validate_calls"`
	EgressRefused int          `json:"egress_refused"`
	Files         []string     `json:"files,omitempty"` // the sealed submission
	Seconds       float64      `json:"seconds"`
	RunDir        string       `json:"run_dir,omitempty"`
	Notes         []string     `json:"notes,omitempty"`
	GPU           *gpu.Summary `json:"gpu,omitempty"`
}

func (r *Result) fail(step, format string, args ...any) {
	r.OK, r.Step = false, step
	prefix := map[string]string{StepImage: "image missing", StepStart: "agent start failed", StepLLM: "no LLM call",
		StepValidate: "no validation call", StepSubmission: "no submission", StepValid: "invalid submission"}[step]
	if step == StepImage && (r.Executor == "local" || r.Executor == "") {
		prefix = "agent code missing"
	}
	r.Message = prefix + ": " + fmt.Sprintf(format, args...)
}

// Run smokes every selected agent of the profile, one after the other, and
// returns their results (an error only when the smoke itself cannot run).
func Run(ctx context.Context, o Options) ([]Result, error) {
	b := o.Bench
	p, err := b.Profile(o.Profile)
	if err != nil {
		return nil, err
	}
	ids := p.Agents
	if len(o.Agents) > 0 {
		for _, id := range o.Agents {
			if !slices.Contains(p.Agents, id) {
				return nil, fmt.Errorf("smoke: profile %s has no agent %q (agents: %s)", o.Profile, id, strings.Join(p.Agents, ", "))
			}
		}
		ids = o.Agents
	}
	if len(ids) == 0 {
		return nil, fmt.Errorf("smoke: profile %s runs no agent", o.Profile)
	}
	chID := o.Challenge
	if chID == "" {
		chID = DefaultChallenge
	}
	ch, ok := challenge.Lookup(chID)
	if !ok {
		return nil, fmt.Errorf("smoke: no challenge %q", chID)
	}
	if o.TimeLimit <= 0 {
		o.TimeLimit = DefaultTime
	}
	if o.Log == nil {
		o.Log = slog.Default()
	}
	if o.AgentBin == "" {
		o.AgentBin = binaries.Agent(b.Root)
	}
	if o.BridgeBin == "" {
		o.BridgeBin = binaries.Bridge(b.Root)
	}
	probe := doctor.System(o.Host)
	if o.Probe != nil {
		probe = *o.Probe
	}
	data := filepath.Join(o.Out, "data", chID)
	if err := prepareData(ctx, ch, data); err != nil {
		return nil, fmt.Errorf("smoke: synthetic %s: %w", chID, err)
	}
	var out []Result
	for _, id := range ids {
		if err := ctx.Err(); err != nil {
			return out, err
		}
		r := smokeOne(ctx, o, p, id, ch, data, probe)
		o.Log.Info("smoke", "agent", id, "ok", r.OK, "step", r.Step, "message", r.Message)
		out = append(out, r)
	}
	if err := writeReport(filepath.Join(o.Out, o.Profile, "smoke.json"), out); err != nil {
		return out, err
	}
	return out, nil
}

// prepareData synthesizes the challenge's tiny dataset and prepares it into
// dir (public/ and private/), afresh.
func prepareData(ctx context.Context, ch challenge.Challenge, dir string) error {
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), "."+ch.ID()+".smoke-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	raw, prepared := filepath.Join(tmp, "raw"), filepath.Join(tmp, "prepared")
	if err := ch.Synthesize(ctx, raw, 1, challenge.SynthSize{}); err != nil { // the demo's tiny dataset
		return err
	}
	if err := ch.Prepare(ctx, raw, prepared); err != nil {
		return err
	}
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	return os.Rename(prepared, dir)
}

func smokeOne(ctx context.Context, o Options, p config.Profile, id string, ch challenge.Challenge, data string, probe doctor.Probe) Result {
	r := Result{Agent: id}
	src, ok := o.Bench.Agent(id)
	if !ok {
		r.fail(StepImage, "benchmark.toml defines no agent %q", id)
		return r
	}
	r.Executor = src.Executor
	if src.Builtin != "" {
		r.Notes = append(r.Notes, "built-in agent: it calls no LLM, so the LLM call is not required")
	}
	llm, err := scriptedllm.Start(o.script(id))
	if err != nil {
		r.fail(StepLLM, "the scripted LLM could not start: %v", err)
		return r
	}
	defer llm.Close()
	bench, a, notes, err := smokeAgent(o.Bench, p, id, llm, o.Host)
	r.Notes = append(r.Notes, notes...)
	if err != nil {
		r.fail(StepImage, "%v", err)
		return r
	}
	// The image, engine and command checks of the doctor, for this agent alone.
	sp := p
	sp.Agents, sp.Backend, sp.AgentEnv, sp.Data, sp.Challenges = []string{id}, "", nil, "synthetic", nil
	rep := doctor.Run(ctx, doctor.Input{Bench: bench, ProfileName: o.Profile, Profile: sp, Engine: o.Engine}, probe)
	var blocking []string
	for _, c := range rep.Blocking(id, ch.ID()) {
		if c.Area == "executor" || c.Area == "image" || c.Area == "engine" || c.Area == "config" {
			blocking = append(blocking, c.Item+": "+c.Detail)
		}
	}
	if len(blocking) > 0 {
		msg := strings.Join(blocking, "; ")
		if a.Executor == "docker" {
			msg += fmt.Sprintf(". Build the profile's images with `REXMLE_PROFILE=%s go run mage.go agents` (a recipe FROM a registry image needs the network once); the smoke runs them as built", o.Profile)
		}
		r.fail(StepImage, "%s", msg)
		return r
	}
	lim := o.TimeLimit
	grace := a.GracePeriod.Duration
	if grace <= 0 || grace > MaxGrace {
		grace = MaxGrace
	}
	mode := challenge.Reference
	check := validate.Check(ch, filepath.Join(data, "private"), mode)
	var calls atomic.Int64
	runDir := filepath.Join(o.Out, o.Profile, id)
	j := &runner.Job{Group: "smoke-" + o.Profile, Challenge: ch.ID(), Agent: a, Seed: 1, PublicDir: filepath.Join(data, "public"),
		RunDir: runDir, Setting: "smoke", TimeLimit: lim, Grace: grace, AgentBin: o.AgentBin, BridgeBin: o.BridgeBin, EngineSetting: o.Engine, Host: o.Host,
		Hide: []string{o.Out}, Log: o.Log, TelemetryNote: "no GPU for the smoke",
		Validate: func(ctx context.Context, dir string) error { calls.Add(1); return check(ctx, dir) }}
	if a.GPUs > 0 {
		if len(o.GPUs) >= a.GPUs {
			devs := o.GPUs[:a.GPUs]
			for _, d := range devs {
				j.GPUs = append(j.GPUs, d.Index)
			}
			for k, v := range gpu.AgentEnv(devs) {
				j.Agent.SetEnv[k] = v
			}
			if s, err := gpu.OpenDevices(devs); err == nil {
				j.Sampler = s
				defer s.Close()
			} else {
				j.TelemetryNote = err.Error()
			}
		} else {
			j.Agent.GPUs = 0
			j.Agent.SetEnv["CUDA_VISIBLE_DEVICES"] = ""
			r.Notes = append(r.Notes, fmt.Sprintf("the agent asks for %d GPU(s), %d usable here: run without a GPU (the scripted code needs none)", a.GPUs, len(o.GPUs)))
		}
	}
	r.RunDir = runDir
	start := time.Now()
	in, err := runner.Execute(ctx, j)
	r.Seconds = time.Since(start).Seconds()
	r.LLMCalls = len(llm.Chats())
	r.ValidateCalls = int(calls.Load())
	if err != nil {
		r.fail(StepStart, "the runner could not run it: %v", err)
		return r
	}
	r.Status, r.ExitCode, r.EgressRefused, r.GPU = in.Status, in.ExitCode, in.EgressRefused, in.GPUSummary
	r.Files = listFiles(filepath.Join(runDir, "submission"))
	classify(ctx, &r, in, a, llm, lim, ch, data, runDir)
	return r
}

func (o Options) script(id string) scriptedllm.Script {
	if o.Script != nil {
		return o.Script(id)
	}
	return scriptedllm.ForAgent(id)
}

// classify names the first step of the finished run that broke.
func classify(ctx context.Context, r *Result, in *runner.Info, a config.Agent, llm *scriptedllm.Server, lim time.Duration, ch challenge.Challenge, data, runDir string) {
	tail := consoleTail(filepath.Join(runDir, "logs", "console.log"), 6)
	ended := fmt.Sprintf("the run ended %s", in.Status)
	if in.Status != runner.StatusTimedOut {
		ended += fmt.Sprintf(" with exit code %d", in.ExitCode)
	}
	if in.Error != "" {
		ended += " (" + in.Error + ")"
	}
	ended += "; logs/console.log ends: " + tail
	usesLLM := a.Builtin == ""
	switch {
	case in.Status == runner.StatusFailed && in.Command == nil:
		r.fail(StepStart, "%s", in.Error)
		return
	case in.ExitCode == 126 || in.ExitCode == 127:
		r.fail(StepStart, "the %s could not start the agent's command (exit %d); %s", map[bool]string{true: "container engine", false: "sandbox"}[a.Executor == "docker"], in.ExitCode, ended)
		return
	case usesLLM && r.LLMCalls == 0 && in.EgressRefused > 0:
		r.fail(StepLLM, "the egress proxy refused %d request(s) to destinations other than the backend (%s): the agent called another endpoint; %s", in.EgressRefused, strings.Join(in.Egress, ", "), ended)
		return
	case usesLLM && r.LLMCalls == 0 && in.Status != runner.StatusTimedOut && in.ExitCode != 0:
		r.fail(StepStart, "the agent exited before its first LLM call; %s", ended)
		return
	case usesLLM && r.LLMCalls == 0:
		r.fail(StepLLM, "no request reached the scripted LLM (%s, through the egress proxy) in %s; %s", llm.BaseURL(), lim, ended)
		return
	case r.ValidateCalls == 0:
		r.fail(StepValidate, "the agent never asked the validation endpoint about its submission (REXMLE_VALIDATE_URL, or its adapter's bridge); %s", ended)
		return
	case len(r.Files) == 0:
		r.fail(StepSubmission, "the sealed submission folder is empty; %s", ended)
		return
	}
	if _, err := challenge.SafeGrade(ctx, ch, filepath.Join(runDir, "submission"), filepath.Join(data, "private"), challenge.Reference); err != nil {
		r.fail(StepValid, "%s's grader refuses it: %s", ch.ID(), strings.TrimPrefix(err.Error(), "invalid submission: "))
		return
	}
	r.OK = true
	r.Message = fmt.Sprintf("%d LLM call(s), %d validation call(s), %d file(s) handed in, graded valid (%s)", r.LLMCalls, r.ValidateCalls, len(r.Files), in.Status)
}

// listFiles lists the regular files under dir, relative to it.
func listFiles(dir string) []string {
	var out []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	return out
}

// consoleTail returns the last n non-empty lines of a log, joined by " | ".
func consoleTail(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return "(no console log)"
	}
	var lines []string
	for _, l := range strings.Split(string(b), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			if len(l) > 300 {
				l = l[:300] + "…"
			}
			lines = append(lines, l)
		}
	}
	if len(lines) == 0 {
		return "(empty)"
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}

// smokeAgent returns the benchmark with agent id set up for the smoke and
// the agent as the runner gets it: its backend (the profile's) answered by
// the scripted LLM — the endpoint kept where the backend names its URL by
// a variable (Azure, gateways), else served as an OpenAI-compatible one at
// URLVar — its key variable set to DummyKey, the URL and version variables
// to the smoke's values (passed like keys: by name, never on a command
// line), egress to the scripted LLM alone, no full network.
func smokeAgent(b *config.Benchmark, p config.Profile, id string, llm *scriptedllm.Server, host settings.Environ) (*config.Benchmark, config.Agent, []string, error) {
	src, _ := b.Agent(id)
	bb := *b
	bb.Agents = []config.Agent{*src}
	ag := &bb.Agents[0]
	var notes []string
	set := map[string]string{}
	label := src.Backend
	if p.Backend != "" && src.Builtin == "" {
		label = p.Backend
	}
	if be, ok := src.Backends[label]; ok {
		nb := be
		url := llm.BaseURL()
		switch {
		case be.BaseURLEnv != "" && be.Endpoint == "azure":
			url = llm.URL() // the resource URL; the client adds /openai/...
		case be.BaseURLEnv != "":
		default:
			nb.Endpoint, nb.BaseURLEnv = "openai-compatible", URLVar
			notes = append(notes, fmt.Sprintf("backend %s (endpoint %s) answered by the scripted LLM as an OpenAI-compatible endpoint at $%s", label, be.Endpoint, URLVar))
		}
		nb.Egress = []string{"$" + nb.BaseURLEnv}
		set[nb.APIKeyEnv] = DummyKey
		set[nb.BaseURLEnv] = url
		if nb.APIVersionEnv != "" {
			v := host.Get(nb.APIVersionEnv)
			if v == "" {
				v = "2024-12-01-preview"
			}
			set[nb.APIVersionEnv] = v
		}
		ag.Backends = map[string]config.AgentBackend{}
		for k, v := range src.Backends {
			ag.Backends[k] = v
		}
		ag.Backends[label] = nb
	} else if src.Builtin == "" {
		notes = append(notes, fmt.Sprintf("agent %s has no [agent.backends] table: it is given the scripted LLM as OPENAI_BASE_URL with OPENAI_API_KEY", id))
		set["OPENAI_API_KEY"], set["OPENAI_BASE_URL"] = DummyKey, llm.BaseURL()
	}
	if len(src.Egress) > 0 {
		notes = append(notes, fmt.Sprintf("the agent's own egress (%s) is closed in the smoke: it reaches the scripted LLM alone", strings.Join(src.Egress, ", ")))
	}
	ag.Egress, ag.Network = nil, false
	if src.Builtin == "" && len(ag.Backends) == 0 {
		ag.Egress = []string{llm.Addr()}
	}
	getenv := func(n string) string {
		if v, ok := set[n]; ok {
			return v
		}
		return host.Get(n)
	}
	sp := p
	if _, ok := ag.Backends[label]; !ok {
		sp.Backend = ""
	}
	a, err := bb.ProfileAgentEnv(sp, id, getenv)
	if err != nil {
		return nil, config.Agent{}, notes, err
	}
	var env []string
	for _, n := range a.Env {
		if _, ok := set[n]; !ok {
			env = append(env, n)
		}
	}
	a.Env = env
	for k, v := range set {
		a.SetEnv[k] = v
	}
	// The doctor checks the agent as the smoke runs it: no key variables to
	// look up, no profile backend to apply again.
	ag.Env, ag.SetEnv, ag.Egress, ag.Backend, ag.Backends = a.Env, a.SetEnv, a.Egress, a.Backend, nil
	return &bb, a, notes, nil
}

// writeReport writes the results as JSON, atomically.
func writeReport(path string, rs []Result) error {
	b, err := json.MarshalIndent(map[string]any{"schema": "rexmle-smoke/1", "at": time.Now().UTC().Format(time.RFC3339), "results": rs}, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return fsutil.WriteFile(path, append(b, '\n'), 0o644)
}

// Print writes the results as a table and a last line saying what passed.
func Print(w io.Writer, profile string, rs []Result) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "AGENT\tRESULT\tSTEP\tDETAIL")
	for _, r := range rs {
		res, step := "ok", "-"
		if !r.OK {
			res, step = "FAIL", r.Step
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.Agent, res, step, r.Message)
		for _, n := range r.Notes {
			fmt.Fprintf(tw, "\t\t\tnote: %s\n", n)
		}
	}
	tw.Flush()
	if err := Err(profile, rs); err != nil {
		fmt.Fprintln(w, err)
	} else {
		fmt.Fprintf(w, "smoke: profile %s: every agent handed in a valid submission\n", profile)
	}
}

// Err is nil when every agent passed, else an error naming those that did
// not and the step that broke.
func Err(profile string, rs []Result) error {
	var bad []string
	for _, r := range rs {
		if !r.OK {
			bad = append(bad, fmt.Sprintf("%s (%s)", r.Agent, r.Step))
		}
	}
	if len(bad) == 0 {
		return nil
	}
	sort.Strings(bad)
	return errors.New("smoke: profile " + profile + ": " + fmt.Sprint(len(bad)) + " of " + fmt.Sprint(len(rs)) + " agent(s) failed: " + strings.Join(bad, ", "))
}
