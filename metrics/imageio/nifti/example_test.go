package nifti_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/rexmle/rexmle/metrics/imageio/nifti"
)

// Bad files give errors that name the file and what was wrong, never a
// panic: here a NIfTI file cut short inside its header.
func ExampleReadFile_truncated() {
	dir, _ := os.MkdirTemp("", "imageio-example")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "short.nii")
	os.WriteFile(path, []byte{92, 1, 0, 0}, 0o644) // sizeof_hdr 348, then nothing
	_, err := nifti.ReadFile(path)
	// The message starts with the path; print it relative to the folder.
	fmt.Println(strings.TrimPrefix(err.Error(), dir+string(filepath.Separator)))
	// Output: short.nii: nifti header: file truncated
}
