package puma

import (
	"bytes"
	"image"
	"image/jpeg"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/image/bmp"
)

// TestReadImageFileByContent: masks are read by content as Pillow does — a
// BMP named .tif and a JPEG named .png both decode.
func TestReadImageFileByContent(t *testing.T) {
	dir := t.TempDir()
	g := image.NewGray(image.Rect(0, 0, 8, 8))
	for i := range g.Pix {
		g.Pix[i] = uint8(i % 5)
	}
	var b, j bytes.Buffer
	if err := bmp.Encode(&b, g); err != nil {
		t.Fatal(err)
	}
	flat := image.NewGray(image.Rect(0, 0, 8, 8))
	for i := range flat.Pix {
		flat.Pix[i] = 3
	}
	if err := jpeg.Encode(&j, flat, &jpeg.Options{Quality: 100}); err != nil {
		t.Fatal(err)
	}
	bp, jp := filepath.Join(dir, "a.tif"), filepath.Join(dir, "b.png")
	os.WriteFile(bp, b.Bytes(), 0o644)
	os.WriteFile(jp, j.Bytes(), 0o644)
	im, err := readImageFile(bp)
	if err != nil {
		t.Fatalf("BMP named .tif: %v", err)
	}
	for i, v := range im.Pix {
		if v != float64(i%5) {
			t.Fatalf("BMP pixel %d = %v, want %d", i, v, i%5)
		}
	}
	im, err = readImageFile(jp)
	if err != nil {
		t.Fatalf("JPEG named .png: %v", err)
	}
	if im.W != 8 || im.H != 8 || im.Pix[10] != 3 {
		t.Errorf("flat JPEG: %d×%d, pixel %v, want 8×8 of 3", im.W, im.H, im.Pix[10])
	}
}
