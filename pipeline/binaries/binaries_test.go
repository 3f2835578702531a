package binaries

import (
	"context"
	"github.com/rexmle/rexmle/pipeline/checkouttest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// checkout links the module's files into a temporary folder, so the
// binaries go to its bin/ and not the real checkout's.
func checkout(t *testing.T) string {
	t.Helper()
	repo, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	checkouttest.Link(t, repo, root)
	return root
}

func TestBuildAndCheck(t *testing.T) {
	if testing.Short() {
		t.Skip("builds rexmle-agent and rexmle-bridge")
	}
	ctx := context.Background()
	root := checkout(t)
	err := Check(ctx, root)
	if err == nil || !strings.Contains(err.Error(), "rexmle-agent is missing") || !strings.Contains(err.Error(), "go run mage.go binaries") {
		t.Fatalf("check before building: %v, want both missing and the fix", err)
	}
	if err := Build(ctx, root); err != nil {
		t.Fatal(err)
	}
	if err := Check(ctx, root); err != nil {
		t.Fatalf("check after building: %v", err)
	}
	// The same, as another process sees it (no record of the build): the
	// sources are looked at and are older.
	builtAt.Range(func(k, _ any) bool { builtAt.Delete(k); return true })
	if err := Check(ctx, root); err != nil {
		t.Fatalf("check after building, from another process: %v", err)
	}
	// A binary older than its sources is out of date.
	old := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	if err := os.Chtimes(Bridge(root), old, old); err != nil {
		t.Fatal(err)
	}
	err = Check(ctx, root)
	if err == nil || !strings.Contains(err.Error(), "rexmle-bridge is older than the source") || strings.Contains(err.Error(), "rexmle-agent is") {
		t.Fatalf("check with an old bridge: %v, want only the bridge out of date", err)
	}
	// Building again (nothing changed, so go build rewrites nothing) makes it
	// current.
	if err := Build(ctx, root); err != nil {
		t.Fatal(err)
	}
	if err := Check(ctx, root); err != nil {
		t.Fatalf("check after rebuilding: %v", err)
	}
}
