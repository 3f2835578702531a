package quality

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestSlide11x16MatchesSlide11 runs the AVX-512F kernel and the AVX2 kernel
// on the same padded rows, accumulators and phase and wants the same
// outputs and accumulators, bit for bit: each lane runs its own pixel's
// chain in the same order. It needs a CPU with AVX-512F (on others the
// wide kernel is never chosen; TestLNCC8WideAndNarrow covers the choice).
func TestSlide11x16MatchesSlide11(t *testing.T) {
	if !slideWide {
		t.Skip("no AVX-512F on this CPU: slide11x16 is never used here")
	}
	rng := rand.New(rand.NewPCG(11, 16))
	k := float32(1.0 / 121)
	for _, w := range []int{16, 32, 48, 512} {
		for _, m := range []int{1, 5, 11, 23} {
			for phase := 0; phase < 11; phase++ {
				stride := w + 10
				rows := randomImage32(rng, stride, m)
				state := randomImage32(rng, w, 11)
				for i := range state {
					state[i] *= 3 // partial sums, as the kernel leaves them
				}
				s8, s16 := append([]float32(nil), state...), append([]float32(nil), state...)
				o8, o16 := make([]float32, m*w), make([]float32, m*w)
				for i := range o8 {
					o8[i], o16[i] = float32(math.NaN()), float32(math.Inf(1))
				}
				slide11(&rows[0], stride, m, phase, &s8[0], w, &o8[0], w, w/8, k)
				slide11x16(&rows[0], stride, m, phase, &s16[0], w, &o16[0], w, w/16, k)
				for i := range o8 {
					if math.Float32bits(o8[i]) != math.Float32bits(o16[i]) {
						t.Fatalf("w %d m %d phase %d: out[%d] = %v (16 lanes), %v (8 lanes)", w, m, phase, i, o16[i], o8[i])
					}
				}
				for i := range s8 {
					if math.Float32bits(s8[i]) != math.Float32bits(s16[i]) {
						t.Fatalf("w %d m %d phase %d: state[%d] = %v (16 lanes), %v (8 lanes)", w, m, phase, i, s16[i], s8[i])
					}
				}
			}
		}
	}
}

// TestLNCC8WideAndNarrow grades the same pairs with the 16-column kernel
// (where the CPU has it), with the 8-column kernel alone and with the float
// path, on widths that leave 16-column strips, an 8-column strip and single
// columns, with and without zero margins (sector scans): all equal.
func TestLNCC8WideAndNarrow(t *testing.T) {
	saved := slideWide
	defer func() { slideWide = saved }()
	rng := rand.New(rand.NewPCG(16, 8))
	for _, w := range []int{11, 16, 24, 31, 40, 47, 64, 101} {
		for _, margin := range []int{0, 5, 13} {
			h := 19 + w%7
			a, b := make([]uint8, w*h), make([]uint8, w*h)
			for y := 0; y < h; y++ {
				for x := margin; x < w-margin; x++ {
					a[y*w+x], b[y*w+x] = uint8(rng.IntN(256)), uint8(rng.IntN(256))
				}
			}
			e, tr := Gray8{W: w, H: h, Pix: a}, Gray8{W: w, H: h, Pix: b}
			want, err := LNCC(e.Image(), tr.Image(), 11)
			if err != nil {
				t.Fatal(err)
			}
			for _, wide := range []bool{true, false} {
				slideWide = saved && wide
				got, err := LNCC8(e, tr, 11)
				if err != nil || !sameFloat(got, want) {
					t.Errorf("%d×%d margin %d wide %v: LNCC8 %v (%v), float %v", w, h, margin, slideWide, got, err, want)
				}
			}
		}
	}
	if !saved {
		t.Log("no AVX-512F on this CPU: only the 8-column kernel was run")
	}
}

// BenchmarkLNCC8x512Kernels times LNCC8 on a speckle pair with each box
// kernel the CPU has: "16" (AVX-512F) and "8" (AVX2).
func BenchmarkLNCC8x512Kernels(b *testing.B) {
	saved := slideWide
	defer func() { slideWide = saved }()
	e, t := speckle8(512, 512, 1)
	for _, wide := range []bool{true, false} {
		name := "8"
		if wide {
			name = "16"
		}
		b.Run(name, func(b *testing.B) {
			if wide && !saved {
				b.Skip("no AVX-512F")
			}
			slideWide = wide
			for b.Loop() {
				if _, err := LNCC8(e, t, 11); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestSlide11HeadTail: slide11head and slide11tail leave out only the
// multiply-adds into rows outside the image: from cleared accumulators,
// slide11head's slots 0 … 9 are slide11's after its first ten steps (slot 10
// stays +0), and slide11tail writes the ten rows slide11 completes in the
// last ten steps of an image, bit for bit, for every phase.
func TestSlide11HeadTail(t *testing.T) {
	if !haveFMA {
		t.Skip("no AVX2/FMA")
	}
	rng := rand.New(rand.NewPCG(10, 11))
	k := float32(1.0 / 121)
	for _, w := range []int{8, 24, 512} {
		stride := w + 10
		rows := randomImage32(rng, stride, 10)
		s1, s2 := make([]float32, 11*w), make([]float32, 11*w)
		out := make([]float32, 10*w)
		slide11(&rows[0], stride, 10, 0, &s1[0], w, &out[0], w, w/8, k)
		slide11head(&rows[0], stride, &s2[0], w, w/8, k)
		for i := range s1 {
			if math.Float32bits(s1[i]) != math.Float32bits(s2[i]) {
				t.Fatalf("head w %d: state[%d] (slot %d) = %v, slide11 %v", w, i, i/w, s2[i], s1[i])
			}
		}
		for h := 10; h < 21; h++ {
			rows := randomImage32(rng, stride, 10)
			state := randomImage32(rng, w, 11)
			s1 := append([]float32(nil), state...)
			o1, o2 := make([]float32, 10*w), make([]float32, 10*w)
			for i := range o2 {
				o2[i] = float32(math.NaN())
			}
			slide11(&rows[0], stride, 10, h%11, &s1[0], w, &o1[0], w, w/8, k)
			var slots [10]int
			for j := range slots {
				slots[j] = (h + 1 + j) % 11 * w * 4
			}
			slide11tail(&rows[0], stride, &state[0], &slots, &o2[0], w, w/8, k)
			for i := range o1 {
				if math.Float32bits(o1[i]) != math.Float32bits(o2[i]) {
					t.Fatalf("tail w %d h %d: out[%d] (row %d) = %v, slide11 %v", w, h, i, i/w, o2[i], o1[i])
				}
			}
		}
	}
}
