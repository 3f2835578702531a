package runner

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rexmle/rexmle/pipeline/runner/egress"
	"github.com/rexmle/rexmle/pipeline/runner/internal/hostileagent"
	"github.com/rexmle/rexmle/pipeline/runner/sandbox"
	"github.com/rexmle/rexmle/pipeline/runner/validate"
)

var helpers = map[string]bool{"pipeline": true, "termcount": true, "hostile": true, "swaprace": true, "daemon": true, "egress": true, "bridge": true, "sleep": true, "count": true, "say": true, "fail": true, "validator": true, "snoop": true, "dial": true, "limits": true, "badlogs": true, "hog": true}

// agentBin is this test binary, copied into a folder every user can reach
// (go test's own build folder is private to root, and a root pipeline runs
// bwrap as nobody).
var agentBin string

// The test binary doubles as the sandbox bridge and as fake agents when
// its first argument names one (go test passes only -test.* flags).
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && helpers[os.Args[1]] {
		os.Exit(helper(os.Args[1], os.Args[2:]))
	}
	dir, err := os.MkdirTemp("", "rexmle-runner-test-")
	if err == nil {
		agentBin = filepath.Join(dir, "agent.test")
		err = copyExecutable(os.Args[0], agentBin)
		os.Chmod(dir, 0o755)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "copy the test binary:", err)
		os.Exit(2)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func copyExecutable(src, dst string) error {
	b, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	return os.WriteFile(dst, b, 0o755)
}

// needBwrap skips a test only where bwrap is not installed; where it is
// installed but cannot start, the test fails (CI installs it).
func needBwrap(t testing.TB) {
	t.Helper()
	if _, err := exec.LookPath("bwrap"); err != nil {
		t.Skip("bwrap is not installed (Debian package bubblewrap): the local sandbox cannot be tested here")
	}
	if err := sandbox.Available(); err != nil {
		t.Fatal(err)
	}
}

func helper(kind string, args []string) int {
	switch kind {
	case "bridge":
		return egress.BridgeMain(args)
	case "limits":
		return sandbox.LimitsMain(args)
	case "badlogs":
		return hostileagent.BadLogs(args)
	case "hog":
		return hostileagent.Hog(args)
	case "sleep": // sleep SECONDS [ignore-term]
		if len(args) > 1 && args[1] == "ignore-term" {
			signal.Ignore(syscall.SIGTERM)
		}
		d, _ := strconv.ParseFloat(args[0], 64)
		time.Sleep(time.Duration(d * float64(time.Second)))
		return 0
	case "count": // count RUNDIR SECONDS: append a line to RUNDIR/invocations, record the GPUs, sleep
		f, _ := os.OpenFile(filepath.Join(args[0], "invocations"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		fmt.Fprintln(f, time.Now().UnixNano())
		f.Close()
		os.WriteFile(filepath.Join(args[0], "gpus"), []byte(os.Getenv("CUDA_VISIBLE_DEVICES")), 0o644)
		d, _ := strconv.ParseFloat(args[1], 64)
		time.Sleep(time.Duration(d * float64(time.Second)))
		return 0
	case "say": // say TEXT: print it
		fmt.Println(strings.Join(args, " "))
		return 0
	case "fail":
		fmt.Fprintln(os.Stderr, "failing on purpose")
		return 3
	case "validator": // validator DIR OUT: ask the endpoint about DIR, write the answer to OUT
		r, err := validate.Ask(context.Background(), os.Getenv("REXMLE_VALIDATE_SOCKET"), args[0])
		b, _ := json.Marshal(map[string]any{"response": r, "err": fmt.Sprint(err)})
		os.WriteFile(args[1], b, 0o644)
		return 0
	case "snoop":
		return snoop(args)
	case "hostile":
		return hostile(args)
	case "swaprace":
		return swapRace(args)
	case "termcount":
		return termcount(args)
	case "pipeline":
		return pipelineHelper(args)
	case "daemon":
		return daemon(args)
	case "egress":
		return egressAgent(args)
	case "dial": // dial ADDR OUT: try a TCP connection, write "connected" or the error to OUT
		c, err := net.DialTimeout("tcp", args[0], 2*time.Second)
		msg := "connected"
		if err != nil {
			msg = err.Error()
		} else {
			c.Close()
		}
		os.WriteFile(args[1], []byte(msg), 0o644)
		return 0
	}
	fmt.Fprintln(os.Stderr, "unknown helper", kind)
	return 2
}

// snoopReport is what the fake agent found.
type snoopReport struct {
	Searched   []string `json:"searched"`    // roots walked
	Files      int      `json:"files"`       // files read
	Found      []string `json:"found"`       // files holding the secret
	EnvLeaks   []string `json:"env_leaks"`   // variables holding the secret or a private path
	Direct     []string `json:"direct"`      // private paths it could open by name
	DirectErrs []string `json:"direct_errs"` // why it could not
	Wrote      []string `json:"wrote"`       // places it could write to that it should not
}

// snoop OUT PRIVATE_PATHS(comma) ROOTS...: read every file under each
// root, look for $SNOOP_SECRET, try to open each private path directly and
// through /proc/<parent>/root, and try to write into the public data.
func snoop(args []string) int {
	out, privs, roots := args[0], strings.Split(args[1], ","), args[2:]
	secret := os.Getenv("SNOOP_SECRET")
	var r snoopReport
	for _, root := range roots {
		r.Searched = append(r.Searched, root)
		filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || d.Type()&fs.ModeSocket != 0 {
				return nil
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return nil
			}
			r.Files++
			if strings.Contains(string(b), secret) {
				r.Found = append(r.Found, p)
			}
			return nil
		})
	}
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "SNOOP_SECRET=") {
			continue
		}
		for _, p := range privs {
			if strings.Contains(kv, secret) || strings.Contains(kv, p) {
				r.EnvLeaks = append(r.EnvLeaks, kv)
			}
		}
	}
	for _, p := range privs {
		for _, q := range []string{p, fmt.Sprintf("/proc/%d/root%s", os.Getppid(), p), "/proc/1/root" + p} {
			if b, err := os.ReadFile(q); err == nil && strings.Contains(string(b), secret) {
				r.Direct = append(r.Direct, q)
			} else if err != nil {
				r.DirectErrs = append(r.DirectErrs, err.Error())
			}
		}
	}
	if pub := os.Getenv("SNOOP_PUBLIC"); pub != "" {
		if err := os.WriteFile(filepath.Join(pub, "planted"), []byte("x"), 0o644); err == nil {
			r.Wrote = append(r.Wrote, pub)
		}
	}
	b, _ := json.MarshalIndent(r, "", " ")
	os.WriteFile(out, b, 0o644)
	return 0
}
