// Package doctor is the preflight of a profile: before any agent run it
// checks that every run can start — the container engines or bubblewrap
// each agent's executor needs, the agents' images built, the GPUs visible
// through NVML (indices, UUIDs, MIG instances, memory), the API keys set
// (by name; values are never printed), the data prepared (and, outside the
// demo, prepared from fetched rather than synthetic data), the disk space
// and the time limits. `mage doctor` prints the table and exits non-zero on
// any problem; the run stage runs the same checks and records the runs a
// problem stops as failed with its reason instead of starting them.
package doctor

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/rexmle/rexmle/pipeline/binaries"
	"github.com/rexmle/rexmle/pipeline/challenge"
	"github.com/rexmle/rexmle/pipeline/config"
	"github.com/rexmle/rexmle/pipeline/fetch"
	"github.com/rexmle/rexmle/pipeline/gpu"
	"github.com/rexmle/rexmle/pipeline/runlimits"
	"github.com/rexmle/rexmle/pipeline/runner"
	"github.com/rexmle/rexmle/pipeline/settings"
)

// Check statuses.
const (
	OK   = "ok"
	Warn = "warn" // worth knowing; stops nothing
	Fail = "FAIL" // stops the runs in the check's scope
)

// Check is one row of the table.
type Check struct {
	Area   string // config, executor, image, key, gpu, data, disk
	Item   string
	Status string
	Detail string
	// The runs a failure stops: those of Agents (nil: every agent) on
	// Challenges (nil: every challenge).
	Agents     []string
	Challenges []string
}

// Probe is how the checks look at the host; System is the real one, tests
// pass fakes.
type Probe struct {
	LookPath  func(file string) (string, error)
	Output    func(ctx context.Context, name string, args ...string) ([]byte, error)
	LookupEnv func(name string) (string, bool)
	Devices   func() ([]gpu.Device, error) // every GPU and MIG instance NVML lists
	FreeBytes func(path string) (uint64, error)
	MemTotal  func() (int64, error) // the host's RAM (the default memory limit is a share of it)
	// Lstat and Readlink read the host's files for the sandbox view of a
	// local agent's command (nil: os.Lstat, os.Readlink).
	Lstat    func(name string) (fs.FileInfo, error)
	Readlink func(name string) (string, error)
}

// System probes this host, reading variables (API keys, CUDA_VISIBLE_DEVICES)
// from host, the environment the settings captured.
func System(host settings.Environ) Probe {
	return Probe{
		LookPath: exec.LookPath,
		Output: func(ctx context.Context, name string, args ...string) ([]byte, error) {
			ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
			defer cancel()
			return exec.CommandContext(ctx, name, args...).CombinedOutput()
		},
		LookupEnv: host.Lookup,
		Devices:   gpu.Discover,
		FreeBytes: runlimits.FreeBytes,
		MemTotal:  runlimits.MemTotal,
		Lstat:     os.Lstat,
		Readlink:  os.Readlink,
	}
}

// Input is what is checked.
type Input struct {
	Bench       *config.Benchmark
	ProfileName string
	Profile     config.Profile
	Challenges  []*config.Challenge
	// Engine is the REXMLE_ENGINE setting: the engine of docker-executor
	// agents that set none ("": docker).
	Engine string
	// MinFreeBytes is the free space the data and results folders need;
	// 0: DefaultMinFree for the profile's data.
	MinFreeBytes uint64
	// BinRoot is the folder whose bin/ holds the agent binaries ("": the
	// benchmark's folder), as the run stage's.
	BinRoot string
}

// DefaultMinFree returns the free space a profile's runs need: 1 GiB for
// synthetic data, 50 GiB for fetched data (agents' workspaces and
// checkpoints grow over 24 h runs).
func DefaultMinFree(p config.Profile) uint64 {
	if p.Data == "synthetic" {
		return 1 << 30
	}
	return 50 << 30
}

