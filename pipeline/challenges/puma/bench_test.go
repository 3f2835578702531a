package puma

import (
	"context"
	"testing"
	"time"
)

func TestSynthTiming(t *testing.T) {
	d := t.TempDir()
	start := time.Now()
	if err := Track1Task1.Synthesize(context.Background(), d, 1); err != nil {
		t.Fatal(err)
	}
	t.Logf("synthesize: %v", time.Since(start))
}
