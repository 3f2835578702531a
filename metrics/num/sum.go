package num

// Float is the element type of the summation helpers.
type Float interface{ ~float32 | ~float64 }

// PairwiseSum adds x as numpy's add.reduce does over one contiguous run
// handed to its inner loop: fewer than 8 values sequentially; up to 128 with
// eight interleaved partial sums combined as ((r0+r1)+(r2+r3))+((r4+r5)+(r6+r7))
// and the remainder added in order; longer runs split at n/2 rounded down to
// a multiple of 8 and summed recursively. Arithmetic is in T (float32 sums
// stay float32, as numpy's do). The empty sum is 0.
func PairwiseSum[T Float](a []T) T {
	n := len(a)
	switch {
	case n < 8:
		var s T
		for _, v := range a {
			s += v
		}
		return s
	case n <= 128:
		var r [8]T
		copy(r[:], a[:8])
		i := 8
		for ; i < n-n%8; i += 8 {
			for k := 0; k < 8; k++ {
				r[k] += a[i+k]
			}
		}
		s := ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
		for ; i < n; i++ {
			s += a[i]
		}
		return s
	}
	n2 := n / 2
	n2 -= n2 % 8
	return PairwiseSum(a[:n2]) + PairwiseSum(a[n2:])
}

// NumpyBuffer is the number of elements numpy's buffered reductions hand to
// the inner loop at a time.
const NumpyBuffer = 8192

// ChunkedPairwiseSum is PairwiseSum over consecutive chunks of the given
// size, the chunk sums added to a running total that starts at 0: numpy's
// behaviour when its reduction iterator buffers.
func ChunkedPairwiseSum[T Float](x []T, chunk int) T {
	var total T
	for len(x) > 0 {
		m := min(len(x), chunk)
		total += PairwiseSum(x[:m])
		x = x[m:]
	}
	return total
}