// Report is the result of Run.
type Report struct {
	Profile string
	Checks  []Check
	// GPUs are the devices runs may be given (CUDA_VISIBLE_DEVICES
	// applied); NoGPU says why there are none or why the list stops short.
	GPUs  []gpu.Device
	NoGPU string

	probed map[string]int // engine and image → index in Checks of its start probe
}

func (r *Report) add(c Check) { r.Checks = append(r.Checks, c) }

// TimeLimit is the run time limit of agent a under profile p: the
// profile's when it sets one, else the agent's. A negative limit, or none
// at all, is a configuration error (issue: a negative time_limit must never
// silently become a default).
func TimeLimit(a config.Agent, p config.Profile) (time.Duration, error) {
	if p.TimeLimit.Duration < 0 {
		return 0, fmt.Errorf("profile time_limit %s: want a positive duration such as \"24h\"", p.TimeLimit.Duration)
	}
	if a.TimeLimit.Duration < 0 {
		return 0, fmt.Errorf("agent %s: time_limit %s: want a positive duration such as \"24h\"", a.ID, a.TimeLimit.Duration)
	}
	if a.GracePeriod.Duration < 0 {
		return 0, fmt.Errorf("agent %s: grace_period %s: want a positive duration such as \"5m\"", a.ID, a.GracePeriod.Duration)
	}
	if p.TimeLimit.Duration > 0 {
		return p.TimeLimit.Duration, nil
	}
	if a.TimeLimit.Duration == 0 {
		return 0, fmt.Errorf("agent %s: time_limit is missing or zero (and the profile sets none): want a positive duration such as \"24h\"", a.ID)
	}
	return a.TimeLimit.Duration, nil
}

// Engine is the container engine that runs agent a: "podman" or "docker"
// for the docker-compatible executors (the agent's engine, else setting —
// REXMLE_ENGINE — for executor "docker"; default docker), "apptainer" for
// apptainer, "" for local runs.
func Engine(a config.Agent, setting string) string {
	switch a.Executor {
	case "podman":
		return "podman"
	case "docker":
		// config.Load accepts only docker or podman as the agent's engine
		// and settings.Load only those as REXMLE_ENGINE.
		if e, err := settings.ResolveEngine(a.Engine, "engine", setting); err == nil {
			return e
		}
		return settings.DefaultEngine
	case "apptainer":
		return "apptainer"
	}
	return ""
}

// secretName reports whether an environment variable passed to an agent
// is a credential the agent cannot work without (an API key or token).
var secretName = regexp.MustCompile(`(?i)(^|_)(API_?KEY|KEY|TOKEN|SECRET|PASSWORD)$`)

// Run checks everything the profile's runs need.
func Run(ctx context.Context, in Input, p Probe) *Report {
	r := &Report{Profile: in.ProfileName}
	var agents []config.Agent
	gpuAgents := []string{}
	getenv := func(n string) string { v, _ := p.LookupEnv(n); return v }
	for _, id := range in.Profile.Agents {
		if _, ok := in.Bench.Agent(id); !ok {
			r.add(Check{Area: "config", Item: "agent " + id, Status: Fail, Detail: "the profile lists an agent benchmark.toml does not define", Agents: []string{id}})
			continue
		}
		// As the run stage sees it: the profile's backend applied (its key,
		// URL and version variables, its egress destinations resolved).
		a, err := in.Bench.ProfileAgentEnv(in.Profile, id, getenv)
		if err != nil {
			r.add(Check{Area: "config", Item: "agent " + id + " backend", Status: Fail, Detail: err.Error(), Agents: []string{id}})
			// Go on with the variables' names, so each missing one is listed too.
			if a, err = in.Bench.ProfileAgentEnv(in.Profile, id, func(n string) string {
				if v := getenv(n); v != "" {
					return v
				}
				return "http://unset.invalid"
			}); err != nil {
				continue
			}
		}
		agents = append(agents, a)
		if a.GPUs > 0 {
			gpuAgents = append(gpuAgents, a.ID)
		}
	}
	for _, a := range agents {
		checkAgent(ctx, r, in, p, a)
	}
	checkGPUs(r, p, agents, gpuAgents)
	checkJudge(r, in, p)
	checkData(r, in)
	checkDisk(r, in, p)
	return r
}

