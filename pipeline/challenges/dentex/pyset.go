package dentex

// pySetOrder returns the iteration order of set(values) in CPython 3.7+
// for int values: the order in which Python code such as
// `for i in set(ids)` visits them. CPython's set is an open-addressing
// table (initial size 8) indexed by hash & mask; a collision first probes
// the next 9 slots when they lie inside the table, then jumps to
// (5·i + 1 + perturb) & mask with perturb = hash >> 5 after each round; a
// table whose fill reaches 3/5 is rebuilt with the smallest power of two
// > 4·used (2·used above 50 000 entries), re-inserting in old slot order.
// Iteration walks the slots in index order. hash(n) is n for |n| < 2⁶¹−1
// (reduced modulo 2⁶¹−1 beyond), with hash(−1) = −2.
func pySetOrder(values []int64) []int64 {
	const linearProbes = 9
	const perturbShift = 5
	type slot struct {
		used bool
		key  int64
		hash uint64
	}
	table := make([]slot, 8)
	fill := 0
	insertClean := func(t []slot, key int64, h uint64) {
		mask := uint64(len(t) - 1)
		perturb := h
		i := h & mask
		for {
			if !t[i].used {
				t[i] = slot{true, key, h}
				return
			}
			if i+linearProbes <= mask {
				for j := uint64(1); j <= linearProbes; j++ {
					if !t[i+j].used {
						t[i+j] = slot{true, key, h}
						return
					}
				}
			}
			perturb >>= perturbShift
			i = (i*5 + 1 + perturb) & mask
		}
	}
	resize := func(minUsed int) {
		size := 8
		for size <= minUsed {
			size <<= 1
		}
		nt := make([]slot, size)
		for _, s := range table {
			if s.used {
				insertClean(nt, s.key, s.hash)
			}
		}
		table = nt
	}
	for _, v := range values {
		h := pyIntHash(v)
		mask := uint64(len(table) - 1)
		perturb := h
		i := h & mask
		found := false
	probe:
		for {
			n := uint64(0)
			if i+linearProbes <= mask {
				n = linearProbes
			}
			for j := uint64(0); j <= n; j++ {
				s := &table[i+j]
				if !s.used {
					*s = slot{true, v, h}
					break probe
				}
				if s.hash == h && s.key == v {
					found = true
					break probe
				}
			}
			perturb >>= perturbShift
			i = (i*5 + 1 + perturb) & mask
		}
		if found {
			continue
		}
		fill++
		if uint64(fill)*5 >= mask*3 {
			used := fill
			if used > 50000 {
				resize(used * 2)
			} else {
				resize(used * 4)
			}
		}
	}
	out := make([]int64, 0, fill)
	for _, s := range table {
		if s.used {
			out = append(out, s.key)
		}
	}
	return out
}

// pyIntHash is CPython's hash of an int as the unsigned table index input.
func pyIntHash(v int64) uint64 {
	const modulus = 1<<61 - 1
	neg := v < 0
	m := uint64(v)
	if neg {
		m = uint64(-v) // -MinInt64 wraps to itself, whose magnitude is 2⁶³: fine as uint64
	}
	m %= modulus
	h := int64(m)
	if neg {
		h = -h
	}
	if h == -1 {
		h = -2
	}
	return uint64(h)
}
