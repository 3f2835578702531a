package medseg

import (
	"github.com/rexmle/rexmle/pipeline/challenge"
	"github.com/rexmle/rexmle/pipeline/fsutil"
)

// ExtractZip unpacks the archive at zipPath into dest (see
// challenge.ExtractZip).
func ExtractZip(zipPath, dest string) error { return challenge.ExtractZip(zipPath, dest) }

// WriteText writes s to path, creating parent folders.
func WriteText(path, s string) error {
	return fsutil.WriteFile(path, []byte(s), 0o644)
}