func checkAgent(ctx context.Context, r *Report, in Input, p Probe, a config.Agent) {
	scope := []string{a.ID}
	if lim, err := TimeLimit(a, in.Profile); err != nil {
		r.add(Check{Area: "config", Item: "agent " + a.ID, Status: Fail, Detail: err.Error(), Agents: scope})
	} else {
		r.add(Check{Area: "config", Item: "agent " + a.ID, Status: OK, Detail: "time limit " + lim.String()})
	}
	checkLimits(r, in, p, a)
	switch a.Executor {
	case "", "local":
		if a.Sandbox == "none" {
			r.add(Check{Area: "executor", Item: a.ID + ": local", Status: Warn, Detail: `sandbox = "none": the agent runs without isolation`})
		} else if path, err := p.LookPath("bwrap"); err != nil {
			r.add(Check{Area: "executor", Item: a.ID + ": bwrap", Status: Fail, Detail: "bubblewrap (bwrap) not found: install it (Debian: apt-get install bubblewrap)", Agents: scope})
		} else {
			r.add(Check{Area: "executor", Item: a.ID + ": bwrap", Status: OK, Detail: path})
		}
		codeOK := a.Code == "" || checkCodeFolder(r, p, a)
		if a.Builtin == "" && len(a.Command) > 0 && codeOK {
			checkLocalCommand(r, in, p, a)
		}
	case "docker", "podman":
		if a.Code != "" && !checkCodeFolder(r, p, a) {
			break
		}
		engine := Engine(a, in.Engine)
		path, err := p.LookPath(engine)
		if err != nil {
			r.add(Check{Area: "executor", Item: a.ID + ": " + engine, Status: Fail, Detail: fmt.Sprintf("container engine %s not found on PATH (install it, or set REXMLE_ENGINE=podman|docker)", engine), Agents: scope})
			break
		}
		r.add(Check{Area: "executor", Item: a.ID + ": " + engine, Status: OK, Detail: path})
		if a.Image == "" {
			r.add(Check{Area: "image", Item: a.ID, Status: Fail, Detail: fmt.Sprintf("executor %s needs an image (agent %s has none)", a.Executor, a.ID), Agents: scope})
			break
		}
		out, err := p.Output(ctx, engine, "image", "inspect", "--format", "{{.Id}}", a.Image)
		if err != nil && strings.Contains(string(out), "Cannot connect to the Docker daemon") {
			r.add(Check{Area: "executor", Item: a.ID + ": " + engine + " daemon", Status: Fail,
				Detail: fmt.Sprintf("%s is installed but its daemon does not answer (start it, or set REXMLE_ENGINE=podman): %s", engine, firstLine(out, err)), Agents: scope})
			break
		}
		if err != nil {
			r.add(Check{Area: "image", Item: a.ID + ": " + a.Image, Status: Fail,
				Detail: fmt.Sprintf("%s has no image %s (build it: `go run mage.go agents`): %s", engine, a.Image, firstLine(out, err)), Agents: scope})
			break
		}
		id := strings.TrimPrefix(strings.TrimSpace(string(out)), "sha256:")
		if len(id) > 12 {
			id = id[:12]
		}
		r.add(Check{Area: "image", Item: a.ID + ": " + a.Image, Status: OK, Detail: "built (" + id + ")"})
		checkEngineStarts(ctx, r, p, engine, a.Image, a.ID)
	case "apptainer":
		if a.Code != "" && !checkCodeFolder(r, p, a) {
			break
		}
		path, err := p.LookPath("apptainer")
		if err != nil {
			r.add(Check{Area: "executor", Item: a.ID + ": apptainer", Status: Fail, Detail: "apptainer not found on PATH", Agents: scope})
			break
		}
		r.add(Check{Area: "executor", Item: a.ID + ": apptainer", Status: OK, Detail: path})
		switch {
		case a.Image == "":
			r.add(Check{Area: "image", Item: a.ID, Status: Fail, Detail: "executor apptainer needs an image", Agents: scope})
		case strings.Contains(a.Image, "://"):
			r.add(Check{Area: "image", Item: a.ID + ": " + a.Image, Status: Warn, Detail: "pulled by apptainer when the run starts"})
		default:
			img := a.Image
			if !filepath.IsAbs(img) {
				img = in.Bench.Path(img)
			}
			if st, err := os.Stat(img); err != nil || !st.Mode().IsRegular() {
				r.add(Check{Area: "image", Item: a.ID + ": " + a.Image, Status: Fail, Detail: "no image file at " + img, Agents: scope})
			} else {
				r.add(Check{Area: "image", Item: a.ID + ": " + a.Image, Status: OK, Detail: fmt.Sprintf("%.1f MiB", float64(st.Size())/(1<<20))})
			}
		}
	default:
		r.add(Check{Area: "executor", Item: a.ID, Status: Fail, Detail: fmt.Sprintf("unknown executor %q (want local, docker, podman or apptainer)", a.Executor), Agents: scope})
	}
	for _, name := range a.Env {
		v, ok := p.LookupEnv(name)
		switch {
		case ok && v != "":
			r.add(Check{Area: "key", Item: a.ID + ": " + name, Status: OK, Detail: "set (value not shown)"})
		case secretName.MatchString(name):
			r.add(Check{Area: "key", Item: a.ID + ": " + name, Status: Fail, Detail: "API key " + name + " is not set (export it where mage runs; it is passed to the agent by name, never stored)", Agents: scope})
		default:
			r.add(Check{Area: "key", Item: a.ID + ": " + name, Status: Warn, Detail: "not set: passed to the agent only when set"})
		}
	}
}

