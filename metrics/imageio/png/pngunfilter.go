package png

import (
	"encoding/binary"
)

// The PNG filters' inverses for the fast 8-bit readers (pnggray8.go,
// pngluma8.go). Sub, Average and Paeth predict each byte from the
// reconstructed byte bpp to its left, so each channel (bytes c, c+bpp,
// c+2·bpp, …) is a chain. With one byte a pixel the chain's left byte is
// held in a register; with more, the bytes are taken in order in place,
// reading the left byte back from the row (the channels' chains then
// overlap: on RGB rows this measured faster than a pass per channel, whose
// chain runs alone, or than separate source and destination rows). Paeth chooses its predictor without branches (paethStep). Up has
// no chain and adds eight bytes at a time.

// unfilter reconstructs one row of bpp-byte pixels (PNG filter types 0–4)
// from its filtered bytes src into dst (len(dst) bytes; src may be dst
// itself, not otherwise overlap it), given the previous reconstructed row
// (nil for the first row, read as zeros). It reports false for an unknown
// filter type.
func unfilter(ft byte, dst, src, prev []byte, bpp int) bool {
	src = src[:len(dst)]
	if prev != nil {
		prev = prev[:len(dst)]
	}
	if bpp > 1 && len(dst) > 0 && &dst[0] != &src[0] && ft <= 4 {
		// The kernels for bpp > 1 work in place (see below).
		copy(dst, src)
		src = dst
	}
	switch ft {
	case 0:
		copy(dst, src)
	case 1:
		unfilterSub(dst, src, bpp)
	case 2:
		if prev == nil {
			copy(dst, src)
			break
		}
		unfilterUp(dst, src, prev)
	case 3:
		if prev == nil {
			unfilterAverageFirst(dst, src, bpp)
			break
		}
		unfilterAverage(dst, src, prev, bpp)
	case 4:
		if prev == nil {
			// Paeth with b = c = 0 predicts a: the Sub filter.
			unfilterSub(dst, src, bpp)
			break
		}
		unfilterPaeth(dst, src, prev, bpp)
	default:
		return false
	}
	return true
}

// Each of the kernels below has a loop for bpp = 1 (8-bit grey, the
// commonest: a range loop, without bounds checks) and one for more bytes a
// pixel, which works in place (src is dst) in the form the measurements
// favoured, and whose first pixel has no left neighbour (read as 0).

func unfilterSub(dst, src []byte, bpp int) {
	if bpp == 1 {
		dst = dst[:len(src)]
		var a byte
		for i, v := range src {
			a += v
			dst[i] = a
		}
		return
	}
	for i := bpp; i < len(dst); i++ {
		dst[i] += dst[i-bpp]
	}
}

// unfilterUp adds prev to src eight bytes at a time, each byte modulo 256:
// the low seven bits of each byte are added with the carries stopped at
// bit 7, whose sum bit is then the xor of the three.
func unfilterUp(dst, src, prev []byte) {
	const hi = 0x8080808080808080
	i := 0
	for ; i+8 <= len(dst); i += 8 {
		x := binary.LittleEndian.Uint64(src[i:])
		y := binary.LittleEndian.Uint64(prev[i:])
		binary.LittleEndian.PutUint64(dst[i:], (x&^hi+y&^hi)^((x^y)&hi))
	}
	for ; i < len(dst); i++ {
		dst[i] = src[i] + prev[i]
	}
}

// unfilterAverageFirst is Average on the first row: the byte above is 0.
func unfilterAverageFirst(dst, src []byte, bpp int) {
	if bpp == 1 {
		dst = dst[:len(src)]
		var a byte
		for i, v := range src {
			a = v + a>>1
			dst[i] = a
		}
		return
	}
	for i := bpp; i < len(dst); i++ {
		dst[i] += dst[i-bpp] >> 1
	}
}

func unfilterAverage(dst, src, prev []byte, bpp int) {
	if bpp == 1 {
		dst = dst[:len(src)]
		var a byte
		for i, v := range src {
			a = v + byte((uint(a)+uint(prev[i]))>>1)
			dst[i] = a
		}
		return
	}
	for i := 0; i < bpp && i < len(dst); i++ {
		dst[i] += prev[i] >> 1
	}
	for i := bpp; i < len(dst); i++ {
		dst[i] += byte((int(dst[i-bpp]) + int(prev[i])) / 2)
	}
}

func unfilterPaeth(dst, src, prev []byte, bpp int) {
	if bpp == 1 {
		dst = dst[:len(src)]
		var a, ul int
		for i, v := range src {
			b := int(prev[i])
			a = paethStep(a, b, ul, v)
			dst[i] = byte(a)
			ul = b
		}
		return
	}
	for i := 0; i < bpp && i < len(dst); i++ {
		dst[i] += prev[i] // a = c = 0: Paeth predicts b
	}
	for i := bpp; i < len(dst); i++ {
		dst[i] = byte(paethStep(int(dst[i-bpp]), int(prev[i]), int(prev[i-bpp]), dst[i]))
	}
}

// paethStep reconstructs one byte x of a Paeth-filtered row from its left
// (a), upper (b) and upper-left (ul) reconstructed neighbours. With
// p = a + b − ul, the predictor's distances |p − a|, |p − b|, |p − ul| are
// |b − ul|, |a − ul| and |(a − ul) + (b − ul)|; the choice (a on ties, then
// b) is made without branches: on noise the branches of the textbook form
// mispredict about every other byte, and Paeth rows took twice as long.
// Written to stay within the inliner's budget (a call costs more than the
// predictor).
func paethStep(a, b, ul int, x byte) int {
	da, db := a-ul, b-ul
	pb, pc := max(da, -da), max(da+db, -da-db)
	if pb <= pc {
		ul = b
	}
	if max(db, -db) <= min(pb, pc) {
		ul = a
	}
	return int(x + byte(ul))
}
