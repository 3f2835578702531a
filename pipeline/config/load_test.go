package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const goodBench = `[benchmark]
name = "T"
challenges = ["c1"]

[[agent]]
id = "sample"
backend = "none"
builtin = "sample"

[profile.demo]
data = "synthetic"
agents = ["sample"]
setting = "demo"
`

const goodChallenge = `id = "c1"
name = "Challenge One"
short_name = "C1"
modality = "MRI"
task_type = "Segmentation"
category = "segmentation"
primary_metric = "dice"

[[source]]
kind = "zenodo"
record = "123"

[[metric]]
name = "dice"
label = "Dice"
direction = "higher_better"

[[metric]]
name = "hd95"
label = "HD95"
direction = "lower_better"

[[leaderboard]]
rank = 1
team = "A"
mean_position = 1.0
values = { dice = 0.9, hd95 = 3.0 }

[[leaderboard]]
rank = 2
team = "B"
mean_position = 2.0
values = { dice = 0.8, hd95 = 4.0 }
`

// write lays out a benchmark in a temp dir and returns the benchmark path.
func write(t *testing.T, bench, chal string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "benchmark", "challenges"), 0o755); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "benchmark.toml")
	os.WriteFile(p, []byte(bench), 0o644)
	os.WriteFile(filepath.Join(dir, "benchmark", "challenges", "c1.toml"), []byte(chal), 0o644)
	return p
}

func TestLoadGood(t *testing.T) {
	b, err := Load(write(t, goodBench, goodChallenge))
	if err != nil {
		t.Fatal(err)
	}
	c, ok := b.Challenge("c1")
	if !ok || len(c.Leaderboard) != 2 || c.Metrics[1].HigherBetter() || b.Hash == "" {
		t.Fatalf("loaded %+v", c)
	}
	lb := c.Board()
	if lb.N() != 2 || lb.Rows[1][1] != 4.0 {
		t.Fatalf("board %+v", lb)
	}
	if b.Paths.Database != "results/rexmle.sqlite" || b.Grading.Mode != "reference" {
		t.Errorf("defaults not applied: %+v %+v", b.Paths, b.Grading)
	}
}

func TestLoadRepoBenchmark(t *testing.T) {
	b, err := Load("../../benchmark.toml")
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Challenges) != 20 {
		t.Fatalf("%d challenges, want 20", len(b.Challenges))
	}
	ns := map[string]int{}
	for _, c := range b.Challenges {
		ns[c.ID] = len(c.Leaderboard)
	}
	// Leaderboard sizes the paper's percentiles depend on (spec ranking.md rule 4).
	for id, n := range map[string]int{"isles22": 10, "ldct-iqa": 6, "topcow-track1-task2": 8, "topcow-track1-task3": 6,
		"topcow-track2-task2": 7, "topcow-track2-task3": 6, "neurips-cellseg": 10} {
		if ns[id] != n {
			t.Errorf("%s has %d leaderboard rows, want %d", id, ns[id], n)
		}
	}
	if _, err := b.Profile("demo"); err != nil {
		t.Error(err)
	}
	if _, err := b.Select([]string{"isles22", "nope"}); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Errorf("Select of an unknown id: %v", err)
	}
}

