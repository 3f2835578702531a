// Package slurmtest gives the tests that run against a real Slurm their
// cluster: with REXMLE_SLURM_TEST=1 and sbatch on PATH, the cluster
// SLURM_CONF names, or else a throwaway single-node one (munged, slurmctld
// and slurmd as root, started by start-slurm.sh on free ports in a
// temporary folder and stopped when the test ends). Only tests import it.
package slurmtest

import (
	"embed"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/rexmle/rexmle/pipeline/fsutil"
)

// TestEnv is the test knob that turns the real-Slurm tests on (declared in
// pipeline/settings).
const TestEnv = "REXMLE_SLURM_TEST"

//go:embed start-slurm.sh stop-slurm.sh
var scripts embed.FS

// Start makes SLURM_CONF name a running Slurm for the rest of the test, or
// skips the test saying why there is none: REXMLE_SLURM_TEST is not 1, no
// sbatch on PATH, or the single-node cluster did not start (its output is
// in the message).
func Start(t *testing.T) {
	t.Helper()
	if os.Getenv(TestEnv) != "1" {
		t.Skip("set REXMLE_SLURM_TEST=1 to run against a real Slurm")
	}
	if _, err := exec.LookPath("sbatch"); err != nil {
		t.Skip("no sbatch on PATH")
	}
	if os.Getenv("SLURM_CONF") != "" {
		return
	}
	// Not t.TempDir: the daemons may still write their state for a moment
	// after being stopped, which would fail the test's own clean-up.
	dir, err := os.MkdirTemp("", "rexmle-slurm-")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"start-slurm.sh", "stop-slurm.sh"} {
		b, err := scripts.ReadFile(name)
		if err == nil {
			err = fsutil.WriteFile(filepath.Join(dir, name), b, 0o755)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	ports, err := freePorts(2)
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(filepath.Join(dir, "start-slurm.sh"), filepath.Join(dir, "cluster"), strconv.Itoa(ports[0]), strconv.Itoa(ports[1])).CombinedOutput()
	t.Cleanup(func() {
		exec.Command(filepath.Join(dir, "stop-slurm.sh"), filepath.Join(dir, "cluster")).Run()
		time.Sleep(time.Second)
		os.RemoveAll(dir)
	})
	if err != nil {
		t.Skipf("could not start a single-node Slurm here (%v); its output:\n%s", err, out)
	}
	t.Setenv("SLURM_CONF", filepath.Join(dir, "cluster", "slurm.conf"))
}

// freePorts returns n TCP ports nothing listens on now.
func freePorts(n int) ([]int, error) {
	var ports []int
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	for len(ports) < n {
		l, err := net.Listen("tcp", ":0")
		if err != nil {
			return nil, fmt.Errorf("free port: %w", err)
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}
