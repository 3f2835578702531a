package quality

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkBoxRows512 runs the 11×11 box kernel over one padded 512×512
// plane (31.7 million fused multiply-adds).
func BenchmarkBoxRows512(b *testing.B) {
	const w, h, win = 512, 512, 11
	ew := w + win - 1
	rng := rand.New(rand.NewPCG(1, 1))
	ext := randomImage32(rng, ew, h+win-1)
	out := make([]float32, w)
	k := float32(1.0 / 121)
	for b.Loop() {
		for y := 0; y < h; y++ {
			boxRow(out, ext[y*ew:], ew, win, k)
		}
	}
}
