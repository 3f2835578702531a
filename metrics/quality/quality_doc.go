// # Entry points
//
// SSIM, PSNR, MSE and JointRange take float64 Images; LNCC is the USenhance
// correlation. The Gray8 variants (SSIM8, PSNR8, LNCC8, JointRange8, and
// LNCCSSIM8 for both at once) give the same values bit for bit on 8-bit
// images, faster.
//
// # Reference behaviour
//
// The versions of metrics/REFERENCE-VERSIONS.md: scikit-image 0.25.2 for
// structural_similarity (unchanged since 0.19) and peak_signal_noise_ratio
// (which squares float(data_range) from 0.24 on; numpy 1.x promotion makes
// older releases square to the same float64), OpenCV 4.10's filter2D on an
// x86-64 build with FMA for LNCC's box means, and numpy 1.26's float32
// mean. The cross-check tests run the installed scikit-image and OpenCV
// where present.
//
// # Conventions
//
//   - Arithmetic: SSIMOptions.Float32 (and the single arguments of MSE,
//     PSNR and JointRange) reproduce float32 inputs; the zero options are
//     skimage's float64 defaults plus a required DataRange (7×7 uniform
//     window, sample covariance, K1 0.01, K2 0.03).
//   - Borders: SSIM's filters reflect with the edge repeated (scipy
//     'reflect'), LNCC's reflect without it (OpenCV reflect-101); SSIM
//     averages the map over the pixels at least (win−1)/2 from every border.
//   - Empty and degenerate cases: identical images give PSNR +Inf; equal
//     constant images with data range 0 give SSIM NaN; a data range ≤ 0 or
//     NaN in PSNR, an image smaller than the SSIM window, an even or
//     non-positive LNCC window and a length mismatch are errors. A constant
//     image normalises to zeros in LNCC; with no pixel of enough variance
//     LNCC is 1 when the normalised images are all close, else 0.
package quality
