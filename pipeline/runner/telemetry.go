package runner

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rexmle/rexmle/pipeline/fsutil"
	"github.com/rexmle/rexmle/pipeline/gpu"
)

// telemetry samples the run's GPUs every SampleEvery until finish.
type telemetry struct {
	cancel  context.CancelFunc
	wg      sync.WaitGroup
	mu      sync.Mutex
	samples []gpu.Sample
}

// startTelemetry samples the GPUs of the run whose first process is root.
// Each tick passes the sampler every process of the run (see ProcTracker)
// and stamps the samples with the seconds since the run started.
func startTelemetry(j *Job, root int) *telemetry {
	t := &telemetry{}
	if j.Sampler == nil {
		return t
	}
	started := time.Now()
	procs := NewProcTracker(root, containerRoot(j))
	every := j.SampleEvery
	if every <= 0 {
		every = 5 * time.Second
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.cancel = cancel
	f, err := os.Create(filepath.Join(j.RunDir, "telemetry.jsonl"))
	if err != nil {
		j.logger().Warn("cannot write telemetry.jsonl", "run", j.ID(), "err", err)
	}
	t.wg.Add(1)
	go func() {
		defer t.wg.Done()
		var enc *json.Encoder
		var w *bufio.Writer
		if f != nil {
			w = bufio.NewWriter(f)
			enc = json.NewEncoder(w)
			defer f.Close()
			defer w.Flush()
		}
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			batch, err := j.Sampler.Sample(ctx, procs.Pids())
			if err != nil && ctx.Err() == nil {
				j.logger().Warn("GPU sample failed", "run", j.ID(), "err", err)
			}
			for i := range batch {
				at := batch[i].At
				if at.IsZero() {
					at = time.Now()
				}
				batch[i].ElapsedS = at.Sub(started).Seconds()
			}
			if len(batch) > 0 {
				t.mu.Lock()
				t.samples = append(t.samples, batch...)
				t.mu.Unlock()
				if enc != nil {
					for _, s := range batch {
						enc.Encode(jsonSample(s))
					}
					w.Flush()
				}
				if j.OnSamples != nil {
					j.OnSamples(batch)
				}
			}
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
	return t
}

// containerRoot returns, for the docker-compatible executors, a function
// that asks the engine for the host pid of the run's container (its
// processes are the engine's children, not the run's): nil until the
// container runs, then its pid once (the tracker follows it from there).
func containerRoot(j *Job) func() []int {
	if j.Agent.Executor != "docker" {
		return nil
	}
	engine, err := j.Engine()
	if err != nil {
		return nil
	}
	name := containerName(j)
	found := false
	return func() []int {
		if found {
			return nil
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		out, err := exec.CommandContext(ctx, engine, "inspect", "--format", "{{.State.Pid}}", name).Output()
		if err != nil {
			return nil
		}
		pid, err := strconv.Atoi(strings.TrimSpace(string(out)))
		if err != nil || pid <= 0 {
			return nil
		}
		found = true
		return []int{pid}
	}
}

// finish stops sampling and returns every sample taken.
func (t *telemetry) finish() []gpu.Sample {
	if t.cancel != nil {
		t.cancel()
		t.wg.Wait()
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.samples
}

// sampleLine is a Sample in telemetry.jsonl: unknown readings as null.
type sampleLine struct {
	At            time.Time `json:"at"`
	GPU           int       `json:"gpu"`
	SMUtil        *float64  `json:"sm_util"`
	MemUsedBytes  *int64    `json:"mem_used_bytes"`
	MemTotalBytes *int64    `json:"mem_total_bytes"`
	PowerW        *float64  `json:"power_w"`
	EnergyMJ      *int64    `json:"energy_mj"`
	TempC         *float64  `json:"temp_c"`
	ProcMemBytes  *int64    `json:"proc_mem_bytes"`
	Device        string    `json:"device,omitempty"`
	ElapsedS      *float64  `json:"elapsed_s"`
}

func fptr(v float64) *float64 {
	if v != v {
		return nil
	}
	return &v
}

func iptr(v int64) *int64 {
	if v < 0 {
		return nil
	}
	return &v
}

func jsonSample(s gpu.Sample) sampleLine {
	return sampleLine{s.At, s.GPU, fptr(s.SMUtil), iptr(s.MemUsedBytes), iptr(s.MemTotalBytes), fptr(s.PowerW), iptr(s.EnergyMJ), fptr(s.TempC), iptr(s.ProcMemBytes),
		s.Device, fptr(s.ElapsedS)}
}

// ReadTelemetry reads a run folder's telemetry.jsonl (no file: no samples).
func ReadTelemetry(runDir string) ([]gpu.Sample, error) {
	f, err := fsutil.OpenIn(runDir, "telemetry.jsonl")
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []gpu.Sample
	sc := bufio.NewScanner(io.LimitReader(f, maxTelemetryBytes))
	for sc.Scan() {
		var l sampleLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			continue // a line cut short by a crash
		}
		s := gpu.Sample{At: l.At, GPU: l.GPU, SMUtil: nanIf(l.SMUtil), MemUsedBytes: negIf(l.MemUsedBytes), MemTotalBytes: negIf(l.MemTotalBytes),
			PowerW: nanIf(l.PowerW), EnergyMJ: negIf(l.EnergyMJ), TempC: nanIf(l.TempC), ProcMemBytes: negIf(l.ProcMemBytes),
			Device: l.Device, ElapsedS: nanIf(l.ElapsedS)}
		out = append(out, s)
	}
	return out, sc.Err()
}

func nanIf(p *float64) float64 {
	if p == nil {
		var zero float64
		return zero / zero
	}
	return *p
}

func negIf(p *int64) int64 {
	if p == nil {
		return -1
	}
	return *p
}
