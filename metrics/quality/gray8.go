package quality

import (
	"fmt"
	"math"
	"sync"
	"unsafe"

	"github.com/rexmle/rexmle/metrics/bytescan"
	"github.com/rexmle/rexmle/metrics/num"
)

// Gray8 is an 8-bit grey image (PIL mode "L"): W columns, H rows,
// Pix[row*W+col]. The *8 functions compute exactly what their float
// counterparts return for Gray8.Image() with Float32 arithmetic, bit for
// bit, with integer arithmetic and lookup tables where 8-bit samples allow
// it. They run on the calling goroutine only: callers parallelise over
// images.
type Gray8 struct {
	W, H int
	Pix  []uint8
}

// Image returns the samples as a float64 Image.
func (g Gray8) Image() Image {
	p := make([]float64, len(g.Pix))
	for i, v := range g.Pix {
		p[i] = float64(v)
	}
	return Image{W: g.W, H: g.H, Pix: p}
}

func (g Gray8) check(name string) error {
	if g.W <= 0 || g.H <= 0 {
		return fmt.Errorf("quality: %s has size %d×%d", name, g.W, g.H)
	}
	if len(g.Pix) != g.W*g.H {
		return fmt.Errorf("quality: %s has %d samples, want %d×%d = %d", name, len(g.Pix), g.W, g.H, g.W*g.H)
	}
	return nil
}

func checkPair8(a, b Gray8) error {
	if err := a.check("first image"); err != nil {
		return err
	}
	if err := b.check("second image"); err != nil {
		return err
	}
	if a.W != b.W || a.H != b.H {
		return fmt.Errorf("quality: image sizes differ: %d×%d vs %d×%d", a.W, a.H, b.W, b.H)
	}
	return nil
}

// minMax8 returns the smallest and largest sample (0, 0 for no samples).
func minMax8(p []uint8) (lo, hi uint8) {
	if len(p) == 0 {
		return 0, 0
	}
	n := 0
	lo, hi = p[0], p[0]
	if ssim8Vector && len(p) >= 32 {
		n = len(p) &^ 31
		lo, hi = minMaxBytes(&p[0], n)
	}
	for _, v := range p[n:] {
		lo, hi = min(lo, v), max(hi, v)
	}
	return lo, hi
}

// JointRange8 is JointRange(a.Image(), b.Image(), true).
func JointRange8(a, b Gray8) float64 {
	if len(a.Pix)+len(b.Pix) == 0 {
		return math.Inf(-1) // JointRange of no samples: −Inf − (+Inf)
	}
	lo, hi := uint8(255), uint8(0)
	for _, p := range [][]uint8{a.Pix, b.Pix} {
		if len(p) == 0 {
			continue
		}
		l, h := minMax8(p)
		lo, hi = min(lo, l), max(hi, h)
	}
	return float64(float32(hi) - float32(lo)) // exact: integers below 2^24
}

// PSNR8 is PSNR(a.Image(), b.Image(), dataRange, true). Squared differences
// of 8-bit samples are integers, so the float64 pairwise mean of the
// reference is an exact integer sum divided by the count.
func PSNR8(a, b Gray8, dataRange float64) (float64, error) {
	if !(dataRange > 0) {
		return 0, fmt.Errorf("quality: PSNR data range %v, want > 0", dataRange)
	}
	if err := checkPair8(a, b); err != nil {
		return 0, err
	}
	var sum uint64
	bp := b.Pix[:len(a.Pix)]
	i0 := 0
	if ssim8Vector {
		for m := len(a.Pix) &^ 15; i0 < m; {
			c := min(m-i0, 1<<18)
			sum += sqDiff8(&a.Pix[i0], &bp[i0], c)
			i0 += c
		}
	}
	for i := i0; i < len(a.Pix); i++ {
		v := a.Pix[i]
		d := int32(v) - int32(bp[i])
		sum += uint64(d * d)
	}
	if sum == 0 {
		return math.Inf(1), nil
	}
	mse := float64(sum) / float64(len(a.Pix))
	r := float64(f32(dataRange))
	return 10 * num.Log10(r*r/mse), nil
}

// normLUT8 maps every 8-bit value to LNCC's normalised float32 sample
// (v − lo)/d, d = float32(float64(hi − lo) + 1e-8), as normalise32 computes
// it for an image whose extremes are lo and hi.
func normLUT8(lo, hi uint8) (lut [256]float32) {
	flo, d := normParams8(lo, hi)
	for v := range lut {
		lut[v] = (float32(v) - flo) / d
	}
	return lut
}

// normParams8 returns float32(lo) and d of normLUT8.
func normParams8(lo, hi uint8) (flo, d float32) {
	flo = float32(lo)
	return flo, float32(float64(float32(hi)-flo) + 1e-8)
}

// LNCC8 is LNCC(a.Image(), b.Image(), win), bit for bit. The normalised
// samples, their squares and products come from 256-entry tables. The five
// box means are computed by slideBox down the image, lnccBand padded rows
// at a time: each padded row is read once and added to the win output rows
// whose windows hold it, so only a band of padded rows, the accumulators
// and a band of output rows are kept.
func LNCC8(a, b Gray8, win int) (float64, error) {
	return lncc8(a, b, win, nil)
}

