package assign

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkSolve500 assigns a dense random 500×500 cost matrix.
func BenchmarkSolve500(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	n := 500
	cost := make([]float64, n*n)
	for i := range cost {
		cost[i] = rng.Float64()
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, _, err := Solve(n, n, cost, false); err != nil {
			b.Fatal(err)
		}
	}
}
