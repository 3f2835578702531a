package fmapeak

import (
	"testing"
	"time"
)

// TestLoopAccumulates checks that Loop does the arithmetic it claims: each
// accumulator gains 0.5 per iteration, so after n iterations lane 0 of two
// accumulators summed is n (exact in float32 below 2^24).
func TestLoopAccumulates(t *testing.T) {
	if Lanes == 0 {
		if _, ok := Loop(10); ok {
			t.Fatal("Loop reports success without a vector multiply-add")
		}
		t.Skip("no AVX2 with FMA here")
	}
	for _, n := range []int{1, 2, 1000, 123457} {
		got, ok := Loop(n)
		if !ok || got != float32(n) {
			t.Errorf("Loop(%d) = %v, %v; want %d, true", n, got, ok, n)
		}
	}
	if got, ok := Loop(0); !ok || got != 0 {
		t.Errorf("Loop(0) = %v, %v; want 0, true", got, ok)
	}
}

// BenchmarkPeak reports one core's float32 fused multiply-adds per second
// (GFMA/s, lanes counted) and the vector instructions per nanosecond.
func BenchmarkPeak(b *testing.B) {
	if Lanes == 0 {
		b.Skip("no AVX2 with FMA here")
	}
	const n = 1 << 20
	start := time.Now()
	for b.Loop() {
		Loop(n)
	}
	s := time.Since(start).Seconds()
	vec := float64(b.N) * n * Chains
	b.ReportMetric(vec*float64(Lanes)/s/1e9, "GFMA/s")
	b.ReportMetric(vec/s/1e9, "vecFMA/ns")
}

// BenchmarkPeakParallel is BenchmarkPeak on every core at once (GFMA/s
// summed over cores): twice BenchmarkPeak on two cores when they do not
// share their multiply-add units (as two hyperthreads of one core would).
func BenchmarkPeakParallel(b *testing.B) {
	if Lanes == 0 {
		b.Skip("no AVX2 with FMA here")
	}
	const n = 1 << 16
	start := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			Loop(n)
		}
	})
	s := time.Since(start).Seconds()
	vec := float64(b.N) * n * Chains
	b.ReportMetric(vec*float64(Lanes)/s/1e9, "GFMA/s")
}