// checkLocalCommand checks a local agent's program and script as the run
// will see them: inside its bwrap sandbox (through the binds the runner
// gives it), or on this host with sandbox = "none".
func checkLocalCommand(r *Report, in Input, p Probe, a config.Agent) {
	j := runner.Job{Group: in.ProfileName, Agent: a, Seed: 1, AgentBin: binaries.Agent(cmp.Or(in.BinRoot, in.Bench.Root)), PublicDir: "/nonexistent-public"}
	_, dataRoot := in.Bench.DataRoots(in.Profile.Data)
	if len(in.Challenges) > 0 {
		j.Challenge = in.Challenges[0].ID
		j.PublicDir = filepath.Join(dataRoot, j.Challenge, "public")
	}
	j.RunDir = filepath.Join(in.Bench.Path(in.Bench.Paths.Runs), in.ProfileName, j.Challenge, a.ID, "seed-1")
	if lim, err := TimeLimit(a, in.Profile); err == nil {
		j.TimeLimit = lim
	}
	if a.Sandbox == "none" {
		argv, err := j.Command()
		if err != nil {
			r.add(Check{Area: "executor", Item: a.ID, Status: Fail, Detail: err.Error(), Agents: []string{a.ID}})
			return
		}
		checkHostCommand(r, p, a, argv, j.RunDir)
		return
	}
	argv, binds, err := j.SandboxPlan()
	if err != nil {
		r.add(Check{Area: "executor", Item: a.ID, Status: Fail, Detail: err.Error(), Agents: []string{a.ID}})
		return
	}
	checkSandboxCommand(r, p, a, a.Command, argv, binds)
}

