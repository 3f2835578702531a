package stages

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rexmle/rexmle/pipeline/binaries"
	"github.com/rexmle/rexmle/pipeline/checkouttest"
	"github.com/rexmle/rexmle/pipeline/config"
	"github.com/rexmle/rexmle/pipeline/rankstage"
	"github.com/rexmle/rexmle/pipeline/report/reporttest"
	"github.com/rexmle/rexmle/pipeline/settings"
	"github.com/rexmle/rexmle/pipeline/store"
)

// TestPublishedBundleRebuildsTheSite is issue 30 item 11: in a copy of the
// working tree, the demo (its agents in bubblewrap, on two challenges) and
// a paper-profile store of stand-in runs each build a site and publish a
// bundle; the bundles are committed, the repository is cloned, and the
// Pages workflow's own commands (read from .github/workflows/pages.yml)
// build each profile's site in the clone, offline, from the bundle alone.
// Every file of each rebuilt site must have the original's bytes.
// envOptions are the options of the test's environment, read as the
// magefile reads them (settings.Load of the whole environment).
func envOptions(t *testing.T) Options {
	t.Helper()
	s, err := settings.Load(os.Environ())
	if err != nil {
		t.Fatal(err)
	}
	return FromSettings(s)
}

func TestPublishedBundleRebuildsTheSite(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the demo, then `go run mage.go report` in a fresh clone (minutes)")
	}
	ctx := context.Background()
	orig := checkouttest.Clone(t)
	t.Setenv("REXMLE_CONFIG", filepath.Join(orig, "benchmark.toml"))
	t.Setenv("REXMLE_BOOT", "200") // the bundle carries it; the rebuild gets another value and must use the bundle's
	sites := map[string]string{}
	keep := func(profile string) {
		t.Helper()
		if err := Report(ctx, envOptions(t)); err != nil {
			t.Fatalf("%s: report: %v", profile, err)
		}
		sites[profile] = filepath.Join(t.TempDir(), "site")
		if err := os.Rename(filepath.Join(orig, "site"), sites[profile]); err != nil {
			t.Fatal(err)
		}
		if err := Publish(ctx, envOptions(t)); err != nil {
			t.Fatalf("%s: publish: %v", profile, err)
		}
	}

	// The demo, as `REXMLE_CHALLENGES=ldct-iqa,isles22 go run mage.go all` runs it.
	if _, err := exec.LookPath("bwrap"); err != nil {
		t.Log("bubblewrap not installed: no demo runs; the paper-profile bundle only")
	} else {
		t.Setenv("REXMLE_PROFILE", "demo")
		t.Setenv("REXMLE_CHALLENGES", "ldct-iqa,isles22")
		if err := binaries.Build(ctx, orig); err != nil {
			t.Fatal(err)
		}
		for _, stage := range []func(context.Context, Options) error{Prepare, Run, Grade, Rank, Judge} {
			if err := stage(ctx, envOptions(t)); err != nil {
				t.Fatalf("demo: %v", err)
			}
		}
		keep("demo")
		if _, err := os.Stat(filepath.Join(orig, "results", "bundle", "demo", "exports", "capabilities.csv")); err != nil {
			t.Errorf("the demo bundle lacks the judge's export: %v", err)
		}
	}

	// A paper-profile store of stand-in runs (GPU telemetry, per-case
	// values, judge scores), ranked by the rank stage.
	results := filepath.Join(orig, "results")
	old, _ := filepath.Glob(filepath.Join(results, "*.*"))
	for _, p := range old {
		os.Remove(p)
	}
	t.Setenv("REXMLE_PROFILE", "paper")
	t.Setenv("REXMLE_CHALLENGES", "")
	b, err := config.Load(filepath.Join(orig, "benchmark.toml"))
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(ctx, filepath.Join(results, "rexmle.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	err = reporttest.Fill(ctx, st, b, reporttest.Spec{Source: "standin", Agents: 2, Seeds: 2, Cases: 5, MeanCases: true, Strategies: 3, GPUSamples: 3, RandSeed: 11})
	st.Close()
	if err != nil {
		t.Fatal(err)
	}
	if err := Rank(ctx, envOptions(t)); err != nil {
		t.Fatal(err)
	}
	keep("paper")

	// Commit the bundles (nothing of them ignored), clone, run the workflow.
	checkouttest.Git(t, orig, "add", "results/bundle")
	checkouttest.Git(t, orig, "commit", "-q", "-m", "results bundles")
	if s := checkouttest.Git(t, orig, "status", "--porcelain", "--ignored", "results/bundle"); s != "" {
		t.Fatalf("bundle files left out of the commit:\n%s", s)
	}
	fresh := filepath.Join(t.TempDir(), "fresh")
	checkouttest.Git(t, filepath.Dir(fresh), "clone", "-q", orig, fresh)
	steps := workflowRuns(t, filepath.Join(fresh, ".github", "workflows", "pages.yml"), "build")
	if len(steps) < 2 || !strings.Contains(strings.Join(steps, "\n"), "mage.go report") {
		t.Fatalf("the workflow's build job runs %q: want the bundle check and `go run mage.go report`", steps)
	}
	for profile, want := range sites {
		t.Run(profile, func(t *testing.T) {
			os.RemoveAll(filepath.Join(fresh, "site"))
			outputs := filepath.Join(t.TempDir(), "github-output")
			var env []string
			for _, kv := range os.Environ() {
				if !strings.HasPrefix(kv, "REXMLE_") {
					env = append(env, kv)
				}
			}
			env = append(env, "REXMLE_PROFILE="+profile, "REXMLE_BOOT=0", "GITHUB_OUTPUT="+outputs, "GOPROXY=off", "GOFLAGS=-mod=readonly")
			var log strings.Builder
			for _, script := range steps {
				cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script)
				cmd.Dir, cmd.Env = fresh, env
				out, err := cmd.CombinedOutput()
				log.Write(out)
				if err != nil {
					t.Fatalf("%s: %v\n%s", script, err, log.String())
				}
			}
			if o, _ := os.ReadFile(outputs); !strings.Contains(string(o), "found=true") {
				t.Fatalf("the workflow did not find the %s bundle (outputs %q):\n%s", profile, o, log.String())
			}
			if !strings.Contains(log.String(), "built from the results bundle results/bundle/"+profile) {
				t.Errorf("the rebuild did not say it used the bundle:\n%s", log.String())
			}
			n := reporttest.SameTree(t, want, filepath.Join(fresh, "site"))
			t.Logf("%s: %d files compared", profile, n)
			if n < 100 {
				t.Errorf("%d files: not a whole site", n)
			}
		})
	}
}

