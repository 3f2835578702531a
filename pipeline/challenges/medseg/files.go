package medseg

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/rexmle/rexmle/pipeline/challenge"
)

// ExtractZip unpacks the archive at zipPath into dest (see
// challenge.ExtractZip).
func ExtractZip(zipPath, dest string) error { return challenge.ExtractZip(zipPath, dest) }

// WriteText writes s to path, creating parent folders.
func WriteText(path, s string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