// checkHostCommand checks an unsandboxed agent's program on this host's
// PATH and its script, as the run (working folder: the run's empty
// workspace) will find them.
func checkHostCommand(r *Report, p Probe, a config.Agent, argv []string, runDir string) {
	scope := []string{a.ID}
	exe := a.Command[0]
	if path, err := p.LookPath(argv[0]); err != nil {
		r.add(Check{Area: "executor", Item: a.ID + ": " + exe, Status: Fail, Detail: fmt.Sprintf("the agent's executable %q is not installed (not on PATH)", argv[0]), Agents: scope})
	} else {
		r.add(Check{Area: "executor", Item: a.ID + ": " + exe, Status: OK, Detail: path})
	}
	if i := scriptArg(argv); i > 0 {
		s := argv[i]
		item := a.ID + ": " + a.Command[min(i, len(a.Command)-1)]
		if !filepath.IsAbs(s) {
			r.add(Check{Area: "executor", Item: item, Status: Fail, Agents: scope,
				Detail: fmt.Sprintf("the agent's script %q is relative: it is read from the run's working folder %s, empty when the run starts; name it by its absolute path or {code}/… with code = \"<its folder>\"", s, filepath.Join(runDir, "workspace"))})
		} else if fi, err := statFollow(p, s); err != nil || !fi.Mode().IsRegular() {
			r.add(Check{Area: "executor", Item: item, Status: Fail, Agents: scope, Detail: fmt.Sprintf("the agent's script %s is not a file on this host", s)})
		} else {
			r.add(Check{Area: "executor", Item: item, Status: OK, Detail: s})
		}
	}
}

// probeEntrypoint is a path no image holds: a container started with it as
// its entrypoint gets through the runtime's setup (namespaces, cgroups,
// rlimits) and fails only at exec, with "not found".
const probeEntrypoint = "/nonexistent-rexmle-probe"

// checkEngineStarts starts one throw-away container from image, once per
// engine and image: an engine that lists images but cannot start containers
// (podman with crun or systemd cgroups where they fail, default ulimits it
// may not raise) would fail every run; the doctor says so and what to set.
// checkLimits shows the resource limits the agent's runs get (package
// runlimits) and how they are enforced for its executor.
func checkLimits(r *Report, in Input, p Probe, a config.Agent) {
	runs := ""
	if in.Bench != nil {
		runs = in.Bench.Path(in.Bench.Paths.Runs)
	}
	l, err := runlimits.Resolve(a, runs, runlimits.Host{MemTotal: p.MemTotal, FreeBytes: p.FreeBytes})
	if err != nil {
		r.add(Check{Area: "limits", Item: a.ID, Status: Fail, Detail: err.Error(), Agents: []string{a.ID}})
		return
	}
	status, how := OK, ""
	switch {
	case a.Executor == "docker" || a.Executor == "podman":
		how = "container: --pids-limit, --memory, --ulimit fsize; disk by the watchdog"
	case a.Executor == "apptainer":
		status, how = Warn, "apptainer: only the disk watchdog applies (no process, memory or file-size limit)"
	case a.Sandbox == "none":
		status, how = Warn, `sandbox = "none": only the disk watchdog applies (no process, memory or file-size limit)`
	default:
		how = "bwrap: rlimits nproc, data, fsize inside the sandbox; memory (PSS of its processes) and disk by the watchdog"
	}
	r.add(Check{Area: "limits", Item: a.ID, Status: status, Detail: l.String() + "; " + how})
}

func checkEngineStarts(ctx context.Context, r *Report, p Probe, engine, image, agent string) {
	key := engine + " " + image
	if r.probed == nil {
		r.probed = map[string]int{}
	}
	if i, ok := r.probed[key]; ok {
		if c := &r.Checks[i]; c.Status == Fail {
			c.Agents = append(c.Agents, agent)
		}
		return
	}
	out, err := p.Output(ctx, engine, "run", "--rm", "--pull", "never", "--network", "none", "--entrypoint", probeEntrypoint, image)
	text := string(out)
	c := Check{Area: "engine", Item: engine + " runs " + image, Status: OK, Detail: "starts containers"}
	if err == nil || !strings.Contains(text, probeEntrypoint) || !(strings.Contains(text, "not found") || strings.Contains(text, "no such file")) {
		c.Status, c.Agents = Fail, []string{agent}
		c.Detail = fmt.Sprintf("%s cannot start a container here: %s", engine, firstLine(out, err))
		if engine == "podman" {
			c.Detail += ` (where crun or systemd cgroups fail, set in containers.conf or $CONTAINERS_CONF: [engine] runtime = "runc", cgroup_manager = "cgroupfs"; [containers] default_ulimits = [])`
		}
	}
	r.add(c)
	r.probed[key] = len(r.Checks) - 1
}

