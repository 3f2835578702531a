package gpu

import (
	"strings"
	"testing"
)

// inventory is a host with GPU 0 and GPU 2 whole, and GPU 1 in MIG mode
// with two instances, as Discover would list it.
func inventory() []Device {
	return []Device{
		{Index: 0, MIG: -1, UUID: "GPU-aaaa1111-0000", Name: "H100", MemTotalBytes: 80 << 30, GPUInstance: -1, CompInstance: -1},
		{Index: 1, MIG: -1, UUID: "GPU-bbbb2222-0000", Name: "H100", MemTotalBytes: 80 << 30, MIGEnabled: true, GPUInstance: -1, CompInstance: -1},
		{Index: 1, MIG: 0, UUID: "MIG-cccc3333-0000", Name: "3g.40gb", MemTotalBytes: 40 << 30, GPUInstance: 1, CompInstance: 0, ParentUUID: "GPU-bbbb2222-0000"},
		{Index: 1, MIG: 1, UUID: "MIG-dddd4444-0000", Name: "3g.40gb", MemTotalBytes: 40 << 30, GPUInstance: 2, CompInstance: 0, ParentUUID: "GPU-bbbb2222-0000"},
		{Index: 2, MIG: -1, UUID: "GPU-aaaa5555-0000", Name: "H100", MemTotalBytes: 80 << 30, GPUInstance: -1, CompInstance: -1},
	}
}

func labels(ds []Device) string {
	s := make([]string, len(ds))
	for i, d := range ds {
		s[i] = d.Label()
	}
	return strings.Join(s, ",")
}

func TestVisible(t *testing.T) {
	all := inventory()
	tests := []struct {
		v      string
		set    bool
		want   string // labels in order
		errHas string
	}{
		{"", false, "0,1/mig0,1/mig1,2", ""}, // unset: whole GPUs without MIG, and every MIG instance
		{"", true, "", ""},                   // set but empty: no GPU
		{"2,0", true, "2,0", ""},             // indices, in the order given
		{" 0 , 2 ", true, "0,2", ""},
		{"1", true, "1/mig0,1/mig1", ""}, // a MIG-mode GPU stands for its instances
		{"GPU-aaaa5555-0000", true, "2", ""},
		{"GPU-aaaa5", true, "2", ""}, // a unique UUID prefix
		{"MIG-dddd4444-0000,0", true, "1/mig1,0", ""},
		{"MIG-GPU-bbbb2222-0000/2/0", true, "1/mig1", ""}, // the older MIG form
		{"0,-1,2", true, "0", ""},                         // CUDA's idiom: a negative index ends the list
		{"-1", true, "", ""},
		{"3", true, "", `no GPU 3`},
		{"GPU-aaaa", true, "", "ambiguous"}, // prefix of GPU 0 and GPU 2
		{"GPU-ffff", true, "", "no such device"},
		{"MIG-eeee", true, "", "no such device"},
		{"MIG-GPU-bbbb2222-0000/9/0", true, "", "no such device"},
		{"MIG-GPU-bbbb2222-0000", true, "", "MIG-GPU-<uuid>/<gi>/<ci>"},
		{"0,0", true, "", "second time"},
		{"1,MIG-cccc", true, "", "second time"},
		{"0,,2", true, "", "empty entry"},
		{"nvidia0", true, "", "want a GPU index"},
	}
	for _, tc := range tests {
		got, err := Visible(all, tc.v, tc.set)
		if tc.errHas != "" {
			if err == nil || !strings.Contains(err.Error(), tc.errHas) {
				t.Errorf("Visible(%q): err %v, want one containing %q", tc.v, err, tc.errHas)
			}
			continue
		}
		if err != nil || labels(got) != tc.want {
			t.Errorf("Visible(%q, %v) = %q, %v; want %q", tc.v, tc.set, labels(got), err, tc.want)
		}
	}
}

func TestAgentEnv(t *testing.T) {
	all := inventory()
	env := AgentEnv([]Device{all[3], all[0]})
	if env["CUDA_VISIBLE_DEVICES"] != "MIG-dddd4444-0000,GPU-aaaa1111-0000" || env["CUDA_DEVICE_ORDER"] != "PCI_BUS_ID" {
		t.Fatalf("%v", env)
	}
	if env := AgentEnv(nil); env["CUDA_DEVICE_ORDER"] != "PCI_BUS_ID" || len(env) != 1 {
		t.Fatalf("no GPU: %v", env)
	}
}

func TestDiscoverWithoutDriver(t *testing.T) {
	devs, err := Discover()
	if err != nil {
		t.Logf("NVML unavailable (expected without a GPU): %v", err)
		return
	}
	for _, d := range devs {
		if d.UUID == "" || (d.IsMIG() && !strings.HasPrefix(d.UUID, "MIG-")) {
			t.Fatalf("device %+v", d)
		}
	}
}
