package config

import (
	"fmt"
	"net"
	"net/url"
	"path/filepath"
	"sort"
	"strings"
)

// ProfileAgentEnv returns agent id as profile p runs it: with the profile's
// backend (or the agent's own) applied from the agent's backends table, the
// profile's agent_env added, and "$NAME" egress entries resolved through
// getenv (the environment the settings captured, or the doctor's probe).
// The Benchmark's own Agent is not changed.
func (b *Benchmark) ProfileAgentEnv(p Profile, id string, getenv func(string) string) (Agent, error) {
	return b.profileAgent(p, id, getenv)
}

func (b *Benchmark) profileAgent(p Profile, id string, getenv func(string) string) (Agent, error) {
	src, ok := b.Agent(id)
	if !ok {
		return Agent{}, fmt.Errorf("no agent %q", id)
	}
	a := *src
	if a.Code != "" && !filepath.IsAbs(a.Code) {
		a.Code = filepath.Join(b.Root, a.Code)
	}
	a.Env = append([]string(nil), src.Env...)
	a.Egress = append([]string(nil), src.Egress...)
	a.SetEnv = make(map[string]string, len(src.SetEnv))
	for k, v := range src.SetEnv {
		a.SetEnv[k] = v
	}
	label := a.Backend
	if p.Backend != "" && a.Builtin == "" {
		label = p.Backend
	}
	if len(a.Backends) > 0 {
		be, ok := a.Backends[label]
		if !ok {
			return Agent{}, fmt.Errorf("agent %q has no backend %q (backends: %s)", id, label, strings.Join(backendNames(a.Backends), ", "))
		}
		a.Backend = label
		set := map[string]string{"REXMLE_BACKEND": label, "REXMLE_MODEL": be.Model, "REXMLE_ENDPOINT": be.Endpoint,
			"REXMLE_API_KEY_ENV": be.APIKeyEnv, "REXMLE_BASE_URL_ENV": be.BaseURLEnv, "REXMLE_API_VERSION_ENV": be.APIVersionEnv}
		for k, v := range set {
			if v != "" {
				a.SetEnv[k] = v
			}
		}
		for k, v := range be.SetEnv {
			a.SetEnv[k] = v
		}
		for _, n := range append([]string{be.APIKeyEnv, be.BaseURLEnv, be.APIVersionEnv}, be.Env...) {
			if n != "" && !contains(a.Env, n) {
				a.Env = append(a.Env, n)
			}
		}
		a.Egress = append(a.Egress, be.Egress...)
	} else if label != a.Backend {
		return Agent{}, fmt.Errorf("agent %q has no [agent.backends] table, so profile backend %q cannot apply (it runs with %q)", id, label, a.Backend)
	}
	for k, v := range p.AgentEnv[id] {
		a.SetEnv[k] = v
	}
	eg, err := ResolveEgress(a.Egress, getenv)
	if err != nil {
		return Agent{}, fmt.Errorf("agent %q, backend %q: %w", id, a.Backend, err)
	}
	a.Egress = eg
	return a, nil
}

// ResolveEgress turns egress entries into "host:port" destinations: an
// entry "$NAME" becomes the host and port of the URL held by variable NAME
// (port from the scheme when the URL has none). Duplicates are dropped.
func ResolveEgress(entries []string, getenv func(string) string) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	for _, e := range entries {
		hp := e
		if strings.HasPrefix(e, "$") {
			name := e[1:]
			v := strings.TrimSpace(getenv(name))
			if v == "" {
				return nil, fmt.Errorf("egress %s: variable %s is not set (want the endpoint URL, e.g. https://NAME.openai.azure.com)", e, name)
			}
			u, err := url.Parse(v)
			if err != nil || u.Hostname() == "" {
				return nil, fmt.Errorf("egress %s: %s=%q is not a URL with a host", e, name, v)
			}
			port := u.Port()
			if port == "" {
				switch u.Scheme {
				case "http":
					port = "80"
				case "https":
					port = "443"
				default:
					return nil, fmt.Errorf("egress %s: %s=%q has no port and scheme %q has no default", e, name, v, u.Scheme)
				}
			}
			hp = net.JoinHostPort(u.Hostname(), port)
		} else if _, _, err := net.SplitHostPort(e); err != nil {
			return nil, fmt.Errorf("egress %q: want \"host:port\" or \"$NAME\": %v", e, err)
		}
		if !seen[hp] {
			seen[hp] = true
			out = append(out, hp)
		}
	}
	return out, nil
}

func backendNames(m map[string]AgentBackend) []string {
	n := make([]string, 0, len(m))
	for k := range m {
		n = append(n, k)
	}
	sort.Strings(n)
	return n
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
