package quality

import (
	"encoding/json"
	"math"
	"os/exec"
	"testing"
)

// scipyPython returns a python3 with numpy and scikit-image, or skips.
// The system interpreter is tried first (Debian python3-skimage).
func scipyPython(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("short mode")
	}
	for _, py := range []string{"/usr/bin/python3", "python3"} {
		if err := exec.Command(py, "-c", "import numpy, skimage, scipy").Run(); err == nil {
			return py
		}
	}
	t.Skip("no python3 with scikit-image")
	return ""
}

// skimageScript draws integer-valued images, then prints them with
// scikit-image's SSIM/PSNR under several arguments.
const skimageScript = `
import json, numpy as np
from skimage.metrics import structural_similarity as ssim, peak_signal_noise_ratio as psnr
rs = np.random.RandomState(5)
out = []
for (h, w) in [(9, 11), (23, 17), (40, 64), (128, 96)]:
    a = rs.randint(0, 256, size=(h, w)).astype(np.float32)
    b = np.clip(a * 0.6 + rs.randint(0, 90, size=(h, w)), 0, 255).astype(np.float32)
    r = max(a.max(), b.max()) - min(a.min(), b.min())
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    out.append(dict(w=w, h=h, a=a.ravel().tolist(), b=b.ravel().tolist(), r=float(r),
        u32=float(ssim(a, b, data_range=r)),
        g32=float(ssim(a, b, data_range=255, gaussian_weights=True, sigma=1.5, use_sample_covariance=False)) if min(h, w) >= 11 else 0.0,
        u64=float(ssim(a64, b64, data_range=255.0)),
        g64=float(ssim(a64, b64, data_range=255.0, gaussian_weights=True, sigma=1.5, use_sample_covariance=False)) if min(h, w) >= 11 else 0.0,
        p32=float(psnr(a, b, data_range=r))))
print(json.dumps(out))
`

func TestAgainstScikitImage(t *testing.T) {
	py := scipyPython(t)
	raw, err := exec.Command(py, "-c", skimageScript).Output()
	if err != nil {
		t.Fatalf("python: %v", err)
	}
	var cases []struct {
		W, H                    int
		A, B                    []float64
		R                       float64
		U32, G32, U64, G64, P32 float64
	}
	if err := json.Unmarshal(raw, &cases); err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		a, b := Image{c.W, c.H, c.A}, Image{c.W, c.H, c.B}
		if r := JointRange(a, b, true); r != c.R {
			t.Errorf("%d×%d: joint range %v, skimage script %v", c.W, c.H, r, c.R)
		}
		check := func(name string, got, want, tol float64) {
			if math.Abs(got-want) > tol {
				t.Errorf("%d×%d %s: %.17g, scikit-image %.17g", c.W, c.H, name, got, want)
			}
		}
		u32, _ := SSIM(a, b, SSIMOptions{DataRange: c.R, Float32: true})
		check("uniform float32", u32, c.U32, 1e-15)
		u64, _ := SSIM(a, b, SSIMOptions{DataRange: 255})
		check("uniform float64", u64, c.U64, 1e-14)
		if c.W >= 11 && c.H >= 11 {
			g32, _ := SSIM(a, b, SSIMOptions{DataRange: 255, Gaussian: true, PopulationCovariance: true, Float32: true})
			check("gaussian float32", g32, c.G32, 1e-15)
			g64, _ := SSIM(a, b, SSIMOptions{DataRange: 255, Gaussian: true, PopulationCovariance: true})
			check("gaussian float64", g64, c.G64, 1e-14)
		}
		p, _ := PSNR(a, b, c.R, true)
		check("psnr", p, c.P32, 1e-12)
	}
}
