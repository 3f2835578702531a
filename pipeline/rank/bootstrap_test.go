package rank

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/rexmle/rexmle/metrics/num"
)

// quantile is the q-quantile (q in [0, 1]) of x as numpy.quantile computes
// it by default, through quantileSorted: a NaN anywhere, an empty x or q
// outside [0, 1] gives NaN; x is not modified.
func quantile(x []float64, q float64) float64 {
	if len(x) == 0 || !(q >= 0 && q <= 1) {
		return math.NaN()
	}
	for _, v := range x {
		if math.IsNaN(v) {
			return math.NaN()
		}
	}
	s := slices.Clone(x)
	slices.Sort(s)
	return quantileSorted(s, q)
}

// pythonWithScipy finds a python3 that imports numpy and scipy (Debian's
// python3-numpy/python3-scipy); the test is skipped without one.
func pythonWithScipy(t *testing.T) string {
	t.Helper()
	for _, p := range []string{"python3", "/usr/bin/python3"} {
		if exec.Command(p, "-c", "import numpy, scipy.stats").Run() == nil {
			return p
		}
	}
	t.Skip("no python3 with numpy and scipy")
	return ""
}

// refScript recomputes, from the data and the resample indices the Go code
// drew, the resampled means, scipy.stats.bootstrap's percentile interval
// (its statistic is handed the same resampled means), numpy's percentiles,
// the pairwise probability and scipy.stats.sem.
const refScript = `
import json, sys
import numpy as np
from scipy import stats
d = json.load(open(sys.argv[1]))
x = np.array(d["x"], dtype=np.float64)
idx = np.array(d["idx"], dtype=np.int64)
B = idx.shape[0]
means = x[idx].mean(axis=1)
def stat(s, axis=-1):
    if s.ndim == 2 and s.shape[0] == B:
        return means
    return np.mean(s, axis=axis)
res = stats.bootstrap((x,), stat, n_resamples=B, vectorized=True, method="percentile", confidence_level=0.95, random_state=0)
a = np.array(d["a"]); b = np.array(d["b"])
out = {
  "means": means.tolist(),
  "scipy": [float(res.confidence_interval.low), float(res.confidence_interval.high)],
  "numpy": np.percentile(means, [2.5, 97.5]).tolist(),
  "q": [float(np.quantile(np.array(d["qx"]), q)) for q in d["qs"]],
  "p_above": float(np.mean(a > b) + 0.5 * np.mean(a == b)),
  "sem_mean": float(np.mean(d["seeds"])),
  "sem": float(stats.sem(d["seeds"])),
}
json.dump(out, open(sys.argv[2], "w"))
`

