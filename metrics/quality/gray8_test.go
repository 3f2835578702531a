package quality

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/rexmle/rexmle/metrics/num"
)

// gray8Cases are 8-bit image pairs of many sizes and kinds: random, a
// speckled texture, constant, all black, a black surround (ultrasound
// fan), extremes 0/255 only, one differing pixel.
func gray8Cases(rng *rand.Rand) [][2]Gray8 {
	var out [][2]Gray8
	mk := func(w, h int, f func(x, y int) (uint8, uint8)) {
		a := Gray8{W: w, H: h, Pix: make([]uint8, w*h)}
		b := Gray8{W: w, H: h, Pix: make([]uint8, w*h)}
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				a.Pix[y*w+x], b.Pix[y*w+x] = f(x, y)
			}
		}
		out = append(out, [2]Gray8{a, b})
	}
	sizes := [][2]int{{1, 1}, {2, 3}, {7, 7}, {8, 8}, {11, 11}, {13, 7}, {7, 19}, {64, 64}, {70, 9}, {100, 37}, {131, 67}, {200, 150}}
	for _, s := range sizes {
		w, h := s[0], s[1]
		mk(w, h, func(x, y int) (uint8, uint8) { return uint8(rng.IntN(256)), uint8(rng.IntN(256)) })
		mk(w, h, func(x, y int) (uint8, uint8) {
			base := 110 + 50*math.Sin(0.05*float64(x))*math.Cos(0.03*float64(y))
			e := base * (1 + 0.2*rng.NormFloat64())
			t := 0.9*base*(1+0.2*rng.NormFloat64()) + 3
			return uint8(math.Max(0, math.Min(255, e))), uint8(math.Max(0, math.Min(255, t)))
		})
		mk(w, h, func(x, y int) (uint8, uint8) {
			dx, dy := float64(x)-float64(w)/2, float64(y)
			if dx*dx+dy*dy > float64(w*w)/5 || math.Abs(dx) > dy*0.8 {
				return 0, 0
			}
			return uint8(40 + rng.IntN(200)), uint8(30 + rng.IntN(220))
		})
		mk(w, h, func(x, y int) (uint8, uint8) { return 100, 50 })
		mk(w, h, func(x, y int) (uint8, uint8) { return 0, 0 })
		mk(w, h, func(x, y int) (uint8, uint8) { return uint8(255 * rng.IntN(2)), uint8(255 * rng.IntN(2)) })
		mk(w, h, func(x, y int) (uint8, uint8) {
			if x == w/2 && y == h/2 {
				return 0, 255
			}
			return 0, 0
		})
		mk(w, h, func(x, y int) (uint8, uint8) { v := uint8(rng.IntN(256)); return v, v })
	}
	return out
}

func sameFloat(a, b float64) bool {
	return math.Float64bits(a) == math.Float64bits(b) || (math.IsNaN(a) && math.IsNaN(b))
}

// TestGray8MatchesFloat: every *8 function returns its float counterpart's
// value bit for bit (errors alike) on the cases above.
func TestGray8MatchesFloat(t *testing.T) {
	saved := ssim8Vector
	defer func() { ssim8Vector = saved }()
	for _, vec := range []bool{true, false} {
		ssim8Vector = saved && vec
		testGray8MatchesFloat(t)
	}
}

