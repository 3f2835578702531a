package quality

import (
	"fmt"
	"math"
	"sync"

	"github.com/rexmle/rexmle/metrics/internal/parallel"
	"github.com/rexmle/rexmle/metrics/num"
)

// SSIMOptions are the arguments of scikit-image's structural_similarity.
// The zero value plus a DataRange is skimage's default call
// (win_size 7, uniform window, sample covariance, K1 0.01, K2 0.03) in
// float64; set Float32 for float32 inputs.
type SSIMOptions struct {
	// DataRange is the data_range argument (required, > 0 unless both images
	// are constant and equal, where skimage returns NaN).
	DataRange float64
	// Gaussian selects gaussian_weights=True: a Gaussian window of std Sigma
	// (default 1.5) truncated at 3.5σ, window size 2·int(3.5σ+0.5)+1.
	Gaussian bool
	Sigma    float64
	// WinSize is the uniform window side (default 7, odd, ≥ 3); ignored for
	// a Gaussian window.
	WinSize int
	// PopulationCovariance selects use_sample_covariance=False (normalise by
	// N instead of N−1).
	PopulationCovariance bool
	// K1, K2 default to 0.01 and 0.03.
	K1, K2 float64
	// Float32 reproduces skimage on float32 images: the inputs, products,
	// filter outputs and the SSIM map are float32 (filters sum in float64
	// per line, as scipy.ndimage does), the constants rounded to float32.
	Float32 bool
}

func (o *SSIMOptions) fill() error {
	if o.K1 == 0 {
		o.K1 = 0.01
	}
	if o.K2 == 0 {
		o.K2 = 0.03
	}
	if o.Gaussian {
		if o.Sigma == 0 {
			o.Sigma = 1.5
		}
		if !(o.Sigma > 0) {
			return fmt.Errorf("quality: SSIM sigma %v, want > 0", o.Sigma)
		}
		o.WinSize = 2*int(3.5*o.Sigma+0.5) + 1
	} else if o.WinSize == 0 {
		o.WinSize = 7
	}
	if o.WinSize < 3 || o.WinSize%2 == 0 {
		return fmt.Errorf("quality: SSIM window size %d, want odd and ≥ 3", o.WinSize)
	}
	if math.IsNaN(o.DataRange) || o.DataRange < 0 || math.IsInf(o.DataRange, 0) {
		return fmt.Errorf("quality: SSIM data range %v, want finite and ≥ 0", o.DataRange)
	}
	return nil
}