// lncc8 is LNCC8; where f is not nil, its box kernel calls also run f's
// row-pass work (see LNCCSSIM8).
func lncc8(a, b Gray8, win int, f *ssimFuse) (float64, error) {
	if err := checkPair8(a, b); err != nil {
		return 0, err
	}
	if win < 1 || win%2 == 0 {
		return 0, fmt.Errorf("quality: LNCC window %d, want odd and positive", win)
	}
	w, h := a.W, a.H
	loA, hiA := minMax8(a.Pix)
	loB, hiB := minMax8(b.Pix)
	lutE, lutT := normLUT8(loA, hiA), normLUT8(loB, hiB)
	r := win / 2
	ew, eh := w+2*r, h+2*r
	nb := min(lnccBand, eh)
	s := getLNCC8Scratch(5*nb*ew, 5*win*w, 5*nb*w, num.NumpyBuffer+w)
	defer lncc8Pool.Put(s)
	band, state, outs := s.band, s.state, s.outs
	clear(state)
	// Where each padded row can be non-zero (E' and E'² are zero exactly
	// where E is at its minimum, T' and T'² likewise, E'T' where either
	// is): taps of +0 leave an accumulator unchanged (fma(k, +0, acc) =
	// acc, acc ≥ +0), which the black surround of ultrasound frames gives
	// for free.
	spanE := nonzeroSpans(a, lutE, r, grow(&s.rows, h), grow(&s.spanE, h+2*r))
	spanT := nonzeroSpans(b, lutT, r, s.rows, grow(&s.spanT, h+2*r))
	k := float32(1 / float64(win*win))
	vec := ssim8Vector
	t := newLNCCPlanes(a, b, r, [4]uint8{loA, hiA, loB, hiB}, &lutE, &lutT, vec)
	// The q of valid pixels, summed in numpy's order a chunk at a time.
	acc := chunkSum32{buf: s.q[:0]}
	var scratch [8]float32
	for p0 := 0; p0 < eh; p0 += nb {
		m := min(nb, eh-p0)
		// Padded rows p0 … p0+m−1 of E', T', E'², T'², E'T' (reflect-101).
		t.fill(band, nb, p0, m)
		// Padded columns that can be non-zero in the rows that the
		// accumulators of this band have seen or will see.
		ue, ut, uet := span{ew, -1}, span{ew, -1}, span{ew, -1}
		for py := max(0, p0-2*r); py < p0+m; py++ {
			se, st := spanE[py], spanT[py]
			ue, ut, uet = ue.union(se), ut.union(st), uet.union(se.intersect(st))
		}
		for pl, sp := range [5]span{ue, ut, ue, ut, uet} {
			slideBoxSpan(band[pl*nb*ew:], ew, m, p0, state[pl*win*w:(pl+1)*win*w], outs[pl*nb*w:(pl+1)*nb*w], w, h, win, k, sp, vec, f)
		}
		// Output row y = p − 2r is complete after step p.
		for i := max(0, 2*r-p0); i < m; i++ {
			o := i * w
			mu1, mu2 := outs[o:o+w], outs[nb*w+o:nb*w+o+w]
			m11, m22, m12 := outs[2*nb*w+o:2*nb*w+o+w], outs[3*nb*w+o:3*nb*w+o+w], outs[4*nb*w+o:4*nb*w+o+w]
			acc.buf = appendRowQ(acc.buf, mu1, mu2, m11, m22, m12, vec, &scratch)
			acc.flush(false)
		}
	}
	acc.flush(true)
	if acc.n == 0 {
		return constantLNCC8(a, b, &lutE, &lutT), nil
	}
	return float64(acc.total / float32(acc.n)), nil
}

// lnccPlanes writes the padded rows of LNCC8's five planes E', T', E'²,
// T'², E'T' (table values, reflect-101 borders) into a band.
type lnccPlanes struct {
	a, b       Gray8
	r          int // the window's radius: padding on every side
	lutE, lutT *[256]float32
	sqE, sqT   [256]float32
	loE, dE    float32 // normParams8 of a and b, for the vector kernel
	loT, dT    float32
	border     [][2]int // padded columns of the reflect border and the ones they copy
	vec        bool
}

// newLNCCPlanes prepares the planes of a and b, whose extremes are
// ext = {min a, max a, min b, max b} and tables lutE, lutT (normLUT8).
func newLNCCPlanes(a, b Gray8, r int, ext [4]uint8, lutE, lutT *[256]float32, vec bool) lnccPlanes {
	t := lnccPlanes{a: a, b: b, r: r, lutE: lutE, lutT: lutT, vec: vec}
	for v := range t.sqE {
		t.sqE[v] = lutE[v] * lutE[v]
		t.sqT[v] = lutT[v] * lutT[v]
	}
	t.loE, t.dE = normParams8(ext[0], ext[1])
	t.loT, t.dT = normParams8(ext[2], ext[3])
	w := a.W
	t.border = make([][2]int, 0, 2*r)
	for c := 0; c < r; c++ {
		t.border = append(t.border, [2]int{c, r + reflect101(c-r, w)}, [2]int{r + w + c, r + reflect101(w+c, w)})
	}
	return t
}

