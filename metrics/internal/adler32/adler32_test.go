package adler32

import (
	"encoding/binary"
	"fmt"
	stdadler "hash/adler32"
	"math/rand/v2"
	"testing"
)

// reference is hash/adler32's Update: its digest restored to adler through
// UnmarshalBinary, then p written.
func reference(t testing.TB, adler uint32, p []byte) uint32 {
	t.Helper()
	h := stdadler.New()
	state := binary.BigEndian.AppendUint32([]byte("adl\x01"), adler)
	if err := h.(interface{ UnmarshalBinary([]byte) error }).UnmarshalBinary(state); err != nil {
		t.Fatalf("restoring hash/adler32's state: %v", err)
	}
	h.Write(p)
	return h.Sum32()
}

// implementations runs f once with the vector kernel (where the CPU has
// it) and once with updateGeneric alone.
func implementations(t *testing.T, f func(t *testing.T)) {
	t.Helper()
	saved := useVector
	t.Cleanup(func() { useVector = saved })
	for _, vector := range []bool{true, false} {
		name := "generic"
		if vector {
			if !saved {
				continue
			}
			name = "vector"
		}
		t.Run(name, func(t *testing.T) {
			useVector = vector
			defer func() { useVector = saved }()
			f(t)
		})
	}
}

// randomAdler returns a valid state: both halves below 65521.
func randomAdler(rng *rand.Rand) uint32 {
	return rng.Uint32N(mod)<<16 | rng.Uint32N(mod)
}

func check(t *testing.T, adler uint32, p []byte, what string) {
	t.Helper()
	if got, want := Update(adler, p), reference(t, adler, p); got != want {
		t.Fatalf("%s: Update(%#08x, %d bytes) = %#08x, want %#08x", what, adler, len(p), got, want)
	}
}

// TestKnown: checksums worked out by hand from the definition.
func TestKnown(t *testing.T) {
	implementations(t, func(t *testing.T) {
		// "abc": s1 = 1+97+98+99 = 295, s2 = 98+196+295 = 589.
		if got := Checksum([]byte("abc")); got != 589<<16|295 {
			t.Errorf("Checksum(abc) = %#08x, want %#08x", got, 589<<16|295)
		}
		if got := Checksum(nil); got != 1 {
			t.Errorf("Checksum(nil) = %#08x, want 1", got)
		}
		// 64 zero bytes: s1 stays 1, s2 = 64.
		if got := Checksum(make([]byte, 64)); got != 64<<16|1 {
			t.Errorf("Checksum(64 zeros) = %#08x, want %#08x", got, 64<<16|1)
		}
		// 128 bytes of 1: s1 = 129, s2 = Σ_{j=1}^{128} (1+j) = 128 + 8256.
		ones := make([]byte, 128)
		for i := range ones {
			ones[i] = 1
		}
		if got := Checksum(ones); got != (128+8256)<<16|129 {
			t.Errorf("Checksum(128 ones) = %#08x, want %#08x", got, (128+8256)<<16|129)
		}
		// Empty p leaves any state as it is.
		if got := Update(0xfff0fff0, nil); got != 0xfff0fff0 {
			t.Errorf("Update(s, nil) = %#08x, want s", got)
		}
	})
}

// TestEveryShortLength: random bytes of every length 0..1100, from 1 and
// from random states.
func TestEveryShortLength(t *testing.T) {
	implementations(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(1, 2))
		buf := make([]byte, 1100)
		for i := range buf {
			buf[i] = byte(rng.Uint32())
		}
		for n := 0; n <= len(buf); n++ {
			check(t, 1, buf[:n], "from 1")
			check(t, randomAdler(rng), buf[len(buf)-n:], "random state")
		}
	})
}

// TestLong: random lengths up to 8 MiB of random bytes, from random states.
func TestLong(t *testing.T) {
	implementations(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(3, 4))
		buf := make([]byte, 8<<20)
		for i := range buf {
			buf[i] = byte(rng.Uint32())
		}
		lengths := []int{5504, 5505, 5552, 5553, 11008, 262656, len(buf)}
		for range 20 {
			lengths = append(lengths, rng.IntN(len(buf)+1))
		}
		for _, n := range lengths {
			off := rng.IntN(len(buf) - n + 1)
			check(t, randomAdler(rng), buf[off:off+n], fmt.Sprintf("offset %d", off))
		}
	})
}

