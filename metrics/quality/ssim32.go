package quality

import (
	"sync"

	"github.com/rexmle/rexmle/metrics/num"
)

// ssimUniform32 is SSIM for Float32 with a uniform window: the same
// operations as the general path (float64 running sums inside each 1-D
// filter pass, every pass output and every map operation rounded to
// float32), held in float32 arrays and computed with float32 arithmetic.
// Each float32 operation is correctly rounded, which is what rounding the
// exact float64 result of two float32 operands gives (53 ≥ 2·24 + 2), so the
// results are bit-identical to the general path at a third of the memory.
func ssimUniform32(a, b Image, opt SSIMOptions) float64 {
	w, h := a.W, a.H
	n := w * h
	x, y, xx, yy, xy := getF32(n), getF32(n), getF32(n), getF32(n), getF32(n)
	defer putF32(x, y, xx, yy, xy)
	for i := 0; i < n; i++ {
		p, q := float32(a.Pix[i]), float32(b.Pix[i])
		x[i], y[i] = p, q
		xx[i] = float32(p * p)
		yy[i] = float32(q * q)
		xy[i] = float32(p * q)
	}
	size := opt.WinSize
	var ux, uy, uxx, uyy, uxy []float32
	var wg sync.WaitGroup
	for _, job := range []struct {
		in  []float32
		out *[]float32
	}{{x, &ux}, {y, &uy}, {xx, &uxx}, {yy, &uyy}, {xy, &uxy}} {
		wg.Add(1)
		go func() { defer wg.Done(); *job.out = uniform32(job.in, w, h, size) }()
	}
	wg.Wait()
	defer putF32(ux, uy, uxx, uyy, uxy)

	np := float64(size * size)
	covNorm := float32(1.0)
	if !opt.PopulationCovariance {
		covNorm = float32(np / (np - 1))
	}
	r := opt.DataRange
	c1 := float32((opt.K1 * r) * (opt.K1 * r))
	c2 := float32((opt.K2 * r) * (opt.K2 * r))
	pad := (size - 1) / 2
	vals := make([]float64, 0, (w-2*pad)*(h-2*pad))
	// Explicit float32 conversions round every product before it is added,
	// as numpy does, whatever the compiler's fused multiply-add policy.
	for row := pad; row < h-pad; row++ {
		lo, hi := row*w+pad, row*w+w-pad
		rx, ry, rxx, ryy, rxy := ux[lo:hi], uy[lo:hi], uxx[lo:hi], uyy[lo:hi], uxy[lo:hi]
		ry, rxx, ryy, rxy = ry[:len(rx)], rxx[:len(rx)], ryy[:len(rx)], rxy[:len(rx)]
		for i, mx := range rx {
			my := ry[i]
			mxx, myy, mxy := float32(mx*mx), float32(my*my), float32(mx*my)
			vx := float32(covNorm * float32(rxx[i]-mxx))
			vy := float32(covNorm * float32(ryy[i]-myy))
			vxy := float32(covNorm * float32(rxy[i]-mxy))
			a1 := float32(float32(float32(2*mx)*my) + c1)
			a2 := float32(float32(2*vxy) + c2)
			b1 := float32(float32(mxx+myy) + c1)
			b2 := float32(float32(vx+vy) + c2)
			vals = append(vals, float64(float32(float32(a1*a2)/float32(b1*b2))))
		}
	}
	return num.Sum(vals) / float64(len(vals))
}

// uniform32 is uniformSeparable(…, single=true) on float32 storage: the
// column pass keeps a float64 running sum per column (first window summed
// in order, then S += entering − leaving), the row pass runs uniformLine's
// recurrence on the reflected row; each output is S/size rounded to float32.
func uniform32(in []float32, w, h, size int) []float32 {
	r := size / 2
	fs := float64(size)
	tmp := getF32(len(in))
	defer putF32(tmp)
	rowAt := func(k int) []float32 { y := reflectIndex(k, h); return in[y*w : y*w+w] }
	sum := make([]float64, w)
	for k := -r; k < size-r; k++ {
		for c, v := range rowAt(k) {
			sum[c] += float64(v)
		}
	}
	for y := 0; y < h; y++ {
		if y > 0 {
			enter, leave := rowAt(y+size-1-r), rowAt(y-1-r)
			enter, leave = enter[:len(sum)], leave[:len(sum)]
			for c := range sum {
				sum[c] += float64(enter[c]) - float64(leave[c])
			}
		}
		dst := tmp[y*w : y*w+w]
		for c, v := range sum {
			dst[c] = float32(v / fs)
		}
	}
	out := getF32(len(in)) // the caller gives it back
	// Row pass: each row's running sum is a serial chain of additions, so
	// four rows are processed together to overlap their latencies (the
	// per-row order of operations is unchanged).
	const lanes = 4
	var ext [lanes][]float64
	for k := range ext {
		ext[k] = make([]float64, w+2*r)
	}
	extend := func(e []float64, row []float32) {
		for k := -r; k < 0; k++ {
			e[k+r] = float64(row[reflectIndex(k, w)])
		}
		for k, v := range row {
			e[k+r] = float64(v)
		}
		for k := w; k < w+r; k++ {
			e[k+r] = float64(row[reflectIndex(k, w)])
		}
	}
	y := 0
	for ; y+lanes <= h; y += lanes {
		var t [lanes]float64
		for l := 0; l < lanes; l++ {
			extend(ext[l], tmp[(y+l)*w:(y+l)*w+w])
			for i := 0; i < size; i++ {
				t[l] += ext[l][i]
			}
		}
		e0, e1, e2, e3 := ext[0], ext[1], ext[2], ext[3]
		d0, d1, d2, d3 := out[y*w:y*w+w], out[(y+1)*w:(y+1)*w+w], out[(y+2)*w:(y+2)*w+w], out[(y+3)*w:(y+3)*w+w]
		t0, t1, t2, t3 := t[0], t[1], t[2], t[3]
		d0[0], d1[0], d2[0], d3[0] = float32(t0/fs), float32(t1/fs), float32(t2/fs), float32(t3/fs)
		for i := 1; i < w; i++ {
			a, b := i+size-1, i-1
			t0 += e0[a] - e0[b]
			t1 += e1[a] - e1[b]
			t2 += e2[a] - e2[b]
			t3 += e3[a] - e3[b]
			d0[i], d1[i], d2[i], d3[i] = float32(t0/fs), float32(t1/fs), float32(t2/fs), float32(t3/fs)
		}
	}
	for ; y < h; y++ {
		e := ext[0]
		extend(e, tmp[y*w:y*w+w])
		var t float64
		for i := 0; i < size; i++ {
			t += e[i]
		}
		dst := out[y*w : y*w+w]
		dst[0] = float32(t / fs)
		for i := 1; i < w; i++ {
			t += e[i+size-1] - e[i-1]
			dst[i] = float32(t / fs)
		}
	}
	return out
}
