package quality_test

import (
	"fmt"

	"github.com/rexmle/rexmle/metrics/quality"
)

// The USenhance metrics of one enhanced/truth pair of 8-bit images, as the
// reference grader computes them: LNCC with an 11×11 box, SSIM with
// skimage's 7×7 uniform window in float32, and PSNR, both over the joint
// data range of the pair. The five pairs are the hand-derived vectors U1–U5
// of the USenhance spec (8×8 images, v[i,j] = 8i + j). The printed values
// are the spec's digit for digit, except U4's PSNR, which the spec gives as
// 4.635484475303885: one unit in the last digit below what both this code and
// Python's 10*math.log10(63**2/1365) print.
func ExampleLNCC8() {
	const w, h = 8, 8
	img := func(f func(v int) int) quality.Gray8 {
		g := quality.Gray8{W: w, H: h, Pix: make([]uint8, w*h)}
		for i := range g.Pix {
			g.Pix[i] = uint8(f(i)) // row-major: v = 8·row + col = i
		}
		return g
	}
	spike := img(func(int) int { return 0 })
	spike.Pix[3*w+4] = 255
	pairs := []struct {
		name string
		e, t quality.Gray8
	}{
		{"U1", img(func(int) int { return 100 }), img(func(int) int { return 50 })},
		{"U2", img(func(v int) int { return 2*v + 10 }), img(func(v int) int { return v })},
		{"U3", img(func(v int) int { return v }), img(func(v int) int { return v })},
		{"U4", img(func(v int) int { return 63 - v }), img(func(v int) int { return v })},
		{"U5", img(func(int) int { return 0 }), spike},
	}
	for _, p := range pairs {
		r := quality.JointRange8(p.e, p.t)
		lncc, err := quality.LNCC8(p.e, p.t, 11)
		if err != nil {
			fmt.Println(err)
			return
		}
		ssim, _ := quality.SSIM8(p.e, p.t, quality.SSIMOptions{DataRange: r, Float32: true})
		psnr, _ := quality.PSNR8(p.e, p.t, r)
		fmt.Println(p.name, lncc, ssim, psnr)
	}
	// Output:
	// U1 1 0.8000040054321289 0
	// U2 1 0.583051398396492 9.524733435270003
	// U3 1 1 +Inf
	// U4 -1.0000003576278687 -0.9548730850219727 4.635484475303886
	// U5 0 0.008177714422345161 18.06179973983887
}

// The float API takes float64 samples; with the zero SSIMOptions plus a data
// range it is skimage's default structural_similarity in float64. Identical
// images give SSIM 1 and PSNR +Inf; an image smaller than the window is an
// error.
func ExampleSSIM() {
	a := quality.Image{W: 7, H: 7, Pix: make([]float64, 49)}
	for i := range a.Pix {
		a.Pix[i] = float64(i % 5)
	}
	s, _ := quality.SSIM(a, a, quality.SSIMOptions{DataRange: 4})
	p, _ := quality.PSNR(a, a, 4, false)
	fmt.Println(s, p)

	small := quality.Image{W: 5, H: 5, Pix: make([]float64, 25)}
	_, err := quality.SSIM(small, small, quality.SSIMOptions{DataRange: 1})
	fmt.Println(err)
	// Output:
	// 1 +Inf
	// quality: SSIM window 7 larger than the 5×5 image
}