func firstLine(out []byte, err error) string {
	s := strings.TrimSpace(string(out))
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	if s == "" {
		return err.Error()
	}
	return s
}

func checkGPUs(r *Report, p Probe, agents []config.Agent, gpuAgents []string) {
	// The device rows fail when an agent needs a GPU but stop no run by
	// themselves (empty scope): the per-agent "needs N GPU(s)" rows do.
	status, none := Fail, []string{}
	if len(gpuAgents) == 0 {
		status = Warn
	}
	var devs []gpu.Device
	all, err := p.Devices()
	if err != nil {
		r.NoGPU = "no GPU visible through NVML: " + err.Error()
		r.add(Check{Area: "gpu", Item: "NVML", Status: status, Detail: r.NoGPU, Agents: none})
	} else {
		r.add(Check{Area: "gpu", Item: "NVML", Status: OK, Detail: fmt.Sprintf("%d device(s) listed", len(all))})
		for _, d := range all {
			if !d.IsMIG() && d.MIGEnabled {
				n := 0
				for _, m := range all {
					if m.IsMIG() && m.Index == d.Index {
						n++
					}
				}
				r.add(Check{Area: "gpu", Item: "GPU " + d.Label(), Status: OK, Detail: fmt.Sprintf("%s, %s, MIG mode on: %d instance(s), each a device of its own", d.Name, d.UUID, n)})
			}
		}
		v, set := p.LookupEnv("CUDA_VISIBLE_DEVICES")
		devs, err = gpu.Visible(all, v, set)
		switch {
		case err != nil:
			r.NoGPU = err.Error()
			r.add(Check{Area: "gpu", Item: "CUDA_VISIBLE_DEVICES", Status: status, Detail: err.Error(), Agents: none})
		case set:
			r.add(Check{Area: "gpu", Item: "CUDA_VISIBLE_DEVICES", Status: OK, Detail: fmt.Sprintf("%q: %d device(s) for runs", v, len(devs))})
		}
		for _, d := range devs {
			mem := "memory unknown"
			if d.MemTotalBytes >= 0 {
				mem = fmt.Sprintf("%.1f GiB", float64(d.MemTotalBytes)/(1<<30))
			}
			r.add(Check{Area: "gpu", Item: "GPU " + d.Label(), Status: OK, Detail: fmt.Sprintf("%s, %s, %s", d.Name, d.UUID, mem)})
		}
		if err == nil && len(devs) == 0 {
			r.NoGPU = "no usable GPU"
			if set {
				r.NoGPU += fmt.Sprintf(" (CUDA_VISIBLE_DEVICES=%q)", v)
			}
		}
	}
	r.GPUs = devs
	whole := 0
	for _, d := range devs {
		if !d.IsMIG() {
			whole++
		}
	}
	for _, a := range agents {
		switch {
		case a.GPUs > len(devs):
			why := fmt.Sprintf("needs %d GPU(s); %d usable here", a.GPUs, len(devs))
			if r.NoGPU != "" {
				why += " (" + r.NoGPU + ")"
			}
			r.add(Check{Area: "gpu", Item: a.ID, Status: Fail, Detail: why, Agents: []string{a.ID}})
		case a.GPUs > 1 && a.GPUs > whole:
			r.add(Check{Area: "gpu", Item: a.ID, Status: Fail, Agents: []string{a.ID},
				Detail: fmt.Sprintf("needs %d GPU(s); %d whole GPU(s) usable here (a process can use only one MIG instance)", a.GPUs, whole)})
		}
	}
}

