// Package adler32 computes the Adler-32 checksum of RFC 1950 (the zlib
// trailer), equal to hash/adler32's but several times faster where the CPU
// has AVX2 (adler32_amd64.s).
package adler32

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

// updateGeneric is the portable Update: eight bytes per step, with the
// sums reduced every nmax bytes. It serves CPUs without the vector kernel,
// the tail the kernel leaves and short inputs.
//
// Per step of eight bytes b0..b7 it adds s2 += 8·s1 + 8·b0 + 7·b1 + … + 1·b7
// and s1 += b0 + … + b7, which is what eight byte-at-a-time steps add but
// with a shorter dependency chain. The sums after each step are those of the
// byte-at-a-time loop, so the nmax bound holds for them; arithmetic is mod
// 2^32 and exact because the final values fit.
func updateGeneric(adler uint32, p []byte) uint32 {
	s1, s2 := adler&0xffff, adler>>16
	for len(p) > 0 {
		q := p
		if len(q) > nmax {
			q = q[:nmax]
		}
		p = p[len(q):]
		for len(q) >= 8 {
			b0, b1, b2, b3 := uint32(q[0]), uint32(q[1]), uint32(q[2]), uint32(q[3])
			b4, b5, b6, b7 := uint32(q[4]), uint32(q[5]), uint32(q[6]), uint32(q[7])
			s2 += 8*(s1+b0) + 7*b1 + 6*b2 + 5*b3 + 4*b4 + 3*b5 + 2*b6 + b7
			s1 += b0 + b1 + b2 + b3 + b4 + b5 + b6 + b7
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
