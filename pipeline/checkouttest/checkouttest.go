// Package checkouttest makes temporary checkouts of the module for tests
// that run stages or build binaries: they write into the temporary folder,
// never into the real checkout.
package checkouttest

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// outputs are the top-level entries a checkout's pipeline writes (and the
// checkout lock, which a linked copy would share with the real checkout).
var outputs = map[string]bool{"bin": true, "data": true, "results": true, "site": true, ".git": true, ".rexmle.lock": true}

// Link symlinks every top-level entry of the module at repo into root,
// except what the pipeline writes (bin, data, results, site), .git, the
// checkout lock and any name root already holds (a benchmark.toml the
// test wrote, say).
func Link(t testing.TB, repo, root string) {
	t.Helper()
	ents, err := os.ReadDir(repo)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		name := e.Name()
		if outputs[name] {
			continue
		}
		if _, err := os.Lstat(filepath.Join(root, name)); err == nil {
			continue
		}
		if err := os.Symlink(filepath.Join(repo, name), filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
}

var bins struct {
	once          sync.Once
	agent, bridge string
	err           error
}

// Binaries builds rexmle-agent and the static rexmle-bridge of the module
// holding the test's working folder, once per test binary, into a fresh
// folder every user can reach (a root pipeline runs bwrap as nobody), and
// returns their paths. The folder is left to the system's temporary files.
func Binaries(t testing.TB) (agent, bridge string) {
	t.Helper()
	bins.once.Do(func() {
		root, err := moduleRoot()
		if err != nil {
			bins.err = err
			return
		}
		dir, err := os.MkdirTemp("", "rexmle-test-bin-")
		if err != nil {
			bins.err = err
			return
		}
		os.Chmod(dir, 0o755)
		bins.agent, bins.bridge = filepath.Join(dir, "rexmle-agent"), filepath.Join(dir, "rexmle-bridge")
		for _, b := range []struct{ out, pkg, env string }{{bins.agent, "./cmd/rexmle-agent", ""}, {bins.bridge, "./cmd/rexmle-bridge", "CGO_ENABLED=0"}} {
			cmd := exec.Command("go", "build", "-o", b.out, b.pkg)
			cmd.Dir = root
			cmd.Env = os.Environ()
			if b.env != "" {
				cmd.Env = append(cmd.Env, b.env)
			}
			if out, err := cmd.CombinedOutput(); err != nil {
				bins.err = fmt.Errorf("go build %s: %v\n%s", b.pkg, err, out)
				return
			}
		}
	})
	if bins.err != nil {
		t.Fatal(bins.err)
	}
	return bins.agent, bins.bridge
}

// moduleRoot is the nearest folder at or above the working folder holding go.mod.
func moduleRoot() (string, error) {
	d, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return "", errors.New("no go.mod above the working folder")
		}
		d = filepath.Dir(d)
	}
}
