// Package usenhance is the USenhance 2023 challenge (id "usenhance"):
// paired ultrasound image enhancement. Agents turn low-quality handheld
// B-mode images into images like the high-quality hospital scanner's; the
// grader compares them with LNCC, SSIM and PSNR.
package usenhance

import (
	"github.com/rexmle/rexmle/pipeline/challenge"
)

// ID is the challenge id.
const ID = "usenhance"

const (
	rawTrainDir    = "train_datasets"
	lowDir         = "low_quality"
	highDir        = "high_quality"
	submissionFile = "submission.csv"
	colID          = "image_id"
	colEnhanced    = "enhanced_image_path"
	colGT          = "ground_truth_path"
	lnccWindow     = 11
)

// Challenge implements challenge.Challenge for USenhance.
type Challenge struct{}

func init() { challenge.Register(Challenge{}) }

// ID returns "usenhance".
func (Challenge) ID() string { return ID }

// Metrics lists the three leaderboard metrics, in leaderboard order.
func (Challenge) Metrics() []challenge.MetricCard {
	return []challenge.MetricCard{
		{Name: "lncc", Direction: challenge.HigherBetter, Ranked: true,
			Card: "mean over test images of the local normalised cross-correlation: both images min-max normalised, 11×11 box statistics (OpenCV reflect-101 border), mean of σ12/√(σ1²σ2²) over pixels where both local variances exceed 1e-10; no such pixel → 1 if the normalised images are all-close else 0; float32 arithmetic as the reference (box means are OpenCV filter2D's per-tap fused multiply-adds, bit-identical with OpenCV 4 builds; pip's OpenCV 5.0 rounds each product first in the last width mod 8 columns, 1 ulp apart on some of those pixels, none for widths that are multiples of 8, and its 5-decimal values were the same on the benchmark's data; the sequential tap order is kept because it matters: exact window sums, the fast textbook arithmetic, move the 5-decimal value of 15 of 42 varied test pairs scored with cv2.filter2D, since OpenCV's per-tap rounding is biased per image and the variances' cancellation amplifies it); " + ImageFormats + "; " + ResizeRule},
		{Name: "ssim", Direction: challenge.HigherBetter, Ranked: true,
			Card: "mean over test images of scikit-image SSIM (7×7 uniform window, sample covariance, K1 0.01, K2 0.03, float32) with data range max(E,T)−min(E,T) over both images; NaN when both images are the same constant"},
		{Name: "psnr", Direction: challenge.HigherBetter, Ranked: true,
			Card: "mean over test images of PSNR in dB, 10·log10(R²/MSE) with R the joint range of the two images (not 255; the float32 range squared in float64 and log10 as numpy computes it, bit-identical with scikit-image also after a resize); an image identical to its truth scores +Inf, which makes the mean +Inf"},
	}
}

// ImageFormats is what both modes accept for an enhanced image, stated in
// the lncc card.
const ImageFormats = "enhanced images are read by content, not by name, as Pillow 11.1's Image.open does: PNG, TIFF (first page, its Orientation tag applied), BMP, JPEG, GIF (first frame), binary PBM/PGM/PPM (P4–P6, maxval scaling as Pillow) and still WebP (lossless exact; lossy as libwebp outputs it: normative VP8 decoding, fancy chroma upsampling, its fixed-point YUV → RGB); where Pillow refuses a grey PNG (a bad CRC or bad contents in an ancillary chunk before the image data, e.g. a 1-byte tRNS), it is read as the reference's cv2.imread(IMREAD_GRAYSCALE) fallback reads it (libpng drops the chunk); not reproduced, and refused: animated WebP, plain (ASCII) PGM, colour or palette PNGs Pillow refuses (OpenCV would convert them with libpng's rgb_to_gray), and other files only OpenCV reads. Size (a departure kept for memory): a prediction may decode to at most 4 times the answer's pixels in 4 channels as float64 (512 MiB at most); an 8-bit grey PNG, kept as bytes and resized from them, may hold 8 times as many samples in the same memory (e.g. 67 MP for a 1024×768 answer); the reference grades up to OpenCV's 2³⁰ pixels (its fallback past Pillow's decompression-bomb limit), so larger predictions are refused here and graded there. 8-bit Huffman JPEGs (baseline or progressive) are decoded with libjpeg-turbo's arithmetic (islow IDCT, fancy chroma upsampling, its YCbCr tables) and match Pillow exactly; rare variants (12-bit, arithmetic-coded, CMYK, 4:4:0) fall back to Go's decoder and can differ by one grey level on a few per cent of pixels (PSNR in the 3rd–4th decimal); PNG/TIFF/BMP/GIF are exact; PNGs are accepted as Pillow accepts them (IDAT and later CRCs unchecked, data after the last row ignored)"

// Quirks is empty: the official USenhance metric code is not public, so no
// departure can be implemented; the differences that are known (scored on
// held-out training pairs, joint data range) are stated in the metric cards
// and the description.
func (c Challenge) Quirks() []challenge.Quirk {
	return []challenge.Quirk{challenge.IDRuleQuirk("ids that are not test cases are ignored and the merge must give one pair per test case (pandas inner merge): a missing test id makes the submission invalid unless a repeated one makes up the count, and then the repeated id is scored once per row; a repeated id alone is invalid; text ids are matched exactly as written, blanks included", challenge.RankedNames(c.Metrics()))}
}
