package imageio

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/rexmle/rexmle/metrics/internal/pythontest"
)

// libpngScript prints, per file, cv2.imread(f, IMREAD_GRAYSCALE) (null
// when OpenCV cannot read it) and whether Pillow opens it.
const libpngScript = `
import json, sys, numpy as np, cv2
from PIL import Image
out = []
for p in sys.argv[1:]:
    try:
        im = Image.open(p); np.array(im.convert('L') if im.mode != 'L' else im); pil = True
    except Exception:
        pil = False
    c = cv2.imread(p, cv2.IMREAD_GRAYSCALE)
    out.append({'path': p, 'pillow': pil, 'cv2': None if c is None else c.astype(int).ravel().tolist()})
print(json.dumps(out))
`

// TestGrayPNGLibpngOpenCV: grey PNGs (1–16-bit, with and without alpha,
// plain and interlaced) that Pillow refuses — a bad CRC on an ancillary
// chunk before the image data, a 1-byte tRNS, a short gAMA, an unknown
// ancillary chunk with a bad CRC — read as cv2.imread(IMREAD_GRAYSCALE)
// reads them; and those OpenCV refuses too (a bad CRC on PLTE or IDAT, an
// unknown critical chunk) are refused.
func TestGrayPNGLibpngOpenCV(t *testing.T) {
	py := pythontest.Find(t, "cv2", "numpy", "PIL")
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(35, 6))
	formats := []pngFormat{{1, 0, false}, {2, 0, false}, {4, 0, false}, {8, 0, false}, {16, 0, false}, {8, 4, false}, {16, 4, false}, {8, 0, true}, {4, 0, true}}
	damages := []struct {
		name  string
		chunk pngChunk
		reads bool // OpenCV reads it
	}{
		{"text-crc", pngChunk{typ: "tEXt", body: []byte("k\x00v"), badCRC: true}, true},
		{"trns-1", pngChunk{typ: "tRNS", body: []byte{5}}, true},
		{"gama-short", pngChunk{typ: "gAMA", body: []byte{0, 1}}, true},
		{"unknown-crc", pngChunk{typ: "zzZz", body: []byte("xx"), badCRC: true}, true},
		{"plte-crc", pngChunk{typ: "PLTE", body: []byte{0, 0, 0}, badCRC: true}, false},
		{"critical-unknown", pngChunk{typ: "ZZZZ", body: []byte("xx")}, false},
	}
	var paths []string
	for i, f := range formats {
		for j, d := range damages {
			w, h := 1+rng.IntN(17), 1+rng.IntN(11)
			raw, _ := randomRaw(rng, w, h, f)
			head := []pngChunk{{typ: "IHDR", body: ihdrBody(w, h, f)}, d.chunk}
			p := filepath.Join(dir, fmt.Sprintf("%d_%d_%v_%s.png", i, j, f, d.name))
			if err := os.WriteFile(p, writeChunks(cat(head, idats(zlibLevel(t, raw, 6), 1<<20), iend), nil), 0o644); err != nil {
				t.Fatal(err)
			}
			paths = append(paths, p)
		}
		// A bad IDAT CRC (Pillow would read it; libpng refuses), after a bad tEXt CRC.
		w, h := 3, 2
		raw, _ := randomRaw(rng, w, h, f)
		p := filepath.Join(dir, fmt.Sprintf("%d_idat_%v.png", i, f))
		chunks := cat([]pngChunk{{typ: "IHDR", body: ihdrBody(w, h, f)}, {typ: "tEXt", body: []byte("k\x00v"), badCRC: true}}, idats(zlibLevel(t, raw, 6), 1<<20), iend)
		chunks[2].badCRC = true
		if err := os.WriteFile(p, writeChunks(chunks, nil), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	var res []struct {
		Path   string
		Pillow bool
		CV2    []float64
	}
	runPythonJSON(t, py, libpngScript, &res, paths...)
	read := 0
	for _, r := range res {
		name := filepath.Base(r.Path)
		if _, _, err := ReadPictureFile(r.Path); (err == nil) != r.Pillow {
			t.Errorf("%s: Pillow opens it %v, ReadPictureFile: %v", name, r.Pillow, err)
		}
		if r.Pillow {
			continue // no fallback (an unknown critical chunk, a tRNS on grey + alpha: Pillow reads them)
		}
		v, err := ReadGrayPNGLibpngFile(r.Path)
		switch {
		case r.CV2 == nil && err == nil:
			t.Errorf("%s: OpenCV cannot read it, we read %v", name, v.Data)
		case r.CV2 != nil && err != nil:
			t.Errorf("%s: OpenCV reads it, we fail: %v", name, err)
		case r.CV2 != nil && !slices.Equal(v.Data, r.CV2):
			t.Errorf("%s: %v, OpenCV %v", name, v.Data, r.CV2)
		case r.CV2 != nil:
			read++
		}
	}
	t.Logf("%d files, %d that Pillow refuses read by OpenCV and by us alike", len(res), read)
	if read < 30 {
		t.Errorf("only %d files read", read)
	}
}
