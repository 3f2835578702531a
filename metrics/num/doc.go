// Package num holds the numeric helpers shared by the metrics and graders
// that must round, sum and reduce exactly as Python and numpy do, so that a
// grader's 5-decimal value agrees to the last digit.
//
// # Entry points
//
//   - Round and Round5: Python's round(x, digits) on a float.
//   - Sum, PairwiseSum, ChunkedPairwiseSum: numpy's float64/float32 sum
//     (pairwise within 8192-element chunks, a running total across them).
//   - Mean, NaNMean, Median, Percentile, PercentileFloat32, PercentileSorted,
//     QuantileSorted: numpy's mean, nanmean (also pandas' Series.mean),
//     median and percentile with the default "linear" method.
//   - Log10: numpy's log10 as glibc computes it.
//
// # Reference behaviour
//
// CPython 3.11 and numpy 1.26 (numpy 1.x promotion rules; see
// metrics/REFERENCE-VERSIONS.md). Log10 is glibc's e_log10.c bit for bit,
// which numpy calls on CPUs without its AVX-512 SVML dispatch; Go's
// math.Log10 differs from it in the last bit on about a fifth of inputs.
//
// # Conventions
//
//   - Rounding: the decimal nearest to the exact binary value; exact ties
//     (only exactly representable halves) go to even. NaN and ±Inf pass
//     through.
//   - NaN: a NaN input makes Mean, Median and Percentile NaN; NaNMean skips
//     NaNs. Empty inputs give NaN (numpy warns and returns nan); the empty
//     sum is 0.
//   - Percentile interpolates as numpy does, a + Δ·t below t = 0.5 and
//     b − Δ·(1 − t) from it, so an +Inf at an interpolation end point gives
//     NaN; PercentileFloat32 rounds Δ to float32 as numpy 1.x does on
//     float32 arrays. Inputs are not modified.
package num
