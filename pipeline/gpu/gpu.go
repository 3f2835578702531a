// Package gpu samples GPU telemetry for agent runs and summarises it: SM
// utilisation, memory, power, the energy counter, temperature and the memory
// of the run's own processes, one Sample per GPU per tick. The NVML
// implementation reads the NVIDIA driver; where there is no driver the
// sampler cannot be opened and callers record telemetry as unavailable:
// nothing is ever made up.
package gpu

import (
	"context"
	"encoding/json"
	"math"
	"sort"
	"time"

	"github.com/rexmle/rexmle/metrics/num"
)

// Sample is one reading of one GPU. Fields the driver could not report are
// NaN (floats) or -1 (integers).
type Sample struct {
	At            time.Time `json:"at"`
	GPU           int       `json:"gpu"`             // the device index as NVML numbers it
	SMUtil        float64   `json:"sm_util"`         // percent of time a kernel ran over the last period, 0–100
	MemUsedBytes  int64     `json:"mem_used_bytes"`  // device memory in use, all processes
	MemTotalBytes int64     `json:"mem_total_bytes"` // device memory on the card
	PowerW        float64   `json:"power_w"`         // board power draw, watts
	EnergyMJ      int64     `json:"energy_mj"`       // energy counter since the driver loaded, millijoules
	TempC         float64   `json:"temp_c"`          // GPU core temperature, °C
	ProcMemBytes  int64     `json:"proc_mem_bytes"`  // device memory used by the run's own processes
	// Device is the UUID of the GPU or MIG instance ("" where unknown, e.g.
	// samples of older runs); two MIG instances of one GPU share GPU.
	Device string `json:"device,omitempty"`
	// ElapsedS is the time since the run started, in seconds (NaN where
	// unknown): the x-axis of the utilisation charts.
	ElapsedS float64 `json:"elapsed_s"`
}

// Sampler reads the run's GPUs.
type Sampler interface {
	// Sample returns one Sample per GPU the sampler watches; pids are the
	// run's processes, whose device memory goes into ProcMemBytes.
	Sample(ctx context.Context, pids []int) ([]Sample, error)
	// Close releases the driver.
	Close() error
}

// Summary is a run's telemetry in a few numbers.
type Summary struct {
	GPUs            int     `json:"gpus"`
	Samples         int     `json:"samples"`
	GPUHours        float64 `json:"gpu_hours"`          // GPUs × wall time in hours
	EnergyKWh       float64 `json:"energy_kwh"`         // from the energy counter; power integrated where the counter is missing
	SMUtilMedian    float64 `json:"sm_util_median"`     // over every sample of every GPU, percent
	SMUtilP95       float64 `json:"sm_util_p95"`        // 95th percentile, same sample set
	PeakMemFraction float64 `json:"peak_mem_fraction"`  // max over samples of used / total device memory
	PeakProcMemFrac float64 `json:"peak_proc_mem_frac"` // max over samples of the run's own memory / total
}