// checkJudge checks the LLM judge's key by name. A missing key stops no
// run (the judge comes after), but doctor reports it before days of runs.
func checkJudge(r *Report, in Input, p Probe) {
	kind := in.Bench.Judge.Kind
	if in.Profile.Judge != "" {
		kind = in.Profile.Judge
	}
	if kind != "openai" {
		return
	}
	name := in.Bench.Judge.APIKeyEnv
	if name == "" {
		name = "OPENAI_API_KEY"
	}
	if v, ok := p.LookupEnv(name); ok && v != "" {
		r.add(Check{Area: "key", Item: "judge: " + name, Status: OK, Detail: "set (value not shown)"})
		return
	}
	r.add(Check{Area: "key", Item: "judge: " + name, Status: Fail, Agents: []string{},
		Detail: "API key " + name + " of the LLM judge is not set (the judge stage needs it; runs are not stopped by it)"})
}

// synthetic reports whether a prepared data folder came from synthetic
// data: its raw folder carries the demo's marker, or its manifest says so.
func synthetic(rawRoot string, c *config.Challenge, dir string) bool {
	for _, raw := range []string{filepath.Join(rawRoot, c.RawFolder()), filepath.Join(rawRoot, c.ID)} {
		if _, err := os.Stat(filepath.Join(raw, ".rexmle-synthetic")); err == nil {
			return true
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, challenge.ManifestName))
	if err != nil {
		return false
	}
	var m map[string]any
	if json.Unmarshal(b, &m) != nil {
		return false
	}
	for _, k := range []string{"data", "data_kind", "kind", "source"} {
		if s, ok := m[k].(string); ok && strings.EqualFold(s, "synthetic") {
			return true
		}
	}
	return false
}

// notPrepared says what a challenge that is not prepared lacks: on fetched
// data, the downloads missing from its raw folder (in the words prepare
// uses: source, file, page, folder, zipped or unpacked) when any are,
// else that its raw data is in place and only prepare is left.
func notPrepared(in Input, rawRoot string, c *config.Challenge) string {
	const prep = "not prepared (no public/ or manifest.json): run `go run mage.go prepare`"
	if in.Profile.Data == "synthetic" {
		return prep
	}
	impl, ok := challenge.Lookup(c.ID)
	if !ok {
		return prep
	}
	dl, ok := impl.(challenge.Downloader)
	if !ok {
		return prep
	}
	raw := filepath.Join(rawRoot, c.RawFolder())
	if missing := challenge.CheckDownloads(raw, dl.Downloads()); len(missing) > 0 {
		return "not prepared, " + (&challenge.MissingDownloadsError{Challenge: c.ID, RawDir: raw, Missing: missing}).Error()
	}
	return "not prepared; its downloads are in " + raw + ": run `go run mage.go prepare`"
}

func checkData(r *Report, in Input) {
	rawRoot, dataRoot := in.Bench.DataRoots(in.Profile.Data)
	for _, c := range in.Challenges {
		dir := filepath.Join(dataRoot, c.ID)
		scope := []string{c.ID}
		m, err := challenge.ReadManifest(dir)
		if _, perr := os.Stat(filepath.Join(dir, "public")); perr != nil || err != nil {
			r.add(Check{Area: "data", Item: c.ID, Status: Fail, Detail: notPrepared(in, rawRoot, c), Challenges: scope})
			continue
		}
		syn := synthetic(rawRoot, c, dir)
		switch {
		case in.Profile.Data != "synthetic" && syn:
			r.add(Check{Area: "data", Item: c.ID, Status: Fail, Challenges: scope,
				Detail: fmt.Sprintf("prepared from synthetic (demo) data, but profile %s needs fetched data: run `go run mage.go fetch` then prepare with this profile", in.ProfileName)})
		case syn:
			size := ""
			if m.SynthSize != "" {
				size = ", " + challenge.SynthCasesEnv + "=" + m.SynthSize
			}
			r.add(Check{Area: "data", Item: c.ID, Status: OK, Detail: fmt.Sprintf("prepared, %d files (synthetic%s)", len(m.Files), size)})
		default:
			r.add(Check{Area: "data", Item: c.ID, Status: OK, Detail: fmt.Sprintf("prepared, %d files (fetched)", len(m.Files))})
			// Data placed by hand: what fetchVerify's last check found (no hashing here).
			if prov := fetch.Provenance(filepath.Join(rawRoot, c.RawFolder())); strings.HasPrefix(prov, "placed by hand") {
				st := Warn
				if strings.HasPrefix(prov, "placed by hand, verified") {
					st = OK
				} else {
					prov += "; `mage fetchVerify` checks the files against the checksums the challenge file records"
				}
				r.add(Check{Area: "data", Item: c.ID + " raw", Status: st, Detail: prov})
			}
		}
	}
}

