package quality

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestSSIMUniform32MatchesGeneral: the float32-storage fast path gives the
// general path's value bit for bit (integer images as decoded, and
// arbitrary floats), for several sizes, windows and covariance modes.
func TestSSIMUniform32MatchesGeneral(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, s := range [][2]int{{7, 7}, {9, 13}, {31, 20}, {64, 64}, {101, 57}} {
		for _, integer := range []bool{true, false} {
			a := Image{W: s[0], H: s[1], Pix: make([]float64, s[0]*s[1])}
			b := Image{W: s[0], H: s[1], Pix: make([]float64, s[0]*s[1])}
			for i := range a.Pix {
				a.Pix[i] = rng.Float64() * 255
				b.Pix[i] = 0.7*a.Pix[i] + rng.Float64()*60
				if integer {
					a.Pix[i], b.Pix[i] = math.Round(a.Pix[i]), math.Round(b.Pix[i])
				}
			}
			for _, opt := range []SSIMOptions{
				{DataRange: JointRange(a, b, true), Float32: true},
				{DataRange: 255, Float32: true, PopulationCovariance: true},
				{DataRange: 200, Float32: true, WinSize: 5},
			} {
				fast, err := SSIM(a, b, opt)
				if err != nil {
					t.Fatal(err)
				}
				ssimGeneralOnly = true
				slow, err := SSIM(a, b, opt)
				ssimGeneralOnly = false
				if err != nil {
					t.Fatal(err)
				}
				if math.Float64bits(fast) != math.Float64bits(slow) {
					t.Errorf("%v integer=%v %+v: fast %v, general %v", s, integer, opt, fast, slow)
				}
			}
		}
	}
}

// TestJointRangeNaN keeps math.Min/Max's NaN propagation.
func TestJointRangeNaN(t *testing.T) {
	a := Image{W: 2, H: 1, Pix: []float64{1, math.NaN()}}
	b := Image{W: 2, H: 1, Pix: []float64{0, 5}}
	if r := JointRange(a, b, false); !math.IsNaN(r) {
		t.Errorf("JointRange with a NaN = %v, want NaN", r)
	}
	a.Pix[1] = -2
	if r := JointRange(a, b, true); r != 7 {
		t.Errorf("JointRange = %v, want 7", r)
	}
}
