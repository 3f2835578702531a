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

// Discover lists every GPU NVML sees, in NVML index (PCI bus) order, each
// GPU whose MIG mode is on followed by its MIG instances. It fails where
// there is no driver.
func Discover() ([]Device, error) {
	if err := nvmlInit(); err != nil {
		return nil, err
	}
	defer nvmlShutdown()
	n, ret := nvml.DeviceGetCount()
	if ret != nvml.SUCCESS {
		return nil, fmt.Errorf("NVML device count: %s", nvml.ErrorString(ret))
	}
	var out []Device
	for i := 0; i < n; i++ {
		h, ret := nvml.DeviceGetHandleByIndex(i)
		if ret != nvml.SUCCESS {
			return nil, fmt.Errorf("NVML device %d: %s", i, nvml.ErrorString(ret))
		}
		g := describe(h, i, -1)
		if pci, ret := h.GetPciInfo(); ret == nvml.SUCCESS {
			g.PCIBusID = cString(pci.BusId[:])
		}
		if cur, _, ret := h.GetMigMode(); ret == nvml.SUCCESS && cur == nvml.DEVICE_MIG_ENABLE {
			g.MIGEnabled = true
		}
		out = append(out, g)
		if !g.MIGEnabled {
			continue
		}
		max, ret := h.GetMaxMigDeviceCount()
		if ret != nvml.SUCCESS {
			continue
		}
		k := 0
		for m := 0; m < max; m++ {
			mh, ret := h.GetMigDeviceHandleByIndex(m)
			if ret != nvml.SUCCESS {
				continue // an unused slot
			}
			d := describe(mh, i, k)
			d.PCIBusID, d.ParentUUID = g.PCIBusID, g.UUID
			if v, ret := mh.GetGpuInstanceId(); ret == nvml.SUCCESS {
				d.GPUInstance = v
			}
			if v, ret := mh.GetComputeInstanceId(); ret == nvml.SUCCESS {
				d.CompInstance = v
			}
			out = append(out, d)
			k++
		}
	}
	return out, nil
}

func describe(h nvml.Device, index, mig int) Device {
	d := Device{Index: index, MIG: mig, MemTotalBytes: -1, GPUInstance: -1, CompInstance: -1}
	if u, ret := h.GetUUID(); ret == nvml.SUCCESS {
		d.UUID = u
	}
	if name, ret := h.GetName(); ret == nvml.SUCCESS {
		d.Name = name
	}
	if m, ret := h.GetMemoryInfo(); ret == nvml.SUCCESS {
		d.MemTotalBytes = int64(m.Total)
	}
	return d
}

func cString(b []uint8) string {
	for i, c := range b {
		if c == 0 {
			return string(b[:i])
		}
	}
	return string(b)
}

// NVML samples GPUs through the NVIDIA driver.
type NVML struct {
	idx     []int
	mig     []bool
	uuids   []string
	devices []nvml.Device
	closed  bool
}

// OpenDevices opens a sampler for devices as Discover and Visible return
// them, whole GPUs and MIG instances alike (each by its UUID). On a MIG
// instance NVML reports memory and processes but not utilisation, power,
// energy or temperature (those belong to the whole GPU): they are recorded
// as unknown, never as the parent's readings.
func OpenDevices(devs []Device) (*NVML, error) {
	if len(devs) == 0 {
		return nil, errors.New("NVML: no GPUs to watch")
	}
	if err := nvmlInit(); err != nil {
		return nil, err
	}
	s := &NVML{}
	for _, d := range devs {
		h, ret := nvml.DeviceGetHandleByUUID(d.UUID)
		if ret != nvml.SUCCESS {
			nvmlShutdown()
			return nil, fmt.Errorf("NVML device %s (%s): %s", d.Label(), d.UUID, nvml.ErrorString(ret))
		}
		s.idx, s.mig, s.uuids = append(s.idx, d.Index), append(s.mig, d.IsMIG()), append(s.uuids, d.UUID)
		s.devices = append(s.devices, h)
	}
	return s, nil
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
	s := &NVML{idx: gpus, mig: make([]bool, len(gpus)), uuids: make([]string, len(gpus))}
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
		x := Sample{At: now, GPU: s.idx[k], Device: s.uuids[k], SMUtil: math.NaN(), MemUsedBytes: -1, MemTotalBytes: -1,
			PowerW: math.NaN(), EnergyMJ: -1, TempC: math.NaN(), ProcMemBytes: -1, ElapsedS: math.NaN()}
		if m, ret := d.GetMemoryInfo(); ret == nvml.SUCCESS {
			x.MemUsedBytes, x.MemTotalBytes = int64(m.Used), int64(m.Total)
		}
		// NVML does not support utilisation on MIG instances (NOT_SUPPORTED
		// there): it stays unknown.
		if u, ret := d.GetUtilizationRates(); ret == nvml.SUCCESS {
			x.SMUtil = float64(u.Gpu)
		}
		if !s.mig[k] {
			if p, ret := d.GetPowerUsage(); ret == nvml.SUCCESS {
				x.PowerW = float64(p) / 1000
			}
			if e, ret := d.GetTotalEnergyConsumption(); ret == nvml.SUCCESS {
				x.EnergyMJ = int64(e)
			}
			if t, ret := d.GetTemperature(nvml.TEMPERATURE_GPU); ret == nvml.SUCCESS {
				x.TempC = float64(t)
			}
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
