package distance

import (
	"syscall"
	"testing"
	"time"

	"github.com/rexmle/rexmle/metrics/overlap"
	"github.com/rexmle/rexmle/metrics/volume"
)

// benchPair returns a 512×512×300 grid (0.7×0.7×2.5 mm) with two large,
// overlapping ellipsoids: truth centred, prediction shifted and slightly larger.
func benchPair() (truth, pred []bool, g volume.Grid) {
	g = volume.NewGrid(512, 512, 300)
	g.Spacing = [3]float64{0.7, 0.7, 2.5}
	truth = make([]bool, g.Len())
	pred = make([]bool, g.Len())
	for k := 0; k < 300; k++ {
		for j := 0; j < 512; j++ {
			for i := 0; i < 512; i++ {
				x, y, z := float64(i-256)/140, float64(j-256)/120, float64(k-150)/80
				idx := g.Index(i, j, k)
				truth[idx] = x*x+y*y+z*z <= 1
				x, y, z = float64(i-262)/146, float64(j-250)/118, float64(k-153)/84
				pred[idx] = x*x+y*y+z*z <= 1 && (i+2*j+3*k)%97 != 0
			}
		}
	}
	return truth, pred, g
}

// cpuTime is the user+system CPU time of this process so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU adds a cpu-ns/op metric (process CPU time per operation), which
// is meaningful even when the machine is shared and wall time is noisy.
func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
}

// BenchmarkFullVolume: exact EDT of the whole 512×512×300 truth mask, then
// MONAI-style HD95 (prediction → truth, float32) and Dice of the pair.
func BenchmarkFullVolume(b *testing.B) {
	truth, pred, g := benchPair()
	b.ResetTimer()
	start := cpuTime()
	defer reportCPU(b, start)
	for b.Loop() {
		if _, err := DistanceToForeground(truth, g); err != nil {
			b.Fatal(err)
		}
		if _, err := MONAIHausdorff(pred, truth, g, 95, PredToTruth, MONAIOptions{Float32: true}); err != nil {
			b.Fatal(err)
		}
		if _, err := overlap.Dice(pred, truth, 1); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEDT512x512x300 is the distance transform alone.
func BenchmarkEDT512x512x300(b *testing.B) {
	truth, _, g := benchPair()
	b.ResetTimer()
	start := cpuTime()
	defer reportCPU(b, start)
	for b.Loop() {
		if _, err := DistanceToForeground(truth, g); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMONAIHD95 is the symmetric MONAI-style HD95 of the pair.
func BenchmarkMONAIHD95(b *testing.B) {
	truth, pred, g := benchPair()
	b.ResetTimer()
	start := cpuTime()
	defer reportCPU(b, start)
	for b.Loop() {
		if _, err := MONAIHausdorff(pred, truth, g, 95, Symmetric, MONAIOptions{Float32: true}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDeepMindSurface is DeepMind surface distances + robust HD95 + MASD.
func BenchmarkDeepMindSurface(b *testing.B) {
	truth, pred, g := benchPair()
	benchDeepMind(b, truth, pred, g)
}

// benchDeepMind times DeepMind surface distances + robust HD95 + MASD of
// truth and pred on g.
func benchDeepMind(b *testing.B, truth, pred []bool, g volume.Grid) {
	b.ResetTimer()
	start := cpuTime()
	defer reportCPU(b, start)
	for b.Loop() {
		sd, err := DeepMindSurfaceDistances(truth, pred, g)
		if err != nil {
			b.Fatal(err)
		}
		_ = sd.RobustHausdorff(95)
		_ = sd.MeanAverageSurfaceDistance()
	}
}

// BenchmarkDeepMindSmallTumour: a PANTHER-sized tumour (a 3 cm ellipsoid
// at 0.8×0.8×2.5 mm, the prediction shifted and stretched), on the
// 41×37×11 box of the two that a grader crops to.
func BenchmarkDeepMindSmallTumour(b *testing.B) {
	g := volume.NewGrid(41, 37, 11)
	g.Spacing = [3]float64{0.8, 0.8, 2.5}
	truth, pred := make([]bool, g.Len()), make([]bool, g.Len())
	for k := 0; k < 11; k++ {
		for j := 0; j < 37; j++ {
			for i := 0; i < 41; i++ {
				x, y, z := (float64(i)-18.5)/18.75, (float64(j)-18)/15, (float64(k)-5)/5.6
				truth[g.Index(i, j, k)] = x*x+y*y+z*z <= 1
				x, y = (float64(i)-22.5)/18.75, (float64(j)-18)/18
				pred[g.Index(i, j, k)] = x*x+y*y+z*z <= 1
			}
		}
	}
	benchDeepMind(b, truth, pred, g)
}
