package num

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/rexmle/rexmle/metrics/internal/pythontest"
)

// TestSumChunksLikeNumpy: beyond one 8192-element chunk numpy's sum is the
// chunked pairwise sum, not one pairwise tree (they differ in the last bits
// on this data); where python3 has numpy, Sum and Mean equal np.sum/np.mean
// bit for bit on float64 and float32 arrays of several lengths.
func TestSumChunksLikeNumpy(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	x := make([]float64, 100_003)
	for i := range x {
		x[i] = r.NormFloat64() * 1e3
	}
	if Sum(x) != ChunkedPairwiseSum(x, NumpyBuffer) {
		t.Fatal("Sum is not the chunked pairwise sum")
	}
	if Sum(x) == PairwiseSum(x) {
		t.Log("chunked and unchunked sums agree on this data (the check below still runs)")
	}
	py, err := exec.LookPath("/usr/bin/python3")
	if err != nil {
		t.Skip("no /usr/bin/python3")
	}
	if exec.Command(py, "-c", "import numpy").Run() != nil {
		t.Skip("python3 has no numpy")
	}
	for _, n := range []int{7, 129, 8192, 8193, 20_000, 100_003} {
		v := x[:n]
		var buf bytes.Buffer
		binary.Write(&buf, binary.LittleEndian, v)
		script := `import sys, numpy as np
a = np.frombuffer(sys.stdin.buffer.read(), dtype='<f8')
f = a.astype(np.float32)
print(repr(float(np.sum(a))), repr(float(np.mean(a))), repr(float(np.sum(f))))`
		cmd := exec.Command(py, "-c", script)
		cmd.Stdin = &buf
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("numpy: %v", err)
		}
		f := strings.Fields(string(out))
		want := make([]float64, 3)
		for i := range want {
			if want[i], err = strconv.ParseFloat(f[i], 64); err != nil {
				t.Fatal(err)
			}
		}
		v32 := make([]float32, n)
		for i, e := range v {
			v32[i] = float32(e)
		}
		got := []float64{Sum(v), Mean(v), float64(Sum(v32))}
		for i, name := range []string{"sum", "mean", "float32 sum"} {
			if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
				t.Errorf("n=%d: %s %v, numpy %v", n, name, got[i], want[i])
			}
		}
	}
}

// TestNaNMean: hand cases, and where python3 has pandas, NaNMean equals
// numpy.nanmean and pandas' Series.mean bit for bit on long arrays with NaNs
// (their sum is chunked and pairwise with the NaNs as zeros).
func TestNaNMean(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	for _, c := range []struct {
		x    []float64
		want float64
	}{
		{[]float64{1, nan, 2}, 1.5},
		{[]float64{nan, 4}, 4},
		{[]float64{3}, 3},
		{[]float64{nan, nan}, nan},
		{nil, nan},
		{[]float64{inf, nan, 1}, inf},
		{[]float64{inf, -inf}, nan},
	} {
		got := NaNMean(c.x)
		if !(got == c.want || math.IsNaN(got) && math.IsNaN(c.want)) {
			t.Errorf("NaNMean(%v) = %v, want %v", c.x, got, c.want)
		}
	}
	x := []float64{1, nan, 2}
	NaNMean(x)
	if !math.IsNaN(x[1]) {
		t.Errorf("NaNMean changed its input: %v", x)
	}
	py := pythontest.Find(t, "pandas")
	r := rand.New(rand.NewPCG(2, 3))
	for _, n := range []int{5, 8193, 30_001} {
		v := make([]float64, n)
		for i := range v {
			v[i] = r.NormFloat64() * 1e3
			if r.IntN(7) == 0 {
				v[i] = nan
			}
		}
		var buf bytes.Buffer
		binary.Write(&buf, binary.LittleEndian, v)
		script := `import sys, numpy as np, pandas as pd
a = np.frombuffer(sys.stdin.buffer.read(), dtype='<f8')
print(repr(float(np.nanmean(a))), repr(float(pd.Series(a).mean())))`
		cmd := exec.Command(py, "-c", script)
		cmd.Stdin = &buf
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("numpy: %v", err)
		}
		got := NaNMean(v)
		for i, f := range strings.Fields(string(out)) {
			want, err := strconv.ParseFloat(f, 64)
			if err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Errorf("n=%d: NaNMean %v, %s %v", n, got, []string{"np.nanmean", "Series.mean"}[i], want)
			}
		}
	}
}
