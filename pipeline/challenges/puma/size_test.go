package puma

import (
	"context"
	"os"
	"path/filepath"

	"github.com/rexmle/rexmle/pipeline/challenge"
	"testing"
)

// The synthetic dataset stays small (a few MB).
func TestSynthSize(t *testing.T) {
	d := t.TempDir()
	if err := Track1Task1.Synthesize(context.Background(), d, 1, challenge.SynthSize{}); err != nil {
		t.Fatal(err)
	}
	var total int64
	filepath.Walk(d, func(p string, info os.FileInfo, err error) error {
		if err == nil && info.Mode().IsRegular() {
			total += info.Size()
		}
		return nil
	})
	t.Logf("synthetic PUMA raw data: %d bytes", total)
	if total > 8<<20 {
		t.Errorf("synthetic data is %d bytes, want at most 8 MiB", total)
	}
}