// fill writes padded rows p0 … p0+m−1 of the five planes into band, plane
// pl's row i at band[pl·nb·ew + i·ew:], ew = W + 2r.
func (t *lnccPlanes) fill(band []float32, nb, p0, m int) {
	w, h, r := t.a.W, t.a.H, t.r
	ew := w + 2*r
	for i := 0; i < m; i++ {
		sy := reflect101(p0+i-r, h)
		se, st := t.a.Pix[sy*w:sy*w+w], t.b.Pix[sy*w:sy*w+w]
		o := i*ew + r
		de, dt := band[o:o+w], band[nb*ew+o:nb*ew+o+w]
		dee, dtt, det := band[2*nb*ew+o:2*nb*ew+o+w], band[3*nb*ew+o:3*nb*ew+o+w], band[4*nb*ew+o:4*nb*ew+o+w]
		st, dt, dee, dtt, det = st[:len(se)], dt[:len(se)], dee[:len(se)], dtt[:len(se)], det[:len(se)]
		c0 := 0
		if t.vec && w >= 8 {
			c0 = w &^ 7
			lnccPrep8(&se[0], &st[0], c0, &de[0], &dt[0], &dee[0], &dtt[0], &det[0], t.loE, t.dE, t.loT, t.dT)
		}
		for c := c0; c < len(se); c++ {
			ve, vt := se[c], st[c]
			fe, ft := t.lutE[ve], t.lutT[vt]
			de[c], dt[c] = fe, ft
			dee[c], dtt[c] = t.sqE[ve], t.sqT[vt]
			det[c] = fe * ft
		}
		for pl := 0; pl < 5; pl++ {
			row := band[pl*nb*ew+i*ew : pl*nb*ew+i*ew+ew]
			if w > r {
				// reflect101 of the r columns next to each edge.
				left, right := row[:2*r+1], row[w-1:ew]
				for c := 0; c < r; c++ {
					left[c] = left[2*r-c]
					right[r+1+c] = right[r-1-c]
				}
				continue
			}
			for _, bc := range t.border {
				row[bc[0]] = row[bc[1]]
			}
		}
	}
}

// lnccThreshold is LNCC's validity threshold on both local variances.
const lnccThreshold = float32(1e-10)

// appendRowQ appends to q (whose capacity must hold one more row) the q of
// the valid pixels of one output row from its five box-mean rows, in
// order; vec selects the vector kernel (lnccRowQ) for whole groups of 8.
func appendRowQ(q, mu1, mu2, m11, m22, m12 []float32, vec bool, scratch *[8]float32) []float32 {
	mu2, m11, m22, m12 = mu2[:len(mu1)], m11[:len(mu1)], m22[:len(mu1)], m12[:len(mu1)]
	const thr = lnccThreshold
	i0 := 0
	if vec && len(mu1) >= 8 {
		i0 = len(mu1) &^ 7
		got := lnccRowQ(&mu1[0], &mu2[0], &m11[0], &m22[0], &m12[0], i0, &q[len(q):cap(q)][0], &scratch[0], thr)
		q = q[:len(q)+got]
	}
	for i := i0; i < len(mu1); i++ {
		u1, u2 := mu1[i], mu2[i]
		s1 := m11[i] - float32(u1*u1) // explicit conversions forbid fusion
		s2 := m22[i] - float32(u2*u2)
		if !(s1 > thr && s2 > thr) {
			continue
		}
		s12 := m12[i] - float32(u1*u2)
		q = append(q, s12/float32(math.Sqrt(float64(s1*s2))))
	}
	return q
}

// constantLNCC8 is LNCC8's value when no pixel is valid: 1 where the
// normalised images agree within numpy's allclose tolerances, else 0.
func constantLNCC8(a, b Gray8, lutE, lutT *[256]float32) float64 {
	bp := b.Pix[:len(a.Pix)]
	for i, v := range a.Pix {
		e, t := lutE[v], lutT[bp[i]]
		d := e - t
		if d < 0 {
			d = -d
		}
		if !(d <= float32(1e-8)+float32(float32(1e-5)*t)) { // t ≥ 0
			return 0
		}
	}
	return 1
}

// lnccBand is the number of padded rows LNCC8 prepares and filters at a
// time: the band, the accumulators and the band's output rows of the five
// planes stay in the L2 cache.
const lnccBand = 16

// lncc8Scratch holds LNCC8's buffers between calls.
type lncc8Scratch struct {
	band, state, outs, q []float32
	rows, spanE, spanT   []span
}

var lncc8Pool sync.Pool

// getLNCC8Scratch returns buffers of the given lengths, contents undefined.
func getLNCC8Scratch(nband, nstate, nouts, nq int) *lncc8Scratch {
	s, _ := lncc8Pool.Get().(*lncc8Scratch)
	if s == nil {
		s = new(lncc8Scratch)
	}
	grow := func(b []float32, n int) []float32 {
		if cap(b) < n {
			return make([]float32, n)
		}
		return b[:n]
	}
	s.band, s.state, s.outs, s.q = grow(s.band, nband), grow(s.state, nstate), grow(s.outs, nouts), grow(s.q, nq)
	return s
}

// slideBox advances the box filter of one plane (see boxFilter for the
// arithmetic) by m steps, p0 … p0+m−1, on output columns [x0, x1). Step p
// reads padded row p (rows[(p−p0)·stride:], win−1 columns wider than the
// output) and adds its taps, column offsets in order, to the win
// accumulators: slot j (state[j·w:]) holds the output row y ≡ j (mod win)
// with y ≤ p < y + win, whose taps of the padded rows y … p−1 are in. After
// step p the output row p − (win−1) is complete: it is written to
// out[(p−p0)·w:] and its slot cleared for row p+1. So every output pixel
// takes its taps row offset outer, column offset inner, as boxFilter does.
// Slots of rows outside the image accumulate and write nothing of use.
func slideBox(rows []float32, stride, m, p0 int, state, out []float32, w, x0, x1, win int, k float32) {
	if x0 >= x1 {
		return
	}
	for i := 0; i < m; i++ {
		row := rows[i*stride:]
		for j := 0; j < win; j++ {
			acc := state[j*w : j*w+w]
			for x := x0; x < x1; x++ {
				s := acc[x]
				for _, v := range row[x : x+win] {
					s = fma32(k, v, s)
				}
				acc[x] = s
			}
		}
		c := (p0 + i + 1) % win
		acc := state[c*w : c*w+w]
		copy(out[i*w+x0:i*w+x1], acc[x0:x1])
		clear(acc[x0:x1])
	}
}

