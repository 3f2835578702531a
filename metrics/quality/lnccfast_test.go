package quality

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestLNCC8FastFixedPoint: every tap LNCC8Fast sums (normalised sample,
// its float32 square, the float32 product of two) is a whole number of
// 2⁻³⁹ units at most 2³⁹, for every pair of image extremes, so the int64
// window sums are exact (the bit budget at LNCC8Fast).
func TestLNCC8FastFixedPoint(t *testing.T) {
	check := func(v float32, what string) {
		f := toFix(v)
		if float64(f) != float64(v)*fixScale || f < 0 || f > fixScale {
			t.Fatalf("%s %v: %d units of 2^-39, not exact or out of [0, 2^39]", what, v, f)
		}
	}
	var luts [][256]float32
	for lo := 0; lo < 256; lo++ {
		for hi := lo; hi < 256; hi++ {
			lut := normLUT8(uint8(lo), uint8(hi))
			for v := lo; v <= hi; v++ { // the samples an image with these extremes has
				check(lut[v], "sample")
				check(lut[v]*lut[v], "square")
			}
			if (lo+hi)%61 == 0 {
				luts = append(luts, lut)
			}
		}
	}
	// Products of two images' samples: a spread of extreme pairs.
	for i, a := range luts {
		b := luts[(i*7+3)%len(luts)]
		for _, x := range a {
			for _, y := range b {
				if x < 0 || x > 1 || y < 0 || y > 1 {
					continue // outside the extremes: no image has it
				}
				check(x*y, "product")
			}
		}
	}
	if win := maxFastWin * maxFastWin; float64(win)*fixScale >= 1<<51 {
		t.Fatalf("%d taps of up to 2^39 units overflow the 2^51 budget", win)
	}
}

// TestLNCC8FastAllExact: with every pixel sent the exact way (an infinite
// conditioning ratio), LNCC8FastStats is LNCC8 bit for bit, so the
// fallback (exactMeans8), the window bookkeeping and the mean are right.
func TestLNCC8FastAllExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 9))
	for _, kind := range corpusKinds {
		for n := 0; n < 2; n++ {
			w, h := corpusSize(rng, 70, 70)
			if n == 0 {
				w, h = 11+rng.IntN(3), 11+rng.IntN(5) // as small as the window
			}
			e, tr := corpusPair(kind, w, h, rng)
			want, err := LNCC8(e, tr, 11)
			if err != nil {
				t.Fatal(err)
			}
			got, st, err := LNCC8FastStats(e, tr, 11, float32(math.Inf(1)))
			if err != nil {
				t.Fatal(err)
			}
			if math.Float64bits(got) != math.Float64bits(want) {
				t.Errorf("%s %d×%d: all-exact fast %v, LNCC8 %v", kind, w, h, got, want)
			}
			if st.Pixels != w*h || st.Exact > st.Pixels {
				t.Errorf("%s %d×%d: stats %+v", kind, w, h, st)
			}
		}
	}
	// Windows other than 11 and a 1-pixel-wide picture (reflection of a
	// single column).
	e, tr := corpusPair("speckle", 1, 30, rng)
	for _, win := range []int{1, 3, 5} {
		want, _ := LNCC8(e, tr, win)
		got, _, err := LNCC8FastStats(e, tr, win, float32(math.Inf(1)))
		if err != nil || got != want {
			t.Errorf("win %d on 1×30: fast %v (%v), LNCC8 %v", win, got, err, want)
		}
	}
	if _, err := LNCC8Fast(e, tr, 47); err == nil {
		t.Error("window 47 accepted (over the fixed-point budget)")
	}
	if _, err := LNCC8Fast(e, tr, 4); err == nil {
		t.Error("even window accepted")
	}
}

// kindStats is the corpus summary of one kind.
type kindStats struct {
	pairs, differ    int     // pairs, pairs whose fast value differs
	above            int     // pairs whose fast value is the larger
	maxDiff, maxUlps float64 // largest |fast − LNCC8|, in float32 units of the value
	diffs            []float64
	pixels, exact    int
	exactT, fastT    time.Duration // time in LNCC8 and in LNCC8FastStats
}

// measureCorpus scores perKind pairs of every kind (sizes up to maxW×maxH)
// with LNCC8 and LNCC8FastStats.
func measureCorpus(t testing.TB, perKind, maxW, maxH int, seed uint64, condRatio float32) map[string]*kindStats {
	out := map[string]*kindStats{}
	for ki, kind := range corpusKinds {
		rng := rand.New(rand.NewPCG(seed, uint64(ki)))
		ks := &kindStats{}
		out[kind] = ks
		for n := 0; n < perKind; n++ {
			w, h := corpusSize(rng, maxW, maxH)
			e, tr := corpusPair(kind, w, h, rng)
			t0 := time.Now()
			want, err := LNCC8(e, tr, 11)
			if err != nil {
				t.Fatal(err)
			}
			t1 := time.Now()
			got, st, err := LNCC8FastStats(e, tr, 11, condRatio)
			if err != nil {
				t.Fatal(err)
			}
			ks.exactT += t1.Sub(t0)
			ks.fastT += time.Since(t1)
			d := math.Abs(got - want)
			ks.pairs++
			ks.pixels += st.Pixels
			ks.exact += st.Exact
			ks.diffs = append(ks.diffs, d)
			if d != 0 {
				ks.differ++
			}
			if got > want {
				ks.above++
			}
			ks.maxDiff = max(ks.maxDiff, d)
			if want != 0 {
				ulp := float64(math.Nextafter32(float32(math.Abs(want)), float32(math.Inf(1)))) - math.Abs(want)
				ks.maxUlps = max(ks.maxUlps, d/ulp)
			}
		}
	}
	return out
}

