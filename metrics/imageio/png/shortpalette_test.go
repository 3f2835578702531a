package png

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rexmle/rexmle/metrics/imageio/internal/imagetest"
)

// shortPaletteScript prints, per file, Pillow's mode, numpy.array of the
// image (palette indices) and of its RGB conversion, and the version.
const shortPaletteScript = `
import json, sys, numpy as np, PIL
from PIL import Image
out = []
for p in sys.argv[1:]:
    im = Image.open(p)
    out.append({'path': p, 'mode': im.mode, 'raw': np.array(im).astype(int).ravel().tolist(), 'rgb': np.array(im.convert('RGB')).astype(int).ravel().tolist()})
print(json.dumps({'version': PIL.__version__, 'files': out}))
`

// TestShortPalettePillow: palette PNGs (1-, 2-, 4- and 8-bit, plain and
// interlaced, with and without a tRNS shorter than the palette) whose
// PLTE has fewer entries than the indices the pixels use, and, nearby, a
// PLTE in grey and RGB images (ignored). ReadFile gives Pillow's
// indices, and with ExpandPalette its RGB conversion: indices past the
// palette are opaque black, as in Pillow ≥ 10.1, the version reference
// mode follows (Pillow 9.4 gives grey i there: those pixels are compared
// only from 10.1, the others always). Hand check first: an 8-bit image
// using indices 0–3 with a 2-entry palette.
func TestShortPalettePillow(t *testing.T) {
	dir := t.TempDir()
	if d := os.Getenv("FID_KEEP"); d != "" {
		dir = d
	}
	write := func(name string, chunks []imagetest.PngChunk) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, imagetest.WriteChunks(chunks, nil), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	hand := write("hand.png", imagetest.Cat([]imagetest.PngChunk{{Typ: "IHDR", Body: imagetest.IhdrBody(4, 1, imagetest.PngFormat{Depth: 8, Ct: 3, Interlaced: false})},
		{Typ: "PLTE", Body: []byte{10, 20, 30, 200, 100, 50}}},
		imagetest.Idats(imagetest.ZlibLevel(t, []byte{0, 0, 1, 2, 3}, 6), 1<<20), imagetest.Iend))
	v, err := ReadFile(hand, Options{ExpandPalette: true})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := fmt.Sprint(v.Data), fmt.Sprint([]float64{10, 20, 30, 200, 100, 50, 0, 0, 0, 0, 0, 0}); got != want || v.NumChannels() != 3 {
		t.Errorf("hand case: %d channels %s, want 3 channels %s", v.NumChannels(), got, want)
	}

	py := imagetest.PillowPython(t)
	rng := rand.New(rand.NewPCG(35, 3))
	type made struct {
		path string
		n    int // palette entries (0: not a palette image)
	}
	var files []made
	for i := 0; i < 48; i++ {
		depth := []int{1, 2, 4, 8}[i%4]
		f := imagetest.PngFormat{Depth: depth, Ct: 3, Interlaced: i%8 >= 4}
		w, h := 1+rng.IntN(23), 1+rng.IntN(17)
		raw, _ := randomRaw(rng, w, h, f)
		n := 1 + rng.IntN(1<<depth-1) // at least one index past the palette is possible
		if depth == 8 {
			n = 1 + rng.IntN(200)
		}
		plte := make([]byte, 3*n)
		for j := range plte {
			plte[j] = byte(rng.IntN(256))
		}
		chunks := []imagetest.PngChunk{{Typ: "IHDR", Body: imagetest.IhdrBody(w, h, f)}, {Typ: "PLTE", Body: plte}}
		if i%3 == 0 {
			trns := make([]byte, 1+rng.IntN(n))
			for j := range trns {
				trns[j] = byte(rng.IntN(256))
			}
			chunks = append(chunks, imagetest.PngChunk{Typ: "tRNS", Body: trns})
		}
		files = append(files, made{write(fmt.Sprintf("p%02d_%v.png", i, f), imagetest.Cat(chunks, imagetest.Idats(imagetest.ZlibLevel(t, raw, 6), 1<<20), imagetest.Iend)), n})
	}
	for i, f := range []imagetest.PngFormat{{Depth: 8, Ct: 0, Interlaced: false}, {Depth: 8, Ct: 2, Interlaced: false}, {Depth: 4, Ct: 0, Interlaced: false}} {
		w, h := 5+i, 4
		raw, _ := randomRaw(rng, w, h, f)
		files = append(files, made{write(fmt.Sprintf("plte_in_%v.png", f), imagetest.Cat([]imagetest.PngChunk{{Typ: "IHDR", Body: imagetest.IhdrBody(w, h, f)},
			{Typ: "PLTE", Body: []byte{1, 2, 3, 4, 5, 6}}}, imagetest.Idats(imagetest.ZlibLevel(t, raw, 6), 1<<20), imagetest.Iend)), 0})
	}
	var args []string
	for _, f := range files {
		args = append(args, f.path)
	}
	var res struct {
		Version string
		Files   []struct {
			Path, Mode string
			Raw, RGB   []int
		}
	}
	imagetest.RunPythonJSON(t, py, shortPaletteScript, &res, args...)
	parts := strings.Split(res.Version, ".")
	major, _ := strconv.Atoi(parts[0])
	minor, _ := strconv.Atoi(parts[1])
	blackPast := major > 10 || major == 10 && minor >= 1
	past := 0
	for k, r := range res.Files {
		name, n := filepath.Base(r.Path), files[k].n
		idx, err1 := ReadFile(r.Path)
		rgb, err2 := ReadFile(r.Path, Options{ExpandPalette: true})
		if err1 != nil || err2 != nil {
			t.Errorf("%s: Pillow reads mode %s, we fail: %v %v", name, r.Mode, err1, err2)
			continue
		}
		if len(idx.Data) != len(r.Raw) {
			t.Errorf("%s: %d samples, Pillow %d", name, len(idx.Data), len(r.Raw))
			continue
		}
		for i, x := range r.Raw {
			if idx.Data[i] != float64(x) {
				t.Errorf("%s: sample %d = %v, Pillow %d", name, i, idx.Data[i], x)
				break
			}
		}
		nc := rgb.NumChannels()
		for p := 0; p < len(r.RGB)/3; p++ {
			if n > 0 && r.Raw[p] >= n {
				past++
				if !blackPast {
					continue
				}
			}
			for c := 0; c < 3; c++ {
				g := rgb.Data[p*nc+min(c, nc-1)] // a grey image: its value in every channel
				if g != float64(r.RGB[3*p+c]) {
					t.Errorf("%s (mode %s, %d entries): pixel %d channel %d = %v, Pillow %d (index %d)", name, r.Mode, n, p, c, g, r.RGB[3*p+c], r.Raw[p])
					p = len(r.RGB)
					break
				}
			}
		}
	}
	t.Logf("Pillow %s: %d files, %d pixels past their palette", res.Version, len(res.Files), past)
	if past < 100 {
		t.Errorf("only %d pixels past their palette: the case is not exercised", past)
	}
}
