package reporttest

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/rexmle/rexmle/pipeline/checkouttest"
	"github.com/rexmle/rexmle/pipeline/config"
	"github.com/rexmle/rexmle/pipeline/store"
)

// Benchmark loads the module's benchmark.toml.
func Benchmark(t testing.TB) *config.Benchmark {
	t.Helper()
	root, err := checkouttest.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	b, err := config.Load(filepath.Join(root, "benchmark.toml"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Store opens an empty store in a temporary folder, closed when the test
// ends.
func Store(t testing.TB) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "rexmle.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}
