package dentex

// pyRandom is CPython's random.Random (MT19937) far enough to reproduce
// random.seed(n) for a small non-negative int n followed by random.shuffle.
type pyRandom struct {
	mt  [624]uint32
	idx int
}

// newPyRandom seeds like random.seed(seed): init_by_array with the 32-bit
// words of |seed| (one word for seeds below 2^32).
func newPyRandom(seed uint32) *pyRandom {
	r := &pyRandom{}
	const n = 624
	r.mt[0] = 19650218
	for i := 1; i < n; i++ {
		r.mt[i] = 1812433253*(r.mt[i-1]^(r.mt[i-1]>>30)) + uint32(i)
	}
	key := []uint32{seed}
	i, j := 1, 0
	for k := max(n, len(key)); k > 0; k-- {
		r.mt[i] = (r.mt[i] ^ ((r.mt[i-1] ^ (r.mt[i-1] >> 30)) * 1664525)) + key[j] + uint32(j)
		i++
		j++
		if i >= n {
			r.mt[0] = r.mt[n-1]
			i = 1
		}
		if j >= len(key) {
			j = 0
		}
	}
	for k := n - 1; k > 0; k-- {
		r.mt[i] = (r.mt[i] ^ ((r.mt[i-1] ^ (r.mt[i-1] >> 30)) * 1566083941)) - uint32(i)
		i++
		if i >= n {
			r.mt[0] = r.mt[n-1]
			i = 1
		}
	}
	r.mt[0] = 0x80000000
	r.idx = n
	return r
}

func (r *pyRandom) uint32() uint32 {
	const n, m = 624, 397
	if r.idx >= n {
		for k := 0; k < n; k++ {
			y := (r.mt[k] & 0x80000000) | (r.mt[(k+1)%n] & 0x7fffffff)
			v := r.mt[(k+m)%n] ^ (y >> 1)
			if y&1 != 0 {
				v ^= 0x9908b0df
			}
			r.mt[k] = v
		}
		r.idx = 0
	}
	y := r.mt[r.idx]
	r.idx++
	y ^= y >> 11
	y ^= (y << 7) & 0x9d2c5680
	y ^= (y << 15) & 0xefc60000
	y ^= y >> 18
	return y
}

// randBelow is _randbelow_with_getrandbits(m) for 0 < m < 2^32: k = bit
// length of m; draw getrandbits(k) = next output >> (32−k) until it is < m.
func (r *pyRandom) randBelow(m int) int {
	k := 0
	for v := m; v > 0; v >>= 1 {
		k++
	}
	for {
		v := int(r.uint32() >> (32 - k))
		if v < m {
			return v
		}
	}
}

// pyShuffle is random.seed(seed); random.shuffle(x) (Python ≥ 3.11): for i
// from len−1 down to 1, swap x[i] with x[randbelow(i+1)].
func pyShuffle[T any](x []T, seed uint32) {
	r := newPyRandom(seed)
	for i := len(x) - 1; i >= 1; i-- {
		j := r.randBelow(i + 1)
		x[i], x[j] = x[j], x[i]
	}
}
