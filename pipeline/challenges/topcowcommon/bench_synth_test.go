package topcowcommon

import (
	"context"
	"os"
	"testing"

	"github.com/rexmle/rexmle/pipeline/challenge"
)

// BenchmarkSynthesize writes a TopCoW and a TopBrain dataset of the size
// REXMLE_SYNTH_CASES asks for (default: the demo's).
func BenchmarkSynthesize(b *testing.B) {
	size, err := challenge.ParseSynthSize(os.Getenv(challenge.SynthCasesEnv))
	if err != nil {
		b.Fatal(err)
	}
	for _, cfg := range []Config{TopCoWT1T1, TopBrain1} {
		b.Run(cfg.ID, func(b *testing.B) {
			c := New(cfg)
			for i := 0; i < b.N; i++ {
				if err := c.Synthesize(context.Background(), b.TempDir(), 1, size); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
