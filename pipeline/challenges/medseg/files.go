package medseg

import (
	"fmt"
	"github.com/rexmle/rexmle/pipeline/challenge"
	"io"
	"os"
	"path/filepath"
)

// CopyFile copies the regular file src to dst byte for byte, creating the
// parent folders of dst.
func CopyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return fmt.Errorf("copy %s: %w", src, err)
	}
	defer in.Close()
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return fmt.Errorf("copy %s: %w", src, err)
	}
	out, err := os.Create(dst)
	if err != nil {
		return fmt.Errorf("copy %s: %w", src, err)
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return fmt.Errorf("copy %s to %s: %w", src, dst, err)
	}
	if err := out.Close(); err != nil {
		return fmt.Errorf("copy %s to %s: %w", src, dst, err)
	}
	return nil
}

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
