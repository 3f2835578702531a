package imageio

import (
	"path/filepath"
	"slices"
	"testing"
)

// webpScript writes WebP pictures with Pillow (lossy at several qualities,
// lossless, with and without alpha, odd and even sizes, under .png names)
// and prints numpy.array(Image.open(f)) of each.
const webpScript = `
import json, sys, os, numpy as np, PIL
from PIL import Image, features
if not features.check('webp'):
    print(json.dumps({'version': PIL.__version__, 'files': None})); sys.exit()
out, rs, res = sys.argv[1], np.random.RandomState(35), []
for i in range(24):
    w, h = int(rs.randint(1, 40)), int(rs.randint(1, 30))
    yy, xx = np.mgrid[0:h, 0:w]
    base = (80 + 60 * np.sin(xx / 4.0) * np.cos(yy / 5.0) + rs.randint(0, 50, (h, w))).clip(0, 255)
    rgb = np.stack([base, (base * 0.7 + xx * 3) % 256, (255 - base + yy * 5) % 256], -1).astype('uint8')
    alpha = i % 3 == 2
    im = Image.fromarray(np.dstack([rgb, rs.randint(0, 256, (h, w)).astype('uint8')]), 'RGBA') if alpha else Image.fromarray(rgb, 'RGB')
    if i % 4 == 3:
        im = im.convert('L').convert('RGB')
    lossless = i % 5 == 4
    p = os.path.join(out, 'w%02d.png' % i)
    im.save(p, 'WEBP', lossless=lossless, quality=int(rs.choice([10, 50, 80, 100])))
    r = Image.open(p)
    a = np.array(r)
    res.append({'path': p, 'mode': r.mode, 'shape': list(a.shape), 'values': a.astype(float).ravel().tolist(), 'l': np.array(r.convert('L')).astype(float).ravel().tolist()})
print(json.dumps({'version': PIL.__version__, 'files': res}))
`

// TestWebPPillow: WebP pictures Pillow writes read as numpy.array of
// Pillow's own reading, sample for sample (lossy ones through libwebp's
// fancy upsampling and fixed-point YUV → RGB), and their grey conversion.
func TestWebPPillow(t *testing.T) {
	py := pillowPython(t)
	var res struct {
		Version string
		Files   []struct {
			Path, Mode string
			Shape      []int
			Values, L  []float64
		}
	}
	runPythonJSON(t, py, webpScript, &res, t.TempDir())
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