// slideBoxSpan is slideBox on all w output columns of a plane whose padded
// rows p0−(win−1) … p0+m−1 are +0 outside the padded columns of sp. Output
// columns whose windows miss sp are skipped: their accumulators hold +0
// (they saw only zero taps since the previous band they were run in, or
// since the start, whose outputs were all complete) and stay so, and their
// outputs are +0. For win = 11 the vector kernels take whole strips of 16
// columns (AVX-512F, where the CPU has it), then of 8, and slideBox the rest;
// with f, the strips of 8 also run f's row-pass work (slide11r), as much as
// they have room for. h is the image's height.
func slideBoxSpan(rows []float32, stride, m, p0 int, state, out []float32, w, h, win int, k float32, sp span, vec bool, f *ssimFuse) {
	a, b := max(0, sp.lo-(win-1)), min(w, sp.hi+1)
	if a >= b {
		a, b = 0, 0
	}
	if vec && win == 11 {
		sa, sb := a&^7, min(b+7, w)&^7 // whole strips inside the row
		if sa < sb {
			s8 := sa // where the 8-column strips start
			if n16 := (sb - sa) / 16; slideWide && n16 > 0 {
				slide11x16(&rows[sa], stride, m, p0%11, &state[sa], w, &out[sa], w, n16, k)
				s8 = sa + 16*n16
			}
			if n8 := (sb - s8) / 8; n8 > 0 {
				slide8(rows[s8:], stride, m, p0, state[s8:], out[s8:], w, n8, h, k, f)
			}
			slideBox(rows, stride, m, p0, state, out, w, sb, b, win, k) // the last columns
			a, b = sa, max(b, sb)
		} else {
			slideBox(rows, stride, m, p0, state, out, w, a, b, win, k)
		}
	} else {
		slideBox(rows, stride, m, p0, state, out, w, a, b, win, k)
	}
	for i := 0; i < m; i++ {
		clear(out[i*w : i*w+a])
		clear(out[i*w+b : i*w+w])
	}
}

// slide8 runs slideBox's steps p0 … p0+m−1 on n8 strips of 8 columns for
// win = 11 (rows, state and out start at the first strip's column; h is
// the image's height). The image's first ten steps (padded rows above its
// first output row's window end) run in slide11head and its last ten in
// slide11tail where the band holds them all, leaving out the multiply-adds
// into accumulators of rows outside the image (1210 of the 63162 a strip
// of a 512-row plane takes); the rest run in slide11r with f's row-pass
// work, or in slide11.
func slide8(rows []float32, stride, m, p0 int, state, out []float32, w, n8, h int, k float32, f *ssimFuse) {
	const edge = 10 // win − 1
	lo, hi := 0, m  // the band's steps slide11 or slide11r run
	if p0 == 0 && h >= edge && m >= edge {
		slide11head(&rows[0], stride, &state[0], w, n8, k)
		lo = edge
	}
	if p0+m == h+edge && h >= edge && m-lo >= edge {
		hi = m - edge
	}
	if hi > lo {
		if f != nil {
			f.topUp(n8 * (hi - lo))
			slide11r(&rows[lo*stride], stride, hi-lo, (p0+lo)%11, &state[0], w, &out[lo*w], w, n8, k, &f.job)
			f.retire()
		} else {
			slide11(&rows[lo*stride], stride, hi-lo, (p0+lo)%11, &state[0], w, &out[lo*w], w, n8, k)
		}
	}
	if hi < m {
		// The slot of row y is y mod 11; the tail's rows are h−10 … h−1.
		var slots [edge]int
		for j := range slots {
			slots[j] = (h + 1 + j) % 11 * w * 4
		}
		slide11tail(&rows[hi*stride], stride, &state[0], &slots, &out[hi*w], w, n8, k)
	}
}

// maxWin8 is the largest uniform SSIM window for which SSIM8's exact
// reasoning holds (see SSIM8); larger windows take the float path.
const maxWin8 = 63

// SSIM8 is SSIM(a.Image(), b.Image(), opt) bit for bit. For opt.Float32
// with a uniform window of at most maxWin8 it uses the integer nature of
// 8-bit samples:
//
//   - x, y, x², y² and xy are integers below 2^16, so scipy's float64
//     running sums of the first (column) pass are exact integers S < 2^24;
//   - the first-pass output, S/size rounded to float64 then to float32, is
//     float32(S·(1/size)) (see quotient32: S/size is an integer or not a
//     float32 half-way point);
//   - every first-pass output is 0 or at least 1/size, hence a multiple of
//     2^−(23+⌈log2 size⌉), and below 2^16, so the second (row) pass's float64
//     running sums are exact too (fewer than 53 bits for size ≤ 63): any
//     summation order gives scipy's sum t, and its output is quotient32(t).
//
// Other options take the float path.
func SSIM8(a, b Gray8, opt SSIMOptions) (float64, error) {
	if err := checkPair8(a, b); err != nil {
		return 0, err
	}
	o := opt
	if err := o.fill(); err != nil {
		return 0, err
	}
	if !ssim8Exact(a, o) {
		return SSIM(a.Image(), b.Image(), opt)
	}
	s := newSSIM8Run(a, b, o, 1)
	defer s.release()
	s.all()
	return s.result(), nil
}

