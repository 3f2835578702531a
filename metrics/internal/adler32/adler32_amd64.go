package adler32

import "golang.org/x/sys/cpu"

// useVector selects the AVX2 kernel where the CPU has it (tests turn it off
// to check updateGeneric on the same cases).
var useVector = cpu.X86.HasAVX2

// updateAVX2 is implemented in adler32_amd64.s: it returns the Adler-32 of
// the bytes before p[0:n] (whose Adler-32 is adler) followed by p[0:n], for
// n a positive multiple of 64. adler's halves must be at most 65535.
//
//go:noescape
func updateAVX2(adler uint32, p *byte, n int) uint32

// updateVector runs the AVX2 kernel on the longest prefix of p that is a
// multiple of 64 bytes and returns the updated checksum and the prefix's
// length.
func updateVector(adler uint32, p []byte) (uint32, int) {
	n := len(p) &^ 63
	if n == 0 {
		return adler, 0
	}
	return updateAVX2(adler, &p[0], n), n
}
