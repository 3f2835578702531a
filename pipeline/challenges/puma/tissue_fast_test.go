package puma

import (
	"fmt"
	"github.com/rexmle/rexmle/pipeline/challenge"
	"image"
	"image/color"
	"math/rand/v2"
	"path/filepath"
	"testing"
)

// countTissueLoop is the per-pixel counting countTissue replaced: the
// oracle for its table.
func countTissueLoop(truth, pred []uint8) tissueCounts {
	var tc tissueCounts
	for k, t := range truth {
		p := pred[k]
		if t >= 1 && t <= 5 {
			tc.truth[t]++
			if p == t {
				tc.inter[t]++
			}
		}
		if p >= 1 && p <= 5 {
			tc.pred[p]++
		}
	}
	return tc
}

func TestCountTissueMatchesLoop(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 1))
	for i := 0; i < 200; i++ {
		n := r.IntN(3000)
		truth, pred := make([]uint8, n), make([]uint8, n)
		runs := r.IntN(2) == 0 // long runs of one value, as in real masks
		for k := range truth {
			if runs && k > 0 && r.IntN(30) != 0 {
				truth[k], pred[k] = truth[k-1], pred[k-1]
				continue
			}
			truth[k] = uint8(r.IntN(7))
			if r.IntN(20) == 0 {
				truth[k] = uint8(r.IntN(256))
			}
			pred[k] = uint8(r.IntN(6))
			if r.IntN(2) == 0 {
				pred[k] = truth[k] % 6
			}
		}
		if got, want := countTissue(truth, pred), countTissueLoop(truth, pred); got != want {
			t.Fatalf("case %d: countTissue %+v, loop %+v", i, got, want)
		}
	}
	if got := countTissue(nil, nil); got != (tissueCounts{}) {
		t.Fatalf("empty: %+v", got)
	}
}

// randomMaskImage is a mask picture of random size and kind: 8-bit grey
// (the fast path), RGBA, or 16-bit grey (the float path), labels mostly
// 0..5 with, sometimes, larger values.
func randomMaskImage(r *rand.Rand) image.Image {
	w, h := 1+r.IntN(60), 1+r.IntN(60)
	if r.IntN(4) == 0 {
		w, h = Size, Size
	}
	bad := r.IntN(3) == 0
	label := func() uint8 {
		if bad && r.IntN(500) == 0 {
			return []uint8{6, 7, 200, 255}[r.IntN(4)]
		}
		return uint8(r.IntN(6))
	}
	rect := image.Rect(0, 0, w, h)
	switch r.IntN(4) {
	case 0:
		m := image.NewNRGBA(rect)
		for i := range m.Pix {
			m.Pix[i] = label()
			if i%4 == 3 && r.IntN(2) == 0 {
				m.Pix[i] = 255
			}
		}
		return m
	case 1:
		m := image.NewGray16(rect)
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				m.SetGray16(x, y, color.Gray16{Y: uint16(label())})
			}
		}
		return m
	}
	m := image.NewGray(rect)
	for i := range m.Pix {
		m.Pix[i] = label()
	}
	return m
}

// TestTissueFastPathMatchesFloatPath decodes random masks both ways: the
// float64 path (readImageFile, decodeTissueMask, the truth cast) is the
// oracle for readPrediction and readTruthLabels.
func TestTissueFastPathMatchesFloatPath(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 2))
	dir := t.TempDir()
	fast := 0
	for i := 0; i < 60; i++ {
		path := filepath.Join(dir, fmt.Sprintf("m%d.tif", i))
		if err := writeTIFF(path, randomMaskImage(r)); err != nil {
			t.Fatal(err)
		}
		im, err := readImageFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if p8, _, _ := readMaskFile(path, nil); p8 != nil {
			fast++
		}
		for _, c := range []Challenge{Track1Task1, Track2Task1} {
			for _, mode := range []challenge.Mode{challenge.Reference, challenge.Official} {
				want, werr := c.decodeTissueMask(im, "m.tif", mode)
				got, gerr := c.readPrediction(path, "m.tif", dirtyBuf(), mode)
				if fmt.Sprint(werr) != fmt.Sprint(gerr) {
					t.Fatalf("mask %d track %d %s: error %v, want %v", i, c.track, mode, gerr, werr)
				}
				if string(got) != string(want) {
					t.Fatalf("mask %d track %d %s: labels differ", i, c.track, mode)
				}
			}
		}
		want := make([]uint8, im.W*im.H)
		for k := range want {
			want[k] = uint8(im.Pix[k*im.C])
		}
		want = resizeNearest(want, im.W, im.H, Size, Size, false)
		got, err := readTruthLabels(path, dirtyBuf())
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Fatalf("mask %d: truth labels differ", i)
		}
	}
	if fast == 0 || fast == 60 {
		t.Fatalf("%d of 60 masks took the 8-bit path; want both paths exercised", fast)
	}
}

// dirtyBuf is a recycled decoding buffer full of leftovers.
func dirtyBuf() []byte {
	b := make([]byte, Size*Size)
	for i := range b {
		b[i] = uint8(i*7 + 3)
	}
	return b
}

func TestIndexAbove5(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 3))
	for i := 0; i < 2000; i++ {
		b := make([]byte, r.IntN(40))
		for k := range b {
			b[k] = uint8(r.IntN(6))
		}
		want := -1
		if len(b) > 0 && r.IntN(2) == 0 {
			want = r.IntN(len(b))
			b[want] = uint8(6 + r.IntN(250))
			if r.IntN(2) == 0 && want+1 < len(b) {
				b[want+1+r.IntN(len(b)-want-1)] = uint8(r.IntN(256)) // later bytes do not matter
			}
		}
		if got := indexAbove5(b); got != want {
			t.Fatalf("indexAbove5(%v) = %d, want %d", b, got, want)
		}
	}
	for v := 0; v < 256; v++ {
		b := make([]byte, 16)
		b[11] = uint8(v)
		want := -1
		if v > 5 {
			want = 11
		}
		if got := indexAbove5(b); got != want {
			t.Fatalf("byte %d: %d, want %d", v, got, want)
		}
	}
}
