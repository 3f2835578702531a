// Package config loads and validates benchmark.toml and the per-challenge
// files it points to: the challenges with their data sources, metrics and
// human leaderboards, the agents, the judge, and the profiles.
package config

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/rexmle/rexmle/pipeline/rank"
)

// Benchmark is the whole configuration.
type Benchmark struct {
	Meta       Meta               `toml:"benchmark"`
	Paths      Paths              `toml:"paths"`
	Grading    Grading            `toml:"grading"`
	Agents     []Agent            `toml:"agent"`
	Judge      Judge              `toml:"judge"`
	Profiles   map[string]Profile `toml:"profile"`
	Challenges []*Challenge       `toml:"-"` // loaded from Meta.ChallengesDir, in Meta.Challenges order

	Root string `toml:"-"` // folder holding benchmark.toml; relative paths resolve against it
	File string `toml:"-"` // path of benchmark.toml
	Hash string `toml:"-"` // sha256 over benchmark.toml and every challenge file, in load order
}

// Meta names the benchmark and lists its challenges.
type Meta struct {
	Name          string   `toml:"name"`
	Paper         string   `toml:"paper"`
	ChallengesDir string   `toml:"challenges_dir"`
	Challenges    []string `toml:"challenges"`
}

// Paths says where each stage reads and writes, relative to Root.
type Paths struct {
	Data         string `toml:"data"`
	Results      string `toml:"results"`
	Database     string `toml:"database"`
	Site         string `toml:"site"`
	PaperResults string `toml:"paper_results"`
	Runs         string `toml:"runs"`
}

// Grading configures the grade stage.
type Grading struct {
	Mode    string `toml:"mode"`    // "reference" (default) or "official"
	Workers int    `toml:"workers"` // 0: one per core
}

// Agent is one agent the runner can launch.
type Agent struct {
	ID       string   `toml:"id"`
	Name     string   `toml:"name"`
	Backend  string   `toml:"backend"`  // LLM behind the agent, e.g. "gpt-5"; "none" for built-ins
	Builtin  string   `toml:"builtin"`  // "sample" or "baseline" for the built-in demo agents
	Executor string   `toml:"executor"` // "local", "docker", "apptainer"
	Command  []string `toml:"command"`  // template; placeholders {data}, {submission}, {logs}, {workspace}, {time_limit}, {gpus}, {challenge}, {seed}, {validate_socket}, {code}
	// Code is the folder holding the agent's own code (relative to the
	// folder of benchmark.toml, or absolute). The runner binds it read-only
	// at CodeMount in the bwrap sandbox and in containers; the command names
	// its files as /agent/... or {code}/... ({code} is the folder's host
	// path when sandbox = "none"). ProfileAgent makes it absolute.
	Code        string            `toml:"code"`
	Image       string            `toml:"image"`
	Env         []string          `toml:"env"` // names of environment variables passed through (never their values)
	SetEnv      map[string]string `toml:"set_env"`
	TimeLimit   Duration          `toml:"time_limit"`
	GracePeriod Duration          `toml:"grace_period"`
	GPUs        int               `toml:"gpus"`
	Network     bool              `toml:"network"`
	Description string            `toml:"description"`
	// Egress lists the only "host:port" destinations (e.g.
	// "api.openai.com:443") an agent without network = true may reach,
	// through a proxy that refuses everything else (its LLM API). An entry
	// "$NAME" stands for the host and port of the URL in the environment
	// variable NAME (e.g. an Azure endpoint), resolved by ProfileAgent.
	Egress []string `toml:"egress"`
	// Sandbox isolates local runs: "bwrap" (default; "auto" and
	// "namespaces" mean the same) runs the agent in a bubblewrap sandbox and
	// fails the run when bwrap cannot start; "none" is the explicit opt-out
	// (no isolation at all).
	Sandbox string `toml:"sandbox"`
	// Container limits (executor "docker"). Engine is the docker-compatible
	// CLI: "docker" or "podman" (empty: $REXMLE_ENGINE, else docker).
	// ShmSize is --shm-size ("16g"; empty: the engine's 64 MB), CPUs is
	// --cpus (0: no limit).
	Engine  string  `toml:"engine"`
	ShmSize string  `toml:"shm_size"`
	CPUs    float64 `toml:"cpus"`
	// Limits of one run, for the local sandbox and containers alike (see
	// package runlimits for how each is enforced). Sizes are bytes with an
	// optional k, m, g or t suffix (powers of 1024), or "unlimited".
	// Memory: the run's memory ("" : 3/4 of the host's RAM); a container's
	// --memory and --memory-swap. PidsLimit: its processes and threads
	// (0: 4096). FileSizeLimit: the largest file it may write ("": 256g).
	// DiskLimit: what its folders may hold on disk ("": half the free
	// space of the results file system when the run starts).
	// LimitCheckEvery: how often memory and disk are measured (0: 10s).
	Memory          string   `toml:"memory"`
	PidsLimit       int      `toml:"pids_limit"`
	FileSizeLimit   string   `toml:"file_size_limit"`
	DiskLimit       string   `toml:"disk_limit"`
	LimitCheckEvery Duration `toml:"limit_check_every"`
	// Backends are the LLM backends the agent can run with, by label (the
	// label runs are recorded under, e.g. "gpt-5", "claude-sonnet-4.5"). A
	// profile picks one with profile.backend; otherwise Backend is used.
	Backends map[string]AgentBackend `toml:"backends"`
}

