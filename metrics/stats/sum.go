package stats

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
	var total float64
	for len(x) > 0 {
		n := min(len(x), numpyChunk)
		total += pairwise64(x[:n])
		x = x[n:]
	}
	return total
}

func pairwise64(a []float64) float64 {
	n := len(a)
	switch {
	case n < 8:
		var s float64
		for _, v := range a {
			s += v
		}
		return s
	case n <= 128:
		var r [8]float64
		copy(r[:], a[:8])
		i := 8
		for ; i < n-(n%8); i += 8 {
			for k := 0; k < 8; k++ {
				r[k] += a[i+k]
			}
		}
		s := ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
		for ; i < n; i++ {
			s += a[i]
		}
		return s
	default:
		n2 := n / 2
		n2 -= n2 % 8
		return pairwise64(a[:n2]) + pairwise64(a[n2:])
	}
}