// ssim8Exact reports whether SSIM8 takes its integer path for a with the
// filled options o.
func ssim8Exact(a Gray8, o SSIMOptions) bool {
	return o.Float32 && !o.Gaussian && o.WinSize <= maxWin8 && a.W >= o.WinSize && a.H >= o.WinSize
}

// ssim8Run is SSIM8 on one pair of images, a row at a time. Each output
// row goes through three steps, in row order:
//
//   - advance moves the column sums on to the row (the first pass) and,
//     for a row that is not cropped, writes its first-pass values to a
//     slot: a row buffer of its own, so that several rows can wait there;
//   - the row pass (rowPass, or segments of it run by slide11r in LNCC8's
//     shadow, see ssimFuse) turns them into the five second-pass rows;
//   - emitRow computes the row's map values and adds them to the sum.
type ssim8Run struct {
	a, b               Gray8
	w, h, size, r, pad int
	ew, es, cw         int
	sums               []int32 // column sums of x, y, x², y², xy (w each)
	q                  quotient32
	border             [][2]int // extended columns of the reflect border and those they copy
	covNorm, c1, c2    float32
	acc                chunkSum64
	rows               []span    // the columns where each row of a or b is non-zero
	zrow               []float32 // the map value of a zero window, cw times
	pr                 []float64 // the row kernel's pair sums
	vec                bool
	y                  int // the next row advance moves to
	slots              []ssim8Row
	sc                 *ssim8Scratch
}

// ssim8Row is a slot of ssim8Run: one output row's first-pass values (ext:
// five extended rows es apart) and second-pass rows (outs: five rows w
// apart). Output columns [ca, cb) are computed (the others are those of a
// zero window); the first fused of them (a multiple of 4·rowVecs) by the
// row's segments s0 … s1−1 of an ssimFuse queue, the rest by rowPass.
type ssim8Row struct {
	ext           []float64
	outs          []float32
	ca, cb        int
	fused, s0, s1 int
}

// newSSIM8Run sets up SSIM8 on a and b (checked, o filled, ssim8Exact)
// with n slots.
func newSSIM8Run(a, b Gray8, o SSIMOptions, n int) *ssim8Run {
	w, h, size := a.W, a.H, o.WinSize
	r := size / 2
	sc := getSSIM8Scratch()
	s := &sc.run
	*s = ssim8Run{a: a, b: b, w: w, h: h, size: size, r: r, pad: (size - 1) / 2, sc: sc, vec: ssim8Vector}
	// Column sums of the first output row's window, per plane x, y, x²,
	// y², xy.
	s.sums = grow(&sc.sums, 5*w)
	clear(s.sums)
	sx, sy, sxx, syy, sxy := s.planes()
	for k := -r; k <= r; k++ {
		ra, rb := s.rowAt(k)
		rb = rb[:len(ra)]
		for c, va := range ra {
			p, q := int32(va), int32(rb[c])
			sx[c] += p
			sy[c] += q
			sxx[c] += p * p
			syy[c] += q * q
			sxy[c] += p * q
		}
	}
	// First-pass rows (float32 values held as float64) extended by the
	// reflect border (r each side), one per plane es apart, then the
	// second-pass outputs. The row kernel reads a few entries past a row.
	s.ew = w + 2*r
	s.es = (s.ew + 4 + 7) &^ 7 // planes 64 bytes apart (see below)
	s.pr = grow(&sc.pr, s.es+4)
	s.slots = grow(&sc.slots, n)
	for len(sc.bufs) < n {
		sc.bufs = append(sc.bufs, ssim8RowBuf{})
	}
	for i := range s.slots {
		buf := &sc.bufs[i]
		extBuf := grow(&buf.ext, 5*s.es+16)
		// ext[r] of every plane lies on a 64-byte boundary: the column
		// kernel's stores of first-pass values (at ext[r+x], x a multiple
		// of 8) are then aligned, none spanning two cache lines.
		off := int(uintptr(unsafe.Pointer(&extBuf[0]))%64) / 8
		ext := extBuf[(16-off-r%8)%8:][:5*s.es+8]
		s.slots[i] = ssim8Row{ext: ext, outs: grow(&buf.outs, 5*w)}
	}
	s.q = newQuotient32(size)
	s.border = sc.border[:0]
	for k := 0; k < r; k++ {
		s.border = append(s.border, [2]int{k, r + reflectIndex(k-r, w)}, [2]int{r + w + k, r + reflectIndex(w+k, w)})
	}
	sc.border = s.border
	np := float64(size * size)
	s.covNorm = float32(1.0)
	if !o.PopulationCovariance {
		s.covNorm = float32(np / (np - 1))
	}
	rng := o.DataRange
	s.c1 = float32((o.K1 * rng) * (o.K1 * rng))
	s.c2 = float32((o.K2 * rng) * (o.K2 * rng))
	// The map values, summed in numpy's order a chunk at a time.
	s.cw = w - 2*s.pad // cropped width
	s.acc = chunkSum64{buf: grow(&sc.vals, num.NumpyBuffer+s.cw)[:0]}
	// Where every sample of both images in an output pixel's window is 0,
	// all five first-pass values there are +0, the second-pass sums +0,
	// and the map value is that of zeros; windows of output row y hold
	// rows y−r … y+r.
	s.rows = nonzeroColumns(a, b, grow(&sc.rows, h))
	s.zrow = grow(&sc.zrow, s.cw)
	s.zrow[0] = ssimMapValue(0, 0, 0, 0, 0, s.covNorm, s.c1, s.c2)
	for n := 1; n < s.cw; n *= 2 {
		copy(s.zrow[n:], s.zrow[:n])
	}
	return s
}

