package settings

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/rexmle/rexmle/pipeline/challenge"
)

// Settings are the user's settings, typed. The zero value of a field that
// has a default is replaced by it; fields whose default depends on the
// configuration say so.
type Settings struct {
	Config     string         // REXMLE_CONFIG
	Profile    string         // REXMLE_PROFILE (default demo)
	ProfileSet bool           // REXMLE_PROFILE was given (agents builds only its agents' images)
	Challenges []string       // REXMLE_CHALLENGES; empty: the profile's or all
	Mode       challenge.Mode // REXMLE_MODE; "": the configuration's grading.mode
	Force      bool           // REXMLE_FORCE
	// RetryFailed: run reruns the failed runs (REXMLE_RETRY_FAILED).
	RetryFailed bool
	DryRun      bool          // REXMLE_DRY_RUN
	BothModes   bool          // REXMLE_BOTH_MODES
	LockWait    time.Duration // REXMLE_LOCK_WAIT (default 2h; 0: fail at once)
	// Engine is the container engine of agents that do not set one
	// (REXMLE_ENGINE): "docker" or "podman"; "" when unset (docker).
	Engine         string
	Agents         []string            // REXMLE_AGENTS
	Boot           int                 // REXMLE_BOOT (default 1000; 0: off)
	BootSeed       uint64              // REXMLE_BOOT_SEED (default 20251218)
	SmokeChallenge string              // REXMLE_SMOKE_CHALLENGE (default ldct-iqa)
	SmokeTime      time.Duration       // REXMLE_SMOKE_TIME (default 5m)
	SynthSize      challenge.SynthSize // REXMLE_SYNTH_CASES
	FetchToken     string              // REXMLE_FETCH_TOKEN (secret)

	// Host is the whole environment Load was given: the variables the
	// configuration names (API keys, endpoints) are read from it and handed
	// to agents by name, and child processes of the pipeline's own get it.
	Host Environ
}

// Defaults of the settings whose default the pipeline fixes.
const (
	DefaultConfig         = "benchmark.toml"
	DefaultProfile        = "demo"
	DefaultLockWait       = 2 * time.Hour
	DefaultBoot           = 1000
	DefaultBootSeed       = 20251218
	DefaultSmokeChallenge = "ldct-iqa"
	DefaultSmokeTime      = 5 * time.Minute
	DefaultEngine         = "docker"
)

// Defaults are the settings of an environment without REXMLE_* variables.
func Defaults() Settings {
	return Settings{Config: DefaultConfig, Profile: DefaultProfile, LockWait: DefaultLockWait, Boot: DefaultBoot,
		BootSeed: DefaultBootSeed, SmokeChallenge: DefaultSmokeChallenge, SmokeTime: DefaultSmokeTime}
}

// Error lists every problem Load found, one per line.
type Error struct{ Problems []string }

func (e *Error) Error() string {
	return "invalid settings:\n  " + strings.Join(e.Problems, "\n  ")
}

// Load reads the settings from environ (NAME=value entries, as os.Environ
// gives them) and checks every REXMLE_* name and value: an unknown name
// (with the declared names closest to it), a name the pipeline sets only
// for agents, or a value that does not parse is an *Error listing them
// all, before any work.
func Load(environ []string) (Settings, error) {
	s := Defaults()
	s.Host = NewEnviron(environ)
	var probs []string
	for _, name := range s.Host.Names() {
		if !strings.HasPrefix(name, "REXMLE_") {
			continue
		}
		if _, ok := Lookup(name); ok || strings.HasPrefix(name, TestPrefix) {
			continue
		}
		if what, ok := Child[name]; ok {
			msg := fmt.Sprintf("%s is not a setting: the pipeline sets it for agents (%s)", name, what)
			if near := Suggest(name); len(near) > 0 {
				msg += "; did you mean " + strings.Join(near, " or ") + "?"
			}
			probs = append(probs, msg)
			continue
		}
		probs = append(probs, unknown(name))
	}
	for _, v := range Vars {
		if v.Field == nil {
			continue
		}
		raw, _ := s.Host.Lookup(v.Name)
		if strings.TrimSpace(raw) == "" {
			continue // unset: the default
		}
		if err := v.set(&s, raw); err != nil {
			probs = append(probs, err.Error())
		}
	}
	s.ProfileSet = strings.TrimSpace(s.Host.Get("REXMLE_PROFILE")) != ""
	if len(probs) > 0 {
		return s, &Error{Problems: probs}
	}
	return s, nil
}

