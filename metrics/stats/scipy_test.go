package stats

import (
	"encoding/json"
	"math"
	"os/exec"
	"testing"

	"github.com/rexmle/rexmle/metrics/internal/pythontest"
)

const scipyScript = `
import json, numpy as np
from scipy.stats import pearsonr, spearmanr, kendalltau
rs = np.random.RandomState(11)
out = []
for n in [2, 3, 4, 5, 17, 60, 300, 1000]:
    for ties in (False, True):
        x = rs.randint(0, 6, n).astype(float) if ties else rs.rand(n)
        y = x * 0.5 + (rs.randint(0, 4, n) if ties else rs.rand(n))
        if (x == x[0]).all() or (y == y[0]).all():
            continue
        out.append(dict(x=x.tolist(), y=y.tolist(), p=float(pearsonr(x, y)[0]),
            s=float(spearmanr(x, y)[0]), k=float(kendalltau(x, y)[0])))
print(json.dumps(out))
`

// TestAgainstSciPy compares with scipy.stats on random data, with and
// without ties (skipped when no python3 with scipy is installed).
func TestAgainstSciPy(t *testing.T) {
	py := pythontest.Find(t, "scipy")
	raw, err := exec.Command(py, "-c", scipyScript).Output()
	if err != nil {
		t.Fatalf("python: %v", err)
	}
	var cases []struct {
		X, Y    []float64
		P, S, K float64
	}
	if err := json.Unmarshal(raw, &cases); err != nil {
		t.Fatal(err)
	}
	if len(cases) < 8 {
		t.Fatalf("only %d cases", len(cases))
	}
	for i, c := range cases {
		p, _ := Pearson(c.X, c.Y)
		s, _ := Spearman(c.X, c.Y)
		k, _ := KendallTauB(c.X, c.Y)
		for _, v := range []struct {
			name      string
			got, want float64
		}{{"pearson", p, c.P}, {"spearman", s, c.S}, {"kendall", k, c.K}} {
			// Spearman follows numpy's corrcoef bit for bit (exact sums of
			// ranks); Pearson and Kendall are within 1e-14.
			if v.name == "spearman" && math.Float64bits(v.got) != math.Float64bits(v.want) || math.Abs(v.got-v.want) > 1e-14 {
				t.Errorf("case %d (n=%d): %s %.17g, scipy %.17g", i, len(c.X), v.name, v.got, v.want)
			}
		}
	}
}
