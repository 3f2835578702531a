package topcowcommon

import (
	"testing"

	"github.com/rexmle/rexmle/metrics/imageio/nifti"
)

// rewriteGeometry rewrites a NIfTI file with another origin and spacing.
func rewriteGeometry(t *testing.T, path string, origin, spacing [3]float64) {
	t.Helper()
	v, err := nifti.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	v.Origin, v.Spacing = origin, spacing
	if err := nifti.WriteFile(path, v, v.DType); err != nil {
		t.Fatal(err)
	}
}
