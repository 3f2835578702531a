package settings

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/rexmle/rexmle/pipeline/challenge"
)

func TestDefaults(t *testing.T) {
	s, err := Load([]string{"PATH=/bin", "HOME=/h", "OPENAI_API_KEY=k"})
	if err != nil {
		t.Fatal(err)
	}
	want := Settings{Config: "benchmark.toml", Profile: "demo", LockWait: 2 * time.Hour, Boot: 1000, BootSeed: 20251218,
		SmokeChallenge: "ldct-iqa", SmokeTime: 5 * time.Minute}
	got := s
	got.Host = Environ{}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("defaults\n%+v\nwant\n%+v", got, want)
	}
	if v, ok := s.Host.Lookup("OPENAI_API_KEY"); !ok || v != "k" {
		t.Errorf("the host environment was not captured: %q %v", v, ok)
	}
	// The declared defaults say the same as the typed ones.
	for name, def := range map[string]string{"REXMLE_CONFIG": want.Config, "REXMLE_PROFILE": want.Profile, "REXMLE_LOCK_WAIT": "2h",
		"REXMLE_BOOT": "1000", "REXMLE_BOOT_SEED": "20251218", "REXMLE_SMOKE_CHALLENGE": want.SmokeChallenge, "REXMLE_SMOKE_TIME": "5m",
		"REXMLE_ENGINE": DefaultEngine, "REXMLE_SYNTH_CASES": "default"} {
		if v, _ := Lookup(name); v.Default != def {
			t.Errorf("%s declares default %q, Load uses %q", name, v.Default, def)
		}
	}
}

func TestValues(t *testing.T) {
	s, err := Load([]string{
		"REXMLE_CONFIG=/x/b.toml", "REXMLE_PROFILE=paper", "REXMLE_CHALLENGES= isles22, ,dentex ", "REXMLE_MODE=official",
		"REXMLE_FORCE=YES", "REXMLE_RETRY_FAILED=1", "REXMLE_DRY_RUN=true", "REXMLE_BOTH_MODES=0", "REXMLE_LOCK_WAIT=0",
		"REXMLE_ENGINE=podman", "REXMLE_AGENTS=aide,ml-master", "REXMLE_BOOT=0", "REXMLE_BOOT_SEED=9223372036854775807",
		"REXMLE_SMOKE_CHALLENGE=dentex", "REXMLE_SMOKE_TIME=90s", "REXMLE_SYNTH_CASES=40", "REXMLE_FETCH_TOKEN=tok",
		"REXMLE_NVML_TEST=1", "REXMLE_TEST_ANYTHING=x", "REXMLE_STANDIN_API_KEY=k",
	})
	if err != nil {
		t.Fatal(err)
	}
	want := Settings{Config: "/x/b.toml", Profile: "paper", ProfileSet: true, Challenges: []string{"isles22", "dentex"}, Mode: challenge.Official,
		Force: true, RetryFailed: true, DryRun: true, LockWait: 0, Engine: "podman", Agents: []string{"aide", "ml-master"},
		Boot: 0, BootSeed: 1<<63 - 1, SmokeChallenge: "dentex", SmokeTime: 90 * time.Second, SynthSize: challenge.SynthSize{Cases: 40},
		FetchToken: "tok"}
	s.Host = Environ{}
	if !reflect.DeepEqual(s, want) {
		t.Fatalf("got\n%+v\nwant\n%+v", s, want)
	}
}

func TestBadValues(t *testing.T) {
	for _, c := range []struct{ kv, want string }{
		{"REXMLE_RETRY_FAILED=maybe", `REXMLE_RETRY_FAILED="maybe": want 1, true or yes (or 0, false, no)`},
		{"REXMLE_FORCE=on", `REXMLE_FORCE="on"`},
		{"REXMLE_DRY_RUN=2", `REXMLE_DRY_RUN="2"`},
		{"REXMLE_MODE=oficial", `REXMLE_MODE="oficial": want "reference" or "official"`},
		{"REXMLE_LOCK_WAIT=soon", `REXMLE_LOCK_WAIT="soon"`},
		{"REXMLE_LOCK_WAIT=-1m", `REXMLE_LOCK_WAIT="-1m"`},
		{"REXMLE_ENGINE=lxc", `REXMLE_ENGINE="lxc": want "docker" or "podman"`},
		{"REXMLE_BOOT=-1", `REXMLE_BOOT="-1"`},
		{"REXMLE_BOOT=1000001", `REXMLE_BOOT="1000001"`},
		{"REXMLE_BOOT=many", `REXMLE_BOOT="many"`},
		{"REXMLE_BOOT_SEED=9223372036854775808", `REXMLE_BOOT_SEED="9223372036854775808": want an integer between 0 and 9223372036854775807`},
		{"REXMLE_SMOKE_TIME=0s", `REXMLE_SMOKE_TIME="0s"`},
		{"REXMLE_SYNTH_CASES=5", "a number of cases between 10 and 100000"},
		{"REXMLE_CHALLENGES=,", `REXMLE_CHALLENGES=",": want comma-separated ids`},
		{"REXMLE_AGENTS= , ", `REXMLE_AGENTS=","`},
	} {
		_, err := Load([]string{c.kv})
		var e *Error
		if !errors.As(err, &e) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want it to say %s", c.kv, err, c.want)
		}
	}
	// Every problem at once.
	_, err := Load([]string{"REXMLE_FORCE=maybe", "REXMLE_MODE=x", "REXMLE_DRYRUN=1"})
	var e *Error
	if !errors.As(err, &e) || len(e.Problems) != 3 {
		t.Fatalf("want three problems: %v", err)
	}
}