func TestBrokenConfigs(t *testing.T) {
	cases := []struct {
		name        string
		bench, chal string
		want        []string // substrings of the error, including file:line
	}{
		{"syntax", goodBench + "\n[oops\n", goodChallenge, []string{"benchmark.toml:16: TOML syntax"}},
		{"unknown key in benchmark", strings.Replace(goodBench, `name = "T"`, "name = \"T\"\ncolour = 1", 1), goodChallenge,
			[]string{"benchmark.toml:3: unknown key \"benchmark.colour\""}},
		{"unknown key in challenge", goodBench, strings.Replace(goodChallenge, `modality = "MRI"`, "modality = \"MRI\"\nmodalty = \"x\"", 1),
			[]string{"c1.toml:5: unknown key \"modalty\""}},
		{"metric without direction", goodBench, strings.Replace(goodChallenge, "direction = \"lower_better\"\n", "", 1),
			[]string{"c1.toml:18: metric \"hd95\" has no direction"}},
		{"bad direction", goodBench, strings.Replace(goodChallenge, `"lower_better"`, `"smaller"`, 1),
			[]string{"c1.toml:21: metric \"hd95\": direction is \"smaller\""}},
		{"leaderboard row missing a value", goodBench, strings.Replace(goodChallenge, "values = { dice = 0.8, hd95 = 4.0 }", "values = { dice = 0.8 }", 1),
			[]string{"c1.toml:29: leaderboard row 2 (B): no value for metric \"hd95\""}},
		{"leaderboard value for an unknown metric", goodBench, strings.Replace(goodChallenge, "hd95 = 3.0 }", "hd95 = 3.0, iou = 1 }", 1),
			[]string{"leaderboard row 1 (A): value for \"iou\", which is not a [[metric]]"}},
		{"duplicate metric", goodBench, strings.Replace(goodChallenge, `name = "hd95"`, `name = "dice"`, 1),
			[]string{"c1.toml:18: metric \"dice\" is defined twice"}},
		{"duplicate rank", goodBench, strings.Replace(goodChallenge, "rank = 2", "rank = 1", 1),
			[]string{"leaderboard row 2: rank 1 appears twice"}},
		{"primary metric unknown", goodBench, strings.Replace(goodChallenge, `primary_metric = "dice"`, `primary_metric = "f1"`, 1),
			[]string{"c1.toml:7: primary_metric \"f1\" is not one of the [[metric]] names"}},
		{"missing name", goodBench, strings.Replace(goodChallenge, "name = \"Challenge One\"\n", "", 1),
			[]string{"c1.toml: name is missing"}},
		{"bad source kind", goodBench, strings.Replace(goodChallenge, `kind = "zenodo"`, `kind = "ftp"`, 1),
			[]string{"c1.toml:10: source 1: kind is \"ftp\""}},
		{"duplicate challenge id", strings.Replace(goodBench, `["c1"]`, `["c1", "c1"]`, 1), goodChallenge,
			[]string{"benchmark.challenges lists \"c1\" twice"}},
		{"missing challenge file", strings.Replace(goodBench, `["c1"]`, `["c1", "c2"]`, 1), goodChallenge,
			[]string{"challenge \"c2\"", "no such file"}},
		{"duplicate agent", goodBench + "\n[[agent]]\nid = \"sample\"\nbackend = \"none\"\nbuiltin = \"sample\"\n", goodChallenge,
			[]string{"benchmark.toml:15: agent \"sample\" is defined twice"}},
		{"agent without command", strings.Replace(goodBench, "builtin = \"sample\"\n", "", 1), goodChallenge,
			[]string{"agent \"sample\": want either builtin"}},
		{"profile with unknown agent", strings.Replace(goodBench, `agents = ["sample"]`, `agents = ["aide"]`, 1), goodChallenge,
			[]string{"profile \"demo\": unknown agent \"aide\""}},
		{"profile with bad data", strings.Replace(goodBench, `data = "synthetic"`, `data = "real"`, 1), goodChallenge,
			[]string{"benchmark.toml:11: profile \"demo\": data is \"real\""}},
		{"bad sandbox", strings.Replace(goodBench, "builtin = \"sample\"\n", "builtin = \"sample\"\nsandbox = \"chroot\"\n", 1), goodChallenge,
			[]string{"benchmark.toml:9: agent \"sample\": sandbox is \"chroot\""}},
		{"bad engine", strings.Replace(goodBench, "builtin = \"sample\"\n", "builtin = \"sample\"\nengine = \"lxc\"\n", 1), goodChallenge,
			[]string{"benchmark.toml:9: agent \"sample\": engine is \"lxc\", want docker or podman"}},
		{"negative cpus", strings.Replace(goodBench, "builtin = \"sample\"\n", "builtin = \"sample\"\ncpus = -2\n", 1), goodChallenge,
			[]string{"benchmark.toml:9: agent \"sample\": cpus is -2"}},
		{"bad egress", strings.Replace(goodBench, "builtin = \"sample\"\n", "builtin = \"sample\"\negress = [\"api.openai.com\", \"h:99999\"]\n", 1), goodChallenge,
			[]string{"agent \"sample\": egress entry \"api.openai.com\"", "agent \"sample\": egress entry \"h:99999\""}},
		{"egress with full network", strings.Replace(goodBench, "builtin = \"sample\"\n", "builtin = \"sample\"\nnetwork = true\negress = [\"api.openai.com:443\"]\n", 1), goodChallenge,
			[]string{"agent \"sample\": egress lists endpoints but network = true"}},
		{"bad resume", goodBench + "resume = \"retry\"\n", goodChallenge,
			[]string{"profile \"demo\": resume is \"retry\""}},
		{"negative agent time limit", strings.Replace(goodBench, "builtin = \"sample\"\n", "builtin = \"sample\"\ntime_limit = \"-1h\"\n", 1), goodChallenge,
			[]string{"benchmark.toml:9: agent \"sample\": time_limit is -1h0m0s, want a positive duration"}},
		{"zero agent time limit", strings.Replace(goodBench, "builtin = \"sample\"\n", "builtin = \"sample\"\ntime_limit = \"0s\"\n", 1), goodChallenge,
			[]string{"agent \"sample\": time_limit is 0s"}},
		{"negative grace period", strings.Replace(goodBench, "builtin = \"sample\"\n", "builtin = \"sample\"\ngrace_period = \"-5m\"\n", 1), goodChallenge,
			[]string{"agent \"sample\": grace_period is -5m0s, want zero or a positive duration"}},
		{"bad limits", strings.Replace(goodBench, "builtin = \"sample\"\n", "builtin = \"sample\"\npids_limit = -1\nmemory = \"lots\"\nfile_size_limit = \"0\"\ndisk_limit = \"-5g\"\nlimit_check_every = \"-1s\"\n", 1), goodChallenge,
			[]string{"agent \"sample\": pids_limit is -1", "agent \"sample\": memory: \"lots\" is not a size", "file_size_limit: \"0\" is not a size",
				"disk_limit: \"-5g\" is not a size", "limit_check_every is -1s"}},
		{"zero profile time limit", goodBench + "time_limit = \"0h\"\n", goodChallenge,
			[]string{"benchmark.toml:14: profile \"demo\": time_limit is 0s"}},
		{"negative judge timeout", goodBench + "\n[judge]\ntimeout = \"-2s\"\n", goodChallenge,
			[]string{"judge: timeout is -2s"}},
		{"negative grading workers", goodBench + "\n[grading]\nworkers = -1\n", goodChallenge,
			[]string{"grading.workers is -1"}},
		{"code on a builtin agent", strings.Replace(goodBench, "builtin = \"sample\"\n", "builtin = \"sample\"\ncode = \"myagent\"\n", 1), goodChallenge,
			[]string{"benchmark.toml:9: agent \"sample\": code is set, but a builtin agent runs rexmle's own code"}},
		{"code with a colon", strings.Replace(goodBench, "builtin = \"sample\"\n", "command = [\"python3\", \"/agent/a.py\"]\ncode = \"a:b\"\n", 1), goodChallenge,
			[]string{"benchmark.toml:9: agent \"sample\": code is \"a:b\", want a folder path"}},
		{"code is the checkout", strings.Replace(goodBench, "builtin = \"sample\"\n", "command = [\"python3\", \"/agent/a.py\"]\ncode = \"./\"\n", 1), goodChallenge,
			[]string{"agent \"sample\": code is \"./\", want the folder holding the agent's code, not the whole checkout"}},
		{"{code} without code", strings.Replace(goodBench, "builtin = \"sample\"\n", "command = [\"python3\", \"{code}/a.py\"]\n", 1), goodChallenge,
			[]string{"benchmark.toml:8: agent \"sample\": the command names {code} but the agent has no code folder"}},
		{"bad duration", goodBench + "\n[profile.x]\ndata = \"fetched\"\nsetting = \"x\"\ntime_limit = \"a day\"\n", goodChallenge,
			[]string{"want a duration"}},
		{"undeclared REXMLE_ name passed to an agent", strings.Replace(goodBench, `builtin = "sample"`, "builtin = \"sample\"\nenv = [\"REXMLE_MY_KEY\", \"REXMLE_STANDIN_API_KEY\", \"MY_KEY\"]", 1), goodChallenge,
			[]string{`benchmark.toml:9: agent "sample": env: REXMLE_MY_KEY is a REXMLE_* name that is not declared in pipeline/settings`}},
		// A profile without setting once loaded and labelled its runs mine//none/myagent.
		{"no setting", goodBench + "\n[profile.mine]\ndata = \"fetched\"\nagents = [\"sample\"]\n", goodChallenge,
			[]string{`benchmark.toml:15: profile "mine": setting missing`}},
		{"setting with a slash", goodBench + "\n[profile.mine]\ndata = \"fetched\"\nsetting = \"a/b\"\n", goodChallenge,
			[]string{`setting "a/b"`}},
		// The paper's recorded results are a source of their own: a profile
		// of that name would be replaced by them on every rank.
		{"reserved profile name", goodBench + "\n[profile.paper-printed]\ndata = \"fetched\"\nsetting = \"24h\"\n", goodChallenge,
			[]string{`profile "paper-printed": the name is reserved for the paper's recorded results`}},
		{"profile name with a slash", goodBench + "\n[profile.\"a/b\"]\ndata = \"fetched\"\nsetting = \"24h\"\n", goodChallenge,
			[]string{`profile "a/b": name wants letters, digits`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Load(write(t, c.bench, c.chal))
			if err == nil {
				t.Fatal("broken config accepted")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error does not contain %q:\n%v", w, err)
				}
			}
		})
	}
}

