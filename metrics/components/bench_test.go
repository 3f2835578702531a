package components

import (
	"math/rand/v2"
	"syscall"
	"testing"
	"time"

	"github.com/rexmle/rexmle/metrics/volume"
)

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// blobs is a 512×512×300 mask of 400 random spheres (radius 3–20 voxels).
func blobs() ([]bool, volume.Grid) {
	g := volume.NewGrid(512, 512, 300)
	m := make([]bool, g.Len())
	r := rand.New(rand.NewPCG(1, 1))
	for b := 0; b < 400; b++ {
		cx, cy, cz := r.IntN(512), r.IntN(512), r.IntN(300)
		rad := 3 + r.IntN(18)
		for k := max(cz-rad, 0); k <= min(cz+rad, 299); k++ {
			for j := max(cy-rad, 0); j <= min(cy+rad, 511); j++ {
				for i := max(cx-rad, 0); i <= min(cx+rad, 511); i++ {
					if (i-cx)*(i-cx)+(j-cy)*(j-cy)+(k-cz)*(k-cz) <= rad*rad {
						m[g.Index(i, j, k)] = true
					}
				}
			}
		}
	}
	return m, g
}

// BenchmarkLabel26: 26-connected labelling of a 512×512×300 blob mask.
func BenchmarkLabel26(b *testing.B) {
	m, g := blobs()
	b.ResetTimer()
	start := cpuTime()
	for b.Loop() {
		if _, _, err := Label(m, g, 26); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
}

// BenchmarkLabel6: 6-connected labelling of the same mask.
func BenchmarkLabel6(b *testing.B) {
	m, g := blobs()
	b.ResetTimer()
	start := cpuTime()
	for b.Loop() {
		if _, _, err := Label(m, g, 6); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
}