// SSIM is scikit-image's structural_similarity of two single-channel images
// (a = im1, b = im2; the formula is symmetric up to rounding):
//
//	S = ((2·ux·uy + C1)(2·vxy + C2)) / ((ux² + uy² + C1)(vx + vy + C2))
//
// with ux, uy, uxx, uyy, uxy the windowed means (scipy uniform_filter or
// gaussian_filter, border 'reflect' = symmetric with the edge repeated),
// vx = c·(uxx − ux²) etc., c = N/(N−1) for the sample covariance (N = window
// area), C1 = (K1·R)², C2 = (K2·R)². The result is the float64 mean of S
// over the pixels at least (win−1)/2 from every border, as skimage crops it.
// Images smaller than the window are an error; R = 0 with equal constant
// images gives NaN (0/0), as skimage does.
func SSIM(a, b Image, opt SSIMOptions) (float64, error) {
	if err := checkPair(a, b); err != nil {
		return 0, err
	}
	if err := opt.fill(); err != nil {
		return 0, err
	}
	if a.W < opt.WinSize || a.H < opt.WinSize {
		return 0, fmt.Errorf("quality: SSIM window %d larger than the %d×%d image", opt.WinSize, a.W, a.H)
	}
	if opt.Float32 && !opt.Gaussian && !ssimGeneralOnly {
		return ssimUniform32(a, b, opt), nil
	}
	w, h := a.W, a.H
	n := w * h
	single := opt.Float32
	rnd := func(v float64) float64 { return rs(v, single) }
	x := make([]float64, n)
	y := make([]float64, n)
	xx := make([]float64, n)
	yy := make([]float64, n)
	xy := make([]float64, n)
	for i := 0; i < n; i++ {
		x[i], y[i] = rs(a.Pix[i], single), rs(b.Pix[i], single)
		xx[i] = rs(x[i]*x[i], single)
		yy[i] = rs(y[i]*y[i], single)
		xy[i] = rs(x[i]*y[i], single)
	}
	var filter func(in []float64) []float64
	if opt.Gaussian {
		wts := gaussianWeights(opt.Sigma, opt.WinSize/2)
		filter = func(in []float64) []float64 {
			return separable(in, w, h, rnd, func(line, out []float64) { correlateSymmetric(line, out, wts) }, opt.WinSize/2)
		}
	} else {
		size := opt.WinSize
		filter = func(in []float64) []float64 { return uniformSeparable(in, w, h, size, single) }
	}
	var ux, uy, uxx, uyy, uxy []float64
	var wg sync.WaitGroup
	for _, job := range []struct {
		in  []float64
		out *[]float64
	}{{x, &ux}, {y, &uy}, {xx, &uxx}, {yy, &uyy}, {xy, &uxy}} {
		wg.Add(1)
		go func() { defer wg.Done(); *job.out = filter(job.in) }()
	}
	wg.Wait()

	np := float64(opt.WinSize * opt.WinSize)
	covNorm := 1.0
	if !opt.PopulationCovariance {
		covNorm = np / (np - 1)
	}
	covNorm = rs(covNorm, single)
	r := opt.DataRange
	c1 := rs((opt.K1*r)*(opt.K1*r), single)
	c2 := rs((opt.K2*r)*(opt.K2*r), single)
	pad := (opt.WinSize - 1) / 2
	vals := make([]float64, 0, (w-2*pad)*(h-2*pad))
	for row := pad; row < h-pad; row++ {
		for col := pad; col < w-pad; col++ {
			i := row*w + col
			mx, my := ux[i], uy[i]
			vx := rs(covNorm*rs(uxx[i]-rs(mx*mx, single), single), single)
			vy := rs(covNorm*rs(uyy[i]-rs(my*my, single), single), single)
			vxy := rs(covNorm*rs(uxy[i]-rs(mx*my, single), single), single)
			a1 := rs(rs(rs(2*mx, single)*my, single)+c1, single)
			a2 := rs(rs(2*vxy, single)+c2, single)
			b1 := rs(rs(rs(mx*mx, single)+rs(my*my, single), single)+c1, single)
			b2 := rs(rs(vx+vy, single)+c2, single)
			vals = append(vals, rs(rs(a1*a2, single)/rs(b1*b2, single), single))
		}
	}
	return num.Sum(vals) / float64(len(vals)), nil
}

// ssimGeneralOnly makes SSIM take the general float64-storage path even
// where ssimUniform32 applies (tests compare the two).
var ssimGeneralOnly = false

// gaussianWeights is scipy's _gaussian_kernel1d(sigma, 0, radius):
// exp(−x²/(2σ²)) normalised to sum 1, x = −radius..radius, in float64.
func gaussianWeights(sigma float64, radius int) []float64 {
	w := make([]float64, 2*radius+1)
	s2 := sigma * sigma
	var sum float64
	for i := range w {
		x := float64(i - radius)
		w[i] = math.Exp(-0.5 / s2 * (x * x))
	}
	for _, v := range w {
		sum += v
	}
	for i := range w {
		w[i] /= sum
	}
	return w
}

// separable filters in along axis 0 (down every column) then axis 1 (along
// every row), as scipy.ndimage applies a multi-axis filter; each 1-D line is
// extended by r samples on each side with the 'reflect' border, filtered in
// float64 by line(ext, out) and rounded by rnd into the output.
func separable(in []float64, w, h int, rnd func(float64) float64, line func(ext, out []float64), r int) []float64 {
	tmp := make([]float64, len(in))
	out := make([]float64, len(in))
	parallelLines(w, func(lo, hi int) { // columns
		ext := make([]float64, h+2*r)
		o := make([]float64, h)
		for col := lo; col < hi; col++ {
			for k := -r; k < h+r; k++ {
				ext[k+r] = in[reflectIndex(k, h)*w+col]
			}
			line(ext, o)
			for row := 0; row < h; row++ {
				tmp[row*w+col] = rnd(o[row])
			}
		}
	})
	parallelLines(h, func(lo, hi int) { // rows
		ext := make([]float64, w+2*r)
		o := make([]float64, w)
		for row := lo; row < hi; row++ {
			base := row * w
			for k := -r; k < w+r; k++ {
				ext[k+r] = tmp[base+reflectIndex(k, w)]
			}
			line(ext, o)
			for col := 0; col < w; col++ {
				out[base+col] = rnd(o[col])
			}
		}
	})
	return out
}

