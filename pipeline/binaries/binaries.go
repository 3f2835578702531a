// Package binaries builds and checks the two programs the run stage hands
// to agents: rexmle-agent (the built-in agents, the sandbox bridge and the
// validate client) and the static rexmle-bridge (the bridge inside
// containers, whatever their libc). The Mage target Binaries builds them
// into bin/; the run stage only checks that they are there and up to date,
// it never compiles at run time.
package binaries

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// Agent is where rexmle-agent goes under the checkout root.
func Agent(root string) string { return filepath.Join(root, "bin", "rexmle-agent") }

// Bridge is where the static rexmle-bridge goes under the checkout root.
func Bridge(root string) string { return filepath.Join(root, "bin", "rexmle-bridge") }

// binary is one program: its output path, package and extra environment.
type binary struct {
	name, pkg string
	out       func(root string) string
	env       []string
}

var all = []binary{
	{"rexmle-agent", "./cmd/rexmle-agent", Agent, nil},
	{"rexmle-bridge", "./cmd/rexmle-bridge", Bridge, []string{"CGO_ENABLED=0"}}, // static: runs in any container
}

// Build compiles both binaries with the Go toolchain into root/bin, unless
// the stamp of their last build says nothing they are built from changed
// (then it runs no toolchain at all: a no-op `mage all` starts at once).
// While it compiles it says so on stderr, with how long a first build
// takes. The Mage target Binaries and the tests that run agents call it.
//
// Without a Go toolchain on PATH (a GPU node that was handed a checkout
// with bin/ built elsewhere) it builds nothing: binaries that are there
// are used as they are, with a line saying so, and missing ones are an
// error that says where to build them.
func Build(ctx context.Context, root string) error {
	if fresh(ctx, root) {
		return nil
	}
	if !haveToolchain() {
		if missing := missingBinaries(root); len(missing) > 0 {
			return fmt.Errorf("build the agent binaries: no Go toolchain on PATH and %s missing: build them where Go is (`go run mage.go binaries`) and copy bin/ here", strings.Join(missing, " and "))
		}
		fmt.Fprintf(os.Stderr, "binaries: no Go toolchain on PATH: using %s and %s as they are (built elsewhere; rebuild them there after changing the source)\n",
			relTo(root, Agent(root)), relTo(root, Bridge(root)))
		return nil
	}
	start := time.Now()
	fmt.Fprintf(os.Stderr, "binaries: building %s and %s (a first build compiles rexmle and its dependencies: about 1-2 min on 2 cores)…\n",
		relTo(root, Agent(root)), relTo(root, Bridge(root)))
	for _, b := range all {
		cmd := exec.CommandContext(ctx, "go", "build", "-o", b.out(root), b.pkg)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), b.env...)
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("build %s: %v\n%s", b.name, err, out)
		}
		// go build leaves an up-to-date output untouched; its time must
		// still say it is newer than its sources for Check.
		now := time.Now()
		if err := os.Chtimes(b.out(root), now, now); err != nil {
			return fmt.Errorf("build %s: %w", b.name, err)
		}
		if st, err := os.Stat(b.out(root)); err == nil {
			builtAt.Store(b.out(root), st.ModTime())
		}
	}
	if err := writeStamp(ctx, root); err != nil {
		// Without a stamp the next Build runs the toolchain again: slower, not wrong.
		fmt.Fprintf(os.Stderr, "binaries: no build stamp written (%v); the next run checks with the Go toolchain again\n", err)
	}
	fmt.Fprintf(os.Stderr, "binaries: built in %s\n", time.Since(start).Round(100*time.Millisecond))
	return nil
}

// haveToolchain reports whether a go command is on PATH.
func haveToolchain() bool {
	_, err := exec.LookPath("go")
	return err == nil
}

// missingBinaries names the binaries that are not under root/bin.
func missingBinaries(root string) []string {
	var missing []string
	for _, b := range all {
		if _, err := os.Stat(b.out(root)); err != nil {
			missing = append(missing, relTo(root, b.out(root)))
		}
	}
	return missing
}