// CodeMount is where an agent's code folder (Agent.Code) appears, read-only,
// inside the bwrap sandbox and the agent's container.
const CodeMount = "/agent"

// AgentBackend is how an agent reaches one LLM backend. The adapter
// receives it as REXMLE_BACKEND, REXMLE_MODEL, REXMLE_ENDPOINT and the
// names (never the values) of the variables holding key, URL and version.
type AgentBackend struct {
	Model         string            `toml:"model"`           // model or deployment name as the agent passes it
	Endpoint      string            `toml:"endpoint"`        // openai, azure, anthropic, gemini, openrouter, openai-compatible
	APIKeyEnv     string            `toml:"api_key_env"`     // variable holding the API key
	BaseURLEnv    string            `toml:"base_url_env"`    // variable holding the endpoint URL (azure, gateways)
	APIVersionEnv string            `toml:"api_version_env"` // variable holding the API version (azure)
	Env           []string          `toml:"env"`             // more variables passed through by name
	SetEnv        map[string]string `toml:"set_env"`         // fixed, non-secret values
	Egress        []string          `toml:"egress"`          // "host:port" or "$NAME" destinations
}

// Endpoints are the endpoint kinds an agent backend may name.
var Endpoints = []string{"openai", "azure", "anthropic", "gemini", "openrouter", "openai-compatible"}

// Judge configures the capability judge.
type Judge struct {
	Kind        string   `toml:"kind"` // "heuristic" or "openai"
	Model       string   `toml:"model"`
	BaseURL     string   `toml:"base_url"`
	APIKeyEnv   string   `toml:"api_key_env"`
	Rubric      string   `toml:"rubric"`
	MaxChars    int      `toml:"max_chars"`
	Concurrency int      `toml:"concurrency"`
	Timeout     Duration `toml:"timeout"`
	Retries     int      `toml:"retries"`
}

// Profile selects what `mage all` does: which data, agents, seeds and judge.
type Profile struct {
	Description string   `toml:"description"`
	Data        string   `toml:"data"` // "synthetic" or "fetched"
	Agents      []string `toml:"agents"`
	Seeds       []int    `toml:"seeds"`
	Setting     string   `toml:"setting"` // e.g. "24h": how runs are labelled in the tables
	Judge       string   `toml:"judge"`   // overrides judge.kind
	Challenges  []string `toml:"challenges"`
	Scheduler   string   `toml:"scheduler"` // "local" or "slurm"
	TimeLimit   Duration `toml:"time_limit"`
	// Resume says what happens to runs a stopped run stage left unfinished:
	// "restart" (default: run them again from a clean folder) or "mark"
	// (record them as interrupted and leave them).
	Resume string `toml:"resume"`
	// Workers is how many CPU-only runs go at once (0: one per core). GPU
	// runs go one per free GPU set, whatever this says.
	Workers int `toml:"workers"`
	// GPUSampleEvery is the telemetry period (default 5s).
	GPUSampleEvery Duration `toml:"gpu_sample_every"`
	// Slurm configures scheduler = "slurm".
	Slurm Slurm `toml:"slurm"`
	// PaperPublicFolder gives agents the public folder the paper's agents
	// had: besides the data, the human leaderboard, a description of how
	// the task is graded and, for TopCoW/TopBrain, a README (package
	// publicview). On for the paper's configurations.
	PaperPublicFolder bool `toml:"paper_public_folder"`
	// Backend runs the profile's agents with this LLM backend (one of each
	// agent's backends) instead of their default; runs are recorded under it.
	Backend string `toml:"backend"`
	// AgentEnv sets fixed variables for one agent in this profile, e.g.
	// agent_env.aide = { REXMLE_STEPS = "10000" }.
	AgentEnv map[string]map[string]string `toml:"agent_env"`
}