// corpusTable formats measureCorpus's summary, one row per kind.
func corpusTable(m map[string]*kindStats) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-11s %6s %7s %6s %10s %10s %6s %8s %9s %9s\n", "kind", "pairs", "differ", "above", "max|Δ|", "p99.9|Δ|", "ulps", "exact%", "LNCC8 µs", "fast µs")
	for _, kind := range corpusKinds {
		ks := m[kind]
		d := slices.Clone(ks.diffs)
		slices.Sort(d)
		p := d[min(len(d)-1, int(math.Ceil(0.999*float64(len(d))))-1)]
		perPair := func(d time.Duration) float64 { return float64(d.Microseconds()) / float64(ks.pairs) }
		fmt.Fprintf(&b, "%-11s %6d %7d %6d %10.3g %10.3g %6.0f %8.3f %9.0f %9.0f\n", kind, ks.pairs, ks.differ, ks.above, ks.maxDiff, p, ks.maxUlps, 100*float64(ks.exact)/float64(ks.pixels), perPair(ks.exactT), perPair(ks.fastT))
	}
	return b.String()
}

// decisionStep is the spacing of the points where a value's five-decimal
// form or its order against a five-decimal leaderboard value can change:
// every odd multiple of 0.5e-5 (rounding) and every multiple of 1e-5
// (leaderboard values have five decimals; ranks compare raw values).
const decisionStep = 0.5e-5

// guardBand is the guard band a fast path with largest measured per-image
// departure maxDiff would need: 100 times it (a margin for inputs the
// corpus lacks).
func guardBand(maxDiff float64) float64 { return 100 * maxDiff }

// TestLNCC8FastNotGuardable records why the grader keeps LNCC8: on the
// corpus (280 seeded pairs of 14 kinds here; BenchmarkLNCC8FastCorpus runs
// 2,100 up to 800×600) LNCC8Fast departs from LNCC8 by far more than a
// float32 unit, on every kind but identical pairs. The reference's box means
// carry rounding errors that are set by each tap's value and the
// accumulator's binade, not random, so they do not average out over an
// image: its LNCC is biased by up to ~1e-4 against the exact-sum one. A
// guard band of 100 times that is wider than the spacing of five-decimal
// decision points, so every value would fall in it and be recomputed
// exactly: a fast path could never be used. If a better fast arithmetic
// makes this test fail, the guard becomes possible: measure again and
// consider adopting it.
func TestLNCC8FastNotGuardable(t *testing.T) {
	m := measureCorpus(t, 20, 140, 140, 1, DefaultCondRatio)
	t.Logf("condRatio %d\n%s", DefaultCondRatio, corpusTable(m))
	worst := 0.0
	for _, kind := range corpusKinds {
		ks := m[kind]
		worst = max(worst, ks.maxDiff)
		if kind == "identical" {
			continue
		}
		if ks.differ == 0 {
			t.Errorf("%s: no pair departs from LNCC8", kind)
		}
	}
	if g := guardBand(worst); g < decisionStep/2 {
		t.Errorf("largest departure %.3g: a guard band of %.3g leaves room between decision points %.1g apart; re-measure with BenchmarkLNCC8FastCorpus and consider adopting LNCC8Fast", worst, g, decisionStep)
	}
	if m["identical"].differ != 0 {
		t.Errorf("identical pairs: %d depart (both paths should give exactly 1 where no pixel is ill-conditioned)", m["identical"].differ)
	}
}

// BenchmarkLNCC8FastCorpus is the large evidence run: 150 pairs of each
// kind, 2,100 in all, sizes 11 up to 800×600 (run with -benchtime 1x; the
// table goes to standard output, as the testing package trims a
// benchmark's log to ten lines).
func BenchmarkLNCC8FastCorpus(b *testing.B) {
	for b.Loop() {
		m := measureCorpus(b, 150, 800, 600, 2, DefaultCondRatio)
		fmt.Printf("condRatio %d\n%s", DefaultCondRatio, corpusTable(m))
	}
}

func BenchmarkLNCC8Fast512(b *testing.B) {
	noisy := func(w, h int, seed uint64) (Gray8, Gray8) {
		return corpusPair("noise", w, h, rand.New(rand.NewPCG(seed, 3)))
	}
	for _, c := range []struct {
		name string
		pair func(w, h int, seed uint64) (Gray8, Gray8)
	}{{"speckle", speckle8}, {"noisy", noisy}, {"fan", fan8}} {
		e, t := c.pair(512, 512, 1)
		b.Run(c.name, func(b *testing.B) {
			var st FastStats
			for b.Loop() {
				var err error
				if _, st, err = LNCC8FastStats(e, t, 11, DefaultCondRatio); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(100*float64(st.Exact)/float64(st.Pixels), "exact%")
		})
		b.Run(c.name+"/exact", func(b *testing.B) {
			for b.Loop() {
				if _, err := LNCC8(e, t, 11); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
