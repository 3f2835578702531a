package imageio

import (
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rexmle/rexmle/metrics/imageio/internal/imagetest"
	"github.com/rexmle/rexmle/metrics/imageio/jpeg"
)

func TestSniffPicture(t *testing.T) {
	cases := map[string]Format{
		"\x89PNG\r\n\x1a\nxxxx":        FormatPNG,
		"II*\x00....":                  FormatTIFF,
		"MM\x00*....":                  FormatTIFF,
		"BM6\x00\x00":                  FormatBMP,
		"\xff\xd8\xff\xe0":             FormatJPEG,
		"GIF89a..":                     FormatGIF,
		"GIF87a..":                     FormatGIF,
		"\x1f\x8b\x08":                 "",
		"P5 3 3":                       FormatPNM, // Pillow's PPM plugin claims "P" + one of 0123456fy
		"Pf":                           FormatPNM,
		"P7 3 3":                       "",
		"RIFF\x00\x00\x00\x00WEBPVP8L": FormatWebP,
		"RIFF\x00\x00\x00\x00WEBPVP8Z": "",
		"":                             "",
	}
	for head, want := range cases {
		if got := SniffPicture([]byte(head)); got != want {
			t.Errorf("SniffPicture(%q) = %q, want %q", head, got, want)
		}
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "x.png")
	if err := os.WriteFile(p, []byte("\x00\x01\x02 not a picture"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := ReadPictureFile(p); !errors.Is(err, ErrUnknownPicture) {
		t.Errorf("unknown bytes: err = %v, want ErrUnknownPicture", err)
	}
	if err := os.WriteFile(p, []byte("RIFF\x10\x00\x00\x00WEBPVP8L"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, f, err := ReadPictureFile(p); err == nil || f != FormatWebP {
		t.Errorf("truncated WebP: %v (%s), want a WebP error", err, f)
	}
}

// pictureScript saves pictures with Pillow under misleading names and prints
// numpy.array(Image.open(f)) and numpy.array(Image.open(f).convert("L"))
// for each (the two ways the reference graders read a picture).
const pictureScript = `
import json, sys, os
import numpy as np
from PIL import Image
out = sys.argv[1]
h, w = 37, 53
yy, xx = np.mgrid[0:h, 0:w]
base = ((xx * 5 + yy * 3) % 256).astype('uint8')
smooth = (128 + 100 * np.sin(xx / 6.0) * np.cos(yy / 5.0)).astype('uint8')
rgb = np.stack([smooth, base, 255 - smooth], -1).astype('uint8')
cases = []
cases.append(('bmp_l.png', Image.fromarray(base, 'L'), 'BMP', {}))
cases.append(('bmp_rgb.tif', Image.fromarray(rgb, 'RGB'), 'BMP', {}))
cases.append(('bmp_one.png', Image.fromarray((base % 2).astype(bool)), 'BMP', {}))
p = Image.fromarray((base % 4).astype('uint8'), 'P')
p.putpalette([0, 0, 0, 255, 0, 0, 0, 255, 0, 0, 0, 255] + [0] * (256 * 3 - 12))
cases.append(('bmp_p.png', p, 'BMP', {}))
cases.append(('gif_p.png', p, 'GIF', {}))
cases.append(('gif_l.tif', Image.fromarray(base, 'L'), 'GIF', {}))
cases.append(('png.tif', Image.fromarray(base, 'L'), 'PNG', {}))
cases.append(('tif.png', Image.fromarray(base, 'L'), 'TIFF', {}))
cases.append(('jpg_l.png', Image.fromarray(smooth, 'L'), 'JPEG', {'quality': 90}))
cases.append(('jpg_rgb.png', Image.fromarray(rgb, 'RGB'), 'JPEG', {'quality': 90}))
rs = np.random.RandomState(3)
noisy = np.clip(rgb.astype(int) + rs.randint(-60, 60, size=rgb.shape), 0, 255).astype('uint8')
cases.append(('jpg_444.png', Image.fromarray(noisy, 'RGB'), 'JPEG', {'quality': 75, 'subsampling': 0}))
cases.append(('jpg_422.png', Image.fromarray(noisy, 'RGB'), 'JPEG', {'quality': 60, 'subsampling': 1}))
cases.append(('jpg_420.png', Image.fromarray(noisy, 'RGB'), 'JPEG', {'quality': 95, 'subsampling': 2}))
odd = np.clip(rs.randint(0, 256, size=(29, 31, 3)), 0, 255).astype('uint8')
cases.append(('jpg_odd.png', Image.fromarray(odd, 'RGB'), 'JPEG', {'quality': 50}))
cases.append(('jpg_lnoisy.png', Image.fromarray(noisy[:, :, 0], 'L'), 'JPEG', {'quality': 30}))
cases.append(('jpg_restart.png', Image.fromarray(noisy, 'RGB'), 'JPEG', {'quality': 80, 'restart_marker_blocks': 3}))
cases.append(('jpg_prog.png', Image.fromarray(noisy, 'RGB'), 'JPEG', {'quality': 80, 'progressive': True}))
cases.append(('jpg_prog_l.png', Image.fromarray(noisy[:, :, 1], 'L'), 'JPEG', {'quality': 40, 'progressive': True}))
cases.append(('jpg_prog_rst.png', Image.fromarray(odd, 'RGB'), 'JPEG', {'quality': 90, 'progressive': True, 'subsampling': 0, 'restart_marker_blocks': 2}))
res = []
for name, im, fmt, kw in cases:
    path = os.path.join(out, name)
    im.save(path, format=fmt, **kw)
    a = Image.open(path)
    v = np.array(a)
    res.append({'path': path, 'mode': a.mode, 'shape': list(v.shape),
                'values': v.astype(float).flatten().tolist(),
                'gray': np.array(a.convert('L')).astype(float).flatten().tolist()})
print(json.dumps(res))
`

// TestPicturesByContentAsPillow: BMP, GIF, PNG-in-.tif, TIFF-in-.png and
// JPEG (baseline and progressive; grey, 4:4:4, 4:2:2, 4:2:0, odd sizes,
// restart markers) decode by content to exactly Pillow's samples; damaged
// copies of the progressive files never panic.
func TestPicturesByContentAsPillow(t *testing.T) {
	py := imagetest.PillowPython(t)
	dir := t.TempDir()
	sp := filepath.Join(dir, "pic.py")
	if err := os.WriteFile(sp, []byte(pictureScript), 0o644); err != nil {
		t.Fatal(err)
	}
	raw, err := exec.Command(py, sp, dir).Output()
	if err != nil {
		t.Fatalf("python: %v", err)
	}
	var res []struct {
		Path   string
		Mode   string
		Shape  []int
		Values []float64
		Gray   []float64
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		t.Fatal(err)
	}
	if len(res) != 19 {
		t.Fatalf("python wrote %d pictures", len(res))
	}
	for _, r := range res {
		name := filepath.Base(r.Path)
		t.Run(name, func(t *testing.T) {
			v, format, err := ReadPictureFile(r.Path, Options{FirstPage: true})
			if err != nil {
				t.Fatal(err)
			}
			if want := Format(strings.SplitN(strings.TrimSuffix(name, filepath.Ext(name)), "_", 2)[0]); want != format && !(want == "jpg" && format == FormatJPEG) && !(want == "tif" && format == FormatTIFF) {
				t.Errorf("format %q for %s", format, name)
			}
			nc := 1
			if len(r.Shape) == 3 {
				nc = r.Shape[2]
			}
			if v.Shape != [3]int{r.Shape[1], r.Shape[0], 1} || v.NumChannels() != nc {
				t.Fatalf("shape %v × %d channels, Pillow %v (mode %s)", v.Shape, v.NumChannels(), r.Shape, r.Mode)
			}
			// JPEGs are decoded with libjpeg-turbo's arithmetic: exact.
			tol := 0.0
			off, sum := 0, 0.0
			for i := range v.Data {
				d := math.Abs(v.Data[i] - r.Values[i])
				sum += d
				if d > tol {
					t.Fatalf("sample %d = %v, Pillow %v (mode %s)", i, v.Data[i], r.Values[i], r.Mode)
				}
				if d != 0 {
					off++
				}
			}
			if mean := sum / float64(len(v.Data)); mean > tol || (tol > 0 && mean > 2) {
				t.Errorf("mean difference from Pillow %.3f", mean)
			}
			if strings.Contains(name, "prog") {
				good, err := os.ReadFile(r.Path)
				if err != nil {
					t.Fatal(err)
				}
				rng := rand.New(rand.NewPCG(1, uint64(len(good))))
				for i := 0; i < 500; i++ {
					b := append([]byte(nil), good...)
					if i%2 == 0 {
						b = b[:rng.IntN(len(b))]
					} else {
						b[rng.IntN(len(b))] = byte(rng.IntN(256))
					}
					func() {
						defer func() {
							if p := recover(); p != nil {
								t.Fatalf("damaged copy %d: panic %v", i, p)
							}
						}()
						_, _ = jpeg.DecodeTurbo(b)
					}()
				}
			}
			if off > 0 {
				t.Logf("%s: %d of %d samples off Pillow (mean %.3f)", name, off, len(v.Data), sum/float64(len(v.Data)))
			}
		})
	}
}
