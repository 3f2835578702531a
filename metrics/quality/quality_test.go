package quality

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

func ramp(f func(v float64) float64) Image {
	im := Image{W: 8, H: 8, Pix: make([]float64, 64)}
	for i := 0; i < 8; i++ {
		for j := 0; j < 8; j++ {
			im.Pix[i*8+j] = f(float64(8*i + j))
		}
	}
	return im
}

func constant(w, h int, v float64) Image {
	im := Image{W: w, H: h, Pix: make([]float64, w*h)}
	for i := range im.Pix {
		im.Pix[i] = v
	}
	return im
}

type usCase struct {
	name             string
	e, t             Image
	lncc, ssim, psnr float64
}

// usenhanceMetrics runs the three metrics the way the USenhance grader does.
func usenhanceMetrics(t *testing.T, e, tr Image) (l, s, p float64) {
	t.Helper()
	var err error
	if l, err = LNCC(e, tr, 11); err != nil {
		t.Fatal(err)
	}
	r := JointRange(e, tr, true)
	if s, err = SSIM(e, tr, SSIMOptions{DataRange: r, Float32: true}); err != nil {
		t.Fatal(err)
	}
	if p, err = PSNR(e, tr, r, true); err != nil && r > 0 {
		t.Fatal(err)
	}
	return
}

func parseGrid(s string) Image {
	var pix []float64
	for _, f := range strings.Fields(s) {
		v, _ := strconv.ParseFloat(f, 64)
		pix = append(pix, v)
	}
	return Image{W: 16, H: 16, Pix: pix}
}

// The USenhance spec's vectors (§7). U1, U3 and the PSNR values are
// hand-derived; the SSIM/LNCC values of U2, U4–U6 and H1 were produced by the
// reference libraries (skimage/scipy/OpenCV) and are quoted by the spec.
func TestUSenhanceVectors(t *testing.T) {
	v := func(x float64) float64 { return x }
	zerosWithSpot := constant(8, 8, 0)
	zerosWithSpot.Pix[3*8+4] = 255
	cases := []usCase{
		{"U1", constant(8, 8, 100), constant(8, 8, 50), 1.0, 0.8000040054321289, 0},
		{"U2", ramp(func(x float64) float64 { return 2*x + 10 }), ramp(v), 1.0, 0.583051398396492, 10 * math.Log10(136*136/2063.5)},
		{"U3", ramp(v), ramp(v), 1.0, 1.0, math.Inf(1)},
		{"U4", ramp(func(x float64) float64 { return 63 - x }), ramp(v), -1.0000003576278687, -0.9548730850219727, 10 * math.Log10(63*63/1365.0)},
		{"U5", constant(8, 8, 0), zerosWithSpot, 0, 0.008177714422345161, 10 * math.Log10(64)},
		{"U6", parseGrid(u6E), parseGrid(u6T), 0.987389862537384, 0.9876543766260147, 26.798908647771377},
		{"H1", parseGrid(h1E), parseGrid(h1T), 0.8441644310951233, 0.8496249510347843, 25.000029998228005},
	}
	for _, c := range cases {
		l, s, p := usenhanceMetrics(t, c.e, c.t)
		if l != c.lncc {
			t.Errorf("%s: LNCC = %.17g, want %.17g", c.name, l, c.lncc)
		}
		if math.Abs(s-c.ssim) > 1e-15 {
			t.Errorf("%s: SSIM = %.17g, want %.17g", c.name, s, c.ssim)
		}
		if !(p == c.psnr || math.Abs(p-c.psnr) < 1e-12) {
			t.Errorf("%s: PSNR = %.17g, want %.17g", c.name, p, c.psnr)
		}
	}
}

