package prepare

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rexmle/rexmle/pipeline/challenge"
	_ "github.com/rexmle/rexmle/pipeline/challenges/all"
	"github.com/rexmle/rexmle/pipeline/config"
)

// options loads the repository's benchmark from a temporary checkout (the
// challenge files and paper results stay where they are) with one
// challenge selected on the demo profile.
func options(t *testing.T, ids ...string) Options {
	t.Helper()
	repo, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(filepath.Join(repo, "benchmark.toml"))
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(string(src), `challenges_dir = "benchmark/challenges"`,
		`challenges_dir = "`+filepath.ToSlash(filepath.Join(repo, "benchmark", "challenges"))+`"`, 1)
	p := filepath.Join(t.TempDir(), "benchmark.toml")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	b, err := config.Load(p)
	if err != nil {
		t.Fatal(err)
	}
	prof, err := b.Profile("demo")
	if err != nil {
		t.Fatal(err)
	}
	cs, err := b.Select(ids)
	if err != nil {
		t.Fatal(err)
	}
	return Options{Benchmark: b, ProfileName: "demo", Profile: prof, Challenges: cs, Mode: "reference"}
}

func counts(t *testing.T, s *Summary) [4]int {
	t.Helper()
	p, u, f, n := s.Counts()
	return [4]int{p, u, f, n}
}

// Run prepares once; a second Run finds the folder up to date from its
// stat stamp. A file whose time changed but whose bytes did not is hashed
// and found unchanged (the stamp renewed); a file whose bytes changed makes
// the challenge prepared again.
func TestRunPreparesOnceAndChecksByStat(t *testing.T) {
	o := options(t, "ldct-iqa")
	ctx := context.Background()
	sum, err := Run(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	if got := counts(t, sum); got != [4]int{1, 0, 0, 0} {
		t.Fatalf("first run: prepared, up to date, failed, not started = %v", got)
	}
	_, root := o.Benchmark.DataRoots(Synthetic)
	dir := filepath.Join(root, "ldct-iqa")
	if err := CheckPrepared(dir, Synthetic, "demo", challenge.SynthSize{}, nil); err != nil {
		t.Fatalf("prepared folder refused: %v", err)
	}
	if _, err := readStatStamp(dir); err != nil {
		t.Fatalf("no stat stamp beside the prepared folder: %v", err)
	}
	again := func(what string, want [4]int) {
		t.Helper()
		sum, err := Run(ctx, o)
		if err != nil {
			t.Fatal(err)
		}
		if got := counts(t, sum); got != want {
			t.Fatalf("%s: prepared, up to date, failed, not started = %v, want %v", what, got, want)
		}
	}
	again("nothing changed", [4]int{0, 1, 0, 0})
	f := filepath.Join(dir, "public", "sample_submission.csv")
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(f, later, later); err != nil {
		t.Fatal(err)
	}
	again("a file touched, its bytes unchanged", [4]int{0, 1, 0, 0})
	if st, err := readStatStamp(dir); err != nil || st.Files["public/sample_submission.csv"].ModNano != later.UnixNano() {
		t.Fatalf("the stamp was not renewed after the files were hashed and found unchanged: %+v %v", st, err)
	}
	b, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)-2] ^= 1 // same size, other bytes
	if err := os.WriteFile(f, b, 0o644); err != nil {
		t.Fatal(err)
	}
	again("a file's bytes changed", [4]int{1, 0, 0, 0})
}

// An interrupted Run says which challenges it did not finish and fails
// none of them; CheckPrepared then says the folder is not prepared and what
// to run.
func TestRunInterruptedFailsNothing(t *testing.T) {
	o := options(t, "ldct-iqa", "dentex")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	sum, err := Run(ctx, o)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted run: err %v, want context.Canceled", err)
	}
	if got := counts(t, sum); got[0]+got[1] != 0 || got[2] != 0 || got[3] != 2 {
		t.Fatalf("interrupted run: prepared, up to date, failed, not started = %v, want 0 failed and 2 not started", got)
	}
	_, root := o.Benchmark.DataRoots(Synthetic)
	err = CheckPrepared(filepath.Join(root, "ldct-iqa"), Synthetic, "demo", challenge.SynthSize{}, nil)
	if err == nil || !strings.Contains(err.Error(), "is not prepared") || !strings.Contains(err.Error(), "mage.go prepare") {
		t.Fatalf("check of an unprepared folder: %v", err)
	}
}
