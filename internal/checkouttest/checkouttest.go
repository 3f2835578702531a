// Package checkouttest makes temporary checkouts of the module for tests
// that run stages or build binaries: they write into the temporary folder,
// never into the real checkout.
package checkouttest

import (
	"os"
	"path/filepath"
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
