package overlap

import (
	"syscall"
	"testing"
	"time"
)

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// labelPair is a 512×512×300 pair of label maps with 13 labels in slabs,
// the prediction shifted by a few voxels.
func labelPair() (pred, truth []int32) {
	n0, n1, n2 := 512, 512, 300
	pred = make([]int32, n0*n1*n2)
	truth = make([]int32, n0*n1*n2)
	for k := 0; k < n2; k++ {
		for j := 0; j < n1; j++ {
			for i := 0; i < n0; i++ {
				idx := i + n0*(j+n1*k)
				if (i-256)*(i-256)+(j-256)*(j-256) < 200*200 {
					truth[idx] = int32(1 + (k*13)/n2)
				}
				if (i-250)*(i-250)+(j-259)*(j-259) < 205*205 {
					pred[idx] = int32(1 + ((k+4)*13)/(n2+8))
				}
			}
		}
	}
	return pred, truth
}

// BenchmarkBinaryDice: confusion counts of a 512×512×300 binary pair.
func BenchmarkBinaryDice(b *testing.B) {
	p32, t32 := labelPair()
	pred, truth := make([]bool, len(p32)), make([]bool, len(t32))
	for i := range p32 {
		pred[i], truth[i] = p32[i] != 0, t32[i] != 0
	}
	b.ResetTimer()
	start := cpuTime()
	for b.Loop() {
		if _, err := Dice(pred, truth, 1); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
}
