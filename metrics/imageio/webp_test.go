package imageio

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/rexmle/rexmle/metrics/imageio/internal/imagetest"
)

// TestWebPPillow: WebP pictures Pillow writes read as numpy.array of
// Pillow's own reading, sample for sample (lossy ones through libwebp's
// fancy upsampling and fixed-point YUV → RGB), and their grey conversion.
func TestWebPPillow(t *testing.T) {
	py := imagetest.PillowPython(t)
	var res struct {
		Version string
		Files   []struct {
			Path, Mode string
			Shape      []int
			Values, L  []float64
		}
	}
	imagetest.RunPythonJSON(t, py, imagetest.WebpScript, &res, t.TempDir())
	if res.Files == nil {
		t.Skipf("Pillow %s has no WebP support", res.Version)
	}
	t.Logf("Pillow %s, %d files", res.Version, len(res.Files))
	for _, r := range res.Files {
		name := filepath.Base(r.Path)
		v, f, err := ReadPictureFile(r.Path)
		if err != nil || f != FormatWebP {
			t.Errorf("%s: Pillow reads mode %s, we: %v (%s)", name, r.Mode, err, f)
			continue
		}
		nc := 1
		if len(r.Shape) == 3 {
			nc = r.Shape[2]
		}
		if v.Shape[0] != r.Shape[1] || v.Shape[1] != r.Shape[0] || v.NumChannels() != nc {
			t.Errorf("%s: %v × %d, Pillow %v", name, v.Shape, v.NumChannels(), r.Shape)
			continue
		}
		if !slices.Equal(v.Data, r.Values) {
			diff := 0
			for i := range v.Data {
				if v.Data[i] != r.Values[i] {
					diff++
				}
			}
			t.Errorf("%s (mode %s): %d of %d samples differ from Pillow", name, r.Mode, diff, len(v.Data))
		}
	}
}