func testGray8MatchesFloat(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	for i, c := range gray8Cases(rng) {
		a8, b8 := c[0], c[1]
		a, b := a8.Image(), b8.Image()
		rng32 := JointRange(a, b, true)
		if got := JointRange8(a8, b8); !sameFloat(got, rng32) {
			t.Errorf("case %d %d×%d: JointRange8 %v, float %v", i, a.W, a.H, got, rng32)
		}
		for _, win := range []int{11, 3} {
			got, err1 := LNCC8(a8, b8, win)
			want, err2 := LNCC(a, b, win)
			if (err1 == nil) != (err2 == nil) || !sameFloat(got, want) {
				t.Errorf("case %d %d×%d win %d vector %v: LNCC8 %v (%v), float %v (%v)", i, a.W, a.H, win, ssim8Vector, got, err1, want, err2)
			}
		}
		for _, opt := range []SSIMOptions{
			{DataRange: rng32, Float32: true},
			{DataRange: 255, Float32: true, PopulationCovariance: true},
			{DataRange: 200, Float32: true, WinSize: 5},
			{DataRange: 255, Float32: true, WinSize: 63},
			{DataRange: 255, Float32: true, WinSize: 65},
			{DataRange: 255},
			{DataRange: 255, Float32: true, Gaussian: true},
		} {
			got, err1 := SSIM8(a8, b8, opt)
			want, err2 := SSIM(a, b, opt)
			if (err1 == nil) != (err2 == nil) || !sameFloat(got, want) {
				t.Errorf("case %d %d×%d %+v vector %v: SSIM8 %v (%v), float %v (%v)", i, a.W, a.H, opt, ssim8Vector, got, err1, want, err2)
			}
		}
		for _, dr := range []float64{rng32, 255, 0} {
			got, err1 := PSNR8(a8, b8, dr)
			want, err2 := PSNR(a, b, dr, true)
			if (err1 == nil) != (err2 == nil) || !sameFloat(got, want) {
				t.Errorf("case %d %d×%d range %v: PSNR8 %v (%v), float %v (%v)", i, a.W, a.H, dr, got, err1, want, err2)
			}
		}
	}
}

// TestSSIM8ZeroSpans: SSIM8, which skips the columns whose windows are
// zero in both images, equals the float path on images that are zero but
// for a few blobs and lines (at the edges, the corners, one image only,
// single columns), for several window sizes, vector kernels on and off.
func TestSSIM8ZeroSpans(t *testing.T) {
	saved := ssim8Vector
	defer func() { ssim8Vector = saved }()
	rng := rand.New(rand.NewPCG(9, 1))
	for it := 0; it < 100; it++ {
		w, h := 7+rng.IntN(150), 7+rng.IntN(40)
		a := Gray8{W: w, H: h, Pix: make([]uint8, w*h)}
		b := Gray8{W: w, H: h, Pix: make([]uint8, w*h)}
		for k := rng.IntN(4); k >= 0; k-- {
			which := rng.IntN(3) // a, b or both
			x0, y0 := rng.IntN(w), rng.IntN(h)
			x1, y1 := min(w, x0+1+rng.IntN(12)), min(h, y0+1+rng.IntN(12))
			switch rng.IntN(4) {
			case 0:
				x0 = 0
			case 1:
				x1 = w
			}
			for y := y0; y < y1; y++ {
				for x := x0; x < x1; x++ {
					if which != 1 {
						a.Pix[y*w+x] = uint8(1 + rng.IntN(255))
					}
					if which != 0 {
						b.Pix[y*w+x] = uint8(1 + rng.IntN(255))
					}
				}
			}
		}
		fa, fb := a.Image(), b.Image()
		for _, size := range []int{7, 3, 5, 11} {
			if w < size || h < size {
				continue
			}
			opt := SSIMOptions{DataRange: 255, Float32: true, WinSize: size}
			want, err := SSIM(fa, fb, opt)
			if err != nil {
				t.Fatal(err)
			}
			for _, vec := range []bool{true, false} {
				ssim8Vector = saved && vec
				got, err := SSIM8(a, b, opt)
				if err != nil || !sameFloat(got, want) {
					t.Errorf("case %d %d×%d size %d vector %v: SSIM8 %v (%v), float %v", it, w, h, size, ssim8Vector, got, err, want)
				}
			}
		}
	}
}