func relTo(root, p string) string {
	if r, err := filepath.Rel(root, p); err == nil {
		return r
	}
	return p
}

// builtAt maps the binaries this process built to their times then: a
// binary untouched since needs no look at its sources (the mage process
// that runs the Binaries target and then the run stage).
var builtAt sync.Map

// Check returns nil when both binaries are in root/bin and neither is older
// than a Go source file (tests aside), go.mod or go.sum of the packages they
// are built from; otherwise an error naming the binary and the fix.
func Check(ctx context.Context, root string) error {
	if fresh(ctx, root) {
		return nil
	}
	pkgs := make([]string, len(all))
	for i, b := range all {
		pkgs[i] = b.pkg
	}
	var newer *source
	var probs []string
	for _, b := range all {
		p := b.out(root)
		st, err := os.Stat(p)
		if err != nil {
			probs = append(probs, fmt.Sprintf("%s is missing", p))
			continue
		}
		if t, ok := builtAt.Load(p); ok && st.ModTime().Equal(t.(time.Time)) {
			continue // built by this process and untouched since
		}
		if newer == nil { // one look-up for both: the sources of either count for each
			n, err := newestSource(ctx, root, pkgs...)
			if err != nil {
				return fmt.Errorf("check the agent binaries: %w", err)
			}
			newer = &n
		}
		if newer.mod.After(st.ModTime()) {
			if !haveToolchain() {
				// Nothing here could rebuild it, and a copied checkout's
				// times say little: used as it is, said once.
				fmt.Fprintf(os.Stderr, "binaries: %s is older than the source %s, and no Go toolchain is on PATH to rebuild it: used as it is\n", p, newer.path)
				continue
			}
			probs = append(probs, fmt.Sprintf("%s is older than the source %s", p, newer.path))
		}
	}
	if len(probs) > 0 {
		return fmt.Errorf("the agent binaries are not built or out of date (%s): run `go run mage.go binaries` (the run, all and doctor targets do it first)", strings.Join(probs, "; "))
	}
	return nil
}

type source struct {
	path string
	mod  time.Time
}

// newestSource is the most recently modified source of pkgs: their non-test
// Go files and those of every package of the module they import, and go.mod
// and go.sum. The package list comes from `go list -deps`; without a Go
// toolchain every Go file of the module counts.
func newestSource(ctx context.Context, root string, pkgs ...string) (source, error) {
	var newest source
	consider := func(p string) error {
		st, err := os.Stat(p)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		if st.ModTime().After(newest.mod) {
			newest = source{p, st.ModTime()}
		}
		return nil
	}
	for _, f := range []string{"go.mod", "go.sum"} {
		if err := consider(filepath.Join(root, f)); err != nil {
			return newest, err
		}
	}
	args := append([]string{"list", "-deps", "-f", `{{if not .Standard}}{{if .Module}}{{if .Module.Main}}{{.Dir}}{{end}}{{end}}{{end}}`}, pkgs...)
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.Error
		if !errors.As(err, &ee) {
			return newest, fmt.Errorf("go list %s: %v: %s", strings.Join(pkgs, " "), err, strings.TrimSpace(stderr.String()))
		}
		// No toolchain: every Go file of the checkout counts.
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && p != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "data" || d.Name() == "results") {
				return filepath.SkipDir
			}
			if !d.IsDir() && strings.HasSuffix(p, ".go") && !strings.HasSuffix(p, "_test.go") {
				return consider(p)
			}
			return nil
		})
		return newest, err
	}
	for _, dir := range strings.Split(string(out), "\n") {
		if dir == "" {
			continue
		}
		ents, err := os.ReadDir(dir)
		if err != nil {
			return newest, err
		}
		for _, e := range ents {
			n := e.Name()
			if !e.IsDir() && strings.HasSuffix(n, ".go") && !strings.HasSuffix(n, "_test.go") {
				if err := consider(filepath.Join(dir, n)); err != nil {
					return newest, err
				}
			}
		}
	}
	return newest, nil
}
