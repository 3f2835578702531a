// Package bytescan finds the ends of runs of one byte value eight bytes a
// word: masks, label maps and images with a uniform surround are mostly
// such runs, and a byte-at-a-time loop over them is what their graders
// spent their time on. FirstOther and LastOther return len(p) and −1 when
// every byte equals the value. This is a speed helper with no reference
// library: its results are the plain loop's, checked by its tests.
package bytescan

import (
	"encoding/binary"
	"math/bits"
)

// FirstOther returns the index of the first byte of p other than v, len(p)
// if none. XOR with v in every byte leaves a zero byte exactly where p
// holds v.
func FirstOther(p []byte, v byte) int {
	fill := uint64(v) * 0x0101010101010101
	i := 0
	for ; i+32 <= len(p); i += 32 {
		q := p[i : i+32]
		if (binary.LittleEndian.Uint64(q)^fill)|(binary.LittleEndian.Uint64(q[8:])^fill)|
			(binary.LittleEndian.Uint64(q[16:])^fill)|(binary.LittleEndian.Uint64(q[24:])^fill) != 0 {
			break
		}
	}
	for ; i+8 <= len(p); i += 8 {
		if x := binary.LittleEndian.Uint64(p[i:]) ^ fill; x != 0 {
			return i + bits.TrailingZeros64(x)/8
		}
	}
	for ; i < len(p); i++ {
		if p[i] != v {
			return i
		}
	}
	return len(p)
}

// LastOther returns the index of the last byte of p other than v, −1 if
// none.
func LastOther(p []byte, v byte) int {
	fill := uint64(v) * 0x0101010101010101
	i := len(p)
	for ; i >= 32; i -= 32 {
		q := p[i-32 : i]
		if (binary.LittleEndian.Uint64(q)^fill)|(binary.LittleEndian.Uint64(q[8:])^fill)|
			(binary.LittleEndian.Uint64(q[16:])^fill)|(binary.LittleEndian.Uint64(q[24:])^fill) != 0 {
			break
		}
	}
	for ; i >= 8; i -= 8 {
		if x := binary.LittleEndian.Uint64(p[i-8:]) ^ fill; x != 0 {
			return i - 1 - bits.LeadingZeros64(x)/8
		}
	}
	for i--; i >= 0; i-- {
		if p[i] != v {
			return i
		}
	}
	return -1
}
