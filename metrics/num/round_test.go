package num

import (
	"math"
	"testing"
)

func TestRound(t *testing.T) {
	cases := []struct {
		x    float64
		d    int
		want float64
	}{
		{0.123456, 5, 0.12346},
		{0.123454, 5, 0.12345},
		{2.675, 2, 2.67},  // binary value is 2.67499999…
		{0.5, 0, 0},       // exact tie → even
		{1.5, 0, 2},       // exact tie → even
		{2.5, 0, 2},       // exact tie → even
		{0.125, 2, 0.12},  // exact tie → even
		{0.375, 2, 0.38},  // exact tie → even
		{-0.000001, 5, 0}, // rounds to -0
		{111239.358024, 5, 111239.35802},
		{1e-6, 5, 0},
	}
	for _, c := range cases {
		if got := Round(c.x, c.d); got != c.want {
			t.Errorf("Round(%v, %d) = %v, want %v", c.x, c.d, got, c.want)
		}
	}
	if !math.IsNaN(Round5(math.NaN())) || !math.IsInf(Round5(math.Inf(1)), 1) {
		t.Error("NaN and Inf must pass through")
	}
	if !math.Signbit(Round(-0.000001, 5)) {
		t.Error("Python keeps the sign of a value that rounds to zero")
	}
}
