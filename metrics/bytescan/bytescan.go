// Package bytescan finds the ends of runs of one byte value eight bytes a
// word: masks, label maps and images with a uniform surround are mostly
// such runs, and a byte-at-a-time loop over them is what their graders
// spent their time on. FirstOther and LastOther return len(p) and −1 when
// every byte equals the value. This is a speed helper with no reference
// library: its results are the plain loop's, checked by its tests.
package bytescan

import (
	"bytes"
	"encoding/binary"
	"math/bits"
)

// zeroBlock is how many zero bytes FirstOther and LastOther skip at a time
// when looking past zeros (the usual background): compared with
// bytes.Equal against zeros, whose runtime code is vectorised — about
// three times the word loop's speed on long zero runs.
const zeroBlock = 512

var zeros [zeroBlock]byte

// zeroPrefix is the length of the longest prefix of p made of whole
// zeroBlocks of zeros, or len(p) when p is all zeros.
func zeroPrefix(p []byte) int {
	i := 0
	for i+zeroBlock <= len(p) && bytes.Equal(p[i:i+zeroBlock], zeros[:]) {
		i += zeroBlock
	}
	if len(p)-i < zeroBlock && bytes.Equal(p[i:], zeros[:len(p)-i]) {
		return len(p)
	}
	return i
}

// zeroSuffix is zeroPrefix from the end: the length of the longest
// suffix of whole zeroBlocks of zeros, or len(p) when p is all zeros.
func zeroSuffix(p []byte) int {
	i := len(p)
	for i >= zeroBlock && bytes.Equal(p[i-zeroBlock:i], zeros[:]) {
		i -= zeroBlock
	}
	if i < zeroBlock && bytes.Equal(p[:i], zeros[:i]) {
		return len(p)
	}
	return len(p) - i
}

// FirstOther returns the index of the first byte of p other than v, len(p)
// if none. XOR with v in every byte leaves a zero byte exactly where p
// holds v.
func FirstOther(p []byte, v byte) int {
	fill := uint64(v) * 0x0101010101010101
	i := 0
	if v == 0 {
		if i = zeroPrefix(p); i == len(p) {
			return len(p)
		}
	}
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
	if v == 0 {
		z := zeroSuffix(p)
		if z == len(p) {
			return -1
		}
		i -= z
	}
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
