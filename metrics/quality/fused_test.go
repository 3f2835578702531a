package quality

import (
	"math"
	"math/rand/v2"
	"testing"
	"unsafe"
)

// TestRowJobLayout: slide11r reads rowJob and rowSeg at the offsets
// gen_slide11.go wrote into it.
func TestRowJobLayout(t *testing.T) {
	var j rowJob
	got := []uintptr{unsafe.Offsetof(j.inv), unsafe.Offsetof(j.segs), unsafe.Offsetof(j.next), unsafe.Offsetof(j.end),
		unsafe.Offsetof(j.src), unsafe.Offsetof(j.dst), unsafe.Offsetof(j.left), unsafe.Sizeof(rowSeg{})}
	want := []uintptr{0, 32, 40, 48, 56, 64, 72, 24}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("offsets/sizes %v, the kernel uses %v", got, want)
		}
	}
}

// TestSlide11r runs slide11r and slide11 on the same rows and wants the same
// box outputs and accumulators, bit for bit, while slide11r also runs a job
// of row-pass segments over several calls (resuming a segment cut short by
// the end of a call, taking the next, running plain once none is left).
// Each segment's outputs must be float32(t·inv) of its 7-sums, and nothing
// past the segments may be written.
func TestSlide11r(t *testing.T) {
	if !ssim8Vector {
		t.Skip("no AVX2/FMA")
	}
	rng := rand.New(rand.NewPCG(7, 11))
	k := float32(1.0 / 121)
	const step = 4 * rowVecs
	inv := 1.0 / 7
	for _, w := range []int{8, 16, 64, 512} {
		for _, m := range []int{1, 3, 16} {
			for _, segN := range [][]int{nil, {1}, {5, 1, 7}, {40, 40, 40, 40, 40}, {3, 200, 2}} {
				stride := w + 10
				// Float64 first-pass values: multiples of 2^-26 below 2^16,
				// as SSIM8's are, so that the sums are exact.
				var segs []rowSeg
				var srcs [][]float64
				var dsts [][]float32
				for _, n := range segN {
					src := make([]float64, n*step+6+8)
					for i := range src {
						src[i] = math.Ldexp(float64(rng.Int64N(1<<42)), -26)
					}
					dst := make([]float32, n*step+4)
					for i := range dst {
						dst[i] = -1
					}
					srcs, dsts = append(srcs, src), append(dsts, dst)
					segs = append(segs, rowSeg{uintptr(unsafe.Pointer(&src[0])), uintptr(unsafe.Pointer(&dst[0])), n})
				}
				job := rowJob{inv: [4]float64{inv, inv, inv, inv}, end: len(segs)}
				var segsBuf [1]rowSeg
				job.segs = &segsBuf[0]
				if len(segs) > 0 {
					job.segs = &segs[0]
				}
				state := randomImage32(rng, w, 11)
				s1, s2 := append([]float32(nil), state...), append([]float32(nil), state...)
				phase := rng.IntN(11)
				for call := 0; call < 4; call++ {
					rows := randomImage32(rng, stride, m)
					o1, o2 := make([]float32, m*w), make([]float32, m*w)
					p := (phase + call*m) % 11
					slide11(&rows[0], stride, m, p, &s1[0], w, &o1[0], w, w/8, k)
					slide11r(&rows[0], stride, m, p, &s2[0], w, &o2[0], w, w/8, k, &job)
					for i := range o1 {
						if math.Float32bits(o1[i]) != math.Float32bits(o2[i]) {
							t.Fatalf("w %d m %d call %d: out[%d] %v, slide11 %v", w, m, call, i, o2[i], o1[i])
						}
					}
					for i := range s1 {
						if math.Float32bits(s1[i]) != math.Float32bits(s2[i]) {
							t.Fatalf("w %d m %d call %d: state[%d] %v, slide11 %v", w, m, call, i, s2[i], s1[i])
						}
					}
				}
				// Steps run: one per box step until the segments ran out.
				total := 0
				for _, n := range segN {
					total += n
				}
				ran := min(total, 4*m*(w/8))
				left := ran
				for si, n := range segN {
					did := min(n, left)
					left -= did
					for i := range dsts[si] {
						want := float32(-1)
						if i < did*step {
							var s float64
							for _, v := range srcs[si][i : i+7] {
								s += v
							}
							want = float32(s * inv)
						}
						if got := dsts[si][i]; math.Float32bits(got) != math.Float32bits(want) {
							t.Fatalf("w %d m %d segs %v: segment %d out[%d] = %v, want %v (%d steps ran)", w, m, segN, si, i, got, want, ran)
						}
					}
				}
				// The job says where it stopped.
				wantNext, wantLeft := 0, 0
				rest := ran
				for wantNext < len(segN) && rest > 0 {
					d := min(segN[wantNext], rest)
					rest -= d
					wantLeft = segN[wantNext] - d
					wantNext++
				}
				if job.next != wantNext || job.left != wantLeft {
					t.Fatalf("w %d m %d segs %v: job next %d left %d, want %d %d", w, m, segN, job.next, job.left, wantNext, wantLeft)
				}
			}
		}
	}
}