// TestNonzeroSpansTables: nonzeroSpans finds the same spans with the
// one-zero fast scan as with its table loop (a table with two zeros).
func TestNonzeroSpansTables(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for it := 0; it < 300; it++ {
		w, h, rad := 1+r.IntN(40), 1+r.IntN(12), r.IntN(6)
		im := Gray8{W: w, H: h, Pix: make([]uint8, w*h)}
		lo := uint8(r.IntN(150))
		for i := range im.Pix {
			im.Pix[i] = lo
			if r.IntN(6) == 0 {
				im.Pix[i] = lo + uint8(r.IntN(50))
			}
		}
		one := normLUT8(lo, lo+60)
		two := one
		two[255] = 0 // a second zero forces the table loop; 255 never occurs
		a := nonzeroSpans(im, one, rad, make([]span, h), make([]span, h+2*rad))
		b := nonzeroSpans(im, two, rad, make([]span, h), make([]span, h+2*rad))
		if !slices.Equal(a, b) {
			t.Fatalf("%d×%d r=%d: fast %v, table %v", w, h, rad, a, b)
		}
	}
}

// TestGray8Errors: size mismatches and bad sample counts are errors.
func TestGray8Errors(t *testing.T) {
	a := Gray8{W: 8, H: 8, Pix: make([]uint8, 64)}
	b := Gray8{W: 8, H: 9, Pix: make([]uint8, 72)}
	bad := Gray8{W: 8, H: 8, Pix: make([]uint8, 10)}
	if _, err := LNCC8(a, b, 11); err == nil {
		t.Error("LNCC8: size mismatch accepted")
	}
	if _, err := LNCC8(a, a, 4); err == nil {
		t.Error("LNCC8: even window accepted")
	}
	if _, err := SSIM8(a, bad, SSIMOptions{DataRange: 1, Float32: true}); err == nil {
		t.Error("SSIM8: bad sample count accepted")
	}
	if _, err := PSNR8(a, b, 1); err == nil {
		t.Error("PSNR8: size mismatch accepted")
	}
}

// TestQuotient32: the division-free quotients of SSIM8 equal the float64
// division rounded to float32: exhaustively for the integer sums of the
// first pass, on random exact second-pass sums, and on sums whose quotient
// is exactly a float32 half-way point (where a product rounded to one side
// would go wrong; for these sizes it lands on the half-way point itself).
func TestQuotient32(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 3))
	for _, s := range []int{3, 5, 7, 9, 13, 19, 63} {
		q := newQuotient32(s)
		fs := float64(s)
		for S := 0; S <= s*65025; S++ {
			if got, want := float32(float64(S)*q.inv), float32(float64(S)/fs); got != want {
				t.Fatalf("s=%d first pass S=%d: %v, want %v", s, S, got, want)
			}
		}
		g := 23
		for 1<<(g-23) < s {
			g++
		}
		unit := math.Ldexp(1, -g)
		check := func(tv float64) {
			if got, want := q.of(tv), float32(tv/fs); got != want {
				t.Fatalf("s=%d t=%v: %v, want %v", s, tv, got, want)
			}
		}
		for i := 0; i < 300000; i++ {
			// Magnitudes spread over every binade below s·65025.
			top := math.Ldexp(1, rng.IntN(g+19)-g)
			check(math.Floor(rng.Float64()*top/unit) * unit)
		}
		halfway := 0
		for i := 0; i < 20000; i++ {
			// M = a float32 half-way point that is a multiple of 2^−G,
			// t = s·M (exact in float64).
			e := rng.IntN(16+g-24) - g + 24 // M in [2^e, 2^(e+1))
			m := math.Ldexp(float64(1<<24+2*rng.IntN(1<<23)+1), e-24)
			tv := fs * m
			if math.Mod(tv, unit) != 0 || tv/fs != m {
				continue
			}
			halfway++
			check(tv)
		}
		if halfway < 1000 {
			t.Errorf("s=%d: only %d half-way cases", s, halfway)
		}
	}
}

// TestLNCC8ZeroSpans: images whose rows are at their minimum (normalised
// to +0) outside random column ranges, and whole rows at the minimum, so
// that LNCC8 skips windows of zeros at every position: the value stays the
// float path's, bit for bit.
func TestLNCC8ZeroSpans(t *testing.T) {
	saved := ssim8Vector
	defer func() { ssim8Vector = saved }()
	for _, vec := range []bool{true, false} {
		ssim8Vector = saved && vec
		testLNCC8ZeroSpans(t)
	}
}

