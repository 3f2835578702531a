package settings

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rexmle/rexmle/pipeline/checkouttest"
)

// TestMageRefusesBeforeWork runs the real targets (`go run mage.go`) on a
// scratch checkout of the benchmark: the misspelt names and a bad
// flag stop each target with the name meant, before it writes anything;
// the same target with the right name does its work (the control).
func TestMageRefusesBeforeWork(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles and runs the magefile")
	}
	repo := repoRoot(t)
	scratch := func(t *testing.T) string { return filepath.Dir(checkouttest.Benchmark(t)) }
	// The test's own environment without any REXMLE_* variable.
	var base []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "REXMLE_") {
			base = append(base, kv)
		}
	}
	mage := func(t *testing.T, dir, target string, env ...string) (string, error) {
		cmd := exec.Command("go", "run", "mage.go", target)
		cmd.Dir = repo
		cmd.Env = append(append(append([]string(nil), base...), "REXMLE_CONFIG="+filepath.Join(dir, "benchmark.toml")), env...)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	for _, c := range []struct {
		target, kv, want string
	}{
		{"fetch", "REXMLE_DRYRUN=1", "unknown setting REXMLE_DRYRUN; did you mean REXMLE_DRY_RUN?"},
		{"prepare", "REXMLE_CHALLENGE=isles22", "REXMLE_CHALLENGE is not a setting: the pipeline sets it for agents (the run's challenge id); did you mean REXMLE_CHALLENGES?"},
		{"prepare", "REXMLE_PROFLE=paper", "unknown setting REXMLE_PROFLE; did you mean REXMLE_PROFILE?"},
		{"run", "REXMLE_RETRY_FAILED=maybe", `REXMLE_RETRY_FAILED="maybe": want 1, true or yes (or 0, false, no)`},
		{"all", "REXMLE_BOOT=many", `REXMLE_BOOT="many"`},
	} {
		t.Run(c.target+" "+c.kv, func(t *testing.T) {
			dir := scratch(t)
			out, err := mage(t, dir, c.target, c.kv, "REXMLE_PROFILE=paper")
			if err == nil || !strings.Contains(out, c.want) {
				t.Fatalf("mage %s with %s: %v\n%s\nwant it to say %s", c.target, c.kv, err, out, c.want)
			}
			ents, _ := os.ReadDir(dir)
			if len(ents) != 1 {
				t.Errorf("the refused target left %d entries in the checkout: %v", len(ents), ents)
			}
		})
	}
	t.Run("control", func(t *testing.T) {
		dir := scratch(t)
		out, err := mage(t, dir, "prepare", "REXMLE_CHALLENGES=ldct-iqa")
		if err != nil {
			t.Fatalf("mage prepare: %v\n%s", err, out)
		}
		if _, err := os.Stat(filepath.Join(dir, "data", "synthetic", "ldct-iqa", "public")); err != nil {
			t.Fatalf("prepare did no work: %v\n%s", err, out)
		}
	})
}
