package config

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
)

// The repository's own benchmark.toml, as users run it.
func loadRepo(t *testing.T) *Benchmark {
	t.Helper()
	b, err := Load(filepath.Join("..", "..", "benchmark.toml"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestProfileAgentAppliesTheProfileBackend(t *testing.T) {
	b := loadRepo(t)
	p, err := b.Profile("paper-claude")
	if err != nil {
		t.Fatal(err)
	}
	a, err := b.profileAgent(p, "aide", env(nil))
	if err != nil {
		t.Fatal(err)
	}
	if a.Backend != "claude-sonnet-4.5" || a.SetEnv["REXMLE_BACKEND"] != "claude-sonnet-4.5" || a.SetEnv["REXMLE_ENDPOINT"] != "anthropic" ||
		!strings.HasPrefix(a.SetEnv["REXMLE_MODEL"], "claude-sonnet-4-5") || a.SetEnv["REXMLE_API_KEY_ENV"] != "ANTHROPIC_API_KEY" {
		t.Fatalf("aide under paper-claude: backend %q, set_env %v", a.Backend, a.SetEnv)
	}
	if !slices.Contains(a.Env, "ANTHROPIC_API_KEY") || slices.Contains(a.Env, "AZURE_OPENAI_API_KEY") {
		t.Fatalf("passed variables %v, want the Anthropic key and not the Azure one", a.Env)
	}
	if !slices.Equal(a.Egress, []string{"api.anthropic.com:443"}) {
		t.Fatalf("egress %v", a.Egress)
	}
	if a.SetEnv["REXMLE_STEPS"] != "2000" {
		t.Fatalf("the agent's own set_env is lost: %v", a.SetEnv)
	}
	orig, _ := b.Agent("aide")
	if orig.Backend != "gpt-5" || orig.SetEnv["REXMLE_BACKEND"] != "" || len(orig.Egress) != 0 {
		t.Fatalf("ProfileAgent changed the benchmark's agent: %+v", orig)
	}
}

func TestProfileAgentResolvesEgressFromTheEnvironment(t *testing.T) {
	b := loadRepo(t)
	p, _ := b.Profile("paper")
	a, err := b.profileAgent(p, "rd-agent", env(map[string]string{"AZURE_OPENAI_ENDPOINT": "https://lab-east.openai.azure.com/"}))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(a.Egress, []string{"lab-east.openai.azure.com:443"}) {
		t.Fatalf("egress %v", a.Egress)
	}
	if a.SetEnv["REXMLE_ENDPOINT"] != "azure" || a.SetEnv["REXMLE_BASE_URL_ENV"] != "AZURE_OPENAI_ENDPOINT" || !slices.Contains(a.Env, "AZURE_OPENAI_API_VERSION") {
		t.Fatalf("rd-agent under paper: %v %v", a.SetEnv, a.Env)
	}
	_, err = b.profileAgent(p, "rd-agent", env(nil))
	if err == nil || !strings.Contains(err.Error(), "AZURE_OPENAI_ENDPOINT") {
		t.Fatalf("unset endpoint variable: err = %v, want one naming AZURE_OPENAI_ENDPOINT", err)
	}
}

func TestProfileAgentEnvPerProfile(t *testing.T) {
	b := loadRepo(t)
	p, _ := b.Profile("paper-72h")
	e := env(map[string]string{"AZURE_OPENAI_ENDPOINT": "https://x.openai.azure.com"})
	aide, err := b.profileAgent(p, "aide", e)
	if err != nil {
		t.Fatal(err)
	}
	mm, err := b.profileAgent(p, "ml-master", e)
	if err != nil {
		t.Fatal(err)
	}
	if aide.SetEnv["REXMLE_STEPS"] != "10000" || mm.SetEnv["REXMLE_STEPS"] != "5000" {
		t.Fatalf("72h step budgets: aide %q, ml-master %q", aide.SetEnv["REXMLE_STEPS"], mm.SetEnv["REXMLE_STEPS"])
	}
	if p.TimeLimit.Hours() != 72 {
		t.Fatalf("paper-72h time limit %v", p.TimeLimit)
	}
}

// Every printed cell of Tables 3-5 must have a profile whose runs land on
// it: same setting, same agent, same backend label, challenge included.
func TestProfilesCoverThePaperTables(t *testing.T) {
	b := loadRepo(t)
	var printed struct {
		Cell []struct{ Table, Setting, Challenge, Agent, Backend string }
	}
	if _, err := toml.DecodeFile(filepath.Join("..", "..", "results", "paper", "summary.toml"), &printed); err != nil {
		t.Fatal(err)
	}
	if len(printed.Cell) == 0 {
		t.Fatal("no printed cells")
	}
	e := env(map[string]string{"AZURE_OPENAI_ENDPOINT": "https://x.openai.azure.com"})
	tables := map[string]bool{}
	for _, c := range printed.Cell {
		found := ""
		for name, p := range b.Profiles {
			if p.Setting != c.Setting || p.Data != "fetched" || !slices.Contains(p.Agents, c.Agent) {
				continue
			}
			if len(p.Challenges) > 0 && !slices.Contains(p.Challenges, c.Challenge) {
				continue
			}
			a, err := b.profileAgent(p, c.Agent, e)
			if err != nil {
				t.Fatalf("profile %s, agent %s: %v", name, c.Agent, err)
			}
			if a.Backend == c.Backend {
				found = name
				// No full network: the egress allowlist (through the proxy) is the only way out.
				if a.Executor != "docker" || a.Image != "rexmle-"+c.Agent || a.Network || len(a.Egress) == 0 {
					t.Errorf("profile %s runs %s as %s %q, network %v, egress %v", name, c.Agent, a.Executor, a.Image, a.Network, a.Egress)
				}
			}
		}
		if found == "" {
			t.Errorf("table %s, %s, %s, %s, %s: no profile produces this run", c.Table, c.Setting, c.Challenge, c.Agent, c.Backend)
		}
		tables[c.Table] = true
	}
	for _, tb := range []string{"3", "4", "5"} {
		if !tables[tb] {
			t.Errorf("no printed cell of table %s in summary.toml", tb)
		}
	}
}

func TestResolveEgress(t *testing.T) {
	got, err := ResolveEgress([]string{"api.openai.com:443", "$U", "$P", "api.openai.com:443"},
		env(map[string]string{"U": "http://127.0.0.1:8080/v1", "P": "http://gateway.lan"}))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, []string{"api.openai.com:443", "127.0.0.1:8080", "gateway.lan:80"}) {
		t.Fatalf("got %v", got)
	}
	for _, bad := range [][]string{{"api.openai.com"}, {"$NOPE"}, {"$X"}} {
		if _, err := ResolveEgress(bad, env(map[string]string{"X": "not a url"})); err == nil {
			t.Errorf("%v: no error", bad)
		}
	}
}

func TestLoadRejectsBadBackends(t *testing.T) {
	agent := `
[[agent]]
id = "llm"
backend = "gpt-5"
command = ["run"]
egress = ["no-port"]

[agent.backends."gpt-5"]
model = "gpt-5"
endpoint = "azure"
api_key_env = "K"

[agent.backends.other]
endpoint = "carrier-pigeon"
api_key_env = "K"
egress = ["$1BAD"]
`
	bench := strings.Replace(goodBench, "[profile.demo]", agent+`
[profile.x]
data = "fetched"
agents = ["llm"]
backend = "claude"
agent_env.sample = { A = "1" }

[profile.demo]`, 1)
	_, err := Load(write(t, bench, goodChallenge))
	var ce *Error
	if !errors.As(err, &ce) {
		t.Fatalf("err = %v, want *Error", err)
	}
	msg := err.Error()
	for _, want := range []string{
		`endpoint azure needs base_url_env`,
		`backend "other": model is missing`,
		`endpoint is "carrier-pigeon"`,
		`egress entry "$1BAD"`,
		`agent "llm": egress entry "no-port"`,
		`profile "x": backend "claude", but agent "llm" has no such backend`,
		`profile "x": agent_env names agent "sample"`,
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("missing problem %q in:\n%s", want, msg)
		}
	}
}

func TestKnownIssuesFile(t *testing.T) {
	b := loadRepo(t)
	issues, err := LoadKnownIssues(filepath.Join("..", "..", "benchmark", "known-issues.toml"))
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	for _, is := range issues {
		ids[is.ID] = true
		for _, a := range is.Agents {
			if _, ok := b.Agent(a); !ok {
				t.Errorf("issue %s names unknown agent %q", is.ID, a)
			}
		}
	}
	// the departures the profiles rely on must stay documented
	for _, id := range []string{"time-limit-12h", "ml-master-no-3-day-config", "aide-version-0.2.2", "aide-best-submission-not-kept"} {
		if !ids[id] {
			t.Errorf("known issue %q is missing", id)
		}
	}
	bad := filepath.Join(t.TempDir(), "k.toml")
	os.WriteFile(bad, []byte("[[issue]]\nid = \"a\"\ntitle = \"t\"\nharness = \"h\"\nwhat = 1\n"), 0o644)
	_, err = LoadKnownIssues(bad)
	if err == nil || !strings.Contains(err.Error(), `unknown key "issue.what"`) || !strings.Contains(err.Error(), "rexmle is missing") {
		t.Fatalf("err = %v", err)
	}
}
