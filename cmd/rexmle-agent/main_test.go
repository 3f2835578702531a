package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/rexmle/rexmle/pipeline/challenge"
	"github.com/rexmle/rexmle/pipeline/runner/validate"
	"github.com/rexmle/rexmle/pipeline/settings"
)

func TestValidateCommandExitCodes(t *testing.T) {
	root := t.TempDir()
	good, bad := filepath.Join(root, "good"), filepath.Join(root, "bad")
	os.MkdirAll(good, 0o755)
	os.MkdirAll(bad, 0o755)
	// The endpoint grades a snapshot of the folder: bad's marker file says which.
	os.WriteFile(filepath.Join(bad, "bad.txt"), nil, 0o644)
	check := func(ctx context.Context, dir string) error {
		if _, err := os.Stat(filepath.Join(dir, "bad.txt")); err == nil {
			return challenge.Invalidf("submission.csv", "", "missing")
		}
		return nil
	}
	h, err := validate.Handler(validate.Config{Check: check, Folders: map[string]string{good: good, bad: bad}, Default: good, Scratch: filepath.Join(root, ".validate")})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := validate.Listen(filepath.Join(root, "v.sock"), h)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	tests := []struct {
		args []string
		want int
	}{
		{[]string{"-socket", srv.Socket, good}, 0},
		{[]string{"-socket", srv.Socket, bad}, 1},
		{[]string{"-socket", filepath.Join(root, "nosuch.sock"), good}, 2},
		{[]string{"-socket", srv.Socket}, 0}, // no folder: the endpoint's default
		{[]string{"-socket", srv.Socket, good, bad}, 2},
	}
	for _, tc := range tests {
		if got := validateMain(tc.args, settings.Agent{}); got != tc.want {
			t.Errorf("validate %v: exit %d, want %d", tc.args, got, tc.want)
		}
	}
	if got := validateMain([]string{good}, settings.Agent{}); got != 2 {
		t.Errorf("no socket: exit %d", got)
	}
	// The socket of the contract (REXMLE_VALIDATE_SOCKET, read once by main).
	if got := validateMain([]string{good}, settings.LoadChild([]string{"REXMLE_VALIDATE_SOCKET=" + srv.Socket})); got != 0 {
		t.Errorf("socket from the environment: exit %d", got)
	}
}
