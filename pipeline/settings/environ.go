package settings

import (
	"sort"
	"strings"
)

// Environ is an environment captured once (by Load or LoadChild): the
// variables the configuration names by name — API keys, endpoints, an
// agent's passed variables — are looked up in it, never in the process's
// live environment. The zero value is an empty environment.
type Environ struct {
	vars map[string]string
}

// NewEnviron captures environ (NAME=value entries; a later entry of the
// same name wins, as for exec; an entry without '=' is ignored).
func NewEnviron(environ []string) Environ {
	m := make(map[string]string, len(environ))
	for _, kv := range environ {
		if i := strings.IndexByte(kv, '='); i > 0 {
			m[kv[:i]] = kv[i+1:]
		}
	}
	return Environ{vars: m}
}

// Lookup returns the value of name and whether it is set.
func (e Environ) Lookup(name string) (string, bool) {
	v, ok := e.vars[name]
	return v, ok
}

// Get returns the value of name, "" when unset.
func (e Environ) Get(name string) string { return e.vars[name] }

// Names returns the set names, sorted.
func (e Environ) Names() []string {
	names := make([]string, 0, len(e.vars))
	for n := range e.vars {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// List returns the environment as NAME=value entries, sorted by name: what a
// child process of the pipeline's own (the Go toolchain, an engine's
// client) is started with.
func (e Environ) List() []string {
	out := make([]string, 0, len(e.vars))
	for _, n := range e.Names() {
		out = append(out, n+"="+e.vars[n])
	}
	return out
}

// Agent is what an agent's own process (rexmle-agent inside the sandbox)
// reads from the contract the runner sets; see Child.
type Agent struct {
	ValidateSocket string // REXMLE_VALIDATE_SOCKET
	ValidateURL    string // REXMLE_VALIDATE_URL
	Env            Environ
}

// LoadChild reads the agent contract from environ. It refuses nothing: an
// agent's environment holds whatever its configuration passes it.
func LoadChild(environ []string) Agent {
	e := NewEnviron(environ)
	return Agent{ValidateSocket: e.Get("REXMLE_VALIDATE_SOCKET"), ValidateURL: e.Get("REXMLE_VALIDATE_URL"), Env: e}
}
