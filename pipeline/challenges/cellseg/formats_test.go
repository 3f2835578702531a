package cellseg

import (
	"bytes"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/image/bmp"
)

// TestDecodePredictionByContent: a BMP mask named .png is read (Pillow
// sniffs the content); PNG bytes named .tif are refused (tifffile).
func TestDecodePredictionByContent(t *testing.T) {
	dir := t.TempDir()
	g := image.NewGray(image.Rect(0, 0, 3, 2))
	copy(g.Pix, []uint8{0, 1, 2, 0, 7, 7})
	var b, p bytes.Buffer
	if err := bmp.Encode(&b, g); err != nil {
		t.Fatal(err)
	}
	if err := png.Encode(&p, g); err != nil {
		t.Fatal(err)
	}
	bp := filepath.Join(dir, "m.png")
	tp := filepath.Join(dir, "m.tif")
	os.WriteFile(bp, b.Bytes(), 0o644)
	os.WriteFile(tp, p.Bytes(), 0o644)
	m, err := decodePrediction(bp)
	if err != nil {
		t.Fatalf("BMP named .png: %v", err)
	}
	if m.W != 3 || m.H != 2 || m.Pix[1] != 1 || m.Pix[2] != 2 || m.Pix[4] != 7 {
		t.Errorf("BMP mask = %+v", m)
	}
	if _, err := decodePrediction(tp); err == nil {
		t.Error("PNG bytes named .tif: read, want refused (tifffile reads TIFF only)")
	}
}