func checkDisk(r *Report, in Input, p Probe) {
	min := in.MinFreeBytes
	if min == 0 {
		min = DefaultMinFree(in.Profile)
	}
	seen := map[string]bool{}
	for _, f := range []struct{ name, path string }{{"data", in.Bench.Path(in.Bench.Paths.Data)}, {"runs", in.Bench.Path(in.Bench.Paths.Runs)}} {
		if seen[f.path] {
			continue
		}
		seen[f.path] = true
		free, err := p.FreeBytes(f.path)
		switch {
		case err != nil:
			r.add(Check{Area: "disk", Item: f.name, Status: Warn, Detail: err.Error()})
		case free < min:
			r.add(Check{Area: "disk", Item: f.name, Status: Fail, Detail: fmt.Sprintf("%.1f GiB free, want at least %.1f GiB", gib(free), gib(min))})
		default:
			r.add(Check{Area: "disk", Item: f.name, Status: OK, Detail: fmt.Sprintf("%.1f GiB free (want %.1f GiB)", gib(free), gib(min))})
		}
	}
}

func gib(b uint64) float64 { return float64(b) / (1 << 30) }

// Failures returns the failed checks.
func (r *Report) Failures() []Check {
	var out []Check
	for _, c := range r.Checks {
		if c.Status == Fail {
			out = append(out, c)
		}
	}
	return out
}

func inScope(list []string, id string) bool {
	if list == nil {
		return true
	}
	for _, x := range list {
		if x == id {
			return true
		}
	}
	return false
}

// Blocking returns the failed checks that stop the run of agent on
// challengeID (none: the run can start).
func (r *Report) Blocking(agent, challengeID string) []Check {
	var out []Check
	for _, c := range r.Failures() {
		if inScope(c.Agents, agent) && inScope(c.Challenges, challengeID) {
			out = append(out, c)
		}
	}
	return out
}

// Reasons joins the checks' details: the reason a refused run records.
func Reasons(cs []Check) string {
	parts := make([]string, len(cs))
	for i, c := range cs {
		parts[i] = c.Detail
	}
	return strings.Join(parts, "; ")
}

// Err is nil when every check passed, else an error naming the problems.
func (r *Report) Err() error {
	f := r.Failures()
	if len(f) == 0 {
		return nil
	}
	var parts []string
	for _, c := range f {
		parts = append(parts, c.Area+" "+c.Item)
	}
	sort.Strings(parts)
	if len(parts) > 8 {
		parts = append(parts[:8], fmt.Sprintf("and %d more", len(parts)-8))
	}
	return fmt.Errorf("doctor: %d problem(s) for profile %s (see the table): %s", len(f), r.Profile, strings.Join(parts, ", "))
}

// Print writes the table: one row per check, failures marked FAIL.
func (r *Report) Print(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "AREA\tITEM\tSTATUS\tDETAIL\n")
	for _, c := range r.Checks {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", c.Area, c.Item, c.Status, c.Detail)
	}
	tw.Flush()
	if f := r.Failures(); len(f) > 0 {
		fmt.Fprintf(w, "doctor: profile %s: %d problem(s) (FAIL rows); the run stage records the runs they stop as failed, not started\n", r.Profile, len(f))
	} else {
		fmt.Fprintf(w, "doctor: profile %s: every run can start\n", r.Profile)
	}
}
