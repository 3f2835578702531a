package stages

import (
	"context"
	"strings"
	"testing"
)

// A run stage whose challenges are not prepared started nothing and must
// say so with a non-zero exit (the paper profile on a host that never
// fetched printed "nothing to run" and exited 0).
func TestRunFailsOnUnpreparedChallenges(t *testing.T) {
	if testing.Short() {
		t.Skip("builds rexmle-agent")
	}
	o := runBench(t, "")
	err := Run(context.Background(), o)
	if err == nil || !strings.Contains(err.Error(), "1 challenge(s) of profile demo not prepared") || !strings.Contains(err.Error(), "mage.go prepare") {
		t.Fatalf("run before prepare: %v", err)
	}
}
