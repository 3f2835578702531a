package topcowcommon

import (
	"context"
	"testing"
)

func BenchmarkSynthesize(b *testing.B) {
	for _, cfg := range []Config{TopCoWT1T1, TopBrain1} {
		b.Run(cfg.ID, func(b *testing.B) {
			c := New(cfg)
			for i := 0; i < b.N; i++ {
				if err := c.Synthesize(context.Background(), b.TempDir(), 1); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