// TestAllFF: bytes of 0xFF make the sums grow fastest; lengths around every
// multiple of the reduction chunks (5504 for the kernel, 5552 for the Go
// loop) up to 8 chunks, from the largest valid state and from others.
func TestAllFF(t *testing.T) {
	implementations(t, func(t *testing.T) {
		buf := make([]byte, 8*nmax+200)
		for i := range buf {
			buf[i] = 0xff
		}
		starts := []uint32{1, 0, 65520<<16 | 65520, 65520 << 16, 65520}
		for k := 1; k <= 8; k++ {
			for _, chunk := range []int{5504, nmax} {
				for d := -70; d <= 70; d++ {
					n := k*chunk + d
					for _, a := range starts {
						check(t, a, buf[:n], "0xFF")
					}
				}
			}
		}
	})
}

// TestUnaligned: sub-slices starting at every offset 0..63 of a buffer,
// with lengths that leave every tail.
func TestUnaligned(t *testing.T) {
	implementations(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(5, 6))
		buf := make([]byte, 20000)
		for i := range buf {
			buf[i] = byte(rng.Uint32())
		}
		for off := range 64 {
			for _, n := range []int{63, 64, 65, 127, 128, 129, 1000, 5504 + 64 + off, 12345, 20000 - 64} {
				check(t, randomAdler(rng), buf[off:off+n], fmt.Sprintf("offset %d", off))
			}
		}
	})
}

// TestSplit: Update over two pieces equals one call over the whole.
func TestSplit(t *testing.T) {
	implementations(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(7, 8))
		buf := make([]byte, 30000)
		for i := range buf {
			buf[i] = byte(rng.Uint32())
		}
		whole := Checksum(buf)
		for range 200 {
			k := rng.IntN(len(buf) + 1)
			if got := Update(Checksum(buf[:k]), buf[k:]); got != whole {
				t.Fatalf("split at %d: %#08x, want %#08x", k, got, whole)
			}
		}
	})
}

// FuzzUpdate compares Update, with and without the vector kernel, with
// hash/adler32 on arbitrary bytes and states (the halves taken mod 65521).
func FuzzUpdate(f *testing.F) {
	f.Add(uint32(1), []byte("abc"))
	f.Add(uint32(65520<<16|65520), make([]byte, 200))
	ff := make([]byte, 6000)
	for i := range ff {
		ff[i] = 0xff
	}
	f.Add(uint32(65520<<16|65520), ff)
	f.Fuzz(func(t *testing.T, adler uint32, p []byte) {
		adler = (adler>>16%mod)<<16 | adler&0xffff%mod
		want := reference(t, adler, p)
		saved := useVector
		defer func() { useVector = saved }()
		if got := Update(adler, p); got != want {
			t.Fatalf("Update(%#08x, %d bytes) = %#08x, want %#08x", adler, len(p), got, want)
		}
		useVector = false
		if got := Update(adler, p); got != want {
			t.Fatalf("generic Update(%#08x, %d bytes) = %#08x, want %#08x", adler, len(p), got, want)
		}
	})
}

func benchData(n int) []byte {
	rng := rand.New(rand.NewPCG(9, 10))
	p := make([]byte, n)
	for i := range p {
		p[i] = byte(rng.Uint32())
	}
	return p
}

// The sizes: one zlib stream of a 512×512 8-bit PNG frame (a filter byte
// before each row) and a 4 KiB piece.
var benchSizes = []struct {
	name string
	n    int
}{{"frame512x513", 512 * 513}, {"4KiB", 4096}}

func BenchmarkUpdate(b *testing.B) {
	for _, s := range benchSizes {
		p := benchData(s.n)
		b.Run(s.name, func(b *testing.B) {
			b.SetBytes(int64(len(p)))
			for b.Loop() {
				Checksum(p)
			}
		})
	}
}

func BenchmarkGeneric(b *testing.B) {
	for _, s := range benchSizes {
		p := benchData(s.n)
		b.Run(s.name, func(b *testing.B) {
			b.SetBytes(int64(len(p)))
			for b.Loop() {
				updateGeneric(1, p)
			}
		})
	}
}

func BenchmarkStdlib(b *testing.B) {
	for _, s := range benchSizes {
		p := benchData(s.n)
		b.Run(s.name, func(b *testing.B) {
			b.SetBytes(int64(len(p)))
			for b.Loop() {
				stdadler.Checksum(p)
			}
		})
	}
}
