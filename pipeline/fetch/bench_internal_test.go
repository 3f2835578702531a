package fetch

import "testing"

// BenchmarkHashers compares MD5+SHA-256 of 256 KiB chunks computed one after
// the other with the two-goroutine Write used by downloads.
func BenchmarkHashers(b *testing.B) {
	chunk := make([]byte, 256<<10)
	for i := range chunk {
		chunk[i] = byte(i * 7)
	}
	b.Run("sequential", func(b *testing.B) {
		h := newHashers()
		b.SetBytes(int64(len(chunk)))
		for b.Loop() {
			h.md5.Write(chunk)
			h.sha.Write(chunk)
		}
	})
	b.Run("parallel", func(b *testing.B) {
		h := newHashers()
		b.SetBytes(int64(len(chunk)))
		for b.Loop() {
			h.Write(chunk)
		}
	})
}
