package rank

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Hand-computed: d = (1, 2, 3) all positive: r+ = 6, the largest of 2³
// equally likely sign patterns, P = 1/8 exactly.
func TestWilcoxonExactByHand(t *testing.T) {
	r, err := WilcoxonGreater([]float64{2, 3, 4}, []float64{1, 1, 1})
	if err != nil || r.Method != WilcoxonExact || r.Statistic != 6 || r.P != 0.125 {
		t.Fatalf("%+v %v", r, err)
	}
	// d = (−1, 2, 3): r+ = 5; P(R+ ≥ 5) = 2/8 ({1,2,3}, {2,3}).
	r, _ = WilcoxonGreater([]float64{0, 3, 4}, []float64{1, 1, 1})
	if r.Statistic != 5 || r.P != 0.25 {
		t.Fatalf("%+v", r)
	}
	// A zero difference switches to the approximation, which drops it:
	// d = (0, 1, 2, 3) → n = 3, r+ = 6, mean 3, var 3·4·7/24 = 3.5.
	r, _ = WilcoxonGreater([]float64{1, 2, 3, 4}, []float64{1, 1, 1, 1})
	want := 0.5 * math.Erfc((6-3)/math.Sqrt(3.5)/math.Sqrt2)
	if r.Method != WilcoxonApprox || r.NZero != 1 || math.Abs(r.P-want) > 1e-15 {
		t.Fatalf("%+v, want P %v", r, want)
	}
	if _, err := WilcoxonGreater([]float64{1, 1}, []float64{1, 1}); err == nil {
		t.Error("all-zero differences accepted")
	}
	if _, err := WilcoxonGreater([]float64{1, math.NaN()}, []float64{0, 0}); err == nil {
		t.Error("NaN accepted")
	}
	if _, err := WilcoxonGreater([]float64{1}, []float64{0, 0}); err == nil {
		t.Error("unpaired samples accepted")
	}
}

// Hand-computed Holm: p = (0.01, 0.04, 0.03, 0.005), m = 4: sorted
// 0.005·4 = 0.02, 0.01·3 = 0.03, 0.03·2 = 0.06, 0.04·1 = 0.04 → running
// maximum 0.02, 0.03, 0.06, 0.06.
func TestHolmByHand(t *testing.T) {
	got := Holm([]float64{0.01, 0.04, 0.03, 0.005, math.NaN()})
	want := []float64{0.03, 0.06, 0.06, 0.02}
	for i, w := range want {
		if math.Abs(got[i]-w) > 1e-15 {
			t.Errorf("holm[%d] = %v, want %v", i, got[i], w)
		}
	}
	if !math.IsNaN(got[4]) {
		t.Errorf("NaN p adjusted to %v", got[4])
	}
	if g := Holm([]float64{0.6, 0.7}); g[0] != 1 || g[1] != 1 {
		t.Errorf("not clipped at 1: %v", g)
	}
}

// wilcoxonScript runs scipy.stats.wilcoxon(x, y, alternative="greater")
// with its defaults on every generated sample, and Holm's adjustment with
// statsmodels where installed (else an empty list).
const wilcoxonScript = `
import json, sys, warnings
import numpy as np
from scipy import stats
warnings.simplefilter("ignore")
d = json.load(open(sys.argv[1]))
out = {"p": [], "stat": [], "holm": []}
for x, y in d["pairs"]:
    r = stats.wilcoxon(np.array(x), np.array(y), alternative="greater")
    out["stat"].append(float(r.statistic)); out["p"].append(float(r.pvalue))
try:
    from statsmodels.stats.multitest import multipletests
    out["holm"] = multipletests(np.array(d["holm"]), method="holm")[1].tolist()
except ImportError:
    pass
json.dump(out, open(sys.argv[2], "w"))
`

// TestWilcoxonMatchesScipy checks the test against Debian's scipy (1.10.1)
// on generated samples: exact (n ≤ 50, no zeros, with and without ties),
// approximate (n > 50; zeros; ties), and Holm against statsmodels.
func TestWilcoxonMatchesScipy(t *testing.T) {
	py := pythonWithScipy(t)
	gen := rand.New(rand.NewPCG(33, 1))
	var pairs [][2][]float64
	for _, n := range []int{1, 2, 5, 9, 10, 20, 30, 50, 51, 80, 200} {
		for variant := 0; variant < 3; variant++ {
			x := make([]float64, n)
			y := make([]float64, n)
			for i := range x {
				x[i] = gen.NormFloat64() + 0.3
				y[i] = gen.NormFloat64()
				switch variant {
				case 1: // ties among |d| (and some zeros)
					x[i] = math.Round(x[i] * 2)
					y[i] = math.Round(y[i] * 2)
				case 2: // ties, no zeros
					x[i] = y[i] + float64(1+gen.IntN(3))*float64(1-2*gen.IntN(2))
				}
			}
			if variant == 1 && allEqual(x, y) {
				continue
			}
			pairs = append(pairs, [2][]float64{x, y})
		}
	}
	holmIn := make([]float64, 40)
	for i := range holmIn {
		holmIn[i] = math.Pow(gen.Float64(), 3)
	}
	dir := t.TempDir()
	in, _ := json.Marshal(map[string]any{"pairs": pairs, "holm": holmIn})
	if err := os.WriteFile(filepath.Join(dir, "in.json"), in, 0o644); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(dir, "ref.py")
	if err := os.WriteFile(script, []byte(wilcoxonScript), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(py, script, filepath.Join(dir, "in.json"), filepath.Join(dir, "out.json")).CombinedOutput(); err != nil {
		t.Fatalf("reference script: %v\n%s", err, out)
	}
	var ref struct{ P, Stat, Holm []float64 }
	b, _ := os.ReadFile(filepath.Join(dir, "out.json"))
	if err := json.Unmarshal(b, &ref); err != nil {
		t.Fatal(err)
	}
	methods := map[string]int{}
	for i, p := range pairs {
		r, err := WilcoxonGreater(p[0], p[1])
		if err != nil {
			t.Fatalf("pair %d: %v", i, err)
		}
		methods[r.Method]++
		if r.Statistic != ref.Stat[i] || math.Abs(r.P-ref.P[i]) > 1e-12*math.Max(1, ref.P[i]) {
			t.Errorf("n=%d (%s, %d zeros): r+ %v P %v; scipy %v %v", r.N, r.Method, r.NZero, r.Statistic, r.P, ref.Stat[i], ref.P[i])
		}
	}
	if methods[WilcoxonExact] < 10 || methods[WilcoxonApprox] < 10 {
		t.Errorf("methods exercised: %v", methods)
	}
	if len(ref.Holm) == 0 {
		t.Log("statsmodels not installed: Holm checked by hand only (TestHolmByHand)")
		return
	}
	for i, p := range Holm(holmIn) {
		if math.Abs(p-ref.Holm[i]) > 1e-15 {
			t.Errorf("holm[%d] %v, statsmodels %v", i, p, ref.Holm[i])
		}
	}
}

func allEqual(x, y []float64) bool {
	for i := range x {
		if x[i] != y[i] {
			return false
		}
	}
	return true
}
