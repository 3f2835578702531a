package stages

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rexmle/rexmle/pipeline/challenge/challengetest"

	"github.com/rexmle/rexmle/pipeline/challenge"
)

// TestOneIDRuleInOfficialMode checks every challenge against the common id
// rule in official mode: a repeated test case, an id that is not a test
// case, or a dropped test case make the submission invalid; the unchanged
// perfect submission is valid; a header-only submission is invalid in both
// modes; and a FIFO in place of a file the submission names is refused at
// once.
func TestOneIDRuleInOfficialMode(t *testing.T) {
	if testing.Short() {
		t.Skip("prepares every challenge")
	}
	o := testBench(t)
	o.Challenges = nil // the demo profile: every challenge
	ctx := context.Background()
	if err := Prepare(ctx, o); err != nil {
		t.Fatal(err)
	}
	root := filepath.Dir(o.Config)
	for _, id := range challenge.IDs() {
		c, _ := challenge.Lookup(id)
		data := filepath.Join(root, "data", "synthetic", id)
		if _, err := os.Stat(data); err != nil {
			continue // not in the benchmark (a test's own challenge)
		}
		t.Run(id, func(t *testing.T) {
			sub := t.TempDir()
			if err := challengetest.MustOracle(t, c).Perfect(ctx, filepath.Join(data, "public"), filepath.Join(data, "private"), sub); err != nil {
				t.Fatal(err)
			}
			csvPath := filepath.Join(sub, "submission.csv")
			orig, err := os.ReadFile(csvPath)
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimRight(string(orig), "\n"), "\n")
			if len(lines) < 3 {
				t.Skipf("%d test cases: too few to drop one", len(lines)-1)
			}
			grade := func(body string, mode challenge.Mode) error {
				t.Helper()
				if err := os.WriteFile(csvPath, []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
				_, err := challenge.SafeGrade(ctx, c, sub, filepath.Join(data, "private"), mode)
				return err
			}
			join := func(ls []string) string { return strings.Join(ls, "\n") + "\n" }
			if err := grade(string(orig), challenge.Official); err != nil {
				t.Fatalf("perfect submission: %v", err)
			}
			last := lines[len(lines)-1]
			comma := strings.IndexByte(last, ',')
			extra := "not-a-test-case" + last[comma:]
			for _, c := range []struct {
				name, body, want string
			}{
				{"repeated", join(append(append([]string{}, lines...), last)), "duplicate"},
				{"extra", join(append(append([]string{}, lines...), extra)), "not"},
				{"dropped", join(lines[:len(lines)-1]), "missing"},
			} {
				err := grade(c.body, challenge.Official)
				if !challenge.IsInvalid(err) || !(strings.Contains(err.Error(), c.want)) {
					t.Errorf("%s test case, official: %v (want an invalid submission saying %q)", c.name, err, c.want)
				}
			}
			for _, mode := range []challenge.Mode{challenge.Reference, challenge.Official} {
				if err := grade(lines[0]+"\n", mode); !challenge.IsInvalid(err) {
					t.Errorf("header-only submission, %s: %v", mode, err)
				}
			}
			// A FIFO in place of a file the submission names: refused, not a hang.
			var named string
			filepath.WalkDir(sub, func(p string, d os.DirEntry, err error) error {
				if err == nil && d.Type().IsRegular() && p != csvPath && named == "" {
					named = p
				}
				return nil
			})
			if named == "" {
				return // the CSV holds the predictions
			}
			os.Remove(named)
			if err := syscall.Mkfifo(named, 0o644); err != nil {
				t.Skip("mkfifo:", err)
			}
			done := make(chan error, 1)
			go func() { done <- grade(string(orig), challenge.Reference) }()
			select {
			case err := <-done:
				if !challenge.IsInvalid(err) {
					t.Errorf("a FIFO as %s: %v, want an invalid submission", filepath.Base(named), err)
				}
			case <-time.After(20 * time.Second):
				t.Fatalf("grading hangs on a FIFO as %s", filepath.Base(named))
			}
		})
	}
}
