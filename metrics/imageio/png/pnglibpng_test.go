package png

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/rexmle/rexmle/metrics/imageio/internal/imagetest"
	"github.com/rexmle/rexmle/metrics/internal/pythontest"
)

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
	formats := []imagetest.PngFormat{{Depth: 1, Ct: 0, Interlaced: false}, {Depth: 2, Ct: 0, Interlaced: false}, {Depth: 4, Ct: 0, Interlaced: false}, {Depth: 8, Ct: 0, Interlaced: false}, {Depth: 16, Ct: 0, Interlaced: false}, {Depth: 8, Ct: 4, Interlaced: false}, {Depth: 16, Ct: 4, Interlaced: false}, {Depth: 8, Ct: 0, Interlaced: true}, {Depth: 4, Ct: 0, Interlaced: true}}
	damages := []struct {
		name  string
		chunk imagetest.PngChunk
		reads bool // OpenCV reads it
	}{
		{"text-crc", imagetest.PngChunk{Typ: "tEXt", Body: []byte("k\x00v"), BadCRC: true}, true},
		{"trns-1", imagetest.PngChunk{Typ: "tRNS", Body: []byte{5}}, true},
		{"gama-short", imagetest.PngChunk{Typ: "gAMA", Body: []byte{0, 1}}, true},
		{"unknown-crc", imagetest.PngChunk{Typ: "zzZz", Body: []byte("xx"), BadCRC: true}, true},
		{"plte-crc", imagetest.PngChunk{Typ: "PLTE", Body: []byte{0, 0, 0}, BadCRC: true}, false},
		{"critical-unknown", imagetest.PngChunk{Typ: "ZZZZ", Body: []byte("xx")}, false},
	}
	var paths []string
	for i, f := range formats {
		for j, d := range damages {
			w, h := 1+rng.IntN(17), 1+rng.IntN(11)
			raw, _ := randomRaw(rng, w, h, f)
			head := []imagetest.PngChunk{{Typ: "IHDR", Body: imagetest.IhdrBody(w, h, f)}, d.chunk}
			p := filepath.Join(dir, fmt.Sprintf("%d_%d_%v_%s.png", i, j, f, d.name))
			if err := os.WriteFile(p, imagetest.WriteChunks(imagetest.Cat(head, imagetest.Idats(imagetest.ZlibLevel(t, raw, 6), 1<<20), imagetest.Iend), nil), 0o644); err != nil {
				t.Fatal(err)
			}
			paths = append(paths, p)
		}
		// A bad IDAT CRC (Pillow would read it; libpng refuses), after a bad tEXt CRC.
		w, h := 3, 2
		raw, _ := randomRaw(rng, w, h, f)
		p := filepath.Join(dir, fmt.Sprintf("%d_idat_%v.png", i, f))
		chunks := imagetest.Cat([]imagetest.PngChunk{{Typ: "IHDR", Body: imagetest.IhdrBody(w, h, f)}, {Typ: "tEXt", Body: []byte("k\x00v"), BadCRC: true}}, imagetest.Idats(imagetest.ZlibLevel(t, raw, 6), 1<<20), imagetest.Iend)
		chunks[2].BadCRC = true
		if err := os.WriteFile(p, imagetest.WriteChunks(chunks, nil), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	var res []struct {
		Path   string
		Pillow bool
		CV2    []float64
	}
	imagetest.RunPythonJSON(t, py, imagetest.LibpngScript, &res, paths...)
	read := 0
	for _, r := range res {
		name := filepath.Base(r.Path)
		if _, err := ReadFile(r.Path); (err == nil) != r.Pillow {
			t.Errorf("%s: Pillow opens it %v, ReadFile: %v", name, r.Pillow, err)
		}
		if r.Pillow {
			continue // no fallback (an unknown critical chunk, a tRNS on grey + alpha: Pillow reads them)
		}
		v, err := ReadGrayLibpngFile(r.Path)
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
