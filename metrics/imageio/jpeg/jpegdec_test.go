package jpeg

import (
	"bytes"
	"image"
	stdjpeg "image/jpeg"
	"math/rand/v2"
	"testing"
)

// TestJPEGTurboDamagedInput: truncated and corrupted JPEGs never panic;
// they decode or fail with an error.
func TestJPEGTurboDamagedInput(t *testing.T) {
	img := image.NewYCbCr(image.Rect(0, 0, 37, 21), image.YCbCrSubsampleRatio420)
	for i := range img.Y {
		img.Y[i] = uint8(i * 7)
	}
	for i := range img.Cb {
		img.Cb[i], img.Cr[i] = uint8(i*3), uint8(255-i)
	}
	var buf bytes.Buffer
	if err := stdjpeg.Encode(&buf, img, &stdjpeg.Options{Quality: 80}); err != nil {
		t.Fatal(err)
	}
	good := buf.Bytes()
	if _, err := DecodeTurbo(good); err != nil {
		t.Fatalf("valid file: %v", err)
	}
	rng := rand.New(rand.NewPCG(9, 9))
	for i := 0; i < 3000; i++ {
		b := append([]byte(nil), good...)
		switch i % 3 {
		case 0:
			b = b[:rng.IntN(len(b))]
		default:
			for k := 0; k < 1+rng.IntN(4); k++ {
				b[rng.IntN(len(b))] = byte(rng.IntN(256))
			}
		}
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Fatalf("case %d: panic %v", i, r)
				}
			}()
			_, _ = DecodeTurbo(b)
		}()
	}
}

// BenchmarkJPEGTurboBaseline decodes a 512×512 4:2:0 colour JPEG
// (quality 90, with noise so the entropy coder has work).
func BenchmarkJPEGTurboBaseline(b *testing.B) {
	img := image.NewYCbCr(image.Rect(0, 0, 512, 512), image.YCbCrSubsampleRatio420)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range img.Y {
		img.Y[i] = uint8(i%512/2 + rng.IntN(32))
	}
	for i := range img.Cb {
		img.Cb[i], img.Cr[i] = uint8(i%256+rng.IntN(16)), uint8(255-i%256-rng.IntN(16))
	}
	var buf bytes.Buffer
	if err := stdjpeg.Encode(&buf, img, &stdjpeg.Options{Quality: 90}); err != nil {
		b.Fatal(err)
	}
	data := buf.Bytes()
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for b.Loop() {
		if _, err := DecodeTurbo(data); err != nil {
			b.Fatal(err)
		}
	}
}
