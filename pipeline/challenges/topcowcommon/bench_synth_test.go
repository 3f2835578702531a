package topcowcommon

import (
	"context"
	"testing"
)

func BenchmarkSynthesize(b *testing.B) {
	c := New(TopCoWT1T1)
	for i := 0; i < b.N; i++ {
		if err := c.Synthesize(context.Background(), b.TempDir(), 1); err != nil {
			b.Fatal(err)
		}
	}
}
