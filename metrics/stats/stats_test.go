package stats

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func near(a, b, tol float64) bool {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.IsNaN(a) && math.IsNaN(b)
	}
	return math.Abs(a-b) <= tol
}

// Hand-derived vectors (spec ldct-iqa §7 L1–L3 plus extra tie cases).
func TestCorrelationsHandValues(t *testing.T) {
	cases := []struct {
		name                 string
		x, y                 []float64
		pearson, spear, tauB float64
	}{
		// L1: Σdxdy = 8, Σdx² = Σdy² = 10 → 0.8; ranks equal values → 0.8; C=8, D=2 → 6/10.
		{"L1", []float64{1, 2, 3, 4, 5}, []float64{2, 1, 4, 3, 5}, 0.8, 0.8, 0.6},
		// L2: x̄=7/4, ȳ=9/4; Σdxdy=9/4·… → 9/11; ranks (1.5,1.5,3,4) vs (1,2,3.5,3.5) → 8/9;
		// n0=6, nx=1, ny=1, nxy=0, nd=0 → 4/sqrt(5·5) = 0.8.
		{"L2", []float64{1, 1, 2, 3}, []float64{1, 2, 3, 3}, 9.0 / 11, 8.0 / 9, 0.8},
		{"L3", []float64{5, 4, 3, 2, 1}, []float64{1, 2, 3, 4, 5}, -1, -1, -1},
		// Ties in both at the same pair: x=(1,1,2), y=(3,3,4): n0=3, nx=ny=nxy=1,
		// nd=0 → (3−1−1+1)/sqrt(2·2) = 1. Pearson 1, Spearman 1.
		{"joint-tie", []float64{1, 1, 2}, []float64{3, 3, 4}, 1, 1, 1},
		// x=(1,2,3,4), y=(1,1,1,2): n0=6, nx=0, ny=3, nd=0 → (6−3)/sqrt(6·3) = 3/sqrt(18).
		// Pearson: dx=(−1.5,−.5,.5,1.5), dy=(−.25,−.25,−.25,.75): Σ=1.5, Σdx²=5, Σdy²=.75 → 1.5/sqrt(3.75).
		// Spearman: ranks y=(2,2,2,4) → dy=(−.5,−.5,−.5,1.5): Σ=3, Σdy²=3 → 3/sqrt(15).
		{"y-ties", []float64{1, 2, 3, 4}, []float64{1, 1, 1, 2}, 1.5 / math.Sqrt(3.75), 3 / math.Sqrt(15), 3 / math.Sqrt(18)},
		// n=2: sign product.
		{"two", []float64{3, 1}, []float64{0, 5}, -1, -1, -1},
		{"constant-x", []float64{0, 0, 0}, []float64{1, 2, 3}, math.NaN(), math.NaN(), math.NaN()},
		{"constant-y", []float64{1, 2, 3}, []float64{7, 7, 7}, math.NaN(), math.NaN(), math.NaN()},
		{"nan", []float64{1, math.NaN(), 3}, []float64{1, 2, 3}, math.NaN(), math.NaN(), math.NaN()},
	}
	for _, c := range cases {
		p, err := Pearson(c.x, c.y)
		if err != nil || !near(p, c.pearson, 1e-14) {
			t.Errorf("%s: Pearson = %v, %v; want %v", c.name, p, err, c.pearson)
		}
		s, err := Spearman(c.x, c.y)
		if err != nil || !near(s, c.spear, 1e-14) {
			t.Errorf("%s: Spearman = %v, %v; want %v", c.name, s, err, c.spear)
		}
		k, err := KendallTauB(c.x, c.y)
		if err != nil || !near(k, c.tauB, 1e-14) {
			t.Errorf("%s: KendallTauB = %v, %v; want %v", c.name, k, err, c.tauB)
		}
	}
}

func TestCorrelationErrors(t *testing.T) {
	if _, err := Pearson([]float64{1}, []float64{1}); err == nil {
		t.Error("Pearson accepted one value")
	}
	if _, err := Spearman([]float64{1, 2}, []float64{1}); err == nil {
		t.Error("Spearman accepted unequal lengths")
	}
	if _, err := KendallTauB(nil, nil); err == nil {
		t.Error("KendallTauB accepted empty input")
	}
}

func TestRankAverage(t *testing.T) {
	got := RankAverage([]float64{10, 20, 10, 30, 20, 20})
	want := []float64{1.5, 4, 1.5, 6, 4, 4}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("RankAverage = %v, want %v", got, want)
		}
	}
}

// Property: the O(n log n) tau-b equals the O(n²) definition on random data
// with many ties.
func TestKendallMatchesNaive(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 200; trial++ {
		n := 2 + r.IntN(40)
		x := make([]float64, n)
		y := make([]float64, n)
		for i := range x {
			x[i] = float64(r.IntN(5))
			y[i] = float64(r.IntN(6))
		}
		var c, d, tx, ty int
		for i := 0; i < n; i++ {
			for j := i + 1; j < n; j++ {
				dx, dy := x[i]-x[j], y[i]-y[j]
				switch {
				case dx == 0 && dy == 0:
					tx++
					ty++
				case dx == 0:
					tx++
				case dy == 0:
					ty++
				case dx*dy > 0:
					c++
				default:
					d++
				}
			}
		}
		n0 := n * (n - 1) / 2
		want := math.NaN()
		if tx != n0 && ty != n0 {
			want = float64(c-d) / math.Sqrt(float64(n0-tx)*float64(n0-ty))
		}
		got, err := KendallTauB(x, y)
		if err != nil || !near(got, want, 1e-12) {
			t.Fatalf("trial %d: tau-b %v, naive %v (x=%v y=%v)", trial, got, want, x, y)
		}
	}
}

