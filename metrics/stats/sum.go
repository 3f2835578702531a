package stats

import "github.com/rexmle/rexmle/metrics/num"

// numpy's reduction machinery hands the inner loop at most this many
// elements at a time when it buffers; the running total is carried between
// chunks.
const numpyChunk = 8192

// PairwiseSum sums x the way numpy's np.sum / np.mean do for float64 data:
// consecutive chunks of 8192 elements, each summed with numpy's pairwise
// scheme (fewer than 8 values: sequential; up to 128: eight partial sums over
// stride-8 lanes combined as ((r0+r1)+(r2+r3))+((r4+r5)+(r6+r7)) then the
// remainder added sequentially; more: split at n/2 rounded down to a multiple
// of 8 and recurse), the chunk sums added to a running total that starts at 0.
// The empty sum is 0.
func PairwiseSum(x []float64) float64 {
	return num.ChunkedPairwiseSum(x, numpyChunk)
}