// Slurm is where and how the slurm scheduler submits a profile's runs.
type Slurm struct {
	Partition    string   `toml:"partition"`
	Account      string   `toml:"account"`
	CPUsPerTask  int      `toml:"cpus_per_task"`
	MemPerTask   string   `toml:"mem"`           // e.g. "32G"; empty: the cluster default
	TimeMargin   Duration `toml:"time_margin"`   // added to the run's time limit for --time (default 15m)
	MaxParallel  int      `toml:"max_parallel"`  // array throttle "%N"; 0: none
	PollEvery    Duration `toml:"poll_every"`    // squeue/sacct period (default 30s)
	ExtraOptions []string `toml:"extra_options"` // more "#SBATCH" options, e.g. "--qos=high"
}

// Challenge is one task: identity, data source, metrics and the human leaderboard.
type Challenge struct {
	ID            string       `toml:"id"`
	Name          string       `toml:"name"`
	ShortName     string       `toml:"short_name"`
	PaperName     string       `toml:"paper_name"`
	Competition   string       `toml:"competition"`
	Year          int          `toml:"year"`
	URL           string       `toml:"url"`
	Modality      string       `toml:"modality"`
	TaskType      string       `toml:"task_type"`
	Category      string       `toml:"category"` // segmentation, detection, classification, quality
	License       string       `toml:"license"`
	PrimaryMetric string       `toml:"primary_metric"`
	PrimaryLabel  string       `toml:"primary_label"`
	Sources       []Source     `toml:"source"`
	Metrics       []Metric     `toml:"metric"`
	Leaderboard   []HumanEntry `toml:"leaderboard"`

	File string `toml:"-"`
}

// Source is where a challenge's raw data comes from.
type Source struct {
	Kind          string   `toml:"kind"`   // zenodo, figshare, gdrive, url, manual
	Folder        string   `toml:"folder"` // raw folder under data/raw shared by several challenges; default the challenge id
	Record        string   `toml:"record"`
	Files         []string `toml:"files"`
	Name          string   `toml:"name"` // file name to save a gdrive/url download as
	URL           string   `toml:"url"`
	SHA256        string   `toml:"sha256"`
	MD5           string   `toml:"md5"`
	Size          int64    `toml:"size"`
	Extract       bool     `toml:"extract"`
	ExtractToStem bool     `toml:"extract_to_stem"` // unpack each archive into a folder named after it
	Instructions  string   `toml:"instructions"`
	// ApproxSizeGB is the published approximate size, in GB (10^9 bytes),
	// of everything the source downloads (0 = unknown); Terms is any
	// registration or terms to accept. Both only feed the offline plan.
	ApproxSizeGB float64 `toml:"approx_size_gb"`
	Terms        string  `toml:"terms"`
	// Published records what the source publishes about each of its files
	// (e.g. Zenodo's md5 per file): `mage fetchVerify` checks files placed
	// by hand against it, offline.
	Published []PublishedFile `toml:"published"`
}

// PublishedFile is a file's published checksum and size ([[source.published]]).
type PublishedFile struct {
	Name   string `toml:"name"`
	MD5    string `toml:"md5"`
	SHA256 string `toml:"sha256"`
	Size   int64  `toml:"size"`
}

// Metric is a ranked metric: a leaderboard column and its direction.
type Metric struct {
	Name      string `toml:"name"`
	Label     string `toml:"label"`
	Direction string `toml:"direction"` // higher_better or lower_better
}

// HigherBetter reports the metric's direction.
func (m Metric) HigherBetter() bool { return m.Direction == "higher_better" }

// HumanEntry is one row of a challenge's human leaderboard.
type HumanEntry struct {
	Rank         int                `toml:"rank"`
	Team         string             `toml:"team"`
	MeanPosition float64            `toml:"mean_position"` // as the leaderboard stores it (2 decimals)
	Values       map[string]float64 `toml:"values"`
}

// Duration is a time.Duration written as "24h", "90m" in TOML.
type Duration struct{ time.Duration }