func TestClassification(t *testing.T) {
	yt := []int{0, 0, 1, 1, 2, 2}
	yp := []int{0, 1, 1, 1, 0, 3}
	// recalls: class0 1/2, class1 2/2, class2 0/2; class 3 absent from truth → (0.5+1+0)/3.
	ba, _ := BalancedAccuracy(yt, yp)
	if !near(ba, 0.5, 1e-15) {
		t.Errorf("balanced accuracy %v, want 0.5", ba)
	}
	if l := Labels(yt, yp); !slices.Equal(l, []int{0, 1, 2, 3}) {
		t.Errorf("labels %v, want the sorted union [0 1 2 3]", l)
	}
	if _, err := BalancedAccuracy([]int{1}, []int{}); err == nil {
		t.Error("accepted unequal lengths")
	}
	if _, err := BalancedAccuracy([]int{}, []int{}); err == nil {
		t.Error("accepted no labels")
	}
}

// Property: RankAverage equals its definition — a value's rank is the
// number of values before it plus the mean position among its equals —
// with NaN after every number and NaNs equal to each other.
func TestRankAverageMatchesDefinition(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for trial := 0; trial < 300; trial++ {
		n := r.IntN(50)
		x := make([]float64, n)
		for i := range x {
			switch r.IntN(8) {
			case 0:
				x[i] = math.NaN()
			case 1:
				x[i] = math.Copysign(0, -1)
			default:
				x[i] = float64(r.IntN(7))
			}
		}
		got := RankAverage(x)
		for i, v := range x {
			var before, equal int
			for _, u := range x {
				switch {
				case math.IsNaN(v) && math.IsNaN(u), u == v:
					equal++
				case !math.IsNaN(u) && (math.IsNaN(v) || u < v):
					before++
				}
			}
			if want := float64(before) + float64(equal+1)/2; got[i] != want {
				t.Fatalf("trial %d: rank of x[%d] = %v is %v, want %v (x=%v)", trial, i, v, got[i], want, x)
			}
		}
	}
}

// Property: countInversions counts strict inversions of any length and
// leaves its input sorted, equal values in their input order.
func TestCountInversions(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for trial := 0; trial < 300; trial++ {
		a := make([]valueAt, r.IntN(70))
		for i := range a {
			a[i] = valueAt{float64(r.IntN(9)), i}
		}
		var want int64
		for i := range a {
			for j := i + 1; j < len(a); j++ {
				if a[i].v > a[j].v {
					want++
				}
			}
		}
		got := countInversions(a)
		stable := slices.IsSortedFunc(a, func(p, q valueAt) int {
			if c := cmp.Compare(p.v, q.v); c != 0 {
				return c
			}
			return cmp.Compare(p.i, q.i)
		})
		if got != want || !stable {
			t.Fatalf("trial %d: %d inversions (want %d), sorted stably %v", trial, got, want, stable)
		}
	}
}

// Property: Spearman's rho from RankCorrelations is numpy's corrcoef of
// RankAverage's ranks, bit for bit, on data with ties.
func TestRankCorrelationsSpearmanIsCorrcoefOfRanks(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for trial := 0; trial < 300; trial++ {
		n := 2 + r.IntN(60)
		x, y := make([]float64, n), make([]float64, n)
		for i := range x {
			x[i] = float64(r.IntN(1 + r.IntN(12)))
			y[i] = math.Round(r.NormFloat64()*10) / 4
		}
		want := corrcoef(RankAverage(x), RankAverage(y))
		got, _, err := RankCorrelations(x, y)
		if err != nil || math.Float64bits(got) != math.Float64bits(want) && !(math.IsNaN(got) && math.IsNaN(want)) {
			t.Fatalf("trial %d: rho %v, corrcoef of ranks %v (%v)", trial, got, want, err)
		}
	}
}

// Spearman takes numpy corrcoef's order of operations, not Pearson's:
// ranks (1 2 3 4 5) and (2 1 4 3 5) have Σdxdy = 8 and Σdx² = Σdy² = 10,
// so (8·¼)/√(10·¼)/√(10·¼) = 2/1.5811388300841898/1.5811388300841898,
// which rounds to 0.7999999999999999 (scipy 1.10 prints the same), where
// 8/√(10·10) is 0.8; two values give 0.5/0.7071067811865476 =
// 0.7071067811865475, then / 0.7071067811865476 = 0.9999999999999999, as
// scipy's spearmanr([1, 2], [1, 2]) (the last case is scipy's too).
func TestSpearmanTakesCorrcoefArithmetic(t *testing.T) {
	for _, c := range []struct {
		x, y []float64
		want float64
	}{
		{[]float64{1, 2, 3, 4, 5}, []float64{2, 1, 4, 3, 5}, 0.7999999999999999},
		{[]float64{1, 2}, []float64{1, 2}, 0.9999999999999999},
		{[]float64{1, 2}, []float64{2, 1}, -0.9999999999999999},
		{[]float64{3, 1, 2, 2}, []float64{1, 2, 2, 9}, -0.5000000000000001},
	} {
		got, err := Spearman(c.x, c.y)
		if err != nil || got != c.want {
			t.Errorf("Spearman(%v, %v) = %.17g, %v; want %.17g", c.x, c.y, got, err, c.want)
		}
	}
}
