package gpu

import (
	"fmt"
	"strconv"
	"strings"
)

// Device is one GPU a run can be given: a whole GPU, or one MIG instance
// of a GPU whose MIG mode is on.
type Device struct {
	Index         int    `json:"index"`    // NVML index of the physical GPU (PCI bus order); the parent's for a MIG instance
	MIG           int    `json:"mig"`      // MIG instance index on the parent; -1 for a whole GPU
	UUID          string `json:"uuid"`     // "GPU-…" or "MIG-…", what CUDA_VISIBLE_DEVICES accepts
	Name          string `json:"name"`     // e.g. "NVIDIA H100 80GB HBM3" (a MIG instance: its profile name)
	PCIBusID      string `json:"pci_bus"`  // the parent's PCI bus id
	MemTotalBytes int64  `json:"mem"`      // device (instance) memory, -1 when unknown
	MIGEnabled    bool   `json:"mig_mode"` // a whole GPU with MIG mode on: only its instances are usable
	GPUInstance   int    `json:"gi"`       // MIG GPU-instance id (-1 for a whole GPU)
	CompInstance  int    `json:"ci"`       // MIG compute-instance id (-1 for a whole GPU)
	ParentUUID    string `json:"parent"`   // a MIG instance's parent GPU UUID
}

// IsMIG reports whether d is a MIG instance.
func (d Device) IsMIG() bool { return d.MIG >= 0 }

// Label names the device in tables and logs: "0" for GPU 0, "0/mig1" for
// its second MIG instance.
func (d Device) Label() string {
	if d.IsMIG() {
		return fmt.Sprintf("%d/mig%d", d.Index, d.MIG)
	}
	return strconv.Itoa(d.Index)
}

// Usable returns the devices runs may be given when CUDA_VISIBLE_DEVICES
// is not set: every whole GPU whose MIG mode is off and every MIG instance.
func Usable(all []Device) []Device {
	var out []Device
	for _, d := range all {
		if d.IsMIG() || !d.MIGEnabled {
			out = append(out, d)
		}
	}
	return out
}

// Visible resolves CUDA_VISIBLE_DEVICES (value v; set says whether the
// variable is set at all) against the devices NVML lists (all: whole GPUs
// and MIG instances, as Discover returns them) into the devices runs may be
// given, in the order the variable lists them.
//
// Accepted entries, comma-separated: an integer (the GPU with that NVML
// index, which is CUDA's numbering under CUDA_DEVICE_ORDER=PCI_BUS_ID),
// a GPU UUID "GPU-…", a MIG UUID "MIG-…" or the older
// "MIG-GPU-<uuid>/<gi>/<ci>" form. A UUID may be shortened to a prefix that
// names one device, as CUDA allows. A GPU whose MIG mode is on stands for
// its MIG instances. An empty value means no GPU. Unlike CUDA, which
// silently ignores everything after an entry it does not understand, an
// unknown, ambiguous or repeated entry is an error naming it, so a typo
// never silently shrinks the pool.
func Visible(all []Device, v string, set bool) ([]Device, error) {
	if !set {
		return Usable(all), nil
	}
	v = strings.TrimSpace(v)
	if v == "" {
		return nil, nil
	}
	s := &visibleSet{all: all, seen: map[string]bool{}}
	for _, d := range all {
		if !d.IsMIG() {
			s.whole = append(s.whole, d)
		}
	}
	for _, raw := range strings.Split(v, ",") {
		e := strings.TrimSpace(raw)
		var err error
		switch {
		case e == "":
			err = fmt.Errorf("CUDA_VISIBLE_DEVICES %q has an empty entry", v)
		case isInt(e):
			n, _ := strconv.Atoi(e)
			if n < 0 {
				// CUDA's idiom: a negative index ends the list ("-1": no GPU).
				return s.out, nil
			}
			err = s.addIndex(e, n)
		case strings.HasPrefix(e, "MIG-GPU-"):
			err = s.addMIGPath(e)
		case strings.HasPrefix(e, "MIG-"):
			var hit []Device
			for _, d := range all {
				if d.IsMIG() && strings.HasPrefix(d.UUID, e) {
					hit = append(hit, d)
				}
			}
			err = one(e, hit, s.add)
		case strings.HasPrefix(e, "GPU-"):
			err = s.addGPUUUID(e)
		default:
			err = fmt.Errorf("CUDA_VISIBLE_DEVICES entry %q: want a GPU index, a GPU-… UUID or a MIG-… UUID", e)
		}
		if err != nil {
			return nil, err
		}
	}
	return s.out, nil
}

