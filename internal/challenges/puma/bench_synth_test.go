package puma

import (
	"context"
	"testing"
)

// BenchmarkSynthesize renders and writes the 12 synthetic ROIs (no cache).
func BenchmarkSynthesize(b *testing.B) {
	for i := 0; i < b.N; i++ {
		if err := Track1Task1.synthesize(context.Background(), b.TempDir(), int64(i)); err != nil {
			b.Fatal(err)
		}
	}
}
