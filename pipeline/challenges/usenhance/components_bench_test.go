package usenhance

import (
	"math/rand/v2"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/rexmle/rexmle/metrics/quality"
)

// BenchmarkComponents512 times each stage of scoring one 512×512 pair on
// the speckle data of BenchmarkScorePair512: the float path (used for
// anything but same-sized 8-bit grey PNGs) and the 8-bit path.
func BenchmarkComponents512(b *testing.B) {
	dir := b.TempDir()
	r := rand.New(rand.NewPCG(3, 4))
	writeSpeckle(b, filepath.Join(dir, "t.png"), 512, 512, r, 1)
	writeSpeckle(b, filepath.Join(dir, "e.png"), 512, 512, r, 0.9)
	e, err := loadGray(filepath.Join(dir, "e.png"))
	if err != nil {
		b.Fatal(err)
	}
	t, _ := loadGray(filepath.Join(dir, "t.png"))
	rng := quality.JointRange(e, t, true)
	e8, _ := loadGray8(filepath.Join(dir, "e.png"))
	t8, _ := loadGray8(filepath.Join(dir, "t.png"))
	for _, c := range []struct {
		name string
		f    func()
	}{
		{"float/decode2", func() { loadGray(filepath.Join(dir, "e.png")); loadGray(filepath.Join(dir, "t.png")) }},
		{"float/lncc", func() { quality.LNCC(e, t, lnccWindow) }},
		{"float/range", func() { quality.JointRange(e, t, true) }},
		{"float/ssim", func() { quality.SSIM(e, t, quality.SSIMOptions{DataRange: rng, Float32: true}) }},
		{"float/psnr", func() { quality.PSNR(e, t, rng, true) }},
		{"gray8/decode2", func() { loadGray8(filepath.Join(dir, "e.png")); loadGray8(filepath.Join(dir, "t.png")) }},
		{"gray8/lncc", func() { quality.LNCC8(e8, t8, lnccWindow) }},
		{"gray8/range", func() { quality.JointRange8(e8, t8) }},
		{"gray8/ssim", func() { quality.SSIM8(e8, t8, quality.SSIMOptions{DataRange: rng, Float32: true}) }},
		{"gray8/psnr", func() { quality.PSNR8(e8, t8, rng) }},
	} {
		b.Run(c.name, func(b *testing.B) {
			cpu0 := processCPU()
			for b.Loop() {
				c.f()
			}
			reportCPU(b, cpu0)
		})
	}
}

// processCPU is the CPU time (user + system) this process has used: on a
// loaded machine it measures the work better than the wall clock.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU adds the CPU time per operation since cpu0 as "cpu-ns/op".
func reportCPU(b *testing.B, cpu0 time.Duration) {
	b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N), "cpu-ns/op")
}

// BenchmarkScorePair512CPU is BenchmarkScorePair512 with the CPU time per
// pair reported as well.
func BenchmarkScorePair512CPU(b *testing.B) {
	dir := b.TempDir()
	r := rand.New(rand.NewPCG(3, 4))
	writeSpeckle(b, filepath.Join(dir, "t.png"), 512, 512, r, 1)
	writeSpeckle(b, filepath.Join(dir, "e.png"), 512, 512, r, 0.9)
	b.ResetTimer()
	cpu0 := processCPU()
	for b.Loop() {
		if sc := scorePair(dir, dir, row{"x", "t.png", "e.png"}); sc.err != nil {
			b.Fatal(sc.err)
		}
	}
	reportCPU(b, cpu0)
}