// naiveSSIM computes SSIM straight from the definition in float64: for every
// pixel, explicit 7×7 window sums with the symmetric border, then the formula,
// then the mean over the cropped interior.
func naiveSSIM(a, b Image, r float64) float64 {
	const win = 7
	at := func(im Image, row, col int) float64 {
		return im.Pix[reflectIndex(row, im.H)*im.W+reflectIndex(col, im.W)]
	}
	c1, c2 := (0.01*r)*(0.01*r), (0.03*r)*(0.03*r)
	var sum float64
	n := 0
	for row := 3; row < a.H-3; row++ {
		for col := 3; col < a.W-3; col++ {
			var sx, sy, sxx, syy, sxy float64
			for dr := -3; dr <= 3; dr++ {
				for dc := -3; dc <= 3; dc++ {
					x, y := at(a, row+dr, col+dc), at(b, row+dr, col+dc)
					sx += x
					sy += y
					sxx += x * x
					syy += y * y
					sxy += x * y
				}
			}
			np := float64(win * win)
			ux, uy := sx/np, sy/np
			vx := (sxx/np - ux*ux) * np / (np - 1)
			vy := (syy/np - uy*uy) * np / (np - 1)
			vxy := (sxy/np - ux*uy) * np / (np - 1)
			sum += ((2*ux*uy + c1) * (2*vxy + c2)) / ((ux*ux + uy*uy + c1) * (vx + vy + c2))
			n++
		}
	}
	return sum / float64(n)
}

func TestSSIMAgainstNaive(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := 0; trial < 5; trial++ {
		w, h := 7+rng.IntN(20), 7+rng.IntN(20)
		a := Image{W: w, H: h, Pix: make([]float64, w*h)}
		b := Image{W: w, H: h, Pix: make([]float64, w*h)}
		for i := range a.Pix {
			a.Pix[i] = rng.Float64() * 255
			b.Pix[i] = a.Pix[i]*0.7 + rng.Float64()*60
		}
		r := JointRange(a, b, false)
		got, err := SSIM(a, b, SSIMOptions{DataRange: r})
		if err != nil {
			t.Fatal(err)
		}
		want := naiveSSIM(a, b, r)
		if math.Abs(got-want) > 1e-10 {
			t.Errorf("%d×%d: SSIM %v, naive %v", w, h, got, want)
		}
		// float32 arithmetic stays within float32 rounding of the exact value.
		got32, _ := SSIM(a, b, SSIMOptions{DataRange: r, Float32: true})
		if math.Abs(got32-want) > 1e-4 {
			t.Errorf("%d×%d: float32 SSIM %v, naive %v", w, h, got32, want)
		}
	}
}

func TestSSIMHandCases(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	a := Image{W: 20, H: 13, Pix: make([]float64, 260)}
	for i := range a.Pix {
		a.Pix[i] = math.Round(rng.Float64() * 255)
	}
	for _, g := range []bool{false, true} {
		s, err := SSIM(a, a, SSIMOptions{DataRange: 255, Gaussian: g})
		if err != nil || math.Abs(s-1) > 1e-12 {
			t.Errorf("gaussian=%v: SSIM(a, a) = %v, %v; want 1", g, s, err)
		}
	}
	// Two constants c, d: every window mean is exact, variances 0, so
	// S = (2cd + C1)/(c² + d² + C1) everywhere. c=100, d=50, R=255:
	// C1 = 6.5025 → 10006.5025/12506.5025.
	s, _ := SSIM(constant(9, 9, 100), constant(9, 9, 50), SSIMOptions{DataRange: 255})
	if want := 10006.5025 / 12506.5025; math.Abs(s-want) > 1e-12 {
		t.Errorf("constant SSIM %v, want %v", s, want)
	}
	// Equal constants with data range 0: 0/0 → NaN as skimage.
	if s, _ := SSIM(constant(9, 9, 3), constant(9, 9, 3), SSIMOptions{DataRange: 0}); !math.IsNaN(s) {
		t.Errorf("R = 0: SSIM %v, want NaN", s)
	}
	if _, err := SSIM(constant(6, 9, 1), constant(6, 9, 1), SSIMOptions{DataRange: 1}); err == nil {
		t.Error("accepted an image narrower than the window")
	}
	if _, err := SSIM(constant(9, 9, 1), constant(9, 8, 1), SSIMOptions{DataRange: 1}); err == nil {
		t.Error("accepted different sizes")
	}
}