// An agent's code folder loads as written and ProfileAgent resolves it
// against the folder of benchmark.toml (an absolute one stays).
func TestAgentCodeResolvesAgainstTheBenchmarkFolder(t *testing.T) {
	bench := strings.Replace(goodBench, "builtin = \"sample\"\n", "command = [\"python3\", \"{code}/run.py\"]\ncode = \"agents/mine\"\n", 1)
	bench += "\n[[agent]]\nid = \"abs\"\nbackend = \"none\"\ncommand = [\"/agent/run\"]\ncode = \"/srv/agent\"\n"
	p := write(t, bench, goodChallenge)
	b, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	if b.Agents[0].Code != "agents/mine" {
		t.Errorf("loaded code %q", b.Agents[0].Code)
	}
	a, err := b.ProfileAgentEnv(b.Profiles["demo"], "sample", os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(filepath.Dir(p), "agents", "mine"); a.Code != want {
		t.Errorf("profile agent's code %q, want %q", a.Code, want)
	}
	if b.Agents[0].Code != "agents/mine" {
		t.Error("ProfileAgent changed the benchmark's agent")
	}
	if a, _ := b.ProfileAgentEnv(b.Profiles["demo"], "abs", os.Getenv); a.Code != "/srv/agent" {
		t.Errorf("absolute code became %q", a.Code)
	}
}

func TestZeroGraceIsAllowed(t *testing.T) {
	b, err := Load(write(t, strings.Replace(goodBench, "builtin = \"sample\"\n", "builtin = \"sample\"\ngrace_period = \"0s\"\ntime_limit = \"1m\"\n", 1), goodChallenge))
	if err != nil {
		t.Fatal(err)
	}
	if a, _ := b.Agent("sample"); a.GracePeriod.Duration != 0 || a.TimeLimit.Minutes() != 1 {
		t.Errorf("agent durations %+v %+v", a.GracePeriod, a.TimeLimit)
	}
}

func TestAllProblemsReportedTogether(t *testing.T) {
	chal := strings.Replace(goodChallenge, "direction = \"lower_better\"\n", "", 1)
	chal = strings.Replace(chal, "values = { dice = 0.8, hd95 = 4.0 }", "values = { dice = 0.8 }", 1)
	_, err := Load(write(t, goodBench, chal))
	var ce *Error
	if !errors.As(err, &ce) || len(ce.Problems) != 2 {
		t.Fatalf("want 2 problems (no direction; row 2 without hd95), got %v", err)
	}
}

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{"": 0, "unlimited": -1, "Unlimited": -1, "4096": 4096, "512m": 512 << 20, "64g": 64 << 30, "64G": 64 << 30,
		"64GiB": 64 << 30, "64gb": 64 << 30, "1.5t": 3 << 39, "1k": 1024, " 2 g ": 2 << 30} {
		if got, err := ParseSize(in); err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"0", "-1g", "g", "1x", "1e30t", "NaN", "inf", "0.0001"} {
		if got, err := ParseSize(in); err == nil {
			t.Errorf("ParseSize(%q) = %d, want an error", in, got)
		}
	}
}

func TestLimitsLoaded(t *testing.T) {
	b, err := Load(write(t, strings.Replace(goodBench, "builtin = \"sample\"\n", "builtin = \"sample\"\npids_limit = 512\nmemory = \"8g\"\nfile_size_limit = \"unlimited\"\ndisk_limit = \"100g\"\nlimit_check_every = \"30s\"\n", 1), goodChallenge))
	if err != nil {
		t.Fatal(err)
	}
	a := b.Agents[0]
	if a.PidsLimit != 512 || a.Memory != "8g" || a.FileSizeLimit != "unlimited" || a.DiskLimit != "100g" || a.LimitCheckEvery.Duration != 30*time.Second {
		t.Fatalf("%+v", a)
	}
}
