package num

import (
	"math"
	"math/rand/v2"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/rexmle/rexmle/metrics/internal/pythontest"
)

func TestLog10Hand(t *testing.T) {
	for x, want := range map[float64]float64{1: 0, 10: 1, 100: 2, 1e-5: -5, 1e22: 22, 0: math.Inf(-1), math.Inf(1): math.Inf(1)} {
		if got := Log10(x); got != want {
			t.Errorf("Log10(%v) = %v, want %v", x, got, want)
		}
	}
	for _, x := range []float64{-1, math.NaN(), math.Inf(-1)} {
		if got := Log10(x); !math.IsNaN(got) {
			t.Errorf("Log10(%v) = %v, want NaN", x, got)
		}
	}
	// Subnormal, near-1 and extreme inputs: CPython's math.log10 (glibc).
	for x, want := range map[float64]float64{5e-324: -323.3062153431158, 1e-310: -310, 1.000000000000001: 4.821637332766433e-16,
		0.9999999999999999: -4.8216373327664354e-17, 0.5: -0.3010299956639812, 2: 0.3010299956639812, math.MaxFloat64: 308.25471555991675} {
		if got := Log10(x); got != want {
			t.Errorf("Log10(%v) = %v, glibc %v", x, got, want)
		}
	}
}

// TestLog10Numpy: numpy.log10 on 4000 float64s spread over many magnitudes
// (PSNR's argument R²/MSE among them), bit for bit.
func TestLog10Numpy(t *testing.T) {
	py := pythontest.Find(t, "numpy")
	r := rand.New(rand.NewPCG(35, 10))
	xs := make([]float64, 4000)
	var in strings.Builder
	for i := range xs {
		xs[i] = math.Exp(r.Float64()*200 - 100)
		if i%2 == 0 {
			xs[i] = 1 + r.Float64()*1e6
		}
		in.WriteString(strconv.FormatFloat(xs[i], 'x', -1, 64) + "\n")
	}
	cmd := exec.Command(py, "-c", `import sys, numpy as np
x = np.array([float.fromhex(l) for l in sys.stdin.read().split()])
print("\n".join(float(v).hex() for v in np.log10(x)))`)
	cmd.Stdin = strings.NewReader(in.String())
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Fields(string(out))
	if len(lines) != len(xs) {
		t.Fatalf("numpy gave %d values for %d", len(lines), len(xs))
	}
	bad, goBad := 0, 0
	for i, l := range lines {
		want, err := strconv.ParseFloat(l, 64)
		if err != nil {
			t.Fatal(err)
		}
		if got := Log10(xs[i]); got != want {
			if bad < 5 {
				t.Errorf("Log10(%v) = %v, numpy %v", xs[i], got, want)
			}
			bad++
		}
		if math.Log10(xs[i]) != want {
			goBad++
		}
	}
	t.Logf("%d of %d differ from numpy (Go's math.Log10: %d)", bad, len(xs), goBad)
}
