package usenhance

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/rexmle/rexmle/metrics/imageio/png"
	"github.com/rexmle/rexmle/metrics/volume"
)

// benchCount is the number of test pairs of the realistic benchmark: the
// paper's split holds 300 (REXMLE_BENCH_N overrides, e.g. for a quick run).
func benchCount() int {
	if n, err := strconv.Atoi(os.Getenv("REXMLE_BENCH_N")); err == nil && n > 0 {
		return n
	}
	return 300
}

// writeSpeckle writes a w×h 8-bit PNG of a smooth texture with
// multiplicative speckle, like a B-mode frame.
func writeSpeckle(b testing.TB, path string, w, h int, r *rand.Rand, gain float64) {
	v := volume.New(volume.NewGrid(w, h), volume.Uint8)
	f1, f2, ph := 0.01+0.03*r.Float64(), 0.01+0.03*r.Float64(), r.Float64()*6
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			base := 110 + 50*math.Sin(f1*float64(x)+ph)*math.Cos(f2*float64(y))
			p := gain * base * (1 + 0.2*r.NormFloat64())
			v.Data[y*w+x] = math.Round(math.Max(0, math.Min(255, p)))
		}
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		b.Fatal(err)
	}
	if err := png.WriteFile(path, v, 8); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkGrade300x512 grades 300 pairs of 512×512 8-bit PNGs of speckle
// texture (the reference grader takes about 18 s for this on 2 cores),
// with the CPU time per grade reported as well.
func BenchmarkGrade300x512(b *testing.B) { benchGrade300(b, writeSpeckle) }

// BenchmarkScorePair512 reads and scores one 512×512 pair (one worker's
// share of the grade).
func BenchmarkScorePair512(b *testing.B) {
	dir := b.TempDir()
	r := rand.New(rand.NewPCG(3, 4))
	writeSpeckle(b, filepath.Join(dir, "t.png"), 512, 512, r, 1)
	writeSpeckle(b, filepath.Join(dir, "e.png"), 512, 512, r, 0.9)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if sc := scorePair(dir, dir, row{"x", "t.png", "e.png"}); sc.err != nil {
			b.Fatal(sc.err)
		}
	}
}
