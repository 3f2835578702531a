package imageio

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/rexmle/rexmle/metrics/volume"
)

// pillowPython returns a python3 that imports PIL and numpy, or skips.
func pillowPython(t *testing.T) string {
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

type pillowResult struct {
	Path   string    `json:"path"`
	Mode   string    `json:"mode"`
	Shape  []int     `json:"shape"`
	Values []float64 `json:"values"`
}

func runPillow(t *testing.T, py string, args ...string) []pillowResult {
	t.Helper()
	var res []pillowResult
	runPythonJSON(t, py, pillowScript, &res, args...)
	return res
}

// runPythonJSON runs script with args and decodes the JSON it prints into
// out, failing the test (with Python's stderr) otherwise.
func runPythonJSON(t *testing.T, py, script string, out any, args ...string) {
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

func TestPillowWritesWeRead(t *testing.T) {
	py := pillowPython(t)
	res := runPillow(t, py, "write", t.TempDir())
	if len(res) != 20 {
		t.Fatalf("python wrote %d files", len(res))
	}
	for _, r := range res {
		t.Run(filepath.Base(r.Path)+"/"+r.Mode, func(t *testing.T) {
			v, err := Read(r.Path)
			if err != nil {
				t.Fatal(err)
			}
			nc := 1
			if len(r.Shape) == 3 {
				nc = r.Shape[2]
			}
			if v.Shape != [3]int{r.Shape[1], r.Shape[0], 1} || v.NumChannels() != nc {
				t.Fatalf("shape %v × %d channels, Pillow %v", v.Shape, v.Channels, r.Shape)
			}
			checkVec(t, "values", v.Data, r.Values)
		})
	}
}

func TestPillowReadsWhatWeWrite(t *testing.T) {
	py := pillowPython(t)
	dir := t.TempDir()
	var paths []string
	var vols []*volume.Volume
	add := func(name string, nc int, dt volume.DType, maxv float64, write func(string, *volume.Volume) error) {
		v := &volume.Volume{Grid: volume.NewGrid(5, 3), DType: dt, Channels: nc, Data: make([]float64, 15*nc)}
		for i := range v.Data {
			v.Data[i] = float64((i*7919)%int(maxv+1)) * map[bool]float64{true: -1, false: 1}[dt == volume.Int16 && i%3 == 0]
		}
		if dt == volume.Float32 {
			for i := range v.Data {
				v.Data[i] = v.Data[i]/4 - 3.5
			}
		}
		p := filepath.Join(dir, name)
		if err := write(p, v); err != nil {
			t.Fatal(err)
		}
		paths, vols = append(paths, p), append(vols, v)
	}
	png8 := func(p string, v *volume.Volume) error { return WritePNGFile(p, v, 8) }
	png16 := func(p string, v *volume.Volume) error { return WritePNGFile(p, v, 16) }
	tif := func(p string, v *volume.Volume) error { return WriteTIFFFile(p, v, "") }
	add("g8.png", 1, volume.Uint8, 255, png8)
	add("g16.png", 1, volume.Uint16, 65535, png16)
	add("la.png", 2, volume.Uint8, 255, png8)
	add("rgb.png", 3, volume.Uint8, 255, png8)
	add("rgba.png", 4, volume.Uint8, 255, png8)
	add("g8.tif", 1, volume.Uint8, 255, tif)
	add("g16.tif", 1, volume.Uint16, 65535, tif)
	add("s16.tif", 1, volume.Int16, 32767, tif)
	add("s32.tif", 1, volume.Int32, 1<<20, tif)
	add("f32.tif", 1, volume.Float32, 100, tif)
	add("rgb.tif", 3, volume.Uint8, 255, tif)
	add("rgba.tif", 4, volume.Uint8, 255, tif)
	res := runPillow(t, py, append([]string{"read"}, paths...)...)
	for i, r := range res {
		v := vols[i]
		t.Run(filepath.Base(r.Path)+"/"+r.Mode, func(t *testing.T) {
			nc := 1
			if len(r.Shape) == 3 {
				nc = r.Shape[2]
			}
			if r.Shape[0] != 3 || r.Shape[1] != 5 || nc != v.NumChannels() {
				t.Fatalf("Pillow shape %v, want [3 5 %d]", r.Shape, v.NumChannels())
			}
			checkVec(t, "values", r.Values, v.Data)
		})
	}
}
