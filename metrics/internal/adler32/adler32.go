// Package adler32 computes the Adler-32 checksum of RFC 1950 (the zlib
// trailer), equal to hash/adler32's but several times faster where the CPU
// has AVX2 (adler32_amd64.s).
package adler32

import "encoding/binary"

// mod is the Adler-32 modulus, the largest prime below 2^16.
const mod = 65521

// nmax is the most bytes that can be added to (s1, s2) with 32-bit
// arithmetic before both must be reduced mod 65521. Starting from any
// 16-bit s1, s2 (≤ 65535, which covers every reduced value and every
// value hash/adler32 accepts) and adding k bytes of 0xFF gives
//
//	s2 = s2₀ + k·s1₀ + 255·k(k+1)/2 ≤ 65535·(k+1) + 255·k(k+1)/2,
//
// which is 4 294 620 495 < 2^32 for k = 5552 and overflows for k = 5553.
// s1 ≤ s2 throughout, so it does not overflow either.
const nmax = 5552

// Update returns the Adler-32 of the bytes before p (whose Adler-32 is
// adler) followed by p; Update(1, p) is the checksum of p, equal to
// hash/adler32.Checksum(p). adler's halves should be reduced (< 65521); any
// 16-bit halves give what hash/adler32 gives for the same state. An empty p
// returns adler unchanged.
func Update(adler uint32, p []byte) uint32 {
	if useVector {
		var n int
		adler, n = updateVector(adler, p)
		p = p[n:]
	}
	return updateGeneric(adler, p)
}

// Checksum returns the Adler-32 of p: Update(1, p).
func Checksum(p []byte) uint32 { return Update(1, p) }

// updateGeneric is the portable Update, with the sums reduced every nmax
// bytes. It serves CPUs without the vector kernel, the tail the kernel
// leaves and short inputs. It reads 8-byte words as uint64 and sums their
// bytes with multiplications (about twice hash/adler32's speed).
//
// A word of bytes b0..b7 adds s2 += 8·s1 + 8·b0 + 7·b1 + … + 1·b7 and
// s1 += b0 + … + b7, which is what eight byte-at-a-time steps add; the sums
// after each word are those of the byte-at-a-time loop, so the nmax bound
// holds for them (arithmetic is mod 2^32 and exact because the final values
// fit). With the even bytes b0, b2, b4, b6 in the 16-bit lanes 0..3 of e
// and the odd ones in those of o, the top lane of e times the lanes
// (2, 4, 6, 8) is 8·b0 + 6·b2 + 4·b4 + 2·b6 (lane i of one factor meets lane
// 3 − i of the other), likewise for o with (1, 3, 5, 7), and the top lane of
// (e+o)·(1, 1, 1, 1) is the plain sum. These are exact while every lane of
// the products stays below 2^16, so that no carry crosses a lane.
//
// Blocks of twelve words add the lanes of the words first (e, o) and of the
// running lane sums before each word (pp, whose total is Σ s1 increments
// at the words' starts), and multiply once per block: s2 gains
// 8·(12·s1 + Σ pp) + the weighted sums of e and o.
func updateGeneric(adler uint32, p []byte) uint32 {
	const (
		lanes = 0x00ff00ff00ff00ff
		ones  = 0x0001000100010001
		evenW = 0x0008000600040002 // lane 3 ×8 … lane 0 ×2
		oddW  = 0x0007000500030001 // lane 3 ×7 … lane 0 ×1
	)
	s1, s2 := adler&0xffff, adler>>16
	for len(p) > 0 {
		q := p
		if len(q) > nmax {
			q = q[:nmax]
		}
		p = p[len(q):]
		for len(q) >= 96 {
			// Twelve words: e and o sum the lanes of each word, pp the
			// lane sums before each word (the s1 increments at the
			// words' starts). Lanes stay below 2^16: e, o ≤ 12·255,
			// pp ≤ 510·(0 + 1 + … + 11) = 33660, and the products'
			// lanes at most 12·255·20 = 61200.
			b := q[:96:96]
			var e, o, pp uint64
			for i := 0; i <= 88; i += 8 {
				x := binary.LittleEndian.Uint64(b[i:])
				pp += e + o
				e += x & lanes
				o += x >> 8 & lanes
			}
			w := uint32(e*evenW>>48) + uint32(o*oddW>>48)
			pp = pp&0x0000ffff0000ffff + pp>>16&0x0000ffff0000ffff
			pp += pp >> 32
			s2 += 8*(12*s1+uint32(pp)) + w
			s1 += uint32((e + o) * ones >> 48)
			q = q[96:]
		}
		for len(q) >= 8 {
			x := binary.LittleEndian.Uint64(q)
			e, o := x&lanes, x>>8&lanes
			w := uint32((e*evenW + o*oddW) >> 48)
			s2 += 8*s1 + w
			s1 += uint32(((e + o) * ones) >> 48)
			q = q[8:]
		}
		for _, b := range q {
			s1 += uint32(b)
			s2 += s1
		}
		s1 %= mod
		s2 %= mod
	}
	return s2<<16 | s1
}
