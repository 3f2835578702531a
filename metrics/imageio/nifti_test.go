package imageio

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadDispatch(t *testing.T) {
	if _, err := Read("x.jpg"); err == nil || !strings.Contains(err.Error(), "unknown image format") {
		t.Errorf("err = %v", err)
	}
	if _, err := Read(filepath.Join(t.TempDir(), "missing.nii")); !os.IsNotExist(err) {
		t.Errorf("missing file: err = %v", err)
	}
	for name, want := range map[string]Format{"a.NII.GZ": FormatNIfTI, "b.nii": FormatNIfTI, "c.mha": FormatMetaImage,
		"d.mhd": FormatMetaImage, "e.seg.nrrd": FormatNRRD, "f.png": FormatPNG, "g.TIF": FormatTIFF, "h.tiff": FormatTIFF} {
		if f, err := FormatOf(name); err != nil || f != want {
			t.Errorf("FormatOf(%s) = %v, %v, want %v", name, f, err, want)
		}
	}
	if _, err := FormatOf("x.gz"); err == nil {
		t.Error("bare .gz: want error")
	}
}
