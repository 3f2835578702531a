package usenhance

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// webpLScript writes lossy and lossless WebP pictures (RGB, RGBA, grey
// content) under .png names and prints what the reference's load_image
// gives: Image.open(f).convert("L") as a numpy array.
const webpLScript = `
import json, sys, os, numpy as np
from PIL import Image, features
if not features.check('webp'):
    print('null'); sys.exit()
out, rs, res = sys.argv[1], np.random.RandomState(7), []
for i in range(12):
    w, h = int(rs.randint(2, 50)), int(rs.randint(2, 40))
    a = rs.randint(0, 256, (h, w, 4)).astype('uint8')
    im = Image.fromarray(a, 'RGBA') if i % 3 == 0 else Image.fromarray(a[..., :3], 'RGB')
    p = os.path.join(out, 'e%02d.png' % i)
    im.save(p, 'WEBP', lossless=(i % 4 == 1), quality=int(rs.choice([20, 75, 95])))
    r = Image.open(p)
    res.append({'path': p, 'l': np.array(r.convert('L') if r.mode != 'L' else r, dtype=np.float32).ravel().tolist()})
print(json.dumps(res))
`

// TestWebPEnhancedAsReference: an enhanced image saved as WebP (named .png)
// loads as the reference's Image.open(f).convert("L") gives it.
func TestWebPEnhancedAsReference(t *testing.T) {
	py := findPython(t, "PIL, numpy")
	dir := t.TempDir()
	sp := filepath.Join(dir, "w.py")
	if err := os.WriteFile(sp, []byte(webpLScript), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(py, sp, dir).Output()
	if err != nil {
		t.Fatalf("python: %v", err)
	}
	var res []struct {
		Path string
		L    []float64
	}
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatal(err)
	}
	if res == nil {
		t.Skip("Pillow without WebP")
	}
	for _, r := range res {
		im, err := loadGray(r.Path)
		if err != nil {
			t.Errorf("%s: %v", filepath.Base(r.Path), err)
			continue
		}
		if len(im.Pix) != len(r.L) {
			t.Errorf("%s: %d pixels, reference %d", filepath.Base(r.Path), len(im.Pix), len(r.L))
			continue
		}
		for i := range im.Pix {
			if im.Pix[i] != r.L[i] {
				t.Errorf("%s: pixel %d = %v, reference %v", filepath.Base(r.Path), i, im.Pix[i], r.L[i])
				break
			}
		}
	}
}
