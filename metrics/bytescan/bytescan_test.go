package bytescan

import (
	"math/rand/v2"
	"testing"
)

// TestOtherEnds: FirstOther and LastOther against a byte-at-a-time scan on
// random rows of mostly one value, of lengths around the word sizes, and
// on every position of a single other byte.
func TestOtherEnds(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	check := func(p []byte, v byte) {
		t.Helper()
		first, last := len(p), -1
		for i, x := range p {
			if x != v {
				if first == len(p) {
					first = i
				}
				last = i
			}
		}
		if f, l := FirstOther(p, v), LastOther(p, v); f != first || l != last {
			t.Fatalf("%v, value %d: first %d, last %d, want %d, %d", p, v, f, l, first, last)
		}
	}
	for it := 0; it < 20000; it++ {
		n := r.IntN(100)
		v := byte(r.IntN(256))
		p := make([]byte, n)
		for i := range p {
			p[i] = v
			if r.IntN(40) == 0 {
				p[i] = byte(r.IntN(256))
			}
		}
		check(p, v)
	}
	// Zero runs across the block size the zero path skips at a time: one
	// other byte (or two) at every position near the blocks' edges.
	for _, n := range []int{zeroBlock - 1, zeroBlock, zeroBlock + 1, 2*zeroBlock + 7, 5 * zeroBlock} {
		p := make([]byte, n)
		check(p, 0)
		for i := range p {
			if i%zeroBlock > 9 && i%zeroBlock < zeroBlock-9 && i > 9 && i < n-9 && i%17 != 0 {
				continue
			}
			p[i] = byte(1 + i%255)
			check(p, 0)
			q := p[:i+1+r.IntN(n-i)]
			check(q, 0)
			check(p[r.IntN(i+1):], 0)
			p[n-1-r.IntN(n-i)] = 3
			check(p, 0)
			clear(p)
		}
	}
	for n := 0; n <= 100; n++ {
		p := make([]byte, n)
		check(p, 0)
		for i := range p {
			p[i] = byte(1 + i%255)
			check(p, 0)
			p[i] = 0
		}
	}
}
