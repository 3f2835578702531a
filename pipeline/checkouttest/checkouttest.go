// Package checkouttest makes temporary checkouts of the module for tests
// that run stages or build binaries: they write into the temporary folder,
// never into the real checkout.
package checkouttest

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
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
		root, err := ModuleRoot()
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

// ModuleRoot is the nearest folder at or above the working folder holding go.mod.
func ModuleRoot() (string, error) {
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

// Clone makes a git repository in a temporary folder holding the files of
// the module's working tree that git would commit (tracked and untracked
// ones not ignored, as they are now, uncommitted changes included), in one
// commit: a fresh clone of the working tree, with none of its outputs
// (data, results, site, bin), in a folder every user can reach. It skips
// the test outside a git checkout.
func Clone(t testing.TB) string {
	t.Helper()
	root, err := ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	list, err := exec.Command("git", "-C", root, "ls-files", "-z", "--cached", "--others", "--exclude-standard").Output()
	if err != nil {
		t.Skipf("not a git checkout (%v): no clone to make", err)
	}
	// Not t.TempDir: its parent is private (0700), and a root pipeline runs
	// bwrap as nobody, who must reach the checkout's data.
	dst, err := os.MkdirTemp("", "rexmle-clone-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dst) })
	if err := os.Chmod(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range strings.Split(strings.TrimSuffix(string(list), "\x00"), "\x00") {
		src := filepath.Join(root, filepath.FromSlash(name))
		st, err := os.Lstat(src)
		if errors.Is(err, fs.ErrNotExist) {
			continue // deleted in the working tree, not yet committed
		}
		if err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dst, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
			t.Fatal(err)
		}
		switch {
		case st.Mode()&fs.ModeSymlink != 0:
			target, err := os.Readlink(src)
			if err == nil {
				err = os.Symlink(target, out)
			}
			if err != nil {
				t.Fatal(err)
			}
		case st.Mode().IsRegular():
			b, err := os.ReadFile(src)
			if err == nil {
				err = os.WriteFile(out, b, st.Mode().Perm())
			}
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	Git(t, dst, "init", "-q")
	Git(t, dst, "add", "-A")
	Git(t, dst, "commit", "-q", "-m", "the working tree")
	return dst
}

// Git runs git in dir with a fixed identity and no user or system
// configuration, failing t on an error.
func Git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=rexmle test", "-c", "user.email=test@rexmle.invalid", "-c", "commit.gpgsign=false", "-c", "init.defaultBranch=main"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// Benchmark writes the module's benchmark.toml into a new temporary folder,
// its challenge files and the paper's recorded results still read from the
// module, and returns its path: a checkout of its own whose stages write
// into that folder alone.
func Benchmark(t testing.TB) string {
	t.Helper()
	repo, err := ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(filepath.Join(repo, "benchmark.toml"))
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(string(src), `challenges_dir = "benchmark/challenges"`,
		`challenges_dir = "`+filepath.ToSlash(filepath.Join(repo, "benchmark", "challenges"))+`"`, 1)
	text = strings.Replace(text, `paper_results = "results/paper"`, `paper_results = "`+filepath.ToSlash(filepath.Join(repo, "results", "paper"))+`"`, 1)
	p := filepath.Join(t.TempDir(), "benchmark.toml")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
