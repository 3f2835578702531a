package stages

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/magefile/mage/mg"
)

// A Ctrl-C is reported as an interrupt with the target to rerun and what
// was kept, exit status 130, never as failed challenges; a bad setting
// stops before any work with exit status 2; mage sees both statuses.
func TestInterruptAndBadSettingsExitCodes(t *testing.T) {
	o := testBench(t)
	ctx, cancel := context.WithCancel(context.WithValue(context.Background(), targetKey{}, "all"))
	cancel()
	out, err := stdoutOf(func() error { return Prepare(ctx, o) })
	var ee *ExitError
	if !errors.As(err, &ee) || ee.Code != ExitInterrupted || mg.ExitStatus(err) != ExitInterrupted {
		t.Fatalf("interrupted prepare: %v (%T), want exit status %d", err, err, ExitInterrupted)
	}
	if msg := err.Error(); msg != "prepare: interrupted; rerun `mage all` to resume (0 finished kept)" {
		t.Errorf("interrupted prepare says %q", msg)
	}
	if strings.Contains(out, "FAILED") || strings.Contains(out, "failed") {
		t.Errorf("an interrupt reported as failures:\n%s", out)
	}
	// Without a target in the context the stage names itself.
	if err := interrupted(context.Background(), "grade", -1); err.Error() != "grade: interrupted; rerun `mage grade` to resume" {
		t.Errorf("interrupted grade says %q", err)
	}

	bad := o
	bad.Mode = "refrence"
	err = Prepare(context.Background(), bad)
	if mg.ExitStatus(err) != ExitBadSettings || !strings.Contains(err.Error(), "refrence") {
		t.Errorf("a misspelt mode: %v, exit status %d, want %d", err, mg.ExitStatus(err), ExitBadSettings)
	}
	bad = o
	bad.Profile = "no-such-profile"
	if err := Rank(context.Background(), bad); mg.ExitStatus(err) != ExitBadSettings {
		t.Errorf("an unknown profile: %v, exit status %d, want %d", err, mg.ExitStatus(err), ExitBadSettings)
	}
}

// report on a checkout without a store (a fresh clone) says there is
// nothing to report and what to run, and creates neither a store nor a
// site.
func TestReportWithoutAStoreSaysWhatToRun(t *testing.T) {
	o := testBench(t)
	root := filepath.Dir(o.Config)
	err := Report(context.Background(), o)
	if err == nil || !strings.Contains(err.Error(), "nothing to report") || !strings.Contains(err.Error(), "mage all") {
		t.Fatalf("report without a store: %v", err)
	}
	for _, p := range []string{filepath.Join(root, "results", "rexmle.sqlite"), filepath.Join(root, "site")} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("report without a store created %s", p)
		}
	}
}
