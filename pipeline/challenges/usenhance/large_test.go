package usenhance

import (
	"image"
	stdpng "image/png"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// TestLargeGray8Graded: an 8-bit grey enhanced image of 8200×8200 pixels
// (67.2 MP, 85 times its 1024×768 answer: over the float64 copy the
// prediction cap allows, 4 times the answer's pixels in 4 channels) is
// graded, as the reference grades it, by resizing it from its bytes to the
// truth's size; what the grade allocates stays near the picture's own bytes (no
// eightfold float64 copy). That the resize from bytes gives the float
// path's values bit for bit is TestScorePairGray8MatchesFloat's last pair.
func TestLargeGray8Graded(t *testing.T) {
	if testing.Short() {
		t.Skip("short mode: writes a 67 MP picture")
	}
	const W, H, w, h = 8200, 8200, 1024, 768
	dir := t.TempDir()
	col := func(x int) uint8 { return uint8((x*7)%251 + (x/97)%5) }
	big := image.NewGray(image.Rect(0, 0, W, H))
	for x := 0; x < W; x++ {
		big.Pix[x] = col(x)
	}
	for y := 1; y < H; y++ {
		copy(big.Pix[y*W:(y+1)*W], big.Pix[:W])
	}
	write := func(name string, m image.Image) {
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		enc := stdpng.Encoder{CompressionLevel: stdpng.BestSpeed}
		if err := enc.Encode(f, m); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
	}
	write("e.png", big)
	big = nil
	truth := image.NewGray(image.Rect(0, 0, w, h))
	for i := range truth.Pix {
		truth.Pix[i] = uint8(i*37%256) / 2
	}
	write("t.png", truth)
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	sc := scorePair(dir, dir, row{"big", "t.png", "e.png"})
	runtime.ReadMemStats(&after)
	if sc.err != nil || !sc.resized {
		t.Fatalf("67 MP grey picture: err %v, resized %v", sc.err, sc.resized)
	}
	// The samples and the inflated rows (1 byte a pixel each), the answer
	// and the metrics' maps: well under one float64 copy (8 bytes a pixel).
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 4*W*H {
		t.Errorf("grading allocated %d MB, want under %d MB (a float64 copy alone is %d MB)", alloc>>20, 4*W*H>>20, 8*W*H>>20)
	}
	for _, v := range []float64{sc.lncc, sc.ssim, sc.psnr} {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			t.Errorf("scores %v %v %v, want finite", sc.lncc, sc.ssim, sc.psnr)
		}
	}
}
