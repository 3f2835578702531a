package rank

import (
	"math"
	"math/big"
	"testing"
)

func board() *Leaderboard {
	// Two metrics: dice (higher better), hd (lower better); four rows.
	return &Leaderboard{
		Metrics:       []Metric{{"dice", true}, {"hd", false}},
		Rows:          [][]float64{{0.9, 2}, {0.8, 2}, {0.8, 5}, {0.5, 9}},
		MeanPositions: []float64{1.25, 2, 2.5, 4},
	}
}

func TestPosition(t *testing.T) {
	col := []float64{0.9, 0.8, 0.8, 0.5}
	cases := []struct {
		v      float64
		higher bool
		want   int
	}{
		{0.95, true, 1}, // better than all
		{0.9, true, 1},  // tie with the best shares position 1
		{0.8, true, 2},  // tie with two rows: min method
		{0.79, true, 4}, // below the ties
		{0.1, true, 5},  // worst is N+1
		{0.1, false, 1}, // lower better
		{0.8, false, 2}, // 0.5 strictly better, ties share
		{1.0, false, 5}, // worst
	}
	for _, c := range cases {
		got, err := Position(c.v, col, c.higher)
		if err != nil || got != c.want {
			t.Errorf("Position(%v, higher=%v) = %d, %v; want %d", c.v, c.higher, got, err, c.want)
		}
	}
	if _, err := Position(math.NaN(), col, true); err == nil {
		t.Error("Position(NaN) accepted")
	}
	// ±Inf rank by order, as pandas ranks them.
	for _, c := range []struct {
		v      float64
		higher bool
		want   int
	}{{math.Inf(1), true, 1}, {math.Inf(-1), true, 5}, {math.Inf(1), false, 5}, {math.Inf(-1), false, 1}} {
		if got, err := Position(c.v, col, c.higher); err != nil || got != c.want {
			t.Errorf("Position(%v, higher=%v) = %d, %v; want %d", c.v, c.higher, got, err, c.want)
		}
	}
}

func TestRank(t *testing.T) {
	lb := board()
	r := Rank(lb, map[string]float64{"dice": 0.8, "hd": 3})
	// dice 0.8 → 2 (one row strictly better); hd 3 → 3 (two rows with 2)
	if r.Status != OK || r.Positions["dice"] != 2 || r.Positions["hd"] != 3 {
		t.Fatalf("got %+v", r)
	}
	if r.MeanRank != 2.5 || r.Percentile != 1-(2.5-1)/4.0 {
		t.Fatalf("mean rank %v percentile %v", r.MeanRank, r.Percentile)
	}
	if got := FormatPercent(r.ExactPercent(), 1); got != "62.5%" {
		t.Errorf("percent = %s", got)
	}
	// worst everywhere → percentile 0
	w := Rank(lb, map[string]float64{"dice": 0, "hd": 100})
	if w.MeanRank != 5 || w.Percentile != 0 {
		t.Errorf("worst: %+v", w)
	}
	// best everywhere → 1
	b := Rank(lb, map[string]float64{"dice": 1, "hd": 0})
	if b.Percentile != 1 || !b.Medal.Gold {
		t.Errorf("best: %+v", b)
	}
}

func TestRankFail(t *testing.T) {
	lb := board()
	for name, vals := range map[string]map[string]float64{
		"missing": {"dice": 0.9},
		"nan":     {"dice": math.NaN(), "hd": 1},
	} {
		r := Rank(lb, vals)
		if r.Status != Fail || r.Percentile != 0 || r.Reason == "" {
			t.Errorf("%s: %+v", name, r)
		}
	}
}

func TestHalfUpPrinting(t *testing.T) {
	// S14 R&D-Agent: percentile 0.5625 exactly prints 56.3% (Python %.1f gives 56.2%).
	r := Result{Status: OK, PosSum: 9, K: 2, N: 8} // mean 4.5 → 1 − 3.5/8 = 0.5625
	if got := FormatPercent(r.ExactPercent(), 1); got != "56.3%" {
		t.Errorf("got %s, want 56.3%%", got)
	}
	if got := FormatPercent(r.ExactPercent(), 0); got != "56%" {
		t.Errorf("got %s, want 56%%", got)
	}
	if got := FormatPercent(big.NewRat(75, 2), 0); got != "38%" { // 37.5 → 38
		t.Errorf("got %s, want 38%%", got)
	}
}

func TestMedals(t *testing.T) {
	lb := &Leaderboard{Metrics: []Metric{{"x", true}}, Rows: [][]float64{{1}, {1}, {1}, {1}, {1}, {1}},
		MeanPositions: []float64{1.33, 1.67, 2, 3, 4, 5}}
	// Exact 4/3 = 1.33333 is above the stored 1.33: silver, not gold (the reference's behaviour).
	m := lb.Medals(4.0 / 3)
	if m.Gold || !m.Silver || m.Bronze || !m.AboveMedian {
		t.Errorf("4/3: %+v", m)
	}
	// median row is index N/2 = 3 → threshold 3
	if m := lb.Medals(3); m.Gold || m.Silver || m.Bronze || !m.AboveMedian {
		t.Errorf("3: %+v", m)
	}
	if m := lb.Medals(3.5); m.AboveMedian {
		t.Errorf("3.5: %+v", m)
	}
}

func TestOverall(t *testing.T) {
	got := Overall(map[string]float64{"a": 0.5, "b": 0.25}, 4) // two failed challenges count 0
	if got != 0.1875 {
		t.Errorf("Overall = %v", got)
	}
	if !math.IsNaN(Overall(nil, 0)) {
		t.Error("no challenges must give NaN")
	}
}

func TestPercentileRange(t *testing.T) {
	// 2 metrics, N=10, primary at position 3, other unknown in [1, 11]
	lo, hi := PercentileRange([]int{3}, 2, 10)
	if math.Abs(lo-(1-(7.0-1)/10)) > 1e-12 || math.Abs(hi-(1-(2.0-1)/10)) > 1e-12 {
		t.Errorf("range %v..%v", lo, hi)
	}
}

// Property: the position never decreases as the value gets worse.
func TestPositionMonotone(t *testing.T) {
	col := []float64{0.1, 0.4, 0.4, 0.7, 0.9}
	prev := 0
	for v := 1.0; v >= 0; v -= 0.01 {
		p, _ := Position(v, col, true)
		if p < prev {
			t.Fatalf("position fell from %d to %d at %v", prev, p, v)
		}
		prev = p
	}
}
