package gpu

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
)

var (
	nvmlMu    sync.Mutex
	nvmlUsers int
)

func nvmlInit() error {
	nvmlMu.Lock()
	defer nvmlMu.Unlock()
	if nvmlUsers == 0 {
		if ret := nvml.Init(); ret != nvml.SUCCESS {
			return fmt.Errorf("NVML: %s", nvml.ErrorString(ret))
		}
	}
	nvmlUsers++
	return nil
}

func nvmlShutdown() {
	nvmlMu.Lock()
	defer nvmlMu.Unlock()
	if nvmlUsers == 0 {
		return
	}
	nvmlUsers--
	if nvmlUsers == 0 {
		nvml.Shutdown()
	}
}

// Count returns how many GPUs NVML sees, or an error when there is no
// driver (a host without NVIDIA GPUs).
func Count() (int, error) {
	if err := nvmlInit(); err != nil {
		return 0, err
	}
	defer nvmlShutdown()
	n, ret := nvml.DeviceGetCount()
	if ret != nvml.SUCCESS {
		return 0, fmt.Errorf("NVML device count: %s", nvml.ErrorString(ret))
	}
	return n, nil
}

// NVML samples GPUs through the NVIDIA driver.
type NVML struct {
	idx     []int
	devices []nvml.Device
	closed  bool
}

// OpenNVML opens a sampler for the GPUs with the given NVML indices. It
// fails where the driver is missing or an index does not exist.
func OpenNVML(gpus []int) (*NVML, error) {
	if len(gpus) == 0 {
		return nil, errors.New("NVML: no GPUs to watch")
	}
	if err := nvmlInit(); err != nil {
		return nil, err
	}
	s := &NVML{idx: gpus}
	for _, i := range gpus {
		d, ret := nvml.DeviceGetHandleByIndex(i)
		if ret != nvml.SUCCESS {
			nvmlShutdown()
			return nil, fmt.Errorf("NVML device %d: %s", i, nvml.ErrorString(ret))
		}
		s.devices = append(s.devices, d)
	}
	return s, nil
}

// Sample reads every watched GPU once. Fields the driver does not support
// on a card are NaN or -1.
func (s *NVML) Sample(ctx context.Context, pids []int) ([]Sample, error) {
	now := time.Now().UTC()
	own := map[uint32]bool{}
	for _, p := range pids {
		own[uint32(p)] = true
	}
	out := make([]Sample, 0, len(s.devices))
	for k, d := range s.devices {
		x := Sample{At: now, GPU: s.idx[k], SMUtil: math.NaN(), MemUsedBytes: -1, MemTotalBytes: -1,
			PowerW: math.NaN(), EnergyMJ: -1, TempC: math.NaN(), ProcMemBytes: -1}
		if u, ret := d.GetUtilizationRates(); ret == nvml.SUCCESS {
			x.SMUtil = float64(u.Gpu)
		}
		if m, ret := d.GetMemoryInfo(); ret == nvml.SUCCESS {
			x.MemUsedBytes, x.MemTotalBytes = int64(m.Used), int64(m.Total)
		}
		if p, ret := d.GetPowerUsage(); ret == nvml.SUCCESS {
			x.PowerW = float64(p) / 1000
		}
		if e, ret := d.GetTotalEnergyConsumption(); ret == nvml.SUCCESS {
			x.EnergyMJ = int64(e)
		}
		if t, ret := d.GetTemperature(nvml.TEMPERATURE_GPU); ret == nvml.SUCCESS {
			x.TempC = float64(t)
		}
		if ps, ret := d.GetComputeRunningProcesses(); ret == nvml.SUCCESS {
			var sum int64
			for _, p := range ps {
				if own[p.Pid] {
					sum += int64(p.UsedGpuMemory)
				}
			}
			x.ProcMemBytes = sum
		}
		out = append(out, x)
	}
	return out, ctx.Err()
}

// Close releases the driver.
func (s *NVML) Close() error {
	if !s.closed {
		s.closed = true
		nvmlShutdown()
	}
	return nil
}
