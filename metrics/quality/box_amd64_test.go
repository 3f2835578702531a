package quality

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkBoxLatency runs the kernel's 8-pixel path on one 8-pixel row:
// a single chain of 121 dependent fused multiply-adds, which takes 121 ×
// the FMA latency in cycles (4 on Zen 3), so ns/op ÷ 484 estimates the
// cycle time of the running core.
func BenchmarkBoxLatency(b *testing.B) {
	if !haveFMA {
		b.Skip("no FMA kernel")
	}
	const win = 11
	rng := rand.New(rand.NewPCG(1, 1))
	ext := randomImage32(rng, 8+win-1, win)
	out := make([]float32, 8)
	k := float32(1.0 / 121)
	for b.Loop() {
		boxRows8(&out[0], 8, &ext[0], 8+win-1, win, k)
	}
}
