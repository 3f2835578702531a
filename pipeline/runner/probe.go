package runner

import (
	"bytes"
	"fmt"
	"os/exec"
	"strings"
	"sync"
)

var (
	probeMu    sync.Mutex
	probeCache = map[string]string{}
)

// SandboxUnavailable returns "" when the sandbox wrapper of agentBin can
// isolate a run on this host (it starts the wrapper once in the namespaces
// with -probe and caches the answer), or the reason it cannot.
func SandboxUnavailable(agentBin string) string {
	if agentBin == "" {
		return "no rexmle-agent binary for the sandbox wrapper"
	}
	probeMu.Lock()
	defer probeMu.Unlock()
	if why, ok := probeCache[agentBin]; ok {
		return why
	}
	cmd := exec.Command(agentBin, "sandbox", "-probe")
	cmd.SysProcAttr = SandboxAttr(true)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	why := ""
	if err := cmd.Run(); err != nil {
		why = fmt.Sprintf("unprivileged user namespaces are unavailable here (%v: %s)", err, strings.TrimSpace(out.String()))
	}
	probeCache[agentBin] = why
	return why
}