func testLNCC8ZeroSpans(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 1))
	for _, s := range [][2]int{{5, 4}, {12, 9}, {23, 30}, {40, 17}, {97, 64}, {130, 50}} {
		w, h := s[0], s[1]
		for rep := 0; rep < 6; rep++ {
			var ims [2]Gray8
			for k := range ims {
				lo := uint8(rng.IntN(40))
				im := Gray8{W: w, H: h, Pix: make([]uint8, w*h)}
				for y := 0; y < h; y++ {
					a, b := rng.IntN(w+1), rng.IntN(w+1)
					if rng.IntN(5) == 0 {
						a, b = 0, 0 // a row at the minimum
					}
					for x := 0; x < w; x++ {
						v := lo
						if x >= min(a, b) && x < max(a, b) {
							v = lo + uint8(rng.IntN(200))
						}
						im.Pix[y*w+x] = v
					}
				}
				ims[k] = im
			}
			for _, win := range []int{11, 3, 7} {
				got, err1 := LNCC8(ims[0], ims[1], win)
				want, err2 := LNCC(ims[0].Image(), ims[1].Image(), win)
				if err1 != nil || err2 != nil || !sameFloat(got, want) {
					t.Errorf("%d×%d win %d vector %v: LNCC8 %v (%v), float %v (%v)", w, h, win, ssim8Vector, got, err1, want, err2)
				}
			}
		}
	}
}

// TestMinMax8: the vector and scalar paths agree with a plain scan on
// lengths around the 32-byte blocks and extremes in every position.
func TestMinMax8(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 9))
	saved := ssim8Vector
	defer func() { ssim8Vector = saved }()
	for _, n := range []int{1, 2, 31, 32, 33, 63, 64, 65, 100, 1000, 4099} {
		for rep := 0; rep < 20; rep++ {
			p := make([]uint8, n)
			base := uint8(rng.IntN(200) + 20)
			for i := range p {
				p[i] = base + uint8(rng.IntN(30))
			}
			p[rng.IntN(n)] = uint8(rng.IntN(int(base)))
			p[rng.IntN(n)] = 255 - uint8(rng.IntN(5))
			lo, hi := p[0], p[0]
			for _, v := range p {
				lo, hi = min(lo, v), max(hi, v)
			}
			for _, vec := range []bool{true, false} {
				ssim8Vector = saved && vec
				if l, h := minMax8(p); l != lo || h != hi {
					t.Fatalf("n=%d vector=%v: %d, %d, want %d, %d", n, vec, l, h, lo, hi)
				}
			}
		}
	}
}

// TestPairwiseFast: the vectorised numpy sum (chunkSum32 fed in pieces of
// random lengths) give the reference implementations'
// bits on lengths around the leaf and chunk sizes, with values of mixed
// magnitude and sign (where the order matters).
func TestPairwiseFast(t *testing.T) {
	saved := ssim8Vector
	defer func() { ssim8Vector = saved }()
	rng := rand.New(rand.NewPCG(3, 3))
	for _, n := range []int{0, 1, 7, 8, 9, 15, 16, 127, 128, 129, 255, 256, 1000, 8191, 8192, 8193, 20000, 70001} {
		x := make([]float64, n)
		y := make([]float32, n)
		for i := range x {
			x[i] = (rng.Float64() - 0.3) * math.Ldexp(1, rng.IntN(40)-20)
			y[i] = float32(x[i])
		}
		for _, vec := range []bool{true, false} {
			ssim8Vector = saved && vec
			s := chunkSum32{buf: make([]float32, 0, num.NumpyBuffer+600)}
			for i := 0; i < n; {
				m := min(n-i, 1+rng.IntN(600))
				s.buf = append(s.buf, y[i:i+m]...)
				s.flush(false)
				i += m
			}
			s.flush(true)
			if want := num.Sum(y); s.n != n || math.Float32bits(s.total) != math.Float32bits(want) {
				t.Errorf("n=%d vector %v: chunkSum32 %v over %d values, num.Sum %v", n, ssim8Vector, s.total, s.n, want)
			}
		}
	}
}