// all runs the rows not yet advanced to the end, one at a time in slot 0
// (no row may be waiting in a slot).
func (s *ssim8Run) all() {
	row := &s.slots[0]
	for s.y < s.h {
		if s.advance(row) {
			s.rowPass(row, 0)
			s.emitRow(row)
		}
	}
}

// coverage is the share of the frame between each row's first and last
// column where a or b is non-zero.
func (s *ssim8Run) coverage() float64 {
	n := 0
	for _, sp := range s.rows {
		n += max(sp.hi-sp.lo+1, 0)
	}
	return float64(n) / float64(s.w*s.h)
}

// release returns the run's buffers to the pool; s must not be used after.
func (s *ssim8Run) release() {
	sc := s.sc
	*s = ssim8Run{} // keeps no image alive in the pool
	ssim8Pool.Put(sc)
}

// planes returns the five column-sum planes.
func (s *ssim8Run) planes() (sx, sy, sxx, syy, sxy []int32) {
	w, sums := s.w, s.sums
	return sums[:w], sums[w : 2*w], sums[2*w : 3*w], sums[3*w : 4*w], sums[4*w:]
}

// rowAt returns row reflectIndex(k) of a and of b.
func (s *ssim8Run) rowAt(k int) ([]uint8, []uint8) {
	y := reflectIndex(k, s.h)
	return s.a.Pix[y*s.w : y*s.w+s.w], s.b.Pix[y*s.w : y*s.w+s.w]
}

// advance moves the column sums on to row s.y and, unless the row is
// cropped, writes its first-pass values to row (setting its ca and cb)
// and returns true. row's fused is set to 0.
func (s *ssim8Run) advance(row *ssim8Row) bool {
	y, w, h, r, es := s.y, s.w, s.h, s.r, s.es
	s.y++
	emit := y >= s.pad && y < h-s.pad // else cropped: only the column sums move on
	ia, ib := s.rowAt(y + r)
	oa, ob := s.rowAt(y - 1 - r)
	if y == 0 {
		oa, ob = ia, ib // sums already in place: add nothing
	}
	ext, sums, rows := row.ext, s.sums, s.rows
	// Output columns [ca, cb) can be non-zero; they read first-pass
	// values of columns [ea, eb) (reflections included: a window reaching
	// past an edge reflects columns nearer to it).
	nz := span{w, -1}
	if emit {
		for k := y - r; k <= y+r; k++ {
			nz = nz.union(rows[reflectIndex(k, h)])
		}
	}
	ca, cb, ea, eb := 0, 0, 0, 0
	if nz.lo <= nz.hi {
		ca, cb = max(0, nz.lo-r), min(w, nz.hi+r+1)
		ea, eb = max(0, nz.lo-2*r), min(w, nz.hi+2*r+1)
	}
	c0 := 0
	if s.vec {
		c0 = w &^ 7
		// Emit whole blocks of 8 over [ea, eb) only. Outside it the
		// column sums alone move on, and only where the entering or the
		// leaving row is non-zero (elsewhere they add 0).
		e0, e1 := min(ea&^7, c0), min((eb+7)&^7, c0)
		upd := rows[reflectIndex(y+r, h)].union(rows[reflectIndex(y-1-r, h)])
		for _, part := range [3][3]int{{0, e0, 0}, {e0, e1, 1}, {e1, c0, 0}} {
			x, end := part[0], part[1]
			if part[2] == 0 {
				if upd.lo > upd.hi {
					continue
				}
				x, end = max(x, upd.lo&^7), min(end, (upd.hi+8)&^7)
			}
			n := end - x
			if n > 0 {
				ssimCols8(&ia[x], &ib[x], &oa[x], &ob[x], &sums[x], n, w, &ext[r+x], es, float32(s.size), part[2])
			}
		}
	}
	if y > 0 {
		sx, sy, sxx, syy, sxy := s.planes()
		for c := c0; c < w; c++ {
			p, pq, l, lq := int32(ia[c]), int32(ib[c]), int32(oa[c]), int32(ob[c])
			sx[c] += p - l
			sy[c] += pq - lq
			sxx[c] += p*p - l*l
			syy[c] += pq*pq - lq*lq
			sxy[c] += p*pq - l*lq
		}
	}
	if !emit {
		return false
	}
	sx, sy, sxx, syy, sxy := s.planes()
	for p, sp := range [5][]int32{sx, sy, sxx, syy, sxy} {
		e := ext[p*es : p*es+s.ew]
		mid := e[r : r+w]
		for c := c0; c < w; c++ {
			mid[c] = float64(float32(float64(sp[c]) * s.q.inv))
		}
		for _, bc := range s.border {
			e[bc[0]] = e[bc[1]]
		}
	}
	row.ca, row.cb, row.fused = ca, cb, 0
	return true
}

// rowPass computes the second-pass outputs of row's columns [ca+from, cb)
// (from a multiple of 4).
func (s *ssim8Run) rowPass(row *ssim8Row, from int) {
	ext, outs, es, w, size, q := row.ext, row.outs, s.es, s.w, s.size, s.q
	if !s.vec {
		rowPass5(ext, es, outs, w, size, q)
		return
	}
	ca, cb := row.ca+from, row.cb
	n4 := max(cb-ca, 0) &^ 3
	check := 0
	if q.check {
		check = 1
	}
	if n4 > 0 {
		ssimRows4(&ext[ca], es, &outs[ca], w, n4, size, q.inv, q.s, &s.pr[0], check, 5)
	}
	for p := 0; p < 5 && ca+n4 < cb; p++ {
		e, d := ext[p*es:p*es+s.ew], outs[p*w:p*w+w]
		for i := ca + n4; i < cb; i++ {
			var t float64
			for _, v := range e[i : i+size] {
				t += v
			}
			d[i] = q.of(t)
		}
	}
}