// visibleSet is what Visible has resolved so far: the devices in the
// variable's order, each once.
type visibleSet struct {
	all   []Device // whole GPUs and MIG instances
	whole []Device // the whole GPUs
	out   []Device
	seen  map[string]bool // by UUID and label
}

// add appends the devices an entry names, refusing one named before.
func (s *visibleSet) add(entry string, ds ...Device) error {
	for _, d := range ds {
		if s.seen[d.UUID+"#"+d.Label()] {
			return fmt.Errorf("CUDA_VISIBLE_DEVICES entry %q names GPU %s (%s) a second time", entry, d.Label(), d.UUID)
		}
		s.seen[d.UUID+"#"+d.Label()] = true
		s.out = append(s.out, d)
	}
	return nil
}

// instancesOf are the MIG instances of the whole GPU g.
func (s *visibleSet) instancesOf(g Device) []Device {
	var out []Device
	for _, d := range s.all {
		if d.IsMIG() && d.Index == g.Index {
			out = append(out, d)
		}
	}
	return out
}

// addWhole adds a whole GPU: its MIG instances where its MIG mode is on.
func (s *visibleSet) addWhole(entry string, g Device) error {
	if !g.MIGEnabled {
		return s.add(entry, g)
	}
	ins := s.instancesOf(g)
	if len(ins) == 0 {
		return fmt.Errorf("CUDA_VISIBLE_DEVICES entry %q: GPU %d has MIG mode on but no MIG instance", entry, g.Index)
	}
	return s.add(entry, ins...)
}

// addIndex adds the GPU with NVML index n.
func (s *visibleSet) addIndex(entry string, n int) error {
	var g *Device
	for i := range s.whole {
		if s.whole[i].Index == n {
			g = &s.whole[i]
		}
	}
	if g == nil {
		return fmt.Errorf("CUDA_VISIBLE_DEVICES entry %q: NVML has no GPU %d (it sees %d GPU(s))", entry, n, len(s.whole))
	}
	return s.addWhole(entry, *g)
}

// addMIGPath adds the MIG instance MIG-GPU-<parent uuid>/<gi>/<ci> names.
func (s *visibleSet) addMIGPath(entry string) error {
	parts := strings.Split(strings.TrimPrefix(entry, "MIG-"), "/")
	if len(parts) != 3 || !isInt(parts[1]) || !isInt(parts[2]) {
		return fmt.Errorf("CUDA_VISIBLE_DEVICES entry %q: want MIG-GPU-<uuid>/<gi>/<ci>", entry)
	}
	gi, _ := strconv.Atoi(parts[1])
	ci, _ := strconv.Atoi(parts[2])
	var hit []Device
	for _, d := range s.all {
		if d.IsMIG() && strings.HasPrefix(d.ParentUUID, parts[0]) && d.GPUInstance == gi && d.CompInstance == ci {
			hit = append(hit, d)
		}
	}
	return one(entry, hit, s.add)
}

// addGPUUUID adds the whole GPU whose UUID starts with entry.
func (s *visibleSet) addGPUUUID(entry string) error {
	var hit []Device
	for _, d := range s.whole {
		if strings.HasPrefix(d.UUID, entry) {
			hit = append(hit, d)
		}
	}
	if len(hit) == 1 && hit[0].MIGEnabled {
		return s.addWhole(entry, hit[0])
	}
	return one(entry, hit, s.add)
}

func one(entry string, hit []Device, add func(string, ...Device) error) error {
	switch len(hit) {
	case 0:
		return fmt.Errorf("CUDA_VISIBLE_DEVICES entry %q: NVML has no such device", entry)
	case 1:
		return add(entry, hit[0])
	}
	return fmt.Errorf("CUDA_VISIBLE_DEVICES entry %q is ambiguous: it is a prefix of %d device UUIDs", entry, len(hit))
}

func isInt(s string) bool {
	if s == "" {
		return false
	}
	if s[0] == '-' || s[0] == '+' {
		s = s[1:]
	}
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// AgentEnv is what an agent holding devs is given: CUDA_VISIBLE_DEVICES
// with the devices' UUIDs (stable whatever the numbering, and the only way
// to name a MIG instance) and CUDA_DEVICE_ORDER=PCI_BUS_ID, so CUDA numbers
// GPUs as NVML and nvidia-smi do.
func AgentEnv(devs []Device) map[string]string {
	env := map[string]string{"CUDA_DEVICE_ORDER": "PCI_BUS_ID"}
	if len(devs) > 0 {
		ids := make([]string, len(devs))
		for i, d := range devs {
			ids[i] = d.UUID
		}
		env["CUDA_VISIBLE_DEVICES"] = strings.Join(ids, ",")
	}
	return env
}