func TestPercentileIntervalMatchesScipy(t *testing.T) {
	py := pythonWithScipy(t)
	gen := rand.New(rand.NewPCG(7, 11))
	x := make([]float64, 37)
	for i := range x {
		x[i] = math.Exp(gen.NormFloat64()) // skewed, as Dice/HD values are
	}
	const B = 1000
	idx := Resample(StreamRNG(42, "demo/isles22/baseline/seed-1"), len(x), B)
	means := make([]float64, B)
	buf := make([]float64, len(x))
	for k, ix := range idx {
		for i, j := range ix {
			buf[i] = x[j]
		}
		means[k] = num.Sum(buf) / float64(len(buf))
	}
	lo, hi := PercentileInterval(means, 0.95)
	qx := []float64{3, 1, 4, 1, 5, 9, 2, 6, math.Inf(1), -2.5}
	qs := []float64{0, 0.025, 0.1, 0.5, 0.77, 0.975, 1}
	a := make([]float64, 500)
	b := make([]float64, 500)
	for i := range a {
		a[i] = math.Round(gen.Float64()*10) / 10 // ties happen
		b[i] = math.Round(gen.Float64()*10) / 10
	}
	seeds := []float64{0.12, 0.31, 0.07, 0.2}

	dir := t.TempDir()
	in, _ := json.Marshal(map[string]any{"x": x, "idx": idx, "qx": []float64{3, 1, 4, 1, 5, 9, 2, 6, 1e308, -2.5}, "qs": qs, "a": a, "b": b, "seeds": seeds})
	if err := os.WriteFile(filepath.Join(dir, "in.json"), in, 0o644); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(dir, "ref.py")
	if err := os.WriteFile(script, []byte(refScript), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(py, script, filepath.Join(dir, "in.json"), filepath.Join(dir, "out.json")).CombinedOutput(); err != nil {
		t.Fatalf("reference script: %v\n%s", err, out)
	}
	var ref struct {
		Means        []float64
		Scipy, Numpy []float64
		Q            []float64
		PAbove       float64 `json:"p_above"`
		SemMean      float64 `json:"sem_mean"`
		Sem          float64
	}
	data, err := os.ReadFile(filepath.Join(dir, "out.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &ref); err != nil {
		t.Fatal(err)
	}
	for k := range means {
		if means[k] != ref.Means[k] {
			t.Fatalf("resample %d: mean %v, numpy %v", k, means[k], ref.Means[k])
		}
	}
	if lo != ref.Scipy[0] || hi != ref.Scipy[1] {
		t.Errorf("interval [%v, %v], scipy.stats.bootstrap(percentile) [%v, %v]", lo, hi, ref.Scipy[0], ref.Scipy[1])
	}
	if lo != ref.Numpy[0] || hi != ref.Numpy[1] {
		t.Errorf("interval [%v, %v], np.percentile [%v, %v]", lo, hi, ref.Numpy[0], ref.Numpy[1])
	}
	if !(lo < hi) {
		t.Errorf("degenerate interval [%v, %v]", lo, hi)
	}
	// Quantile on data with ties (1e308 stands in for +Inf in JSON: same order).
	for i, q := range qs {
		got := quantile(qx, q)
		want := ref.Q[i]
		if qx[8] == math.Inf(1) && want >= 1e307 {
			continue // the infinite end: compared below
		}
		if got != want {
			t.Errorf("quantile(%v) = %v, numpy %v", q, got, want)
		}
	}
	if got := quantile(qx, 1); !math.IsInf(got, 1) {
		t.Errorf("quantile(1) with +Inf = %v", got)
	}
	if got := ProbAbove(a, b); math.Abs(got-ref.PAbove) > 1e-12 {
		t.Errorf("ProbAbove %v, numpy %v", got, ref.PAbove)
	}
	s := Seeds(seeds, nil)
	if math.Abs(s.Mean-ref.SemMean) > 1e-15 || math.Abs(s.SE-ref.Sem) > 1e-15 {
		t.Errorf("Seeds mean %v se %v, numpy/scipy %v %v", s.Mean, s.SE, ref.SemMean, ref.Sem)
	}
}

func TestQuantileConventions(t *testing.T) {
	if !math.IsNaN(quantile(nil, 0.5)) || !math.IsNaN(quantile([]float64{1, math.NaN()}, 0.5)) || !math.IsNaN(quantile([]float64{1}, 1.5)) {
		t.Error("empty input, NaN input and q outside [0,1] must give NaN")
	}
	// h = (4−1)·0.5 = 1.5: halfway between the 2nd and 3rd sorted values.
	if got := quantile([]float64{40, 10, 30, 20}, 0.5); got != 25 {
		t.Errorf("median of 10,20,30,40 = %v", got)
	}
	x := []float64{3, 1, 2}
	quantile(x, 0.3)
	if !slices.Equal(x, []float64{3, 1, 2}) {
		t.Error("quantile modified its input")
	}
	if lo, hi := PercentileInterval([]float64{1, math.NaN()}, 0.95); !math.IsNaN(lo) || !math.IsNaN(hi) {
		t.Error("a NaN resample must give a NaN interval")
	}
}

// ProbAbove against a direct count over every resample, and its symmetry.
func TestProbAboveDirect(t *testing.T) {
	gen := rand.New(rand.NewPCG(1, 2))
	a := make([]float64, 999)
	b := make([]float64, 999)
	for i := range a {
		a[i] = float64(gen.IntN(5))
		b[i] = float64(gen.IntN(5))
	}
	a[3] = math.NaN()
	wins, ties, n := 0, 0, 0
	for k := range a {
		if math.IsNaN(a[k]) || math.IsNaN(b[k]) {
			continue
		}
		n++
		if a[k] > b[k] {
			wins++
		}
		if a[k] == b[k] {
			ties++
		}
	}
	want := (float64(wins) + float64(ties)/2) / float64(n)
	if got := ProbAbove(a, b); math.Abs(got-want) > 1e-15 {
		t.Errorf("ProbAbove = %v, direct %v", got, want)
	}
	if s := ProbAbove(a, b) + ProbAbove(b, a); math.Abs(s-1) > 1e-12 {
		t.Errorf("P(A>B) + P(B>A) = %v, want 1", s)
	}
	if !math.IsNaN(ProbAbove([]float64{math.NaN()}, []float64{1})) {
		t.Error("no comparable pair must give NaN")
	}
}

func TestRankCounts(t *testing.T) {
	// Three configurations over four resamples; ties share the better rank, NaN ranks last.
	s := [][]float64{
		{0.5, 0.2, 0.3, math.NaN()},
		{0.4, 0.2, 0.6, 0.1},
		{0.1, 0.1, 0.6, 0.2},
	}
	got := RankCounts(s)
	want := [][]int{
		{2, 0, 2}, // 1st, 1st (tie), 3rd, 3rd (NaN)
		{2, 2, 0}, // 2nd, 1st (tie), 1st (tie), 2nd
		{2, 0, 2}, // 3rd, 3rd, 1st (tie), 1st
	}
	for c := range want {
		if !slices.Equal(got[c], want[c]) {
			t.Errorf("config %d: counts %v, want %v", c, got[c], want[c])
		}
	}
	for c := range got {
		sum := 0
		for _, n := range got[c] {
			sum += n
		}
		if sum != 4 {
			t.Errorf("config %d counted %d resamples", c, sum)
		}
	}
}

func TestSeedsFailedCountZero(t *testing.T) {
	s := Seeds([]float64{0.3, 0.9, 0.5}, []bool{false, true, false})
	if s.N != 3 || s.Failed != 1 {
		t.Fatalf("%+v", s)
	}
	if math.Abs(s.Mean-0.8/3) > 1e-15 {
		t.Errorf("mean %v, want (0.3+0+0.5)/3", s.Mean)
	}
	// sample sd of {0.3, 0, 0.5} / √3
	m := 0.8 / 3
	sd := math.Sqrt(((0.3-m)*(0.3-m) + m*m + (0.5-m)*(0.5-m)) / 2)
	if math.Abs(s.SE-sd/math.Sqrt(3)) > 1e-15 {
		t.Errorf("se %v, want %v", s.SE, sd/math.Sqrt(3))
	}
	if one := Seeds([]float64{0.4}, nil); one.Mean != 0.4 || !math.IsNaN(one.SE) {
		t.Errorf("one seed: %+v", one)
	}
}

// The resamples depend only on (seed, stream), not on what was drawn before.
func TestResampleDeterministic(t *testing.T) {
	a := Resample(StreamRNG(5, "run/a"), 20, 50)
	Resample(StreamRNG(5, "run/b"), 20, 50)
	again := Resample(StreamRNG(5, "run/a"), 20, 50)
	other := Resample(StreamRNG(5, "run/b"), 20, 50)
	seed := Resample(StreamRNG(6, "run/a"), 20, 50)
	same := func(x, y [][]int) bool {
		return slices.EqualFunc(x, y, func(p, q []int) bool { return slices.Equal(p, q) })
	}
	if !same(a, again) {
		t.Error("same seed and stream gave different resamples")
	}
	if same(a, other) || same(a, seed) {
		t.Error("a different stream or seed gave the same resamples")
	}
	for _, ix := range a {
		for _, i := range ix {
			if i < 0 || i >= 20 {
				t.Fatalf("index %d out of range", i)
			}
		}
	}
	if Resample(StreamRNG(1, "x"), 0, 10) != nil {
		t.Error("no cases must give no resamples")
	}
}

// Property: the interval of a mean narrows as the number of cases grows
// (about as 1/√n): for 5 data seeds, each fourfold increase of n from 40
// to 2560 must shrink the width, and 640 cases must give under half the
// width of 40. (Below ~40 cases a lucky draw can be narrower than a larger
// one: the property holds in expectation, not for every sample.)
func TestIntervalsShrinkWithCases(t *testing.T) {
	for ds := uint64(1); ds <= 5; ds++ {
		gen := rand.New(rand.NewPCG(ds, 99))
		pop := make([]float64, 2560)
		for i := range pop {
			pop[i] = gen.Float64() * gen.Float64() // skewed in [0, 1]
		}
		var widths []float64
		for _, n := range []int{40, 160, 640, 2560} {
			x := pop[:n]
			idx := Resample(StreamRNG(ds, "shrink"), n, DefaultBoot)
			means := make([]float64, len(idx))
			buf := make([]float64, n)
			for k, ix := range idx {
				for i, j := range ix {
					buf[i] = x[j]
				}
				means[k] = num.Sum(buf) / float64(n)
			}
			lo, hi := PercentileInterval(means, DefaultConfidence)
			widths = append(widths, hi-lo)
		}
		for i := 1; i < len(widths); i++ {
			if !(widths[i] < widths[i-1]) {
				t.Errorf("data seed %d: widths %v do not shrink", ds, widths)
				break
			}
		}
		if !(widths[2] < widths[0]/2) {
			t.Errorf("data seed %d: 640 cases width %v not under half of 40 cases' %v", ds, widths[2], widths[0])
		}
	}
}

func TestJackknifeSEOfTheMean(t *testing.T) {
	// For the mean, the jackknife standard error is s/√n exactly.
	x := []float64{1, 4, 2, 8, 5, 7}
	n := float64(len(x))
	var m float64
	for _, v := range x {
		m += v
	}
	m /= n
	var ss float64
	for _, v := range x {
		ss += (v - m) * (v - m)
	}
	want := math.Sqrt(ss/(n-1)) / math.Sqrt(n)
	jack := make([]float64, len(x))
	for i := range x {
		jack[i] = (m*n - x[i]) / (n - 1)
	}
	if got := JackknifeSE(jack); math.Abs(got-want) > 1e-12 {
		t.Errorf("JackknifeSE = %v, want s/√n = %v", got, want)
	}
	if !math.IsNaN(JackknifeSE([]float64{1})) || !math.IsNaN(JackknifeSE([]float64{1, math.Inf(1)})) {
		t.Error("JackknifeSE of one value or an infinite one is not NaN")
	}
}

func TestStudentizedInterval(t *testing.T) {
	// Quantiles 0.25 / 0.75 of t = (−4, −3, 0, 1, 2) are −3 and 1: the
	// interval reflects them, [10 − 1·2, 10 + 3·2].
	lo, hi := StudentizedInterval([]float64{2, -3, 0, 1, -4}, 10, 2, 0.5)
	if lo != 8 || hi != 16 {
		t.Errorf("interval [%v, %v], want [8, 16]", lo, hi)
	}
	if lo, hi := StudentizedInterval([]float64{0, math.NaN()}, 10, 2, 0.5); !math.IsNaN(lo) || !math.IsNaN(hi) {
		t.Errorf("a NaN resample gave [%v, %v]", lo, hi)
	}
	for _, c := range []struct{ theta, est, se, want float64 }{
		{3, 3, 0, 0}, {4, 3, 0, math.Inf(1)}, {2, 3, 0, math.Inf(-1)}, {5, 3, 0.5, 4},
	} {
		if got := Studentized(c.theta, c.est, c.se); got != c.want {
			t.Errorf("Studentized(%v, %v, %v) = %v, want %v", c.theta, c.est, c.se, got, c.want)
		}
	}
	if !math.IsNaN(Studentized(math.NaN(), 1, 1)) || !math.IsNaN(Studentized(1, 0, math.NaN())) {
		t.Error("an undefined resample is not NaN")
	}
}