// TestLNCCSSIM8 wants LNCCSSIM8 to return LNCC8's and SSIM8's values bit
// for bit: full-field speckle and sector scans (whose zero surround gives
// rows without segments and short ones; fused too with fuseCoverage 0),
// sizes around the segment and strip widths, flat and zero images, and the
// unfused cases (other windows, Gaussian SSIM, the Go loops).
func TestLNCCSSIM8(t *testing.T) {
	type pair struct {
		name string
		a, b Gray8
	}
	var pairs []pair
	for _, sz := range [][2]int{{512, 512}, {300, 200}, {12, 40}, {13, 13}, {24, 11}, {35, 97}, {100, 7}, {11, 30}, {7, 7}} {
		a, b := speckle8(sz[0], sz[1], uint64(sz[0]*sz[1]))
		pairs = append(pairs, pair{"speckle", a, b})
		if sz[0] >= 20 && sz[1] >= 20 {
			a, b = fan8(sz[0], sz[1], uint64(sz[0]))
			pairs = append(pairs, pair{"fan", a, b})
		}
	}
	a, b := speckle8(64, 64, 3)
	flat := Gray8{W: 64, H: 64, Pix: make([]uint8, 64*64)}
	for i := range flat.Pix {
		flat.Pix[i] = 9
	}
	zero := Gray8{W: 64, H: 64, Pix: make([]uint8, 64*64)}
	pairs = append(pairs, pair{"flat", flat, b}, pair{"zero", a, zero}, pair{"zeros", zero, zero})
	// A block of speckle in a zero field: segments start mid-row.
	blk := Gray8{W: 200, H: 100, Pix: make([]uint8, 200*100)}
	blk2 := Gray8{W: 200, H: 100, Pix: make([]uint8, 200*100)}
	for y := 40; y < 70; y++ {
		for x := 77; x < 150; x++ {
			blk.Pix[y*200+x], blk2.Pix[y*200+x] = a.Pix[(y%64)*64+x%64], b.Pix[(y%64)*64+x%64]
		}
	}
	pairs = append(pairs, pair{"block", blk, blk2})
	defer func(c float64) { fuseCoverage = c }(fuseCoverage)
	for _, mode := range []struct {
		vec      bool
		coverage float64 // fuseCoverage: 0 fuses sector scans and blocks too
	}{{true, fuseCoverage}, {true, 0}, {false, 0}} {
		vec := mode.vec
		if vec && !haveFMA {
			continue
		}
		fuseCoverage = mode.coverage
		saved := ssim8Vector
		ssim8Vector = vec
		for _, p := range pairs {
			if !vec && p.a.W*p.a.H > 100*100 {
				continue // the Go loops are slow; small images cover them
			}
			for oi, o := range []struct {
				win int
				opt SSIMOptions
			}{
				{11, SSIMOptions{DataRange: JointRange8(p.a, p.b), Float32: true}},
				{11, SSIMOptions{DataRange: 255, Float32: true, WinSize: 5}},
				{11, SSIMOptions{DataRange: 255, Float32: true, WinSize: 11}}, // quotients checked: unfused
				{9, SSIMOptions{DataRange: 255, Float32: true}},
				{11, SSIMOptions{DataRange: 255, Float32: true, Gaussian: true, Sigma: 1.5}},
			} {
				if oi > 0 && p.a.W*p.a.H > 300*200 {
					continue
				}
				l, s, err := LNCCSSIM8(p.a, p.b, o.win, o.opt)
				wl, errL := LNCC8(p.a, p.b, o.win)
				ws, errS := SSIM8(p.a, p.b, o.opt)
				if (err != nil) != (errL != nil || errS != nil) {
					t.Fatalf("%s %dx%d win %d %+v: error %v, apart %v / %v", p.name, p.a.W, p.a.H, o.win, o.opt, err, errL, errS)
				}
				if err != nil {
					continue
				}
				if math.Float64bits(l) != math.Float64bits(wl) || math.Float64bits(s) != math.Float64bits(ws) {
					t.Fatalf("%s %dx%d win %d %+v vector %v: LNCC %v SSIM %v, apart %v %v", p.name, p.a.W, p.a.H, o.win, o.opt, vec, l, s, wl, ws)
				}
			}
		}
		ssim8Vector = saved
	}
	// Errors name the measure.
	if _, _, err := LNCCSSIM8(a, b, 4, SSIMOptions{DataRange: 255, Float32: true}); err == nil || err.Error()[:5] != "LNCC:" {
		t.Fatalf("even window: %v", err)
	}
	if _, _, err := LNCCSSIM8(a, b, 11, SSIMOptions{DataRange: -1, Float32: true}); err == nil || err.Error()[:5] != "SSIM:" {
		t.Fatalf("negative data range: %v", err)
	}
}