// emitRow adds row's map values to the sum; rows must come in order.
func (s *ssim8Run) emitRow(row *ssim8Row) {
	pad, cw, w := s.pad, s.cw, s.w
	ux, uy, uxx, uyy, uxy := row.outs[:w], row.outs[w:2*w], row.outs[2*w:3*w], row.outs[3*w:4*w], row.outs[4*w:]
	// Cropped columns [m0, m1) are computed, the others are zrow.
	m0, m1 := min(max(row.ca-pad, 0), cw), min(max(row.cb-pad, 0), cw)
	if m0 >= m1 {
		m0, m1 = cw, cw
	}
	vals := s.acc.buf
	vals = append(vals, s.zrow[:m0]...)
	rx, ry, rxx, ryy, rxy := ux[pad+m0:pad+m1], uy[pad+m0:pad+m1], uxx[pad+m0:pad+m1], uyy[pad+m0:pad+m1], uxy[pad+m0:pad+m1]
	ry, rxx, ryy, rxy = ry[:len(rx)], rxx[:len(rx)], ryy[:len(rx)], rxy[:len(rx)]
	i0 := 0
	if s.vec && len(rx) >= 8 {
		i0 = len(rx) &^ 7
		n := len(vals)
		vals = vals[:n+i0]
		ssimMap8(&rx[0], &ry[0], &rxx[0], &ryy[0], &rxy[0], i0, &vals[n], s.covNorm, s.c1, s.c2)
	}
	for i := i0; i < len(rx); i++ {
		vals = append(vals, ssimMapValue(rx[i], ry[i], rxx[i], ryy[i], rxy[i], s.covNorm, s.c1, s.c2))
	}
	vals = append(vals, s.zrow[m1:]...)
	s.acc.buf = vals
	s.acc.flush(false)
}

// result is the mean of the map once every row is emitted.
func (s *ssim8Run) result() float64 {
	s.acc.flush(true)
	return s.acc.total / float64(s.acc.n)
}

// ssim8Scratch holds SSIM8's buffers between calls.
type ssim8Scratch struct {
	run    ssim8Run
	sums   []int32
	pr     []float64
	vals   []float32
	zrow   []float32
	rows   []span
	border [][2]int
	slots  []ssim8Row
	bufs   []ssim8RowBuf
}

// ssim8RowBuf is the memory of one ssim8Row.
type ssim8RowBuf struct {
	ext  []float64
	outs []float32
}

var ssim8Pool sync.Pool

func getSSIM8Scratch() *ssim8Scratch {
	if s, ok := ssim8Pool.Get().(*ssim8Scratch); ok {
		return s
	}
	return new(ssim8Scratch)
}

// grow sets *b to a slice of length n (its old buffer when large enough;
// contents undefined) and returns it.
func grow[T any](b *[]T, n int) []T {
	if cap(*b) < n {
		*b = make([]T, n)
	}
	*b = (*b)[:n]
	return *b
}

// ssimMapValue is the SSIM map value of one pixel from its five
// second-pass means, in float32 as the reference computes it.
func ssimMapValue(mx, my, rxx, ryy, rxy, covNorm, c1, c2 float32) float32 {
	mxx, myy, mxy := float32(mx*mx), float32(my*my), float32(mx*my)
	vx := float32(covNorm * float32(rxx-mxx))
	vy := float32(covNorm * float32(ryy-myy))
	vxy := float32(covNorm * float32(rxy-mxy))
	a1 := float32(float32(float32(2*mx)*my) + c1)
	a2 := float32(float32(2*vxy) + c2)
	b1 := float32(float32(mxx+myy) + c1)
	b2 := float32(float32(vx+vy) + c2)
	return float32(float32(a1*a2) / float32(b1*b2))
}

// nonzeroColumns sets out[y], for each row y, to the span of columns from
// the first to the last where a or b is non-zero (lo > hi for a row zero
// in both), and returns out.
func nonzeroColumns(a, b Gray8, out []span) []span {
	w := a.W
	for y := range out {
		ra, rb := a.Pix[y*w:y*w+w], b.Pix[y*w:y*w+w]
		lo := min(bytescan.FirstOther(ra, 0), bytescan.FirstOther(rb, 0))
		if lo == w {
			out[y] = span{w, -1}
			continue
		}
		out[y] = span{lo, max(bytescan.LastOther(ra, 0), bytescan.LastOther(rb, 0))}
	}
	return out
}

