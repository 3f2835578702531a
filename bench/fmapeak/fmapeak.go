// Package fmapeak measures how many float32 fused multiply-adds one core of
// this machine can retire per second, the ceiling on any exact
// reproduction of an arithmetic that is defined as a chain of fused
// multiply-adds rounded to float32 one at a time.
//
// USenhance's LNCC is such an arithmetic: OpenCV's filter2D accumulates an
// 11×11 box mean's 121 taps in order, each a fused multiply-add rounded to
// float32 (metrics/quality). Reproducing those roundings leaves no
// algebraic shortcut (a sliding sum or a separable pass rounds
// differently), so 121 multiply-adds per pixel and box are the least work an
// exact grader can do. BenchmarkPeak and BenchmarkPeakParallel time Loop
// on one core and on all; bench/graders.sh turns the latter into the bound
// it prints under each USenhance row.
package fmapeak

// Chains is the number of independent accumulators Loop keeps in flight per
// iteration: more than a fused multiply-add's latency times the number of
// units that can start one per cycle on current x86-64 cores (4 × 2), so
// the loop is bound by throughput, not by latency.
const Chains = 12

// Lanes is the number of float32 lanes in one vector multiply-add of Loop
// (AVX2, 256 bits); Lanes is 0 where Loop is not available.
var Lanes = lanes()

// Loop runs n iterations of Chains independent vector fused multiply-adds
// (Chains·Lanes float32 multiply-adds per iteration) and returns one of the
// accumulators so that the work cannot be discarded. It reports false where
// the machine has no vector fused multiply-add.
func Loop(n int) (float32, bool) {
	if Lanes == 0 || n <= 0 {
		return 0, Lanes != 0
	}
	return loop(n), true
}