// workflowRuns returns the `run:` scripts of one job of a GitHub Actions
// workflow, in order: a one-line `run: cmd` or a `run: |` block (its lines
// with their common indent removed). It reads only what this project's
// workflows use, and fails t when the job is not there.
func workflowRuns(t *testing.T, path, job string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	indent := func(s string) int { return len(s) - len(strings.TrimLeft(s, " ")) }
	var runs []string
	inJobs, inJob, found := false, false, false
	block, blockIndent := -1, 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		trim := strings.TrimSpace(line)
		if block >= 0 {
			if trim == "" || indent(line) > blockIndent {
				if trim != "" {
					runs[block] += line[min(len(line), blockIndent+2):] + "\n"
				}
				continue
			}
			block = -1
		}
		if trim == "" || strings.HasPrefix(trim, "#") {
			continue
		}
		switch {
		case indent(line) == 0:
			inJobs, inJob = trim == "jobs:", false
		case inJobs && indent(line) == 2:
			inJob = trim == job+":"
			found = found || inJob
		case inJob:
			key := strings.TrimPrefix(trim, "- ")
			if v, ok := strings.CutPrefix(key, "run:"); ok {
				v = strings.TrimSpace(v)
				if v == "|" {
					runs = append(runs, "")
					block, blockIndent = len(runs)-1, indent(line)+len(trim)-len(key)
					continue
				}
				runs = append(runs, v)
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if !found {
		t.Fatalf("%s: no job %q", path, job)
	}
	return runs
}

// Publish refuses a checkout without a store, a store without runs, and
// bootstrap settings other than the store was ranked with; report refuses
// a bundle of another profile.
func TestPublishRefuses(t *testing.T) {
	ctx := context.Background()
	o := testBench(t)
	root := filepath.Dir(o.Config)
	if err := Publish(ctx, o); err == nil || !strings.Contains(err.Error(), "no store") {
		t.Fatalf("no store: %v", err)
	}
	b, err := config.Load(o.Config)
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(ctx, filepath.Join(root, "results", "rexmle.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	if err := Publish(ctx, o); err == nil || !strings.Contains(err.Error(), "holds no runs") {
		t.Fatalf("empty store: %v", err)
	}
	st, err = store.Open(ctx, filepath.Join(root, "results", "rexmle.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	err = reporttest.Fill(ctx, st, b, reporttest.Spec{Source: "demo", Agents: 1, Seeds: 1, Cases: 3, MeanCases: true, RandSeed: 3})
	st.Close()
	if err != nil {
		t.Fatal(err)
	}
	o.Rank = rankstage.Options{Boot: 20, BootSeed: 5, Confidence: rankstage.DefaultOptions().Confidence} // REXMLE_BOOT=20 REXMLE_BOOT_SEED=5
	if err := Rank(ctx, o); err != nil {
		t.Fatal(err)
	}
	o.Rank.BootSeed = 6
	if err := Publish(ctx, o); err == nil || !strings.Contains(err.Error(), "REXMLE_BOOT=20 REXMLE_BOOT_SEED=5") {
		t.Fatalf("another seed: %v", err)
	}
	o.Rank.BootSeed = 5
	if err := Publish(ctx, o); err != nil {
		t.Fatal(err)
	}
	// The bundle moved to another profile's folder: report names the field.
	if err := os.Rename(filepath.Join(root, "results", "bundle", "demo"), filepath.Join(root, "results", "bundle", "paper")); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"rexmle.sqlite", "rexmle.sqlite-wal", "rexmle.sqlite-shm"} {
		os.Remove(filepath.Join(root, "results", p))
	}
	paper := o
	paper.Profile = "paper"
	if err := Report(ctx, paper); err == nil || !strings.Contains(err.Error(), `field profile is "demo"`) {
		t.Fatalf("bundle of another profile: %v", err)
	}
}
