package quality

import "sync"

// Scratch float32 buffers are recycled between calls: a 512×512 USenhance
// pair needs about 20 of them, and fresh allocations of that size cost more
// in page faults than the arithmetic done on them.
var f32Pool sync.Pool

// getF32 returns a slice of length n; its contents are undefined.
func getF32(n int) []float32 {
	if p, ok := f32Pool.Get().(*[]float32); ok && cap(*p) >= n {
		return (*p)[:n]
	} else if ok {
		f32Pool.Put(p)
	}
	return make([]float32, n)
}

// putF32 gives buffers back; none may be used afterwards.
func putF32(bufs ...[]float32) {
	for _, b := range bufs {
		if cap(b) > 0 {
			b := b[:0]
			f32Pool.Put(&b)
		}
	}
}
