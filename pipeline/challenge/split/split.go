// Package split reproduces the seeded train/test splits the reference
// preparers draw, so that our prepared datasets hold exactly the same test
// cases as the reference's for the same raw data.
package split

import "math"

// MT19937 is the Mersenne Twister generator with numpy's legacy
// RandomState(seed) seeding (init_genrand with a 32-bit seed).
type MT19937 struct {
	state [624]uint32
	index int
}

// NewMT19937 seeds a generator the way numpy.random.RandomState(seed) does
// for an integer seed in [0, 2^32).
func NewMT19937(seed uint32) *MT19937 {
	m := &MT19937{index: 624}
	m.state[0] = seed
	for i := 1; i < 624; i++ {
		prev := m.state[i-1]
		m.state[i] = 1812433253*(prev^(prev>>30)) + uint32(i)
	}
	return m
}

// Uint32 returns the next tempered 32-bit output.
func (m *MT19937) Uint32() uint32 {
	if m.index >= 624 {
		m.twist()
	}
	y := m.state[m.index]
	m.index++
	y ^= y >> 11
	y ^= (y << 7) & 0x9d2c5680
	y ^= (y << 15) & 0xefc60000
	y ^= y >> 18
	return y
}

func (m *MT19937) twist() {
	const upper, lower = 0x80000000, 0x7fffffff
	for i := 0; i < 624; i++ {
		y := (m.state[i] & upper) | (m.state[(i+1)%624] & lower)
		v := m.state[(i+397)%624] ^ (y >> 1)
		if y&1 != 0 {
			v ^= 0x9908b0df
		}
		m.state[i] = v
	}
	m.index = 0
}

// Interval draws an integer uniformly in [0, max] by numpy's legacy masked
// rejection: the smallest all-ones mask covering max, redrawn until the
// masked output is at most max. Interval(0) draws nothing and returns 0.
// max must be below 2^32.
func (m *MT19937) Interval(max uint32) uint32 {
	if max == 0 {
		return 0
	}
	mask := max
	mask |= mask >> 1
	mask |= mask >> 2
	mask |= mask >> 4
	mask |= mask >> 8
	mask |= mask >> 16
	for {
		if v := m.Uint32() & mask; v <= max {
			return v
		}
	}
}

// Permutation returns numpy's legacy RandomState(seed).permutation(n): the
// identity shuffled by a Fisher–Yates pass from the last position down,
// each swap partner drawn with Interval.
func Permutation(seed uint32, n int) []int {
	m := NewMT19937(seed)
	p := make([]int, n)
	for i := range p {
		p[i] = i
	}
	for i := n - 1; i >= 1; i-- {
		j := int(m.Interval(uint32(i)))
		p[i], p[j] = p[j], p[i]
	}
	return p
}

// TestCount is scikit-learn's number of test items for a float test_size:
// ceil(testSize · n), computed in float64.
func TestCount(n int, testSize float64) int {
	return int(math.Ceil(testSize * float64(n)))
}

// TrainTestIndices reproduces scikit-learn's
// train_test_split(range(n), test_size=testSize, random_state=seed, shuffle=True):
// the permutation's first TestCount items are the test set, in that order,
// the rest the training set, in that order.
func TrainTestIndices(n int, testSize float64, seed uint32) (train, test []int) {
	perm := Permutation(seed, n)
	nTest := TestCount(n, testSize)
	if nTest > n {
		nTest = n
	}
	return perm[nTest:], perm[:nTest]
}

// TrainTest splits items as TrainTestIndices does and returns the items.
func TrainTest[T any](items []T, testSize float64, seed uint32) (train, test []T) {
	tr, te := TrainTestIndices(len(items), testSize, seed)
	for _, i := range tr {
		train = append(train, items[i])
	}
	for _, i := range te {
		test = append(test, items[i])
	}
	return train, test
}
