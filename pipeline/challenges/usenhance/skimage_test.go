package usenhance

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// refScript scores pairs as the USenhance reference does, step by step with
// the libraries it uses: Pillow opens each file (mode L), numpy float32,
// cv2.resize INTER_LINEAR of the enhanced image to the truth's size, the
// joint data range, then scikit-image's PSNR and SSIM. The range goes to
// PSNR as a Python float, which is what scikit-image ≥ 0.24 squares (older
// releases square the numpy float32 scalar, which numpy 1.x promotes to
// float64 too). It prints each value's float64 bits. A cv2 without IPP
// (Debian's) resizes with other arithmetic than the reference's wheels
// (resizeLinear): there the script reads the grader's resized image (raw
// little-endian float32, the third path) instead, so the rest of the chain
// is still checked; TestResizeLinearOpenCV checks the resize itself.
const refScript = `
import json, sys, numpy as np, cv2
from PIL import Image
from skimage.metrics import peak_signal_noise_ratio, structural_similarity
def load(p):
    im = Image.open(p)
    if im.mode != 'L':
        im = im.convert('L')
    return np.array(im, dtype=np.float32)
out = []
ipp = hasattr(cv2, 'ipp') and cv2.ipp.useIPP()
for e_path, t_path, resized_path in json.load(sys.stdin):
    e, t = load(e_path), load(t_path)
    if e.shape != t.shape and ipp:
        e = cv2.resize(e, (t.shape[1], t.shape[0]), interpolation=cv2.INTER_LINEAR)
    elif e.shape != t.shape:
        e = np.fromfile(resized_path, dtype='<f4').reshape(t.shape)
    r = max(e.max(), t.max()) - min(e.min(), t.min())
    p = peak_signal_noise_ratio(t, e, data_range=float(r)) if not np.array_equal(e, t) else float('inf')
    s = structural_similarity(e, t, data_range=r)
    out.append([float(r), float(p).hex(), float(s).hex()])
print(json.dumps(out))
`

// TestResizedPSNRSSIMScikitImage: pairs whose enhanced image has another
// size (so the data range after cv2.resize is not a whole number) score the
// PSNR and SSIM scikit-image gives, bit for bit.
func TestResizedPSNRSSIMScikitImage(t *testing.T) {
	py := findPython(t, "cv2, numpy, PIL, skimage")
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(35, 1))
	var pairs [][2]string
	for i := 0; i < 40; i++ {
		tw, th := 20+rng.IntN(60), 20+rng.IntN(60)
		ew, eh := tw+rng.IntN(41)-20, th+rng.IntN(41)-20
		if i%4 == 0 {
			ew, eh = tw, th // same size: no resize
		}
		ew, eh = max(ew, 3), max(eh, 3)
		// The truth keeps to the middle grey levels and the enhanced image
		// has a smooth field with one extreme spike, so the joint range is
		// set by interpolated (fractional) values of the resized image.
		en, tn := fmt.Sprintf("e%d.png", i), fmt.Sprintf("t%d.png", i)
		sx, sy := rng.IntN(ew), rng.IntN(eh)
		writeTestPNG(t, filepath.Join(dir, en), ew, eh, func(y, x int) float64 {
			switch {
			case x == sx && y == sy:
				return 255
			case x == (sx+ew/2)%ew && y == (sy+eh/2)%eh:
				return 0
			}
			return float64(100 + (x*7+y*3)%40 + rng.IntN(10))
		})
		writeTestPNG(t, filepath.Join(dir, tn), tw, th, func(i, j int) float64 { return float64(90 + rng.IntN(70)) })
		pairs = append(pairs, [2]string{en, tn})
	}
	var in [][3]string
	for i, p := range pairs {
		e, err := loadGray(filepath.Join(dir, p[0]))
		if err != nil {
			t.Fatal(err)
		}
		tr, err := loadGray(filepath.Join(dir, p[1]))
		if err != nil {
			t.Fatal(err)
		}
		rp := filepath.Join(dir, fmt.Sprintf("r%d.f32", i))
		raw := make([]byte, 0, 4*tr.W*tr.H)
		for _, v := range resizeLinear(e, tr.W, tr.H).Pix {
			raw = binary.LittleEndian.AppendUint32(raw, math.Float32bits(float32(v)))
		}
		if err := os.WriteFile(rp, raw, 0o644); err != nil {
			t.Fatal(err)
		}
		in = append(in, [3]string{filepath.Join(dir, p[0]), filepath.Join(dir, p[1]), rp})
	}
	inJSON, _ := json.Marshal(in)
	sp := filepath.Join(dir, "ref.py")
	if err := os.WriteFile(sp, []byte(refScript), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(py, sp)
	cmd.Stdin = bytesReader(inJSON)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("python: %v", err)
	}
	var ref [][3]any
	if err := json.Unmarshal(out, &ref); err != nil {
		t.Fatal(err)
	}
	resized, fractional := 0, 0
	for i, p := range pairs {
		sc := scorePair(dir, dir, row{fmt.Sprint(i), p[1], p[0]})
		if sc.err != nil {
			t.Fatalf("pair %d: %v", i, sc.err)
		}
		if sc.resized {
			resized++
		}
		if r := ref[i][0].(float64); r != math.Trunc(r) {
			fractional++
		}
		for k, got := range map[int]float64{1: sc.psnr, 2: sc.ssim} {
			if want := ref[i][k].(string); got != parseHex(t, want) {
				t.Errorf("pair %d (%v): %s = %v, scikit-image %v (range %v)", i, sc.resized, map[int]string{1: "PSNR", 2: "SSIM"}[k], got, parseHex(t, want), ref[i][0])
			}
		}
	}
	t.Logf("%d pairs, %d resized, %d with a fractional data range", len(pairs), resized, fractional)
	if fractional < 10 {
		t.Errorf("only %d pairs with a fractional data range: the case is not exercised", fractional)
	}
}

func bytesReader(b []byte) *strings.Reader { return strings.NewReader(string(b)) }

// parseHex reads Python's float.hex().
func parseHex(t *testing.T, s string) float64 {
	t.Helper()
	switch s {
	case "inf":
		return math.Inf(1)
	case "-inf":
		return math.Inf(-1)
	case "nan":
		return math.NaN()
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("python float %q: %v", s, err)
	}
	return f
}