// TestMisspeltNames: the examples, each refused with the name
// meant.
func TestMisspeltNames(t *testing.T) {
	for _, c := range []struct{ kv, want string }{
		{"REXMLE_DRYRUN=1", "unknown setting REXMLE_DRYRUN; did you mean REXMLE_DRY_RUN?"},
		{"REXMLE_PROFLE=paper", "unknown setting REXMLE_PROFLE; did you mean REXMLE_PROFILE?"},
		{"REXMLE_CHALENGES=isles22", "unknown setting REXMLE_CHALENGES; did you mean REXMLE_CHALLENGES?"},
		{"REXMLE_RETRY=1", "unknown setting REXMLE_RETRY"},
		{"REXMLE_CHALLENGE=isles22", "REXMLE_CHALLENGE is not a setting: the pipeline sets it for agents (the run's challenge id); did you mean REXMLE_CHALLENGES?"},
		{"REXMLE_SEED=3", "REXMLE_SEED is not a setting"},
	} {
		_, err := Load([]string{c.kv})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.kv, err, c.want)
		}
	}
	if got := Suggest("REXMLE_ZZZZZZZZZZZZ"); len(got) != 0 {
		t.Errorf("a name far from every setting got suggestions %v", got)
	}
}

func TestDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		d    int
	}{{"", "", 0}, {"a", "", 1}, {"kitten", "sitting", 3}, {"REXMLE_DRYRUN", "REXMLE_DRY_RUN", 1}, {"abc", "abc", 0}, {"ab", "ba", 2}} {
		if got := distance(c.a, c.b); got != c.d || distance(c.b, c.a) != c.d {
			t.Errorf("distance(%q, %q) = %d, want %d", c.a, c.b, got, c.d)
		}
	}
}

func TestEnviron(t *testing.T) {
	e := NewEnviron([]string{"A=1", "B=", "A=2", "junk", "=x", "C=a=b"})
	if v, ok := e.Lookup("A"); !ok || v != "2" {
		t.Errorf("A %q %v (a later entry wins)", v, ok)
	}
	if v, ok := e.Lookup("B"); !ok || v != "" {
		t.Errorf("B set empty: %q %v", v, ok)
	}
	if _, ok := e.Lookup("junk"); ok {
		t.Error("an entry without = was kept")
	}
	if e.Get("C") != "a=b" {
		t.Errorf("C %q", e.Get("C"))
	}
	if got := e.List(); !reflect.DeepEqual(got, []string{"A=2", "B=", "C=a=b"}) {
		t.Errorf("List %q", got)
	}
	var zero Environ
	if _, ok := zero.Lookup("PATH"); ok || len(zero.List()) != 0 {
		t.Error("the zero Environ is not empty")
	}
	a := LoadChild([]string{"REXMLE_VALIDATE_SOCKET=/s", "REXMLE_ANYTHING=1", "REXMLE_SEED=3"})
	if a.ValidateSocket != "/s" || a.Env.Get("REXMLE_ANYTHING") != "1" {
		t.Errorf("child %+v", a)
	}
}

func TestResolveEngine(t *testing.T) {
	for _, c := range []struct{ own, setting, want, err string }{
		{"", "", "docker", ""}, {"", "podman", "podman", ""}, {"docker", "podman", "docker", ""},
		{"lxc", "", "", `agent a: engine is "lxc"`}, {"", "lxc", "", `REXMLE_ENGINE is "lxc"`},
	} {
		got, err := ResolveEngine(c.own, "agent a: engine", c.setting)
		if got != c.want || (c.err == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.err)) {
			t.Errorf("%+v: %q %v", c, got, err)
		}
	}
}

// TestDeclarationsComplete: every user setting has a field of the type its
// declaration says, and only user settings have one.
func TestDeclarationsComplete(t *testing.T) {
	var s Settings
	for _, v := range Vars {
		if (v.Field != nil) != (v.Kind == User) {
			t.Errorf("%s: kind %d, field %v: user settings, and only they, have a field", v.Name, v.Kind, v.Field != nil)
			continue
		}
		if v.Field == nil {
			continue
		}
		ok := false
		switch f := v.Field(&s).(type) {
		case *string:
			ok = v.Type == String || v.Type == Enum
		case *challenge.Mode:
			ok = v.Type == Enum
		case *bool:
			ok = v.Type == Bool
		case *[]string:
			ok = v.Type == List
		case *time.Duration:
			ok = v.Type == Duration
		case *int, *uint64:
			ok = v.Type == Int && v.Min <= v.Max
		case *challenge.SynthSize:
			ok = v.Type == Size
		default:
			t.Errorf("%s: field of type %T", v.Name, f)
		}
		if !ok {
			t.Errorf("%s: type %d does not match its field", v.Name, v.Type)
		}
		if v.Type == Enum && len(v.Allowed) == 0 {
			t.Errorf("%s: an enum without allowed values", v.Name)
		}
		if v.Help == "" || len(v.Targets) == 0 {
			t.Errorf("%s: no help or no targets", v.Name)
		}
	}
}