// rowPass5 is the second (row) pass of SSIM8 on five extended rows (ext,
// stride es) into five output rows (outs, stride w): running float64 sums
// of size samples (exact, see SSIM8), each divided by size with q. The five
// planes run interleaved so that their addition chains overlap.
func rowPass5(ext []float64, es int, outs []float32, w, size int, q quotient32) {
	e0, e1, e2, e3, e4 := ext[:es], ext[es:2*es], ext[2*es:3*es], ext[3*es:4*es], ext[4*es:5*es]
	d0, d1, d2, d3, d4 := outs[:w], outs[w:2*w], outs[2*w:3*w], outs[3*w:4*w], outs[4*w:5*w]
	var t0, t1, t2, t3, t4 float64
	for i := 0; i < size; i++ {
		t0 += e0[i]
		t1 += e1[i]
		t2 += e2[i]
		t3 += e3[i]
		t4 += e4[i]
	}
	d0[0], d1[0], d2[0], d3[0], d4[0] = q.of(t0), q.of(t1), q.of(t2), q.of(t3), q.of(t4)
	n := w - 1
	in, out := e0[size:size+n], e0[:n]
	in1, out1 := e1[size:size+n], e1[:n]
	in2, out2 := e2[size:size+n], e2[:n]
	in3, out3 := e3[size:size+n], e3[:n]
	in4, out4 := e4[size:size+n], e4[:n]
	d0, d1, d2, d3, d4 = d0[1:w], d1[1:w], d2[1:w], d3[1:w], d4[1:w]
	for i := range in {
		t0 += in[i] - out[i]
		t1 += in1[i] - out1[i]
		t2 += in2[i] - out2[i]
		t3 += in3[i] - out3[i]
		t4 += in4[i] - out4[i]
		d0[i], d1[i], d2[i], d3[i], d4[i] = q.of(t0), q.of(t1), q.of(t2), q.of(t3), q.of(t4)
	}
}

// quotient32 divides by an odd window size s (3 ≤ s ≤ maxWin8) the exact
// sums of SSIM8's passes, giving float32(float64(t)/s) without a division:
//
// t is a non-negative multiple of 2^−G (G = 23 + ⌈log2 s⌉) below 2^B with
// B + G ≤ 53. The product t·inv, inv = float64(1/s), is within 2^−51
// relative of t/s. Rounding it to float32 gives the float32 nearest t/s
// unless t/s lies closer than that to a float32 half-way point M: if the
// half-way points near t/s are multiples of 2^−G or coarser, t − s·M is
// then a non-zero multiple of 2^−G, so |t/s − M| ≥ 2^−G/s, which is larger
// (t/s < 2^16); if they are finer, s·M is an odd multiple of a power of two
// below 2^−G, so again t ≠ s·M and |t/s − M| ≥ M's spacing / s. Only
// t/s = M exactly remains (common: sums of large first-pass outputs are
// multiples of coarse powers of two), where the reference's float64
// quotient is M and rounds to even. With s·inv = 1 + ε, |ε| ≤ 2^−54 (s = 3,
// 5, 7, 9 and others), M·(1 + ε) is within half a float64 unit of M, so the
// product is M too; for other sizes (check set) a product whose low bits
// are near the half-way pattern is redone with a float64 division.
// (float32(float64(t)/s) is float32(t/s): the float64 rounding cannot
// reach a half-way point that t/s is not on, by the same bounds.)
type quotient32 struct {
	inv, s float64
	check  bool
}

func newQuotient32(s int) quotient32 {
	fs := float64(s)
	inv := 1 / fs
	eps := math.FMA(fs, inv, -1) // exact: a few bits below 2^−52
	return quotient32{inv: inv, s: fs, check: math.Abs(eps) > math.Ldexp(1, -54)}
}

// of returns float32(t/s) for t as described at quotient32.
func (q quotient32) of(t float64) float32 {
	p := t * q.inv
	if !q.check {
		return float32(p)
	}
	// The 29 float64 fraction bits below float32 precision: a product
	// within a few float64 units of a float32 half-way point (1 followed
	// by 28 zeros) may have been rounded across it.
	if low := math.Float64bits(p) & (1<<29 - 1); low-(1<<28-16) <= 32 {
		return float32(t / q.s)
	}
	return float32(p)
}

// span is a range of padded columns [lo, hi] outside which a row is zero;
// lo > hi when the whole row is.
type span struct{ lo, hi int }

func (s span) union(t span) span {
	if s.lo > s.hi {
		return t
	}
	if t.lo > t.hi {
		return s
	}
	return span{min(s.lo, t.lo), max(s.hi, t.hi)}
}

func (s span) intersect(t span) span { return span{max(s.lo, t.lo), min(s.hi, t.hi)} }

// nonzeroSpans returns, for each row of im padded by r rows and columns
// (reflect-101), a span of padded columns outside which the normalised
// samples lut[v] are +0. The spans may be wider than needed. They are
// written to out (h+2r entries), rows (h entries) is scratch.
func nonzeroSpans(im Gray8, lut [256]float32, r int, rows, out []span) []span {
	w, h := im.W, im.H
	ew := w + 2*r
	// The samples whose table value is zero: normLUT8 has exactly one
	// (the minimum), which is found eight bytes at a time.
	zero, zeros := 0, 0
	for v, f := range lut {
		if f == 0 {
			zero, zeros = v, zeros+1
		}
	}
	for y := range rows {
		line := im.Pix[y*w : y*w+w]
		var lo, hi int
		if zeros == 1 {
			lo = bytescan.FirstOther(line, uint8(zero))
			if lo < w {
				hi = bytescan.LastOther(line, uint8(zero))
			}
		} else {
			lo, hi = 0, w-1
			for lo < w && lut[line[lo]] == 0 {
				lo++
			}
			if lo < w {
				for lut[line[hi]] == 0 {
					hi--
				}
			}
		}
		if lo == w {
			rows[y] = span{ew, -1}
			continue
		}
		// Padded column c holds column reflect101(c−r, w): the left border
		// repeats columns 1 … r, the right one w−1−r … w−2 (anything when
		// the row is shorter than the window).
		lo, hi = lo+r, hi+r
		if lo <= 2*r || w <= 2*r+1 {
			lo = 0
		}
		if hi >= w-1 || w <= 2*r+1 {
			hi = ew - 1
		}
		rows[y] = span{lo, hi}
	}
	out = out[:h+2*r]
	for py := range out {
		out[py] = rows[reflect101(py-r, h)]
	}
	return out
}
