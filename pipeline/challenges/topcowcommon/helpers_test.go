package topcowcommon

import (
	"testing"

	"github.com/rexmle/rexmle/metrics/imageio"
)

// rewriteGeometry rewrites a NIfTI file with another origin and spacing.
func rewriteGeometry(t *testing.T, path string, origin, spacing [3]float64) {
	t.Helper()
	v, err := imageio.ReadNIfTIFile(path)
	if err != nil {
		t.Fatal(err)
	}
	v.Origin, v.Spacing = origin, spacing
	if err := imageio.WriteNIfTIFile(path, v, v.DType); err != nil {
		t.Fatal(err)
	}
}
