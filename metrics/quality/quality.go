// Package quality holds full-reference image quality metrics with the exact
// arithmetic of the Python libraries the reference graders call: PSNR and
// SSIM as scikit-image computes them (uniform or Gaussian window, sample
// covariance, float32 or float64 arithmetic), and the local normalised
// cross-correlation (LNCC) of the USenhance reference grader (OpenCV
// filter2D box means in float32 with fused multiply-adds).
//
// Images are 2-D, stored row-major with the column index fastest (a numpy
// array [row, col] in C order, which is also metrics/volume order with axis
// 0 = column). Functions take the width (columns) and height (rows) and
// return an error, never panic, on a length mismatch or too small an image.
package quality

import (
	"fmt"
	"math"

	"github.com/rexmle/rexmle/metrics/num"
)

// Image is a 2-D image: W columns, H rows, Pix[row*W+col].
type Image struct {
	W, H int
	Pix  []float64
}

func (im Image) check(name string) error {
	if im.W <= 0 || im.H <= 0 {
		return fmt.Errorf("quality: %s has size %d×%d", name, im.W, im.H)
	}
	if len(im.Pix) != im.W*im.H {
		return fmt.Errorf("quality: %s has %d samples, want %d×%d = %d", name, len(im.Pix), im.W, im.H, im.W*im.H)
	}
	return nil
}

func checkPair(a, b Image) error {
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

// JointRange is the data range the USenhance reference passes to SSIM and
// PSNR: max(max a, max b) − min(min a, min b). With single set the
// difference is rounded to float32 (numpy float32 scalars).
func JointRange(a, b Image, single bool) float64 {
	lo, hi := math.Inf(1), math.Inf(-1)
	nan := false
	for _, p := range [][]float64{a.Pix, b.Pix} {
		for _, v := range p {
			// Plain comparisons: math.Min/Max cost several times more.
			if v < lo {
				lo = v
			}
			if v > hi {
				hi = v
			}
			nan = nan || v != v
		}
	}
	if nan {
		return math.NaN()
	}
	if single {
		return f32(f32(hi) - f32(lo))
	}
	return hi - lo
}

func f32(v float64) float64 { return float64(float32(v)) }

// MSE is scikit-image's mean_squared_error: the mean of (a−b)² accumulated in
// float64; with single set, each difference and square is a float32
// operation first (float32 inputs).
func MSE(a, b Image, single bool) (float64, error) {
	if err := checkPair(a, b); err != nil {
		return 0, err
	}
	sq := make([]float64, len(a.Pix))
	for i := range a.Pix {
		if single {
			d := float32(a.Pix[i]) - float32(b.Pix[i])
			sq[i] = float64(d * d)
		} else {
			d := a.Pix[i] - b.Pix[i]
			sq[i] = d * d
		}
	}
	return num.Sum(sq) / float64(len(sq)), nil
}

// PSNR is scikit-image's peak_signal_noise_ratio with an explicit data range:
// 10·log10(dataRange² / MSE), dB. With single set the range is the float32
// the reference computed (rounded to float32 here) and is squared in float64:
// scikit-image ≥ 0.24 squares float(data_range), and older releases square
// the numpy float32 scalar, which numpy 1.x promotes to float64 for ** 2.
// (Squaring in float32 was 1e-10…3e-9 apart relative when the range is not
// a whole number, e.g. after a resize.) Identical images (MSE 0) give +Inf;
// dataRange ≤ 0 or NaN is an error.
func PSNR(a, b Image, dataRange float64, single bool) (float64, error) {
	if !(dataRange > 0) {
		return 0, fmt.Errorf("quality: PSNR data range %v, want > 0", dataRange)
	}
	mse, err := MSE(a, b, single)
	if err != nil {
		return 0, err
	}
	if mse == 0 {
		return math.Inf(1), nil
	}
	if single {
		dataRange = float64(f32(dataRange))
	}
	r2 := dataRange * dataRange
	return 10 * num.Log10(r2/mse), nil
}