func TestGaussianWindow(t *testing.T) {
	w := gaussianWeights(1.5, 5)
	if len(w) != 11 {
		t.Fatalf("%d taps, want 11 (radius int(3.5·1.5+0.5) = 5)", len(w))
	}
	var s float64
	for i, v := range w {
		s += v
		if v != w[10-i] {
			t.Errorf("weights not symmetric at %d", i)
		}
	}
	if math.Abs(s-1) > 1e-15 || !(w[5] > w[4]) {
		t.Errorf("weights %v", w)
	}
	// A linear ramp is reproduced exactly by any symmetric window away from
	// the borders, so local means equal the pixels; SSIM(ramp, ramp+const)
	// then has vx = vy = vxy and S = (2uxuy+C1)/(ux²+uy²+C1) there.
	a := Image{W: 30, H: 30, Pix: make([]float64, 900)}
	for i := range a.Pix {
		a.Pix[i] = float64(i%30) * 2
	}
	s2, err := SSIM(a, a, SSIMOptions{DataRange: 58, Gaussian: true, PopulationCovariance: true})
	if err != nil || math.Abs(s2-1) > 1e-12 {
		t.Errorf("gaussian SSIM(a,a) = %v %v", s2, err)
	}
}

func TestPSNR(t *testing.T) {
	a := constant(4, 4, 10)
	b := constant(4, 4, 10)
	b.Pix[0] = 14 // MSE = 16/16 = 1 → PSNR = 10·log10(255²) = 48.1308…
	p, err := PSNR(a, b, 255, false)
	if err != nil || math.Abs(p-20*math.Log10(255)) > 1e-12 {
		t.Errorf("PSNR %v %v", p, err)
	}
	if p, _ := PSNR(a, a, 255, true); !math.IsInf(p, 1) {
		t.Errorf("identical PSNR %v, want +Inf", p)
	}
	if _, err := PSNR(a, b, 0, false); err == nil {
		t.Error("accepted data range 0")
	}
}

func TestReflect(t *testing.T) {
	// scipy 'reflect' on n=3: … 1 0 | 0 1 2 | 2 1 0 | 0 …
	want := map[int]int{-4: 2, -3: 2, -2: 1, -1: 0, 0: 0, 2: 2, 3: 2, 4: 1, 5: 0, 6: 0}
	for k, w := range want {
		if got := reflectIndex(k, 3); got != w {
			t.Errorf("reflectIndex(%d, 3) = %d, want %d", k, got, w)
		}
	}
	// OpenCV reflect-101 on n=3: … 2 1 | 0 1 2 | 1 0 1 2 …
	want101 := map[int]int{-3: 1, -2: 2, -1: 1, 0: 0, 3: 1, 4: 0, 5: 1, 6: 2}
	for k, w := range want101 {
		if got := reflect101(k, 3); got != w {
			t.Errorf("reflect101(%d, 3) = %d, want %d", k, got, w)
		}
	}
}

func BenchmarkSSIM1024(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	x := Image{W: 1024, H: 1024, Pix: make([]float64, 1<<20)}
	y := Image{W: 1024, H: 1024, Pix: make([]float64, 1<<20)}
	for i := range x.Pix {
		x.Pix[i] = math.Round(rng.Float64() * 255)
		y.Pix[i] = math.Round(rng.Float64() * 255)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := SSIM(x, y, SSIMOptions{DataRange: 255, Float32: true}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkLNCC1024(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	x := Image{W: 1024, H: 1024, Pix: make([]float64, 1<<20)}
	y := Image{W: 1024, H: 1024, Pix: make([]float64, 1<<20)}
	for i := range x.Pix {
		x.Pix[i] = math.Round(rng.Float64() * 255)
		y.Pix[i] = math.Round(rng.Float64() * 255)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := LNCC(x, y, 11); err != nil {
			b.Fatal(err)
		}
	}
}