// set parses raw as v declares it into v's field of s; the error names the
// variable, the value (unless secret) and what v accepts.
func (v Var) set(s *Settings, raw string) error {
	val := strings.TrimSpace(raw)
	bad := func() error {
		shown := clip(val)
		if v.Secret {
			shown = "…"
		}
		return fmt.Errorf("%s=%q: want %s", v.Name, shown, v.Want())
	}
	switch dst := v.Field(s).(type) {
	case *string:
		if v.Type == Enum && !slices.Contains(v.Allowed, val) {
			return bad()
		}
		*dst = val
	case *challenge.Mode:
		if !slices.Contains(v.Allowed, val) {
			return bad()
		}
		*dst = challenge.Mode(val)
	case *bool:
		b, ok := parseBool(val)
		if !ok {
			return bad()
		}
		*dst = b
	case *[]string:
		if *dst = splitList(val); len(*dst) == 0 {
			return bad()
		}
	case *time.Duration:
		d, err := time.ParseDuration(val)
		if err != nil || int64(d) < v.Min {
			return bad()
		}
		*dst = d
	case *int:
		n, err := strconv.ParseInt(val, 10, 64)
		if err != nil || n < v.Min || n > v.Max {
			return bad()
		}
		*dst = int(n)
	case *uint64:
		n, err := strconv.ParseInt(val, 10, 64)
		if err != nil || n < v.Min || n > v.Max {
			return bad()
		}
		*dst = uint64(n)
	case *challenge.SynthSize:
		size, err := challenge.ParseSynthSize(val)
		if err != nil {
			return err
		}
		*dst = size
	default:
		return fmt.Errorf("%s: settings declares a field of type %T, which Load cannot fill", v.Name, dst)
	}
	return nil
}

// Want says what v accepts, for messages and help.
func (v Var) Want() string {
	switch v.Type {
	case Bool:
		return "1, true or yes (or 0, false, no)"
	case List:
		return "comma-separated ids (or leave it unset)"
	case Duration:
		if v.Min > 0 {
			return `a positive duration such as "3m"`
		}
		return `a duration of 0 or more such as "30m" (0: do not wait)`
	case Int:
		return fmt.Sprintf("an integer between %d and %d", v.Min, v.Max)
	case Enum:
		q := make([]string, len(v.Allowed))
		for i, a := range v.Allowed {
			q[i] = strconv.Quote(a)
		}
		return strings.Join(q, " or ")
	case Size:
		return `"default", "full" or a number of cases`
	}
	return "any text"
}

// ResolveEngine is an agent's container engine: its own engine, else the
// REXMLE_ENGINE setting, else docker. from names where a bad value came
// from for the message.
func ResolveEngine(own, from, setting string) (string, error) {
	e := own
	if e == "" {
		e, from = setting, "REXMLE_ENGINE"
	}
	switch e {
	case "":
		return DefaultEngine, nil
	case "docker", "podman":
		return e, nil
	}
	return "", fmt.Errorf("%s is %q, want docker or podman", from, e)
}

// unknown is the message for a REXMLE_* name nobody declared: the closest
// declared names by edit distance, when one is close.
func unknown(name string) string {
	msg := "unknown setting " + name
	if near := Suggest(name); len(near) > 0 {
		msg += "; did you mean " + strings.Join(near, " or ") + "?"
	} else {
		msg += " (`go run mage.go settings` lists them)"
	}
	return msg
}

// Suggest returns the declared user and test names closest to name (edit
// distance at most a third of its length, at least 2), nearest first.
func Suggest(name string) []string {
	best, bestD := []string(nil), 1<<30
	limit := max(2, len(strings.TrimPrefix(name, "REXMLE_"))/3)
	for _, v := range Vars {
		d := distance(name, v.Name)
		if d > limit {
			continue
		}
		switch {
		case d < bestD:
			best, bestD = []string{v.Name}, d
		case d == bestD:
			best = append(best, v.Name)
		}
	}
	sort.Strings(best)
	return best
}

// distance is the Levenshtein distance of a and b (ASCII names).
func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// parseBool reads a flag: empty is false; ok is false for anything but
// 1/0, true/false, yes/no in any case.
func parseBool(s string) (v, ok bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "1", "true", "yes":
		return true, true
	case "", "0", "false", "no":
		return false, true
	}
	return false, false
}

func splitList(s string) []string {
	var out []string
	for _, id := range strings.Split(s, ",") {
		if id = strings.TrimSpace(id); id != "" {
			out = append(out, id)
		}
	}
	return out
}

// clip shortens a value for a message.
func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}