// uniformSeparable is scipy.ndimage.uniform_filter(size) of a 2-D image:
// uniformLine down every column (processed a row at a time, which keeps each
// column's sequence of operations) then along every row, each pass rounded
// to float32 when single.
func uniformSeparable(in []float64, w, h, size int, single bool) []float64 {
	r := size / 2
	fs := float64(size)
	tmp := make([]float64, len(in))
	rowAt := func(k int) []float64 { y := reflectIndex(k, h); return in[y*w : y*w+w] }
	sum := make([]float64, w)
	for k := -r; k < size-r; k++ {
		src := rowAt(k)
		for c, v := range src {
			sum[c] += v
		}
	}
	for y := 0; y < h; y++ {
		if y > 0 {
			enter, leave := rowAt(y+size-1-r), rowAt(y-1-r)
			for c := range sum {
				sum[c] += enter[c] - leave[c]
			}
		}
		dst := tmp[y*w : y*w+w]
		for c, v := range sum {
			o := v / fs
			if single {
				o = float64(float32(o))
			}
			dst[c] = o
		}
	}
	out := make([]float64, len(in))
	parallelLines(h, func(lo, hi int) {
		ext := make([]float64, w+2*r)
		o := make([]float64, w)
		for y := lo; y < hi; y++ {
			row := tmp[y*w : y*w+w]
			for k := -r; k < w+r; k++ {
				ext[k+r] = row[reflectIndex(k, w)]
			}
			uniformLine(ext, o, size)
			dst := out[y*w : y*w+w]
			for c, v := range o {
				if single {
					v = float64(float32(v))
				}
				dst[c] = v
			}
		}
	})
	return out
}

// reflectIndex maps k to [0, n) with scipy's 'reflect' (half-sample
// symmetric) border: … 1 0 | 0 1 … n−1 | n−1 n−2 …, repeated as needed.
func reflectIndex(k, n int) int {
	if n == 1 {
		return 0
	}
	p := 2 * n
	k %= p
	if k < 0 {
		k += p
	}
	if k >= n {
		k = p - 1 - k
	}
	return k
}

// uniformLine is scipy's NI_UniformFilter1D (scipy ≥ 1.x) on an extended
// line: a float64 running sum S of the window (first window summed
// sequentially, then S += entering − leaving), each output S/size. (Older
// scipy kept a running mean instead; that differs in the last bits and does
// not reproduce the reference values.)
func uniformLine(ext, out []float64, size int) {
	var t float64
	for i := 0; i < size; i++ {
		t += ext[i]
	}
	fs := float64(size)
	out[0] = t / fs
	for i := 1; i < len(out); i++ {
		t += ext[i+size-1] - ext[i-1]
		out[i] = t / fs
	}
}

// correlateSymmetric is scipy's NI_Correlate1D for a symmetric kernel:
// out = x[0]·w[c] + Σ_{j=r..1} (x[−j] + x[+j])·w[c−j], accumulated in float64.
func correlateSymmetric(ext, out, w []float64) {
	r := len(w) / 2
	for i := range out {
		c := i + r
		t := ext[c] * w[r]
		for j := r; j >= 1; j-- {
			t += (ext[c-j] + ext[c+j]) * w[r-j]
		}
		out[i] = t
	}
}

// parallelLines runs fn over [0, n) lines in contiguous blocks, one per
// core, when there are enough lines (32 per block) to repay the goroutines.
func parallelLines(n int, fn func(lo, hi int)) { parallel.For(n, 32, fn) }

// rs rounds v to float32 when single. The explicit conversions also stop
// the compiler from fusing a product into a following addition (GOAMD64=v3).
func rs(v float64, single bool) float64 {
	if single {
		return float64(float32(v))
	}
	return float64(v)
}