// TestChunkSum64: float32 values added to chunkSum64 in pieces of random
// lengths (up to a row of 600) sum to num.Sum of their float64 values, bit
// for bit, with the vector leaves and without, on lengths around the leaf
// and chunk sizes.
func TestChunkSum64(t *testing.T) {
	saved := ssim8Vector
	defer func() { ssim8Vector = saved }()
	rng := rand.New(rand.NewPCG(4, 4))
	for _, n := range []int{1, 7, 8, 9, 100, 128, 129, 1000, 8191, 8192, 8193, 16384, 20000, 70001, 256036} {
		x := make([]float32, n)
		x64 := make([]float64, n)
		for i := range x {
			x[i] = float32((rng.Float64() - 0.3) * math.Ldexp(1, rng.IntN(40)-20))
			x64[i] = float64(x[i])
		}
		want := num.Sum(x64)
		for _, vec := range []bool{true, false} {
			ssim8Vector = saved && vec
			s := chunkSum64{buf: make([]float32, 0, num.NumpyBuffer+600)}
			for i := 0; i < n; {
				m := min(n-i, 1+rng.IntN(600))
				s.buf = append(s.buf, x[i:i+m]...)
				s.flush(false)
				i += m
			}
			s.flush(true)
			if s.n != n || math.Float64bits(s.total) != math.Float64bits(want) {
				t.Errorf("n=%d vector %v: chunkSum64 %v over %d values, num.Sum %v", n, ssim8Vector, s.total, s.n, want)
			}
		}
	}
}

// TestPSNR8Large: the vector sum of squared differences agrees with the
// scalar loop and the float path on images of more than one 2^18-sample
// chunk whose samples are at the extremes (the largest lane sums), with
// lengths that leave a tail.
func TestPSNR8Large(t *testing.T) {
	saved := ssim8Vector
	defer func() { ssim8Vector = saved }()
	rng := rand.New(rand.NewPCG(5, 18))
	for _, s := range [][2]int{{513, 517}, {512, 1024}, {1449, 1451}, {31, 3}} {
		a := Gray8{W: s[0], H: s[1], Pix: make([]uint8, s[0]*s[1])}
		b := Gray8{W: s[0], H: s[1], Pix: make([]uint8, s[0]*s[1])}
		for i := range a.Pix {
			if rng.IntN(50) != 0 {
				a.Pix[i] = 255
			} else {
				a.Pix[i] = uint8(rng.IntN(256))
			}
		}
		var got [2]float64
		for k, vec := range []bool{true, false} {
			ssim8Vector = saved && vec
			v, err := PSNR8(a, b, 255)
			if err != nil {
				t.Fatal(err)
			}
			got[k] = v
		}
		want, err := PSNR(a.Image(), b.Image(), 255, true)
		if err != nil || !sameFloat(got[0], want) || !sameFloat(got[1], want) {
			t.Errorf("%d×%d: PSNR8 vector %v, scalar %v, float %v (%v)", s[0], s[1], got[0], got[1], want, err)
		}
	}
}

// TestFirstPassQuotient: SSIM8's column kernel divides in float32; for
// every window size it handles and every column sum S of 8-bit products,
// float32(S)/size is the reference's float32(float64(S)·(1/size)).
func TestFirstPassQuotient(t *testing.T) {
	for size := 3; size <= maxWin8; size += 2 {
		inv, fs := 1/float64(size), float32(size)
		step := 1
		if testing.Short() && size != 7 {
			step = 97
		}
		for s := 0; s <= 255*255*size; s += step {
			if a, b := float32(float64(s)*inv), float32(s)/fs; a != b {
				t.Fatalf("size %d, S %d: float32 quotient %v, reference %v", size, s, b, a)
			}
		}
	}
}
