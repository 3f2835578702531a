package gpu

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/rexmle/rexmle/metrics/num"
)

func TestPercentile(t *testing.T) {
	tests := []struct {
		xs   []float64
		p    float64
		want float64
	}{
		{[]float64{1, 2, 3, 4}, 50, 2.5},        // h = 1.5
		{[]float64{10, 20, 30, 40, 50}, 95, 48}, // h = 3.8 → 40 + 0.8·10
		{[]float64{7}, 95, 7},
		{[]float64{0, 100}, 100, 100},
		{[]float64{0, 100}, 0, 0},
	}
	for _, tc := range tests {
		if got := num.PercentileSorted(tc.xs, tc.p); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("Percentile(%v, %v) = %v, want %v", tc.xs, tc.p, got, tc.want)
		}
	}
	if !math.IsNaN(num.PercentileSorted(nil, 50)) {
		t.Error("empty: want NaN")
	}
}

func at(s float64) time.Time {
	return time.Unix(1_700_000_000, 0).Add(time.Duration(s * float64(time.Second)))
}

func TestSummarize(t *testing.T) {
	nan := math.NaN()
	// GPU 0 has an energy counter: 3.6e9 mJ = 1 kWh over the run.
	// GPU 1 has none: power 100 W then 300 W over 10 s → trapezoid 2000 J.
	samples := []Sample{
		{At: at(0), GPU: 0, SMUtil: 10, MemUsedBytes: 20, MemTotalBytes: 100, PowerW: 50, EnergyMJ: 1_000, TempC: 40, ProcMemBytes: 5},
		{At: at(10), GPU: 0, SMUtil: 30, MemUsedBytes: 80, MemTotalBytes: 100, PowerW: 60, EnergyMJ: 1_000 + 3_600_000_000, TempC: 50, ProcMemBytes: 60},
		{At: at(0), GPU: 1, SMUtil: 50, MemUsedBytes: 10, MemTotalBytes: 200, PowerW: 100, EnergyMJ: -1, TempC: nan, ProcMemBytes: -1},
		{At: at(10), GPU: 1, SMUtil: nan, MemUsedBytes: -1, MemTotalBytes: -1, PowerW: 300, EnergyMJ: -1, TempC: nan, ProcMemBytes: -1},
	}
	s := Summarize(samples, 2, 90*time.Minute)
	want := Summary{GPUs: 2, Samples: 4, GPUHours: 3, EnergyKWh: 1 + 2000/3.6e6,
		SMUtilMedian: 30, SMUtilP95: 48, // util {10,30,50}: h = 1.9 → 30 + 0.9·20
		PeakMemFraction: 0.8, PeakProcMemFrac: 0.6}
	close := func(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
	if s.GPUs != want.GPUs || s.Samples != want.Samples || !close(s.GPUHours, want.GPUHours) || !close(s.EnergyKWh, want.EnergyKWh) ||
		!close(s.SMUtilMedian, want.SMUtilMedian) || !close(s.SMUtilP95, want.SMUtilP95) ||
		!close(s.PeakMemFraction, want.PeakMemFraction) || !close(s.PeakProcMemFrac, want.PeakProcMemFrac) {
		t.Fatalf("got %+v\nwant %+v", s, want)
	}
}

func TestSummarizeEmpty(t *testing.T) {
	s := Summarize(nil, 1, 2*time.Hour)
	if s.GPUHours != 2 || s.Samples != 0 {
		t.Fatalf("got %+v", s)
	}
	for _, v := range []float64{s.EnergyKWh, s.SMUtilMedian, s.SMUtilP95, s.PeakMemFraction, s.PeakProcMemFrac} {
		if !math.IsNaN(v) {
			t.Fatalf("no samples: want NaN, got %+v", s)
		}
	}
}

func TestCounterWrapFallsBackToPower(t *testing.T) {
	samples := []Sample{
		{At: at(0), GPU: 0, SMUtil: 0, PowerW: 200, EnergyMJ: 5000},
		{At: at(36), GPU: 0, SMUtil: 0, PowerW: 200, EnergyMJ: 10}, // counter reset
	}
	s := Summarize(samples, 1, time.Minute)
	if want := 200 * 36 / 3.6e6; math.Abs(s.EnergyKWh-want) > 1e-12 {
		t.Fatalf("energy %v, want %v", s.EnergyKWh, want)
	}
}

func TestNVMLUnavailableIsAnError(t *testing.T) {
	// On a host with NVIDIA GPUs this opens; elsewhere it must fail cleanly.
	s, err := OpenNVML([]int{0})
	if err != nil {
		t.Logf("NVML unavailable (expected without a GPU): %v", err)
		return
	}
	defer s.Close()
	got, err := s.Sample(context.Background(), nil)
	if err != nil || len(got) != 1 {
		t.Fatalf("sample: %v %v", got, err)
	}
}
