package assign

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// bruteForce returns the optimal total over all injective maps of the
// smaller side into the larger.
func bruteForce(nr, nc int, cost []float64, maximize bool) float64 {
	best := math.Inf(1)
	if maximize {
		best = math.Inf(-1)
	}
	if nr == 0 || nc == 0 {
		return 0
	}
	tall := nr > nc
	small, large := nr, nc
	if tall {
		small, large = nc, nr
	}
	used := make([]bool, large)
	var rec func(k int, acc float64)
	rec = func(k int, acc float64) {
		if k == small {
			if (!maximize && acc < best) || (maximize && acc > best) {
				best = acc
			}
			return
		}
		for l := 0; l < large; l++ {
			if used[l] {
				continue
			}
			used[l] = true
			c := cost[k*nc+l]
			if tall {
				c = cost[l*nc+k]
			}
			rec(k+1, acc+c)
			used[l] = false
		}
	}
	rec(0, 0)
	return best
}

func TestSolveMatchesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 600; trial++ {
		nr, nc := 1+rng.IntN(5), 1+rng.IntN(5)
		cost := make([]float64, nr*nc)
		for i := range cost {
			if trial%2 == 0 {
				cost[i] = float64(rng.IntN(3)) // many ties
			} else {
				cost[i] = rng.Float64()*10 - 5
			}
		}
		maximize := trial%3 == 0
		rows, cols, err := Solve(nr, nc, cost, maximize)
		if err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		if len(rows) != min(nr, nc) || len(cols) != len(rows) {
			t.Fatalf("trial %d: %d pairs, want %d", trial, len(rows), min(nr, nc))
		}
		if !slices.IsSorted(rows) {
			t.Errorf("trial %d: rows not ascending: %v", trial, rows)
		}
		seenR, seenC := map[int]bool{}, map[int]bool{}
		total := 0.0
		for k := range rows {
			if seenR[rows[k]] || seenC[cols[k]] {
				t.Fatalf("trial %d: not one-to-one: %v %v", trial, rows, cols)
			}
			seenR[rows[k]], seenC[cols[k]] = true, true
			total += cost[rows[k]*nc+cols[k]]
		}
		want := bruteForce(nr, nc, cost, maximize)
		if math.Abs(total-want) > 1e-9 {
			t.Errorf("trial %d (%dx%d max=%v): total %v, brute force %v", trial, nr, nc, maximize, total, want)
		}
	}
}

// The expected pairs below were traced by hand through scipy's algorithm
// (reverse-order column scan, ties resolved towards unassigned columns).
func TestSolveTieChoices(t *testing.T) {
	inf := math.Inf(1)
	cases := []struct {
		name       string
		nr, nc     int
		cost       []float64
		maximize   bool
		rows, cols []int
	}{
		{"constant square gives identity", 3, 3, []float64{0, 0, 0, 0, 0, 0, 0, 0, 0}, false, []int{0, 1, 2}, []int{0, 1, 2}},
		{"constant wide", 2, 3, []float64{7, 7, 7, 7, 7, 7}, false, []int{0, 1}, []int{0, 1}},
		{"constant tall", 3, 2, []float64{1, 1, 1, 1, 1, 1}, false, []int{0, 1}, []int{0, 1}},
		{"single row lowest tied column", 1, 3, []float64{5, 0, 0}, false, []int{0}, []int{1}},
		{"two optimal totals, augmenting keeps diagonal", 2, 2, []float64{0, 1, 0, 1}, false, []int{0, 1}, []int{0, 1}},
		{"forbidden pair", 2, 2, []float64{inf, 1, 1, inf}, false, []int{0, 1}, []int{1, 0}},
		{"maximize", 2, 2, []float64{1, 2, 3, 1}, true, []int{0, 1}, []int{1, 0}},
		{"tall picks best rows", 3, 1, []float64{3, 1, 2}, false, []int{1}, []int{0}},
		{"tall tie picks lowest row", 3, 1, []float64{2, 1, 1}, false, []int{1}, []int{0}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r, c, err := Solve(tc.nr, tc.nc, tc.cost, tc.maximize)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(r, tc.rows) || !slices.Equal(c, tc.cols) {
				t.Errorf("got rows %v cols %v, want %v %v", r, c, tc.rows, tc.cols)
			}
		})
	}
}

func TestSolveErrors(t *testing.T) {
	inf := math.Inf(1)
	if _, _, err := Solve(2, 2, []float64{inf, inf, 1, inf}, false); !errors.Is(err, ErrInfeasible) {
		t.Errorf("infeasible: got %v", err)
	}
	if _, _, err := Solve(1, 2, []float64{math.NaN(), 1}, false); !errors.Is(err, ErrInvalid) {
		t.Errorf("NaN: got %v", err)
	}
	if _, _, err := Solve(1, 2, []float64{math.Inf(-1), 1}, false); !errors.Is(err, ErrInvalid) {
		t.Errorf("-inf: got %v", err)
	}
	if _, _, err := Solve(1, 2, []float64{inf, 1}, true); !errors.Is(err, ErrInvalid) {
		t.Errorf("+inf maximised becomes -inf: got %v", err)
	}
	if _, _, err := Solve(2, 2, []float64{1}, false); err == nil {
		t.Error("wrong length accepted")
	}
	r, c, err := Solve(0, 3, nil, false)
	if err != nil || len(r) != 0 || len(c) != 0 {
		t.Errorf("empty: %v %v %v", r, c, err)
	}
}
