package rankstage

import (
	"math"
	"testing"

	"github.com/rexmle/rexmle/internal/rank"
)

// resampleSE equals the jackknife over every drawn position, computed the
// long way, for a multiset with repeated cases and a non-linear statistic.
func TestResampleSEMatchesTheFullJackknife(t *testing.T) {
	col := []float64{0.3, -1.2, 2.5, 0.9, 1.7, -0.4}
	rmse := func(ix []int) float64 {
		var s float64
		for _, i := range ix {
			s += col[i] * col[i]
		}
		return math.Sqrt(s / float64(len(ix)))
	}
	ix := []int{4, 1, 1, 5, 0, 1, 4, 2}
	var jack []float64
	for p := range ix {
		loo := append(append([]int(nil), ix[:p]...), ix[p+1:]...)
		jack = append(jack, rmse(loo))
	}
	want := rank.JackknifeSE(jack)
	got := resampleSE(rmse, ix, make([]int, len(ix)), nil)
	if math.Abs(got-want) > 1e-12 || !(want > 0) {
		t.Errorf("resampleSE = %v, want %v", got, want)
	}
	if ix[0] != 4 || ix[1] != 1 {
		t.Error("resampleSE changed the draw")
	}
	if !math.IsNaN(resampleSE(rmse, []int{3}, make([]int, 1), nil)) {
		t.Error("one case has a standard error")
	}
}
