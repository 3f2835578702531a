package store

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/rexmle/rexmle/pipeline/gpu"
)

func TestGPUSamplesAndSummaryRoundTrip(t *testing.T) {
	ctx := context.Background()
	st := open(t)
	if _, err := st.db.Exec(`INSERT INTO challenges VALUES ('c',0,'c','c','segmentation','CT','seg','dice',0)`); err != nil {
		t.Fatal(err)
	}
	if _, err := st.db.Exec(`INSERT INTO runs(id, source, setting, backend, challenge_id, agent, status) VALUES ('g/c/a/seed-1','g','demo','none','c','a','running')`); err != nil {
		t.Fatal(err)
	}
	t0 := time.Unix(1_700_000_000, 0).UTC()
	in := []gpu.Sample{
		{At: t0, GPU: 0, SMUtil: 40, MemUsedBytes: 1 << 30, MemTotalBytes: 80 << 30, PowerW: math.NaN(), EnergyMJ: -1, TempC: 55, ProcMemBytes: 1 << 29, ElapsedS: 12.5, Device: "MIG-x"},
		{At: t0.Add(time.Minute), GPU: 0, SMUtil: math.NaN(), MemUsedBytes: -1, MemTotalBytes: 80 << 30, PowerW: 300, EnergyMJ: 5, TempC: 56, ProcMemBytes: -1, ElapsedS: 72.5},
	}
	if err := st.Update(ctx, func(tx *Tx) error { return tx.InsertGPUSamples(ctx, "g/c/a/seed-1", in) }); err != nil {
		t.Fatal(err)
	}
	var n int
	var power, util any
	if err := st.db.QueryRow(`SELECT count(*), min(power_w), min(sm_util) FROM gpu_samples WHERE run_id='g/c/a/seed-1'`).Scan(&n, &power, &util); err != nil {
		t.Fatal(err)
	}
	if n != 2 || power.(float64) != 300 || util.(float64) != 40 {
		t.Fatalf("rows %d min power %v min util %v: NaN must be stored as NULL", n, power, util)
	}
	got, err := st.GPUSamples(ctx)
	if err != nil {
		t.Fatal(err)
	}
	xs := got["g/c/a/seed-1"]
	if len(xs) != 2 {
		t.Fatalf("read %d samples, want 2", len(xs))
	}
	if !xs[0].At.Equal(t0) || xs[0].SMUtil != 40 || !math.IsNaN(xs[0].PowerW) || xs[0].EnergyMJ != -1 || xs[0].Device != "MIG-x" || xs[0].ElapsedS != 12.5 {
		t.Errorf("first sample read back as %+v", xs[0])
	}
	if !math.IsNaN(xs[1].SMUtil) || xs[1].MemUsedBytes != -1 || xs[1].ProcMemBytes != -1 || xs[1].EnergyMJ != 5 || xs[1].Device != "" {
		t.Errorf("second sample read back as %+v", xs[1])
	}

	sum := gpu.Summarize(in, 1, time.Hour)
	err = st.Update(ctx, func(tx *Tx) error {
		return tx.PutGPUSummary(ctx, GPUSummary{RunID: "g/c/a/seed-1", Telemetry: "nvml", WallSeconds: 3600, WorkingSeconds: math.NaN(), Summary: sum})
	})
	if err != nil {
		t.Fatal(err)
	}
	var working any
	if err := st.db.QueryRow(`SELECT working_seconds FROM gpu_summaries`).Scan(&working); err != nil {
		t.Fatal(err)
	}
	if working != nil {
		t.Fatalf("working_seconds %v, want NULL for NaN", working)
	}
	sums, err := st.GPUSummaries(ctx)
	if err != nil {
		t.Fatal(err)
	}
	g, ok := sums["g/c/a/seed-1"]
	if !ok {
		t.Fatal("summary not read back")
	}
	if g.Summary.GPUHours != 1 || g.Summary.Samples != 2 || g.Summary.SMUtilMedian != sum.SMUtilMedian ||
		g.Summary.PeakMemFraction != sum.PeakMemFraction || !math.IsNaN(g.WorkingSeconds) || g.Telemetry != "nvml" {
		t.Fatalf("summary read back as %+v, stored %+v", g, sum)
	}
	if math.IsNaN(sum.EnergyKWh) != math.IsNaN(g.Summary.EnergyKWh) || (!math.IsNaN(sum.EnergyKWh) && sum.EnergyKWh != g.Summary.EnergyKWh) {
		t.Fatalf("energy %v read back as %v", sum.EnergyKWh, g.Summary.EnergyKWh)
	}
}
