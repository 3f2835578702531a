package imagetest

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// PillowPython returns a python3 that imports PIL and numpy, or skips.
func PillowPython(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("short mode")
	}
	for _, py := range []string{"/usr/bin/python3", "python3"} {
		if err := exec.Command(py, "-c", "import PIL, numpy").Run(); err == nil {
			t.Logf("using %s for the Pillow cross-check", py)
			return py
		}
	}
	t.Skip("no python3 with Pillow")
	return ""
}

// pillowScript writes images with Pillow (mode "write") or reads the given
// files (mode "read") and prints numpy.array(Image.open(f)) for each.
const pillowScript = `
import json, sys, os
import numpy as np
from PIL import Image
def describe(name):
    im = Image.open(name)
    a = np.array(im)
    return {'path': name, 'mode': im.mode, 'shape': list(a.shape), 'values': a.astype(float).flatten().tolist()}
res = []
if sys.argv[1] == 'write':
    out = sys.argv[2]
    h, w = 3, 5
    base = (np.arange(h * w).reshape(h, w) * 37) % 256
    cases = [
        ('l.png', Image.fromarray(base.astype('uint8'), 'L'), {}),
        ('one.png', Image.fromarray((base % 2).astype(bool)), {}),
        ('la.png', Image.fromarray(np.stack([base, 255 - base], -1).astype('uint8'), 'LA'), {}),
        ('rgb.png', Image.fromarray(np.stack([base, base // 2, 255 - base], -1).astype('uint8'), 'RGB'), {}),
        ('rgba.png', Image.fromarray(np.stack([base, base // 2, 255 - base, base // 3], -1).astype('uint8'), 'RGBA'), {}),
        ('i16.png', Image.fromarray((base * 250).astype('uint16')), {}),
        ('l.tif', Image.fromarray(base.astype('uint8'), 'L'), {}),
        ('l_lzw.tif', Image.fromarray(base.astype('uint8'), 'L'), {'compression': 'tiff_lzw'}),
        ('l_deflate.tif', Image.fromarray(base.astype('uint8'), 'L'), {'compression': 'tiff_adobe_deflate'}),
        ('l_packbits.tif', Image.fromarray(base.astype('uint8'), 'L'), {'compression': 'packbits'}),
        ('i16.tif', Image.fromarray((base * 250).astype('uint16')), {}),
        ('i16_lzw.tif', Image.fromarray((base * 250).astype('uint16')), {'compression': 'tiff_lzw'}),
        ('f.tif', Image.fromarray((base / 7.0 - 3).astype('float32')), {}),
        ('f_deflate.tif', Image.fromarray((base / 7.0 - 3).astype('float32')), {'compression': 'tiff_adobe_deflate'}),
        ('i32.tif', Image.fromarray((base * 100000 - 9000000).astype('int32')), {}),
        ('rgb.tif', Image.fromarray(np.stack([base, base // 2, 255 - base], -1).astype('uint8'), 'RGB'), {}),
        ('rgb_lzw.tif', Image.fromarray(np.stack([base, base // 2, 255 - base], -1).astype('uint8'), 'RGB'), {'compression': 'tiff_lzw'}),
        ('rgba.tif', Image.fromarray(np.stack([base, base // 2, 255 - base, base // 3], -1).astype('uint8'), 'RGBA'), {}),
        ('one.tif', Image.fromarray((base % 2).astype(bool)), {}),
    ]
    p = Image.fromarray((base % 4).astype('uint8'), 'P')
    p.putpalette([0, 0, 0, 255, 0, 0, 0, 255, 0, 0, 0, 255] + [0] * (256 * 3 - 12))
    cases.append(('p.png', p, {}))
    for name, im, kw in cases:
        path = os.path.join(out, name)
        im.save(path, **kw)
        res.append(describe(path))
else:
    for name in sys.argv[2:]:
        res.append(describe(name))
print(json.dumps(res))
`

type PillowResult struct {
	Path   string    `json:"path"`
	Mode   string    `json:"mode"`
	Shape  []int     `json:"shape"`
	Values []float64 `json:"values"`
}

func RunPillow(t *testing.T, py string, args ...string) []PillowResult {
	t.Helper()
	var res []PillowResult
	RunPythonJSON(t, py, pillowScript, &res, args...)
	return res
}

// RunPythonJSON runs script with args and decodes the JSON it prints into
// out, failing the test (with Python's stderr) otherwise.
func RunPythonJSON(t *testing.T, py, script string, out any, args ...string) {
	t.Helper()
	sp := filepath.Join(t.TempDir(), "script.py")
	if err := os.WriteFile(sp, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	b, err := exec.Command(py, append([]string{sp}, args...)...).Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			t.Fatalf("python: %v\n%s", err, ee.Stderr)
		}
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, out); err != nil {
		t.Fatalf("python output: %v", err)
	}
}
