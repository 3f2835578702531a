package gpu

import (
	"context"
	"math"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestNVMLOnDevice reads a real GPU through the NVIDIA driver. It runs only
// where REXMLE_NVML_TEST=1 is set (a machine with a GPU); there, a driver
// that cannot be opened is a failure, not a skip. With REXMLE_NVML_LOAD set
// to a shell command that keeps the GPU busy (e.g. a PyTorch loop of matrix
// products), the test starts it, samples the first GPU every 500 ms while
// it runs, and wants what a loaded GPU shows: kernels running (SM
// utilisation above zero), the load's own device memory attributed to its
// process, power drawn and the energy counter rising. It logs every sample
// and the run's Summary, the numbers that go into the issue note.
func TestNVMLOnDevice(t *testing.T) {
	if os.Getenv("REXMLE_NVML_TEST") != "1" {
		t.Skip("REXMLE_NVML_TEST=1 not set: no GPU machine")
	}
	devs, err := Discover()
	if err != nil {
		t.Fatalf("Discover: %v", err)
	}
	if len(devs) == 0 {
		t.Fatal("Discover: no GPU")
	}
	for _, d := range devs {
		t.Logf("device %s: %s, %s, %d bytes, bus %s, MIG mode %v", d.Label(), d.Name, d.UUID, d.MemTotalBytes, d.PCIBusID, d.MIGEnabled)
		if d.UUID == "" || d.Name == "" || d.MemTotalBytes <= 0 {
			t.Errorf("device %+v: UUID, name and memory wanted", d)
		}
	}
	usable := Usable(devs)
	if len(usable) == 0 {
		t.Fatal("no usable device")
	}
	s, err := OpenDevices(usable[:1])
	if err != nil {
		t.Fatalf("OpenDevices: %v", err)
	}
	defer s.Close()

	load := os.Getenv("REXMLE_NVML_LOAD")
	var cmd *exec.Cmd
	var pids []int
	if load != "" {
		cmd = exec.Command("sh", "-c", "exec "+load)
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatalf("start load: %v", err)
		}
		pids = []int{cmd.Process.Pid}
		defer func() { _ = cmd.Process.Kill(); _, _ = cmd.Process.Wait() }()
	}
	ctx := context.Background()
	start := time.Now()
	var samples []Sample
	loaded := 0 // samples showing the load's kernels and memory
	for time.Since(start) < 20*time.Second {
		batch, err := s.Sample(ctx, pids)
		if err != nil {
			t.Fatalf("Sample: %v", err)
		}
		if len(batch) != 1 {
			t.Fatalf("Sample: %d readings for one GPU", len(batch))
		}
		x := batch[0]
		x.ElapsedS = time.Since(start).Seconds()
		samples = append(samples, x)
		t.Logf("t=%5.1fs sm=%3.0f%% mem=%6.2f/%6.2f GiB proc=%6.2f GiB power=%6.1f W energy=%d mJ temp=%.0f C",
			x.ElapsedS, x.SMUtil, gib(x.MemUsedBytes), gib(x.MemTotalBytes), gib(x.ProcMemBytes), x.PowerW, x.EnergyMJ, x.TempC)
		if x.MemTotalBytes <= 0 || x.MemUsedBytes < 0 || x.MemUsedBytes > x.MemTotalBytes {
			t.Errorf("memory %d of %d bytes", x.MemUsedBytes, x.MemTotalBytes)
		}
		if math.IsNaN(x.SMUtil) || x.SMUtil < 0 || x.SMUtil > 100 {
			t.Errorf("SM utilisation %v, want 0..100", x.SMUtil)
		}
		if math.IsNaN(x.PowerW) || x.PowerW <= 0 {
			t.Errorf("power %v W, want > 0", x.PowerW)
		}
		if n := len(samples); n > 1 && samples[n-2].EnergyMJ > x.EnergyMJ {
			t.Errorf("energy counter went back: %d → %d mJ", samples[n-2].EnergyMJ, x.EnergyMJ)
		}
		if load == "" && len(samples) >= 6 {
			break
		}
		if load != "" && x.SMUtil > 0 && x.ProcMemBytes > 0 {
			if loaded++; loaded >= 10 {
				break
			}
		}
		if cmd != nil && cmd.ProcessState != nil {
			break
		}
		time.Sleep(500 * time.Millisecond)
	}
	sum := Summarize(samples, 1, time.Since(start))
	t.Logf("summary: %d samples, %.6f GPU-hours, %.6f kWh, SM median %.1f%%, p95 %.1f%%, peak memory %.3f, peak own memory %.3f",
		sum.Samples, sum.GPUHours, sum.EnergyKWh, sum.SMUtilMedian, sum.SMUtilP95, sum.PeakMemFraction, sum.PeakProcMemFrac)
	if math.IsNaN(sum.EnergyKWh) || sum.EnergyKWh <= 0 {
		t.Errorf("energy %v kWh, want > 0 over %d samples", sum.EnergyKWh, len(samples))
	}
	if load != "" {
		if loaded == 0 {
			t.Errorf("under load (%s) no sample showed kernels running and the load's own memory", strings.TrimSpace(load))
		}
		if !(sum.SMUtilP95 > 0) || !(sum.PeakProcMemFrac > 0) {
			t.Errorf("summary under load: SM p95 %v, own memory %v; want both > 0", sum.SMUtilP95, sum.PeakProcMemFrac)
		}
	}
}

func gib(b int64) float64 {
	if b < 0 {
		return math.NaN()
	}
	return float64(b) / (1 << 30)
}