// Summarize reduces the samples of one run that held gpus GPUs for wall.
//
// GPUHours = gpus × wall/1h. EnergyKWh sums, per GPU, the last minus the
// first energy-counter reading (mJ → kWh: ÷ 3.6e9); for a GPU whose counter
// is missing (-1) or went backwards, it integrates PowerW over time with the
// trapezoid rule instead. SMUtilMedian and SMUtilP95 are percentiles with
// linear interpolation between order statistics (numpy's default):
// p-th percentile = x[floor(h)] + (h − floor(h))·(x[floor(h)+1] − x[floor(h)]),
// h = (n−1)·p/100, over non-NaN SMUtil values. Peak fractions ignore samples
// with an unknown or zero total. With no samples every value except GPUHours
// is NaN.
func Summarize(samples []Sample, gpus int, wall time.Duration) Summary {
	s := Summary{GPUs: gpus, Samples: len(samples), GPUHours: float64(gpus) * wall.Hours()}
	nan := math.NaN()
	if len(samples) == 0 {
		s.EnergyKWh, s.SMUtilMedian, s.SMUtilP95, s.PeakMemFraction, s.PeakProcMemFrac = nan, nan, nan, nan, nan
		return s
	}
	type key struct {
		gpu    int
		device string
	}
	byGPU := map[key][]Sample{}
	var util []float64
	s.PeakMemFraction, s.PeakProcMemFrac = nan, nan
	for _, x := range samples {
		byGPU[key{x.GPU, x.Device}] = append(byGPU[key{x.GPU, x.Device}], x)
		if !math.IsNaN(x.SMUtil) {
			util = append(util, x.SMUtil)
		}
		if x.MemTotalBytes > 0 {
			if x.MemUsedBytes >= 0 {
				s.PeakMemFraction = nanMax(s.PeakMemFraction, float64(x.MemUsedBytes)/float64(x.MemTotalBytes))
			}
			if x.ProcMemBytes >= 0 {
				s.PeakProcMemFrac = nanMax(s.PeakProcMemFrac, float64(x.ProcMemBytes)/float64(x.MemTotalBytes))
			}
		}
	}
	sort.Float64s(util)
	s.SMUtilMedian, s.SMUtilP95 = num.PercentileSorted(util, 50), num.PercentileSorted(util, 95)
	energyJ, known := 0.0, false
	for _, xs := range byGPU {
		sort.Slice(xs, func(i, j int) bool { return xs[i].At.Before(xs[j].At) })
		first, last := xs[0], xs[len(xs)-1]
		if first.EnergyMJ >= 0 && last.EnergyMJ >= first.EnergyMJ {
			energyJ += float64(last.EnergyMJ-first.EnergyMJ) / 1000
			known = true
			continue
		}
		for i := 1; i < len(xs); i++ {
			a, b := xs[i-1], xs[i]
			if math.IsNaN(a.PowerW) || math.IsNaN(b.PowerW) {
				continue
			}
			energyJ += (a.PowerW + b.PowerW) / 2 * b.At.Sub(a.At).Seconds()
			known = true
		}
	}
	s.EnergyKWh = nan
	if known {
		s.EnergyKWh = energyJ / 3.6e6
	}
	return s
}

func nanMax(a, b float64) float64 {
	if math.IsNaN(a) || b > a {
		return b
	}
	return a
}

// MarshalJSON writes the summary with unknown (NaN) values as null.
func (s Summary) MarshalJSON() ([]byte, error) {
	f := func(v float64) *float64 {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil
		}
		return &v
	}
	return json.Marshal(struct {
		GPUs            int      `json:"gpus"`
		Samples         int      `json:"samples"`
		GPUHours        *float64 `json:"gpu_hours"`
		EnergyKWh       *float64 `json:"energy_kwh"`
		SMUtilMedian    *float64 `json:"sm_util_median"`
		SMUtilP95       *float64 `json:"sm_util_p95"`
		PeakMemFraction *float64 `json:"peak_mem_fraction"`
		PeakProcMemFrac *float64 `json:"peak_proc_mem_frac"`
	}{s.GPUs, s.Samples, f(s.GPUHours), f(s.EnergyKWh), f(s.SMUtilMedian), f(s.SMUtilP95), f(s.PeakMemFraction), f(s.PeakProcMemFrac)})
}

// UnmarshalJSON reads what MarshalJSON writes (null as NaN).
func (s *Summary) UnmarshalJSON(b []byte) error {
	var v struct {
		GPUs            int      `json:"gpus"`
		Samples         int      `json:"samples"`
		GPUHours        *float64 `json:"gpu_hours"`
		EnergyKWh       *float64 `json:"energy_kwh"`
		SMUtilMedian    *float64 `json:"sm_util_median"`
		SMUtilP95       *float64 `json:"sm_util_p95"`
		PeakMemFraction *float64 `json:"peak_mem_fraction"`
		PeakProcMemFrac *float64 `json:"peak_proc_mem_frac"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	g := func(p *float64) float64 {
		if p == nil {
			return math.NaN()
		}
		return *p
	}
	*s = Summary{GPUs: v.GPUs, Samples: v.Samples, GPUHours: g(v.GPUHours), EnergyKWh: g(v.EnergyKWh), SMUtilMedian: g(v.SMUtilMedian),
		SMUtilP95: g(v.SMUtilP95), PeakMemFraction: g(v.PeakMemFraction), PeakProcMemFrac: g(v.PeakProcMemFrac)}
	return nil
}
