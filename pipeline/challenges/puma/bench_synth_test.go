package puma

import (
	"context"
	"os"
	"testing"

	"github.com/rexmle/rexmle/pipeline/challenge"
)

// BenchmarkSynthesize renders and writes the synthetic ROIs (no cache), as
// many as REXMLE_SYNTH_CASES asks for (default: the demo's 12).
func BenchmarkSynthesize(b *testing.B) {
	size, err := challenge.ParseSynthSize(os.Getenv(challenge.SynthCasesEnv))
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < b.N; i++ {
		if err := Track1Task1.synthesize(context.Background(), b.TempDir(), int64(i), size); err != nil {
			b.Fatal(err)
		}
	}
}