// UnmarshalText parses a Go duration string.
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	if err != nil {
		return fmt.Errorf("want a duration such as \"24h\" or \"90m\": %w", err)
	}
	d.Duration = v
	return nil
}

// MarshalText writes the duration back.
func (d Duration) MarshalText() ([]byte, error) { return []byte(d.Duration.String()), nil }

// Challenge returns the challenge with the id.
func (b *Benchmark) Challenge(id string) (*Challenge, bool) {
	for _, c := range b.Challenges {
		if c.ID == id {
			return c, true
		}
	}
	return nil, false
}

// Agent returns the agent with the id.
func (b *Benchmark) Agent(id string) (*Agent, bool) {
	for i := range b.Agents {
		if b.Agents[i].ID == id {
			return &b.Agents[i], true
		}
	}
	return nil, false
}

// Path resolves a configured path against Root.
func (b *Benchmark) Path(p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(b.Root, p)
}

// PrimaryName is the primary metric as the paper's tables name it: its
// primary_label, or its key where the challenge gives no label.
func (c *Challenge) PrimaryName() string {
	if c.PrimaryLabel != "" {
		return c.PrimaryLabel
	}
	return c.PrimaryMetric
}

// Metric returns the ranked metric with the name.
func (c *Challenge) Metric(name string) (Metric, bool) {
	for _, m := range c.Metrics {
		if m.Name == name {
			return m, true
		}
	}
	return Metric{}, false
}

// Select returns the challenges named in ids (all when ids is empty), in
// benchmark order, or an error naming an unknown id.
func (b *Benchmark) Select(ids []string) ([]*Challenge, error) {
	if len(ids) == 0 {
		return b.Challenges, nil
	}
	want := map[string]bool{}
	for _, id := range ids {
		id = strings.TrimSpace(id)
		if id == "" {
			continue
		}
		if _, ok := b.Challenge(id); !ok {
			known := make([]string, 0, len(b.Challenges))
			for _, c := range b.Challenges {
				known = append(known, c.ID)
			}
			sort.Strings(known)
			return nil, fmt.Errorf("unknown challenge %q (known: %s)", id, strings.Join(known, ", "))
		}
		want[id] = true
	}
	var out []*Challenge
	for _, c := range b.Challenges {
		if want[c.ID] {
			out = append(out, c)
		}
	}
	return out, nil
}

// Profile returns the named profile, or an error listing the profiles.
func (b *Benchmark) Profile(name string) (Profile, error) {
	if name == "" {
		name = "demo"
	}
	p, ok := b.Profiles[name]
	if !ok {
		names := make([]string, 0, len(b.Profiles))
		for n := range b.Profiles {
			names = append(names, n)
		}
		sort.Strings(names)
		return Profile{}, fmt.Errorf("%s: no profile %q (profiles: %s)", b.File, name, strings.Join(names, ", "))
	}
	return p, nil
}

func hashFiles(paths []string) (string, error) {
	h := sha256.New()
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "%s\x00%d\x00", filepath.Base(p), len(b))
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// DataRoots returns where raw and prepared data of a data kind live, the
// one place that decides it. Fetched data: data/raw/<folder> → data/<id>.
// Synthetic data, entirely apart, so the demo never touches a download:
// data/synthetic/raw/<id> → data/synthetic/<id>.
func (b *Benchmark) DataRoots(kind string) (raw, prepared string) {
	root := b.Path(b.Paths.Data)
	if kind == "synthetic" {
		root = filepath.Join(root, "synthetic")
	}
	return filepath.Join(root, "raw"), root
}

// RawFolder is the folder under data/raw holding the challenge's downloaded
// data: the first source's shared folder, or the challenge id.
func (c *Challenge) RawFolder() string {
	for _, s := range c.Sources {
		if s.Folder != "" {
			return s.Folder
		}
	}
	return c.ID
}

// Board returns the challenge's leaderboard in the ranking engine's form.
func (c *Challenge) Board() *rank.Leaderboard {
	lb := &rank.Leaderboard{}
	for _, m := range c.Metrics {
		lb.Metrics = append(lb.Metrics, rank.Metric{Name: m.Name, HigherBetter: m.HigherBetter()})
	}
	for _, e := range c.Leaderboard {
		row := make([]float64, len(c.Metrics))
		for i, m := range c.Metrics {
			row[i] = e.Values[m.Name]
		}
		lb.Rows = append(lb.Rows, row)
		lb.MeanPositions = append(lb.MeanPositions, e.MeanPosition)
	}
	return lb
}
