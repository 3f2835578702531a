package runstage

import (
	"fmt"
	"testing"

	"github.com/rexmle/rexmle/pipeline/config"
	"github.com/rexmle/rexmle/pipeline/gpu"
)

func TestDevicesOfAndGPUEnv(t *testing.T) {
	devs := []gpu.Device{
		{Index: 0, MIG: -1, UUID: "GPU-a"},
		{Index: 1, MIG: 0, UUID: "MIG-b", ParentUUID: "GPU-p"},
		{Index: 1, MIG: 1, UUID: "MIG-c", ParentUUID: "GPU-p"},
	}
	idx, ds := devicesOf([]int{2, 1, 0}, devs)
	if fmt.Sprint(idx) != "[1 0]" || len(ds) != 3 || ds[0].UUID != "MIG-c" {
		t.Fatalf("indices %v devices %+v", idx, ds)
	}
	orig := config.Agent{ID: "a", SetEnv: map[string]string{"X": "1", "CUDA_VISIBLE_DEVICES": "7"}}
	a := withGPUEnv(orig, ds[:2])
	if a.SetEnv["CUDA_VISIBLE_DEVICES"] != "MIG-c,MIG-b" || a.SetEnv["CUDA_DEVICE_ORDER"] != "PCI_BUS_ID" || a.SetEnv["X"] != "1" {
		t.Fatalf("env %v", a.SetEnv)
	}
	if orig.SetEnv["CUDA_VISIBLE_DEVICES"] != "7" || len(orig.SetEnv) != 2 {
		t.Fatalf("the agent's shared set_env was changed: %v", orig.SetEnv)
	}
	if cpu := withGPUEnv(orig, nil); cpu.SetEnv["CUDA_VISIBLE_DEVICES"] != "" || cpu.SetEnv["CUDA_DEVICE_ORDER"] != "PCI_BUS_ID" {
		t.Fatalf("no GPU: %v", cpu.SetEnv)
	}
}
