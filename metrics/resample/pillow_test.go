package resample

import (
	"encoding/json"
	"os/exec"
	"slices"
	"testing"

	"github.com/rexmle/rexmle/metrics/internal/pythontest"
)

func TestPillowNearestIndexHand(t *testing.T) {
	// n=120→m=119: the running position reaches 59.4958…+0.0084… just
	// below 60 at output 59 (Pillow reads 59), where 59.5·120/119 = 60.0000…
	if got := PillowNearestIndex(120, 119); got[59] != 59 || got[60] != 61 {
		t.Errorf("PillowNearestIndex(120, 119)[59:61] = %v, want [59 61]", got[59:61])
	}
	// The 16-bit modes multiply afresh: (2/49)·24.5 = 0.99999… → 0.
	if got := PillowNearestIndex16(2, 49); got[24] != 0 || got[25] != 1 {
		t.Errorf("PillowNearestIndex16(2, 49)[24:26] = %v, want [0 1]", got[24:26])
	}
	for _, f := range []func(n, m int) []int{PillowNearestIndex, PillowNearestIndex16} {
		if got := f(3, 5); !slices.Equal(got, []int{0, 0, 1, 2, 2}) { // 0.3 0.9 1.5 2.1 2.7
			t.Errorf("(3, 5) = %v, want [0 0 1 2 2]", got)
		}
		if got := f(10, 4); !slices.Equal(got, []int{1, 3, 6, 8}) {
			t.Errorf("(10, 4) = %v, want [1 3 6 8]", got)
		}
	}
	// Resize2D: an index of −1 leaves zero; the same size returns the input.
	pix := []int{1, 2, 3, 4, 5, 6}
	if got := Resize2D(pix, 3, 2, 2, 2, []int{2, -1}, []int{1, 0}); !slices.Equal(got, []int{6, 0, 3, 0}) {
		t.Errorf("Resize2D = %v, want [6 0 3 0]", got)
	}
	if got := Resize2D(pix, 3, 2, 3, 2, nil, nil); &got[0] != &pix[0] {
		t.Errorf("Resize2D to the same size copied")
	}
}

// pillowScript prints, for Pillow modes I (int32), L (uint8) and I;16
// (uint16) and every pair of axis lengths 1 ≤ n, m ≤ 120, the source index
// of each output sample when Pillow resizes a row 0, 1, …, n−1 to m samples
// with NEAREST; and a few 2-D resizes of a w×h ramp.
const pillowScript = `
import json
import numpy as np
from PIL import Image
rows = []
for mode, dt in (("I", np.int32), ("L", np.uint8), ("I;16", np.uint16)):
    for n in range(1, 121):
        im = Image.fromarray(np.arange(n).astype(dt)[None, :])
        assert im.mode == mode, im.mode
        for m in range(1, 121):
            rows.append([mode, n, m, np.asarray(im.resize((m, 1), Image.NEAREST))[0].astype(int).tolist()])
planes = []
for mode, dt in (("I", np.int32), ("I;16", np.uint16)):
    for (w, h, ow, oh) in ((37, 23, 120, 119), (120, 119, 37, 23), (50, 200, 61, 193)):
        a = np.arange(w * h).reshape(h, w).astype(dt)
        out = np.asarray(Image.fromarray(a).resize((ow, oh), Image.NEAREST)).astype(int)
        planes.append([mode, w, h, ow, oh, out.ravel().tolist()])
print(json.dumps({"rows": rows, "planes": planes}))
`

// TestPillowNearestAgainstPillow compares with Pillow itself (skipped
// without a python3 with Pillow and numpy).
func TestPillowNearestAgainstPillow(t *testing.T) {
	py := pythontest.Find(t, "PIL", "numpy")
	raw, err := exec.Command(py, "-c", pillowScript).Output()
	if err != nil {
		t.Fatalf("python: %v", err)
	}
	var got struct {
		Rows   [][4]json.RawMessage
		Planes [][6]json.RawMessage
	}
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatal(err)
	}
	index := func(mode string) func(n, m int) []int {
		if mode == "I;16" {
			return PillowNearestIndex16
		}
		return PillowNearestIndex
	}
	differ := map[string]int{}
	for _, r := range got.Rows {
		var mode string
		var n, m int
		var want []int
		if json.Unmarshal(r[0], &mode) != nil || json.Unmarshal(r[1], &n) != nil || json.Unmarshal(r[2], &m) != nil || json.Unmarshal(r[3], &want) != nil {
			t.Fatalf("bad row %s", r)
		}
		if got := index(mode)(n, m); !slices.Equal(got, want) {
			t.Errorf("%s %d → %d: %v, Pillow %v", mode, n, m, got, want)
		}
		if !slices.Equal(PillowNearestIndex(n, m), PillowNearestIndex16(n, m)) {
			differ[mode]++
		}
	}
	// The two rules must differ somewhere, or the check could not tell
	// which one each mode takes.
	for _, mode := range []string{"I", "L", "I;16"} {
		if differ[mode] == 0 {
			t.Errorf("mode %s: the two index rules agree on every pair", mode)
		}
	}
	for _, p := range got.Planes {
		var mode string
		var w, h, ow, oh int
		var want []int
		if json.Unmarshal(p[0], &mode) != nil || json.Unmarshal(p[1], &w) != nil || json.Unmarshal(p[2], &h) != nil ||
			json.Unmarshal(p[3], &ow) != nil || json.Unmarshal(p[4], &oh) != nil || json.Unmarshal(p[5], &want) != nil {
			t.Fatalf("bad plane %s", p)
		}
		ramp := make([]int, w*h)
		for i := range ramp {
			ramp[i] = i
		}
		f := index(mode)
		if got := Resize2D(ramp, w, h, ow, oh, f(w, ow), f(h, oh)); !slices.Equal(got, want) {
			t.Errorf("%s %d×%d → %d×%d differs from Pillow", mode, w, h, ow, oh)
		}
	}
	t.Logf("%d axis pairs, %d planes; the rules differ on %v pairs per mode", len(got.Rows), len(got.Planes), differ)
}
