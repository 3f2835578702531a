package resample

import (
	"encoding/json"
	"os/exec"
	"testing"

	"github.com/rexmle/rexmle/metrics/internal/pythontest"
)

// zoomScript prints, for every pair of axis lengths 1 ≤ n, m ≤ 96, what
// scipy.ndimage.zoom(order=0) makes of 1, 2, …, n zoomed by m/n (as the
// reference graders call it: factor gt/pred, output length round(n·m/n)).
const zoomScript = `
import json
import numpy as np
from scipy.ndimage import zoom
out = []
for n in range(1, 97):
    src = np.arange(1, n + 1, dtype=np.int32)
    for m in range(1, 97):
        z = zoom(src, [m / n], order=0)
        out.append([n, m, z.tolist()])
print(json.dumps(out))
`

// TestZoomAgainstSciPy compares Zoom with scipy itself on every axis-length
// pair up to 96 (skipped without a python3 with scipy).
func TestZoomAgainstSciPy(t *testing.T) {
	py := pythontest.Find(t, "scipy")
	raw, err := exec.Command(py, "-c", zoomScript).Output()
	if err != nil {
		t.Fatalf("python: %v", err)
	}
	var cases [][3]json.RawMessage
	if err := json.Unmarshal(raw, &cases); err != nil {
		t.Fatal(err)
	}
	edges := 0
	for _, c := range cases {
		var n, m int
		var want []int32
		if json.Unmarshal(c[0], &n) != nil || json.Unmarshal(c[1], &m) != nil || json.Unmarshal(c[2], &want) != nil {
			t.Fatalf("bad case %s", c)
		}
		src := make([]int32, n)
		for i := range src {
			src[i] = int32(i + 1)
		}
		if len(want) != m {
			t.Fatalf("scipy zoomed %d to %d samples, not %d", n, len(want), m)
		}
		got, err := Zoom(src, [3]int{n, 1, 1}, [3]int{m, 1, 1})
		if err != nil {
			t.Fatal(err)
		}
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("%d → %d: sample %d = %d, scipy %d", n, m, i, got[i], want[i])
				break
			}
		}
		if want[m-1] == 0 {
			edges++
		}
	}
	if edges == 0 {
		t.Errorf("no pair reached past the last sample; the check would not see a clamp")
	}
	t.Logf("%d pairs, %d of them end past the input", len(cases), edges)
}
