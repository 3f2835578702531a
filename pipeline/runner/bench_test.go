package runner

import (
	"context"
	"testing"
)

// BenchmarkExecute measures the runner's own overhead per run (folders,
// run.json, validation socket, process start and wait) with an agent that
// exits at once, as a plain process group (sandbox = "none") and in the
// bwrap sandbox with the validation bridge ("auto").
func BenchmarkExecute(b *testing.B) {
	for _, mode := range []string{"none", "auto"} {
		b.Run(mode, func(b *testing.B) {
			if mode != "none" {
				needBwrap(b)
			}
			j := newJob(b, b.TempDir(), "a", mode, "say", "hi")
			j.Validate = func(context.Context, string) error { return nil }
			for i := 0; i < b.N; i++ {
				in, err := Execute(context.Background(), j)
				if err != nil || in.Status != StatusDone {
					b.Fatalf("%+v %v", in, err)
				}
			}
		})
	}
}
